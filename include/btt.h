/*
 * The BTT engine: a namespace's bytes as sectors that are written
 * atomically, on Linux's on-media format (btt_layout.h; FACTS-2 §1.5-1.7;
 * UEFI 2.7 §6.6). Opening one finds its arenas, checks every field, picks
 * the log's padding scheme and rebuilds the free list from the log, rolling
 * a logged-but-unmapped write forward as Linux's start-up does (the only
 * store an open makes, one line each). A write goes to the lane's free
 * block, then the log entry, then the map entry, each made durable before
 * the next. Lanes are per CPU (Linux's nd_region lanes): a write takes its
 * CPU's lane and that lane's free block, and the map lock of its sector;
 * a read publishes the block it reads in its lane's read tracking table so
 * no writer reuses that block meanwhile (FACTS-2 §1.7).
 *
 * Media errors (media_error.h), as Linux's btt: a bad sector in a data
 * block fails the reads of the one LBA mapped to it (-EIO, nothing
 * stored); a write of that LBA goes to the lane's free block as always,
 * and the bad block it leaves is zeroed at once, which heals its sectors
 * (Linux's arena_clear_freelist_error); a free block found bad before a
 * write uses it is healed the same way first. Blocks of sectors other than
 * 512 and 4096 bytes do not start on a 512-byte boundary: a bad sector a
 * free block shares with its neighbour cannot be zeroed without losing the
 * neighbour's bytes, so the write that needs it fails with -EIO and the
 * arena turns read-only (one line). A media error in an arena's
 * map or log (a read or store of them failing with -EIO, at open or
 * later) makes that arena read-only with one line, as Linux's arena error
 * flag does: its writes fail with -EROFS, the reads of its other sectors
 * go on, and nothing is stored to mark it (the flag lives in memory).
 * Every read and store goes through the namespace's media path (nsio.h),
 * so host tests can run the engine over any buffer.
 */
#ifndef PMEMK_BTT_H
#define PMEMK_BTT_H

#include "btt_layout.h"
#include "arch.h"
#include "nsio.h"
#include "nvdimm.h"
#include "spinlock.h"
#include "types.h"

/*
 * Lanes: one per CPU, at most every arena's nfree (Linux: min(CPUs, 256)).
 * CPU c uses lane c % nr_lanes, so with more CPUs than lanes two share one
 * and its lock serialises them.
 */
#define BTT_LANES ARCH_MAX_CPUS
/* Map locks, chosen by the map entry's cache line (Linux: nfree of them). */
#define BTT_MAP_LOCKS 64

/* A lane's next free block and the log slot its next write uses. */
struct btt_free {
	u32 block;	/* post-map block number, flags stripped */
	u32 sub;	/* 0 or 1: which of the two slots in use (log_index) */
	u32 seq;	/* the sequence number the next entry carries */
};

struct btt_arena {
	u64 base;			/* namespace offset of the info block */
	struct btt_arena_geom g;	/* areas relative to base */
	u64 first_lba;			/* external LBA of the arena's first sector */
	u32 flags;			/* the info block's; BTT_IB_FLAG_ERROR: no writes */
	/* 1 after a media error in its map or log: no writes either (atomic). */
	u32 media_ro;
	u32 log_index[2];		/* slots in use: {0,1} or {0,2} */
	struct btt_free free[BTT_LANES];
};

/* Where a write stops when a test says so (struct btt.stop_after): as a crash there would. */
enum btt_write_step {
	BTT_STEP_NONE = 0,
	BTT_STEP_DATA_HALF,	/* half of the data block stored */
	BTT_STEP_DATA,		/* the data block stored */
	BTT_STEP_LOG_HALF,	/* {lba, old_map} of the log entry */
	BTT_STEP_LOG,		/* {new_map, seq}: the entry complete */
	BTT_STEP_MAP,		/* the map entry: the write is done */
};

struct btt {
	struct nsio m;			/* the namespace's media */
	char name[16];			/* for messages: bttN.0 */
	u64 initial_offset;		/* 4096 (BTT 1.1) or 0 (2.0) */
	u8 uuid[16];
	u16 version_major, version_minor;
	u32 lbasize;			/* external sector size */
	u64 nlba;			/* sectors exported */
	u32 nr_arenas;
	struct btt_arena *arenas;	/* nr_arenas, allocated by btt_open */
	u32 rolled_forward;		/* map entries the open rewrote */
	u32 roll_forward_pending;	/* ... or would have, on a read-only region */
	enum btt_write_step stop_after;	/* tests: writes stop after this step */
	u32 nr_lanes;			/* min(BTT_LANES, every arena's nfree) */
	struct spinlock lane_lock[BTT_LANES];
	struct spinlock map_lock[BTT_MAP_LOCKS];
	/* Per lane: the block a read is copying, | BTT_RTT_VALID, else 0 (atomic). */
	u32 rtt[BTT_LANES];
};

