/* Adding ranges to and removing them from the kernel's direct map. */
#include <errno.h>

#include "direct_map.h"
#include "mm.h"
#include "memlayout.h"
#include "pgtable.h"

/* Is va mapped? Either way, *extent_end is where that leaf or hole ends. */
static bool mapped(u64 va, u64 *extent_end)
{
	u64 pa, flags;
	enum pg_level level;
	bool ok = pgtable_walk(&kernel_pgtable, va, &pa, &flags, &level);

	*extent_end = ALIGN_DOWN(va, pg_level_size(level)) + pg_level_size(level);
	return ok;
}

static int direct_map_add_locked(u64 pa, u64 len)
{
	u64 start = ALIGN_DOWN(pa, PAGE_SIZE);
	u64 end = ALIGN_UP(pa + len, PAGE_SIZE);

	if (end < start || end > DIRECT_MAP_SIZE)
		return -EINVAL;
	/* Walk the range; map each maximal run of unmapped pages at once. */
	for (u64 a = start; a < end;) {
		u64 leaf_end;
		if (mapped(PAGE_OFFSET + a, &leaf_end)) {
			a = leaf_end - PAGE_OFFSET;
			continue;
		}
		u64 run = a;
		while (run < end && !mapped(PAGE_OFFSET + run, &leaf_end))
			run = MIN(leaf_end - PAGE_OFFSET, end);
		int err = pgtable_map(&kernel_pgtable, PAGE_OFFSET + a, pa_init(a), run - a,
				      PROT_KERNEL_RW);
		if (err)
			return err;
		a = run;
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
	u64 end = ALIGN_UP(pa + len, PAGE_SIZE);

	for (u64 a = ALIGN_DOWN(pa, PAGE_SIZE); a < end;) {
		u64 leaf_end;
		if (!mapped(PAGE_OFFSET + a, &leaf_end))
			return false;
		a = leaf_end - PAGE_OFFSET;
	}
	return true;
}
