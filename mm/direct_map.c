/* Adding ranges to and removing them from the kernel's direct map. */
#include <errno.h>

#include "direct_map.h"
#include "mm.h"
#include "memlayout.h"
#include "pgtable.h"

/* The first pa in [pa, end) whose direct-map state differs from `mapped` (end if none). */
static u64 scan(u64 pa, u64 end, bool mapped)
{
	return pgtable_scan(&kernel_pgtable, PAGE_OFFSET + pa, PAGE_OFFSET + end, mapped) -
	       PAGE_OFFSET;
}

static int direct_map_add_locked(u64 pa, u64 len)
{
	u64 start = ALIGN_DOWN(pa, PAGE_SIZE);
	u64 end = ALIGN_UP(pa + len, PAGE_SIZE);

	if (end < start || end > DIRECT_MAP_SIZE)
		return -EINVAL;
	/* Each maximal run of unmapped pages, mapped at once. */
	for (u64 a = scan(start, end, true), run; a < end; a = scan(run, end, true)) {
		run = scan(a, end, false);
		int err = pgtable_map(&kernel_pgtable, PAGE_OFFSET + a, pa_init(a), run - a,
				      PROT_KERNEL_RW);
		if (err)
			return err;
	}
	return 0;
}

int direct_map_add(u64 pa, u64 len)
{
	mm_lock();
	int err = direct_map_add_locked(pa, len);
	mm_unlock();
	return err;
}

int direct_map_remove(u64 pa, u64 len)
{
	if (!IS_ALIGNED(pa | len, PAGE_SIZE))
		return -EINVAL;
	mm_lock();
	int err = pgtable_unmap(&kernel_pgtable, PAGE_OFFSET + pa, len);
	mm_unlock();
	return err;
}

bool direct_map_covers(u64 pa, u64 len)
{
	u64 start = ALIGN_DOWN(pa, PAGE_SIZE), end = ALIGN_UP(pa + len, PAGE_SIZE);

	if (end < start || end > DIRECT_MAP_SIZE)
		return false;
	return scan(start, end, true) == end;
}
