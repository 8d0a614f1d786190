/*
 * The BTT engine: open (arena discovery, free-list reconstruction and
 * roll-forward recovery), atomic sector writes, reads, and formatting a new
 * BTT, on Linux's on-media format. FACTS-2 §1.3-1.7; UEFI 2.7 §6.6.
 * Every read and store goes through the namespace's media path (nsio.h):
 * each store (a copy, or one aligned store the CPU makes atomically) is
 * durable before the next one starts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "badblocks.h"
#include "btt.h"
#include "mm.h"
#include "nd_util.h"
#include "printk.h"

/* ---- where things are ---- */

static u64 map_off(const struct btt_arena *a, u32 premap)
{
	return a->base + a->g.mapoff + (u64)premap * 4;
}

static u64 data_off(const struct btt_arena *a, u32 block)
{
	return a->base + a->g.dataoff + (u64)block * a->g.internal_lbasize;
}

/* Lane `lane`'s slot `sub` (0 or 1 of the pair in use) in the log. */
static u64 log_slot_off(const struct btt_arena *a, u32 lane, u32 sub)
{
	return a->base + a->g.logoff + (u64)lane * BTT_LOG_GROUP +
	       a->log_index[sub] * sizeof(struct btt_log_entry);
}

static int log_read(const struct nsio *m, const struct btt_arena *a, u32 lane,
		    struct btt_log_entry e[2])
{
	int err = 0;

	for (u32 s = 0; s < 2 && !err; s++)
		err = nsio_read(m, log_slot_off(a, lane, s), &e[s], sizeof(e[s]));
	return err;
}

/* Arena `a`'s map entry for `premap`, loaded atomically. */
static int map_load(const struct btt *b, const struct btt_arena *a, u32 premap, u32 *entry)
{
	return nsio_load32(&b->m, map_off(a, premap), entry);
}

static int map_store(const struct btt *b, const struct btt_arena *a, u32 premap, u32 entry)
{
	return nsio_store32(&b->m, map_off(a, premap), entry, PMEM_WR_BTT);
}

int btt_log_indices_read(const struct nsio *m, u64 logoff, u32 nfree, u32 idx[2],
			 const char **why)
{
	u8 *log = malloc((u64)nfree * BTT_LOG_GROUP);

	if (!log) {
		*why = "no memory for a copy of the log";
		return -ENOMEM;
	}
	int err = nsio_read(m, logoff, log, (u64)nfree * BTT_LOG_GROUP);
	if (err)
		*why = "the log is unreadable";
	else if (btt_log_indices(log, nfree, idx, why))
		err = -EINVAL;
	free(log);
	return err;
}

/* The arena holding external LBA `lba` (< b->nlba), and its arena-relative premap. */
static struct btt_arena *lba_arena(struct btt *b, u64 lba, u32 *premap)
{
	for (u32 i = 0; i < b->nr_arenas; i++) {
		struct btt_arena *a = &b->arenas[i];
		if (lba < a->first_lba + a->g.external_nlba) {
			*premap = (u32)(lba - a->first_lba);
			return a;
		}
	}
	return NULL;
}

/* ---- media errors ---- */

static bool arena_writable(const struct btt_arena *a)
{
	return !(a->flags & BTT_IB_FLAG_ERROR) && !__atomic_load_n(&a->media_ro, __ATOMIC_ACQUIRE);
}

/*
 * Arena `a` takes no more writes, because of `what` over namespace bytes
 * [off, off + len) (Linux's arena error flag; kept in memory: nothing is
 * stored to say so). One line naming the bad sector, the first time.
 */
static void arena_read_only(struct btt *b, struct btt_arena *a, const char *what, u64 off, u64 len)
{
	u64 bad = off;

	if (__atomic_exchange_n(&a->media_ro, 1, __ATOMIC_ACQ_REL))
		return;
	nsio_first_bad(&b->m, off, len, &bad);
	pr_err("%s: arena %u: %s at sector %llu of the namespace: the arena is read-only (writes fail, reads of its other sectors go on)\n",
	       b->name, (u32)(a - b->arenas), what, bad >> BADBLOCK_SHIFT);
}

