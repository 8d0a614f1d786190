portable-y += mm/memblock.c mm/page_alloc.c mm/pgtable.c mm/direct_map.c
