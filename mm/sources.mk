portable-y += mm/memblock.c mm/page_alloc.c mm/pgtable.c mm/direct_map.c mm/paging.c
portable-y += mm/mm_alloc.c mm/page.c mm/sparse.c mm/vmemmap.c mm/altmap.c mm/memremap.c mm/memmap_defer.c mm/kmap.c
