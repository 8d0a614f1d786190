/*
 * What the nvdimm core asks of mm/ when a region is published
 * (sparse_reserve_range), for the fuzzers that link the core without mm/:
 * the range is checked as the real one checks it, and an empty or
 * wrapping range from a region that passed validation aborts the run.
 * The media path's counters (mm/page.c) come along.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "mm.h"
#include "sparse.h"

u64 pmem_written[PMEM_WR_NR];

int sparse_reserve_range(u64 start_pfn, u64 nr_pages)
{
	if (!nr_pages || start_pfn + nr_pages < start_pfn) {
		fprintf(stderr, "invariant broken: a published region reserves pfns [%#llx, +%#llx)\n",
			start_pfn, nr_pages);
		abort();
	}
	return start_pfn + nr_pages > MAX_PFN ? -EINVAL : 0;
}
