/* The bad-sector list (badblocks.h): sorted, disjoint, non-adjacent extents. */
#include <errno.h>
#include <string.h>

#include "badblocks.h"

void badblocks_init(struct badblocks *bb)
{
	*bb = (struct badblocks)BADBLOCKS_INIT;
}

static u64 ext_end(const struct bb_extent *x)
{
	return x->sector + x->len;
}

static bool bad_range(u64 sector, u64 len)
{
	return !len || sector + len < sector;
}

/* Under the lock: publish the new count for the lockless readers. */
static void set_count(struct badblocks *bb, u32 n)
{
	__atomic_store_n(&bb->count, n, __ATOMIC_RELEASE);
}

/* Under the lock: remove extent i. */
static void remove_at(struct badblocks *bb, u32 i)
{
	memmove(&bb->e[i], &bb->e[i + 1], (bb->count - i - 1) * sizeof(bb->e[0]));
	set_count(bb, bb->count - 1);
}

/* Under the lock: insert x at i (room is there). */
static void insert_at(struct badblocks *bb, u32 i, struct bb_extent x)
{
	memmove(&bb->e[i + 1], &bb->e[i], (bb->count - i) * sizeof(bb->e[0]));
	bb->e[i] = x;
	set_count(bb, bb->count + 1);
}

/* Under the lock: the first extent that ends at or after `sector` (count if none). */
static u32 first_reaching(const struct badblocks *bb, u64 sector)
{
	u32 i = 0;

	while (i < bb->count && ext_end(&bb->e[i]) < sector)
		i++;
	return i;
}

/*
 * Under the lock, the list full: grow the neighbour nearest to x over it
 * (the sectors between count as bad: the list never forgets one). i is
 * where x would go; x touches neither neighbour.
 */
static void absorb_into_nearest(struct badblocks *bb, u32 i, struct bb_extent x)
{
	u64 gap_before = i ? x.sector - ext_end(&bb->e[i - 1]) : ~0ull;
	u64 gap_after = i < bb->count ? bb->e[i].sector - ext_end(&x) : ~0ull;

	if (gap_before <= gap_after) {
		bb->e[i - 1].len = ext_end(&x) - bb->e[i - 1].sector;
		return;
	}
	bb->e[i].len = ext_end(&bb->e[i]) - x.sector;
	bb->e[i].sector = x.sector;
}

int badblocks_set(struct badblocks *bb, u64 sector, u64 len)
{
	if (bad_range(sector, len))
		return -EINVAL;
	struct bb_extent x = { sector, len };

	spin_lock(&bb->lock);
	u32 i = first_reaching(bb, sector);
	/* Swallow every extent x touches or overlaps (adjacent ones too). */
	while (i < bb->count && bb->e[i].sector <= ext_end(&x)) {
		u64 end = MAX(ext_end(&x), ext_end(&bb->e[i]));
		x.sector = MIN(x.sector, bb->e[i].sector);
		x.len = end - x.sector;
		remove_at(bb, i);
	}
	if (bb->count < BADBLOCKS_MAX)
		insert_at(bb, i, x);
	else
		absorb_into_nearest(bb, i, x);
	spin_unlock(&bb->lock);
	return 0;
}

int badblocks_clear(struct badblocks *bb, u64 sector, u64 len)
{
	if (bad_range(sector, len))
		return -EINVAL;
	u64 end = sector + len;
	int err = 0;

	spin_lock(&bb->lock);
	u32 i = first_reaching(bb, sector + 1);
	/* An extent strictly around the range splits in two: it needs a slot. */
	if (i < bb->count && bb->e[i].sector < sector && ext_end(&bb->e[i]) > end) {
		if (bb->count == BADBLOCKS_MAX) {
			err = -ENOSPC;
			goto out;
		}
		struct bb_extent tail = { end, ext_end(&bb->e[i]) - end };
		bb->e[i].len = sector - bb->e[i].sector;
		insert_at(bb, i + 1, tail);
		goto out;
	}
	while (i < bb->count && bb->e[i].sector < end) {
		struct bb_extent *x = &bb->e[i];
		u64 x_end = ext_end(x);
		if (x->sector < sector) { /* keep its head */
			x->len = sector - x->sector;
			i++;
		} else if (x_end > end) { /* keep its tail */
			x->len = x_end - end;
			x->sector = end;
			i++;
		} else {
			remove_at(bb, i);
		}
	}
out:
	spin_unlock(&bb->lock);
	return err;
}

bool badblocks_check(struct badblocks *bb, u64 sector, u64 len, u64 *first)
{
	bool bad = false;

	if (!badblocks_count(bb) || bad_range(sector, len))
		return false;
	spin_lock(&bb->lock);
	u32 i = first_reaching(bb, sector + 1);
	if (i < bb->count && bb->e[i].sector < sector + len) {
		*first = MAX(bb->e[i].sector, sector);
		bad = true;
	}
	spin_unlock(&bb->lock);
	return bad;
}

u32 badblocks_range(struct badblocks *bb, u64 sector, u64 len, struct bb_extent *out, u32 max,
		    u64 *sectors)
{
	u64 end = sector + len, total = 0;
	u32 n = 0;

	if (sectors)
		*sectors = 0;
	if (bad_range(sector, len))
		return 0;
	spin_lock(&bb->lock);
	for (u32 i = first_reaching(bb, sector + 1); i < bb->count && bb->e[i].sector < end; i++) {
		u64 s = MAX(bb->e[i].sector, sector), e = MIN(ext_end(&bb->e[i]), end);
		if (n < max)
			out[n] = (struct bb_extent){ s - sector, e - s };
		n++;
		total += e - s;
	}
	spin_unlock(&bb->lock);
	if (sectors)
		*sectors = total;
	return n;
}