/* -EIO from the map or log at [off, off + len): the arena is read-only; err as it was. */
static int meta_error(struct btt *b, struct btt_arena *a, int err, const char *what, u64 off,
		      u64 len)
{
	if (err == -EIO)
		arena_read_only(b, a, what, off, len);
	return err;
}

/*
 * A free block must hold no bad sector before a write uses it: its whole
 * sectors are healed by zeroing the block (Linux's
 * arena_clear_freelist_error), one line. -EIO when a bad sector is one it
 * shares with a neighbouring block (sizes other than 512 and 4096), which
 * zeroing it would take from the neighbour: the block cannot be used.
 */
static int free_block_heal(struct btt *b, struct btt_arena *a, u32 block)
{
	u64 off = data_off(a, block), bad;

	if (!nsio_first_bad(&b->m, off, a->g.internal_lbasize, &bad))
		return 0;
	int err = nsio_zero(&b->m, off, a->g.internal_lbasize, PMEM_WR_BTT);
	if (!err)
		pr_info("%s: arena %u: free block %u had a bad sector (%llu of the namespace): zeroed, healed\n",
			b->name, (u32)(a - b->arenas), block, bad >> BADBLOCK_SHIFT);
	return err;
}

/* ---- open ---- */

static int fail(char *why, size_t n, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * Pass 1: walk the info blocks by nextoff, checking each, to count the
 * arenas; with `arenas` given, fill them too.
 */
static int walk_arenas(struct btt *b, const u8 parent[16], struct btt_sb *sb,
		       struct btt_arena *arenas, u32 *nr, char *why, size_t n)
{
	u64 off = b->initial_offset, remaining = b->m.size - b->initial_offset, lba = 0;
	const char *w;

	for (*nr = 0;; (*nr)++) {
		struct btt_arena_geom g;

		if (*nr >= BTT_MAX_ARENAS)
			return fail(why, n, -EOPNOTSUPP, "more than %d arenas", BTT_MAX_ARENAS);
		if (remaining < BTT_INFO_SIZE)
			return fail(why, n, -EINVAL, "arena %u: no room for an info block", *nr);
		int err = nsio_read(&b->m, off, sb, sizeof(*sb));
		u64 bad;
		if (err == -EIO && nsio_first_bad(&b->m, off, sizeof(*sb), &bad))
			return fail(why, n, -EIO,
				    "arena %u info block at %#llx: media error at sector %llu", *nr,
				    off, bad >> BADBLOCK_SHIFT);
		if (err)
			return fail(why, n, -EIO, "arena %u info block at %#llx: unreadable (error %d)",
				    *nr, off, err);
		err = btt_sb_identify(sb, parent, &w);
		if (!err)
			err = btt_sb_validate(sb, remaining, b->version_major, b->version_minor, &g,
					      &w);
		if (err)
			return fail(why, n, *nr ? -EINVAL : err, "arena %u info block at %#llx: %s",
				    *nr, off, w);
		if (*nr == 0) {
			memcpy(b->uuid, sb->uuid, 16);
			b->lbasize = g.external_lbasize;
		} else if (memcmp(sb->uuid, b->uuid, 16) || g.external_lbasize != b->lbasize) {
			return fail(why, n, -EINVAL,
				    "arena %u: uuid or sector size differs from arena 0", *nr);
		}
		if (arenas) {
			struct btt_arena *a = &arenas[*nr];
			a->base = off;
			a->g = g;
			a->g.off = off - b->initial_offset;
			a->first_lba = lba;
			a->flags = sb->flags;
		}
		lba += g.external_nlba;
		if (!g.nextoff)
			break;
		off += g.nextoff;
		remaining -= g.nextoff;
	}
	(*nr)++;
	b->nlba = lba;
	return 0;
}

static int cmp_u32(const void *x, const void *y)
{
	u32 a = *(const u32 *)x, b = *(const u32 *)y;

	return a < b ? -1 : a > b;
}

/*
 * A logged write whose map entry is still the old block: finish it, as
 * Linux's btt_freelist_init does (FACTS-2 §1.6). The only store an open
 * makes; one line says what was repaired.
 */
static int roll_forward(struct btt *b, struct btt_arena *a, u32 lane,
			const struct btt_log_entry *e)
{
	u32 old = e->old_map & BTT_MAP_LBA_MASK, next = e->new_map & BTT_MAP_LBA_MASK;
	u64 lba = a->first_lba + e->lba;

	if (b->m.ro) {
		b->roll_forward_pending++;
		pr_warn("%s: arena %u lane %u: the write of LBA %llu was logged but not mapped; read-only, so not rolled forward: LBA %llu reads its old data\n",
			b->name, (u32)(a - b->arenas), lane, lba, lba);
		return 0;
	}
	int err = map_store(b, a, e->lba, BTT_MAP_NORMAL | next);
	if (err)
		return meta_error(b, a, err, "a media error in its map", map_off(a, e->lba), 4);
	b->rolled_forward++;
	pr_warn("%s: repaired: arena %u lane %u: the write of LBA %llu was logged but not mapped; map[%u] %#x -> %#x (rolled forward, as Linux's start-up does)\n",
		b->name, (u32)(a - b->arenas), lane, lba, e->lba, old, next);
	return 0;
}

/* One lane of the free list from its newest log entry (FACTS-2 §1.6). */
static int lane_init(struct btt *b, struct btt_arena *a, u32 lane, u32 *free_block, char *why,
		     size_t n)
{
	struct btt_log_entry e[2];
	u32 ai = (u32)(a - b->arenas);
	int err = log_read(&b->m, a, lane, e);

	if (err)
		return meta_error(b, a, err, "a media error in its log",
				  a->base + a->g.logoff + (u64)lane * BTT_LOG_GROUP, BTT_LOG_GROUP);
	int newer = btt_log_newer(e[0].seq, e[1].seq);
	if (newer < 0)
		return fail(why, n, -EINVAL, "arena %u lane %u: log sequence numbers %u and %u", ai,
			    lane, e[0].seq, e[1].seq);
	const struct btt_log_entry *E = &e[newer];
	u32 old = E->old_map & BTT_MAP_LBA_MASK, next = E->new_map & BTT_MAP_LBA_MASK;
	if (E->lba >= a->g.external_nlba || old >= a->g.internal_nlba || next >= a->g.internal_nlba)
		return fail(why, n, -EINVAL,
			    "arena %u lane %u: log entry out of range (lba %u, old %u, new %u)", ai,
			    lane, E->lba, old, next);
	*free_block = old;
	if (lane < BTT_LANES)
		a->free[lane] = (struct btt_free){ .block = old,
						   .sub = 1 - (u32)newer,
						   .seq = btt_seq_next(E->seq) };
	/*
	 * Linux zeroes a free block whose old_map carries the error bit; here
	 * a free block is checked against the bad-block list when a write is
	 * about to use it (free_block_heal), so the open stores nothing for it.
	 */
	if (old == next)
		return 0;	/* the lane's initial entry, or nothing pending */
	u32 entry;
	err = map_load(b, a, E->lba, &entry);
	if (err)
		return meta_error(b, a, err, "a media error in its map", map_off(a, E->lba), 4);
	u32 cur = btt_map_block(entry, E->lba);
	return cur != next && cur == old ? roll_forward(b, a, lane, E) : 0;
}

/*
 * Known bad sectors (listed or poisoned) in the arena's map or log make it
 * read-only before anything is read from them; true then.
 */
static bool arena_meta_bad(struct btt *b, struct btt_arena *a)
{
	u64 map = a->base + a->g.mapoff, log = a->base + a->g.logoff, bad;

	if (nsio_first_bad(&b->m, map, (u64)a->g.external_nlba * 4, &bad))
		arena_read_only(b, a, "a media error in its map", bad, 1);
	else if (nsio_first_bad(&b->m, log, (u64)a->g.nfree * BTT_LOG_GROUP, &bad))
		arena_read_only(b, a, "a media error in its log", bad, 1);
	return a->media_ro;
}

/* Padding scheme, free list, roll-forward; free blocks must be distinct. */
static int arena_init(struct btt *b, struct btt_arena *a, char *why, size_t n)
{
	const char *w;
	u32 ai = (u32)(a - b->arenas), nfree = a->g.nfree;

	if (arena_meta_bad(b, a))
		return 0; /* read-only: no free list, no roll-forward (nothing will be written) */
	int err = btt_log_indices_read(&b->m, a->base + a->g.logoff, nfree, a->log_index, &w);

	/* A media error in the log or map: read-only, no free list (nothing will be written). */
	if (meta_error(b, a, err, "a media error in its log", a->base + a->g.logoff,
		       (u64)nfree * BTT_LOG_GROUP) == -EIO)
		return 0;
	if (err)
		return fail(why, n, err, "arena %u: %s", ai, w);
	u32 *blocks = malloc(nfree * sizeof(u32));
	if (!blocks)
		return fail(why, n, -ENOMEM, "no memory for the free list");
	for (u32 lane = 0; lane < nfree && !err; lane++)
		err = lane_init(b, a, lane, &blocks[lane], why, n);
	if (a->media_ro) { /* a media error in its log or map: no free list, nothing to write */
		free(blocks);
		return 0;
	}
	if (err && err != -EINVAL) /* the -EINVALs said why */
		err = fail(why, n, err,
			   "arena %u: its log or map cannot be read or stored (error %d)", ai, err);
	if (!err) {
		qsort(blocks, nfree, sizeof(u32), cmp_u32);
		for (u32 i = 1; i < nfree && !err; i++)
			if (blocks[i] == blocks[i - 1])
				err = fail(why, n, -EINVAL,
					   "arena %u: two lanes hold free block %u", ai, blocks[i]);
	}
	free(blocks);
	if (!err && (a->flags & BTT_IB_FLAG_ERROR))
		pr_warn("%s: arena %u is flagged as failed (info flags %#x): writes to it fail\n",
			b->name, ai, a->flags);
	return err;
}

/* nr_lanes from the arenas' nfree; the lane and map locks free. */
static void lanes_init(struct btt *b)
{
	b->nr_lanes = BTT_LANES;
	for (u32 i = 0; i < b->nr_arenas; i++)
		b->nr_lanes = MIN(b->nr_lanes, b->arenas[i].g.nfree);
	for (u32 i = 0; i < BTT_LANES; i++)
		b->lane_lock[i] = (struct spinlock)SPINLOCK_INIT("btt_lane", LOCK_RANK_BTT_LANE);
	for (u32 i = 0; i < BTT_MAP_LOCKS; i++)
		b->map_lock[i] = (struct spinlock)SPINLOCK_INIT("btt_map", LOCK_RANK_BTT_MAP);
}

/* Both passes over the info blocks: count the arenas, then fill them in. */
static int find_arenas(struct btt *b, const u8 parent[16], char *why, size_t why_len)
{
	struct btt_sb *sb = malloc(sizeof(*sb));
	u32 nr;

	if (!sb)
		return fail(why, why_len, -ENOMEM, "no memory for an info block");
	int err = walk_arenas(b, parent, sb, NULL, &nr, why, why_len);
	if (!err && !(b->arenas = calloc(nr, sizeof(*b->arenas))))
		err = fail(why, why_len, -ENOMEM, "no memory for %u arenas", nr);
	if (!err)
		err = walk_arenas(b, parent, sb, b->arenas, &b->nr_arenas, why, why_len);
	free(sb);
	return err;
}

int btt_open(struct btt *b, const struct nsio *m, u64 info_off, const u8 parent_uuid[16],
	     const char *name, char *why, size_t why_len)
{

	memset(b, 0, sizeof(*b));
	b->m = *m;
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->initial_offset = info_off;
	b->version_major = info_off == BTT_V1_OFFSET ? 1 : 2;
	b->version_minor = info_off == BTT_V1_OFFSET ? 1 : 0;
	if (info_off != BTT_V1_OFFSET && info_off != BTT_V2_OFFSET)
		return fail(why, why_len, -EINVAL, "a BTT starts at 0 or 4096, not %#llx",
			    info_off);
	if (m->size < info_off + BTT_ARENA_MIN)
		return fail(why, why_len, -ENODEV,
			    "namespace under 16 MiB after the initial offset");
	int err = find_arenas(b, parent_uuid, why, why_len);
	if (err) {
		btt_close(b);
		return err;
	}
	lanes_init(b);
	for (u32 i = 0; i < b->nr_arenas && !err; i++)
		err = arena_init(b, &b->arenas[i], why, why_len);
	if (err)
		btt_close(b);
	return err;
}

void btt_close(struct btt *b)
{
	free(b->arenas);
	b->arenas = NULL;
	b->nr_arenas = 0;
	b->nlba = 0;
}

/* ---- I/O ---- */

/* This CPU's lane, locked: for one sector read or write. */
static u32 lane_get(struct btt *b)
{
	u32 lane = arch_cpu_id() % b->nr_lanes;

	spin_lock(&b->lane_lock[lane]);
	return lane;
}

static void lane_put(struct btt *b, u32 lane)
{
	spin_unlock(&b->lane_lock[lane]);
}

/* The map lock of `premap`'s entry: one per 64-byte line of map, hashed. */
static struct spinlock *map_lock(struct btt *b, const struct btt_arena *a, u32 premap)
{
	u32 line = premap / 16 + (u32)(a - b->arenas);

	return &b->map_lock[line % BTT_MAP_LOCKS];
}

/*
 * Publish the block the map names for `premap` in this lane's read
 * tracking table, then re-read the map until it still names that block:
 * from then on no writer takes the block as its next free one until the
 * copy is done (FACTS-2 §1.7; a writer waits in wait_for_readers()).
 */
static int read_track(struct btt *b, const struct btt_arena *a, u32 premap, u32 lane, u32 *entry)
{
	u32 again;
	int err = map_load(b, a, premap, entry);

	while (!err) {
		__atomic_store_n(&b->rtt[lane], BTT_RTT_VALID | btt_map_block(*entry, premap),
				 __ATOMIC_SEQ_CST);
		err = map_load(b, a, premap, &again);
		if (err || again == *entry)
			break;
		*entry = again;
	}
	return err;
}

int btt_read(struct btt *b, u64 lba, void *buf)
{
	u32 premap, entry;
	struct btt_arena *a = lba < b->nlba ? lba_arena(b, lba, &premap) : NULL;

	if (!a)
		return -ERANGE;
	u32 lane = lane_get(b);
	int err = read_track(b, a, premap, lane, &entry);
	u32 block = btt_map_block(entry, premap);
	if (err)
		err = meta_error(b, a, -EIO, "a media error in its map", map_off(a, premap), 4);
	else if ((entry & BTT_MAP_NORMAL) == BTT_MAP_Z)
		memset(buf, 0, b->lbasize);	/* trimmed: reads zeroes */
	else if ((entry & BTT_MAP_NORMAL) == BTT_MAP_E)
		err = -EIO;	/* error: reads fail until a write */
	else if (block >= a->g.internal_nlba)
		err = -EIO;	/* a corrupt map entry: never read outside the data area */
	else /* a bad sector fails this LBA only; nothing is stored (Linux sets the E bit) */
		err = nsio_read(&b->m, data_off(a, block), buf, b->lbasize);
	__atomic_store_n(&b->rtt[lane], 0, __ATOMIC_RELEASE);
	lane_put(b, lane);
	return err;
}

/* Wait until no read in progress copies `block` (another lane's, published in the RTT). */
static void wait_for_readers(struct btt *b, u32 block)
{
	for (u32 i = 0; i < b->nr_lanes; i++)
		while (__atomic_load_n(&b->rtt[i], __ATOMIC_SEQ_CST) == (BTT_RTT_VALID | block))
			arch_cpu_relax();
}

/*
 * The log entry of a write of `next` over `old` for `premap`, in the
 * lane's free slot: {lba, old_map}, then {new_map, seq} (seq last),
 * FACTS-2 §1.5; then the lane's free block is the old one.
 */
static int write_log(struct btt *b, struct btt_arena *a, u32 lane, u32 premap, u32 old)
{
	struct btt_free *f = &a->free[lane];
	u64 slot = log_slot_off(a, lane, f->sub);
	int err = nsio_store64(&b->m, slot, (u64)premap | (u64)old << 32, PMEM_WR_BTT);

	if (err || b->stop_after == BTT_STEP_LOG_HALF)
		return err ? err : -EINTR;
	err = nsio_store64(&b->m, slot + 8, (u64)f->block | (u64)f->seq << 32, PMEM_WR_BTT);
	if (err || b->stop_after == BTT_STEP_LOG)
		return err ? err : -EINTR;
	f->sub ^= 1;
	f->seq = btt_seq_next(f->seq);
	f->block = old & BTT_MAP_LBA_MASK;
	return 0;
}

/*
 * Under the map entry's lock: log the write of `next` for `premap`, then
 * map it. A media error in either makes the arena read-only: after a log
 * entry whose map store failed, the lane's free block is still mapped.
 */
static int write_commit(struct btt *b, struct btt_arena *a, u32 lane, u32 premap, u32 next)
{
	u32 entry;
	int err = map_load(b, a, premap, &entry);
	u32 old = btt_map_block(entry, premap);

	if (err)
		return meta_error(b, a, -EIO, "a media error in its map", map_off(a, premap), 4);
	if (old >= a->g.internal_nlba)
		return -EIO; /* a corrupt map entry: log nothing */
	if ((entry & BTT_MAP_NORMAL) == BTT_MAP_E)
		old |= BTT_MAP_E;	/* the log keeps the error bit, as Linux's does */
	err = write_log(b, a, lane, premap, old);
	if (err)
		return meta_error(b, a, err, "a media error in its log",
				  log_slot_off(a, lane, a->free[lane].sub),
				  sizeof(struct btt_log_entry));
	err = map_store(b, a, premap, BTT_MAP_NORMAL | next);
	return meta_error(b, a, err, "a media error in its map", map_off(a, premap), 4);
}

/*
 * The block a write is about to fill: bad sectors in it healed first; one
 * that cannot be (shared with a neighbour) makes the arena read-only and
 * fails the write.
 */
static int write_target(struct btt *b, struct btt_arena *a, u32 block)
{
	int err = free_block_heal(b, a, block);
	char what[80];

	if (err == -EIO) {
		snprintf(what, sizeof(what), "free block %u, whose bad sector a neighbour shares,",
			 block);
		arena_read_only(b, a, what, data_off(a, block), a->g.internal_lbasize);
	}
	return err;
}

int btt_write(struct btt *b, u64 lba, const void *buf)
{
	u32 premap;
	struct btt_arena *a = lba < b->nlba ? lba_arena(b, lba, &premap) : NULL;

	if (!a)
		return -ERANGE;
	if (b->m.ro || !arena_writable(a))
		return -EROFS;
	u32 lane = lane_get(b), next = a->free[lane].block;
	bool half = b->stop_after == BTT_STEP_DATA_HALF;
	wait_for_readers(b, next);
	int err = write_target(b, a, next);
	if (!err)
		err = nsio_write(&b->m, data_off(a, next), buf, half ? b->lbasize / 2 : b->lbasize,
				 PMEM_WR_BLOCK);
	if (!err && (half || b->stop_after == BTT_STEP_DATA))
		err = -EINTR;	/* a test stops the write here, as a crash would */
	if (!err) {
		/* Another lane may write the same sector: its map entry's lock to the map store. */
		struct spinlock *ml = map_lock(b, a, premap);
		spin_lock(ml);
		err = write_commit(b, a, lane, premap, next);
		spin_unlock(ml);
	}
	if (!err) {
		/*
		 * The block the LBA left is this lane's free block now: if it
		 * was bad, heal it at once (a read that found it in the map
		 * before the store may still be copying it: wait for that).
		 * One that cannot be healed waits for write_target.
		 */
		u32 freed = a->free[lane].block;
		wait_for_readers(b, freed);
		(void)free_block_heal(b, a, freed);
	}
	lane_put(b, lane);
	return err;
}

/* ---- format ---- */

/* The log of a new arena: zeroed, then lane i's slot 0 = {i, ext + i, ext + i, 1}. */
static int log_init(const struct nsio *m, u64 base, const struct btt_arena_geom *g)
{
	int err = nsio_zero(m, base + g->logoff, g->info2off - g->logoff, PMEM_WR_BTT);

	for (u32 i = 0; i < g->nfree && !err; i++) {
		u64 slot = base + g->logoff + (u64)i * BTT_LOG_GROUP;
		u32 block = g->external_nlba + i;
		err = nsio_store64(m, slot, (u64)i | (u64)block << 32, PMEM_WR_BTT);
		if (!err)
			err = nsio_store64(m, slot + 8, (u64)block | 1ULL << 32, PMEM_WR_BTT);
	}
	return err;
}

/* One arena at namespace offset `base`: map, log, info2, then the info block. */
static int arena_format(const struct nsio *m, u64 base, const struct btt_arena_geom *g,
			struct btt_sb *sb)
{
	int err = nsio_zero(m, base + g->mapoff, g->logoff - g->mapoff, PMEM_WR_BTT);

	if (!err)
		err = log_init(m, base, g);
	/* info2 first: a crash before the info block leaves no BTT, not half of one */
	if (!err)
		err = nsio_write(m, base + g->info2off, sb, sizeof(*sb), PMEM_WR_BTT);
	return err ? err : nsio_write(m, base, sb, sizeof(*sb), PMEM_WR_BTT);
}

int btt_format(const struct nsio *m, u64 info_off, u32 lbasize, const u8 uuid[16],
	       const u8 parent_uuid[16])
{
	static struct btt_sb sb;
	struct btt_arena_geom *arenas;
	u16 major = info_off == BTT_V1_OFFSET ? 1 : 2, minor = info_off == BTT_V1_OFFSET ? 1 : 0;
	u32 nr;

	if (m->ro)
		return -EROFS;
	if (info_off != BTT_V1_OFFSET && info_off != BTT_V2_OFFSET)
		return -EINVAL;
	if (m->size < info_off + BTT_ARENA_MIN)
		return -ENOSPC;
	arenas = calloc(BTT_MAX_ARENAS, sizeof(*arenas));
	if (!arenas)
		return -ENOMEM;
	int err = btt_lay_out(m->size - info_off, lbasize, arenas, BTT_MAX_ARENAS, &nr);
	for (u32 i = 0; i < nr && !err; i++) {
		btt_sb_init(&sb, &arenas[i], uuid, parent_uuid, major, minor);
		err = arena_format(m, info_off + arenas[i].off, &arenas[i], &sb);
	}
	free(arenas);
	return err;
}
