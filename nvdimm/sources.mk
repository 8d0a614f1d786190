portable-y += nvdimm/badblocks.c nvdimm/media_error.c nvdimm/media_error_cmds.c nvdimm/nsio.c nvdimm/pfn_info.c nvdimm/pfn_layout.c nvdimm/pfn_dev.c nvdimm/namespace_devs.c nvdimm/namespace_media.c nvdimm/pmem.c nvdimm/pfn_dev_cmds.c nvdimm/pmem_cmds.c nvdimm/create_param.c nvdimm/create_request.c \
	nvdimm/memremap_cmds.c nvdimm/memmap_cmds.c nvdimm/btt_layout.c nvdimm/btt.c nvdimm/btt_check.c nvdimm/btt_dev.c nvdimm/dax_dev.c nvdimm/dax_cmds.c
portable-y += nvdimm/bus.c nvdimm/region.c nvdimm/namespace.c nvdimm/namespace_metrics.c nvdimm/list.c nvdimm/label.c nvdimm/namespace_label.c
