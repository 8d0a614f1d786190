portable-y += nvdimm/pfn_info.c
portable-y += nvdimm/bus.c nvdimm/region.c nvdimm/namespace.c nvdimm/list.c
