portable-y += nvdimm/pfn_info.c
