/* RAM for mm's own metadata: allocation wrappers, the fail-Nth hook, meminfo counters. */
#include <string.h>

#include "arch.h"
#include "mm.h"
#include "page_alloc.h"
#include "spinlock.h"

static u64 stats[MM_NR_STATS];
u64 mm_fail_nth;
u64 mm_fail_hits;

u64 mm_stat(enum mm_stat_item item)
{
	return item < MM_NR_STATS ? __atomic_load_n(&stats[item], __ATOMIC_RELAXED) : 0;
}

void mm_stat_add(enum mm_stat_item item, s64 bytes)
{
	if (item < MM_NR_STATS)
		__atomic_fetch_add(&stats[item], (u64)bytes, __ATOMIC_RELAXED);
}

/* include/spinlock.h's LOCK_RANK_MM. */
static struct rlock mm_rlock = RLOCK_INIT("mm", LOCK_RANK_MM);

void mm_lock(void)
{
	rlock_lock(&mm_rlock);
}

void mm_unlock(void)
{
	rlock_unlock(&mm_rlock);
}

void mm_stats_reset(void)
{
	memset(stats, 0, sizeof(stats));
	mm_fail_nth = mm_fail_hits = 0;
}

bool mm_alloc_should_fail(void)
{
	if (!mm_fail_nth || --mm_fail_nth)
		return false;
	mm_fail_hits++;
	return true;
}

u64 mm_alloc_pages(unsigned int order, bool zero, enum mm_stat_item item)
{
	u64 pa;

	if (mm_alloc_should_fail())
		return 0;
	pa = page_alloc(order);
	if (!pa)
		return 0;
	if (zero)
		memset(phys_to_virt(pa), 0, PAGE_SIZE << order);
	mm_stat_add(item, (s64)(PAGE_SIZE << order));
	return pa;
}

void mm_free_pages(u64 pa, unsigned int order, enum mm_stat_item item)
{
	page_free(pa, order);
	mm_stat_add(item, -(s64)(PAGE_SIZE << order));
}
