portable-y += mm/memblock.c mm/page_alloc.c
