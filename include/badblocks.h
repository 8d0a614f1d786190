/*
 * A list of bad 512-byte sectors (Linux's badblocks, one per region): the
 * sectors a machine check, the firmware's Address Range Scrub or an
 * injection found poisoned, kept as sorted, disjoint, non-adjacent extents.
 * Reads and direct access over a listed sector fail; a write that covers
 * whole listed sectors clears them.
 *
 * The list never forgets a bad sector: when it is full, a new extent is
 * merged with its nearest neighbour (the good sectors between them count
 * as bad until a write clears them), so a full list errs on the side of an
 * error reply, never of handing out poisoned data.
 *
 * Locking: each list has its own lock, which writers take; readers
 * (badblocks_check, on every read of a region with a bad sector) take
 * none: a sequence count, odd while a writer changes the list, makes them
 * read again (Linux's badblocks_check reads under a seqlock too).
 */
#ifndef PMEMK_BADBLOCKS_H
#define PMEMK_BADBLOCKS_H

#include "spinlock.h"
#include "types.h"

#define BADBLOCKS_MAX 64
#define BADBLOCK_SHIFT 9 /* 512-byte sectors, whatever the device's own */

struct bb_extent {
	u64 sector; /* first bad sector */
	u64 len; /* sectors, never 0 */
};

struct badblocks {
	struct spinlock lock;
	u32 count; /* extents in e[] (atomic for the lockless test) */
	u32 seq;   /* odd while a writer changes e[] (atomic) */
	struct bb_extent e[BADBLOCKS_MAX];
};

#define BADBLOCKS_INIT                                                                             \
	{                                                                                          \
		.lock = SPINLOCK_INIT("badblocks", LOCK_RANK_BADBLOCKS)                            \
	}

void badblocks_init(struct badblocks *bb);

/*
 * Mark [sector, sector + len) bad: merged with the extents it touches.
 * 0, or -EINVAL for an empty or wrapping range (nothing changes).
 */
int badblocks_set(struct badblocks *bb, u64 sector, u64 len);

/*
 * Mark [sector, sector + len) good again, splitting an extent it cuts in
 * two. 0; -EINVAL for an empty or wrapping range; -ENOSPC when a split
 * needs an extent the full list does not have (nothing changes: the range
 * stays bad).
 */
int badblocks_clear(struct badblocks *bb, u64 sector, u64 len);

/*
 * Does [sector, sector + len) hold a bad sector? If so, *first is the
 * first bad one in it and true is returned. Lock-free (the sequence count).
 */
bool badblocks_check(struct badblocks *bb, u64 sector, u64 len, u64 *first);

/*
 * The extents that meet [sector, sector + len), clipped to it and made
 * relative to `sector`: at most `max` into out; returns how many met it
 * (may exceed max). *sectors (may be NULL) gets the bad sectors in range.
 */
u32 badblocks_range(struct badblocks *bb, u64 sector, u64 len, struct bb_extent *out, u32 max,
		    u64 *sectors);

/* Extents in the list now (no lock: a snapshot). */
static inline u32 badblocks_count(const struct badblocks *bb)
{
	return __atomic_load_n(&bb->count, __ATOMIC_ACQUIRE);
}

#endif