#define BTT_RTT_VALID (1u << 31)

/*
 * Open the BTT whose first info block is at `info_off` (4096: must be
 * version 1.1; 0: 2.0) of namespace `m`, whose uuid is `parent_uuid` (all
 * zero for label-less). Reads and checks every arena's info block and log;
 * rebuilds the free list; rolls forward map entries whose write was logged
 * but not mapped (a line each; on a read-only medium it only says so and
 * reads keep the old data). A media error in an arena's log or map leaves
 * that arena read-only (one line; its pending roll-forwards are not made,
 * so those LBAs read their old data) and the open succeeds. -ENODEV when
 * there is no BTT there, -EINVAL / -EOPNOTSUPP for one with bad metadata,
 * -EIO for an info block on a bad sector, -ENOMEM; then `why` holds one
 * line and nothing was stored. btt_close() releases it.
 */
__must_check int btt_open(struct btt *b, const struct nsio *m, u64 info_off, const u8 parent_uuid[16],
	     const char *name, char *why, size_t why_len);
void btt_close(struct btt *b);

/*
 * One sector: LBA `lba` (< b->nlba) into or from `buf` (b->lbasize bytes).
 * A read of a never-written sector gives its initial mapping's block
 * (zeroes on a fresh BTT), of a Z entry zeroes, of an E entry -EIO, of a
 * block or map entry on a bad sector -EIO (a bad map entry also makes the
 * arena read-only). A write is atomic and durable on return: -EROFS on a
 * read-only medium or in a read-only arena (flagged as failed in its info
 * block, or after a media error in its map or log), -EIO when its own map
 * entry or log slot is on a bad sector (the arena is read-only after),
 * -EINTR when stopped by stop_after (tests). -ERANGE past the end.
 */
__must_check int btt_read(struct btt *b, u64 lba, void *buf);
__must_check int btt_write(struct btt *b, u64 lba, const void *buf);

/*
 * Write a new BTT over namespace `m` as Linux does (FACTS-2 §1.3): per
 * arena the map zeroed, the log zeroed and initialised (lane i: slot 0 =
 * {i, external_nlba + i, external_nlba + i, 1}), info2, then info. Arenas
 * from btt_lay_out(m->size - info_off, lbasize). Each store durable.
 * -ENOSPC (namespace under 16 MiB + info_off), -EINVAL, -EROFS.
 */
__must_check int btt_format(const struct nsio *m, u64 info_off, u32 lbasize, const u8 uuid[16],
	       const u8 parent_uuid[16]);

/*
 * btt_log_indices (btt_layout.h) over the log of an arena at namespace
 * offset `logoff`, read from m: -EINVAL with *why for a log whose padding
 * scheme is unknown, -EIO or -ENOMEM with *why when it cannot be read.
 */
int btt_log_indices_read(const struct nsio *m, u64 logoff, u32 nfree, u32 idx[2],
			 const char **why);

/*
 * ndctl check-namespace on the BTT of namespace `m` (FACTS-2 §1.8): find
 * the info block (4096 then 0; else recover it from an info2), then per
 * arena the metadata rules, log sequence numbers and ranges, every map
 * entry, log against map, info2 against info, and that map and free
 * blocks name every internal block exactly once. Prints one line per
 * finding, prefixed with `name`. With `repair` it writes what ndctl's
 * --repair writes: the info block from info2, map entries the log says
 * are stale, info2 from info (a whole info block written over a bad
 * sector heals it). Map or log entries on a bad sector are a finding it
 * names by sector and never repairs: nothing is stored over them or
 * decided from them. Returns 0 when clean (or everything found was
 * repaired), -ENXIO when no BTT is there, -EBADMSG when it is not clean,
 * -ENOMEM (the bitmap: one bit per internal block).
 */
int btt_check(const struct nsio *m, const u8 parent_uuid[16], const char *name, bool repair);

#endif
