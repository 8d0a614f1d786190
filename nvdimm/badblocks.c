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

/* Under the lock, around every change: readers that overlap one read again. */
static void write_begin(struct badblocks *bb)
{
	__atomic_store_n(&bb->seq, bb->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE); /* the odd count before any change */
}

static void write_end(struct badblocks *bb)
{
	__atomic_store_n(&bb->seq, bb->seq + 1, __ATOMIC_RELEASE); /* every change before it */
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
	write_begin(bb);
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
	write_end(bb);
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
	write_begin(bb);
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
	write_end(bb);
	spin_unlock(&bb->lock);
	return err;
}

/* One pass of a lockless reader: the first bad sector of the range, as the list looked. */
static bool check_pass(const struct badblocks *bb, u64 sector, u64 len, u64 *first)
{
	u32 n = MIN(__atomic_load_n(&bb->count, __ATOMIC_RELAXED), (u32)BADBLOCKS_MAX);

	for (u32 i = 0; i < n; i++) {
		u64 s = __atomic_load_n(&bb->e[i].sector, __ATOMIC_RELAXED);
		u64 l = __atomic_load_n(&bb->e[i].len, __ATOMIC_RELAXED);
		if (s >= sector + len)
			return false; /* sorted: nothing further meets the range */
		if (s + l > sector) {
			*first = MAX(s, sector);
			return true;
		}
	}
	return false;
}

bool badblocks_check(struct badblocks *bb, u64 sector, u64 len, u64 *first)
{
	if (!badblocks_count(bb) || bad_range(sector, len))
		return false;
	for (;;) {
		u32 seq = __atomic_load_n(&bb->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue; /* a writer is in the middle of a change */
		u64 at = 0;
		bool bad = check_pass(bb, sector, len, &at);
		__atomic_thread_fence(__ATOMIC_ACQUIRE); /* the pass's loads before the re-read */
		if (__atomic_load_n(&bb->seq, __ATOMIC_RELAXED) == seq) {
			if (bad)
				*first = at;
			return bad;
		}
	}
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
