/*
 * The BTT engine: open (arena discovery, free-list reconstruction and
 * roll-forward recovery), atomic sector writes, reads, and formatting a new
 * BTT, on Linux's on-media format. FACTS-2 §1.3-1.7; UEFI 2.7 §6.6.
 * Every store goes through media_store*(): a flush-cache copy (or one
 * aligned store the CPU makes atomically), then the region's flush, so it
 * is durable before the next one starts (Linux's nsio_rw_bytes).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btt.h"
#include "mm.h"
#include "nd_util.h"
#include "persist.h"
#include "printk.h"

/* ---- media access ---- */

/* Make every store so far durable: fence, the DIMMs' flush hints, fence. */
static void media_flush(const struct btt_media *m)
{
	if (m->region)
		nd_region_flush(m->region);
	else
		arch_wmb_pmem();
}

/* Copy n bytes to namespace offset `off`, durable on return. */
static void media_store(const struct btt_media *m, u64 off, const void *src, size_t n,
			enum pmem_writer who)
{
	if (m->cpu_cache)
		memcpy(m->base + off, src, n);
	else
		arch_memcpy_flushcache(m->base + off, src, n);
	media_flush(m);
	pmem_written_add(who, n);
}

/*
 * One naturally aligned 4- or 8-byte store, which the CPU makes atomically
 * (a map entry; half a log entry), durable on return.
 */
static void media_store32(const struct btt_media *m, u64 off, u32 v)
{
	volatile u32 *p = (volatile u32 *)(m->base + off);

	*p = v;
	if (!m->cpu_cache)
		arch_flush_cache((const void *)p, sizeof(v));
	media_flush(m);
	pmem_written_add(PMEM_WR_BTT, sizeof(v));
}

static void media_store64(const struct btt_media *m, u64 off, u64 v)
{
	volatile u64 *p = (volatile u64 *)(m->base + off);

	*p = v;
	if (!m->cpu_cache)
		arch_flush_cache((const void *)p, sizeof(v));
	media_flush(m);
	pmem_written_add(PMEM_WR_BTT, sizeof(v));
}

static u32 media_load32(const struct btt_media *m, u64 off)
{
	return *(const volatile u32 *)(m->base + off);
}

/* Zero [off, off+n) with flush-cache copies and one flush at the end. */
static void media_zero(const struct btt_media *m, u64 off, u64 n)
{
	static const u8 zero[16 * KiB];

	for (u64 done = 0; done < n; done += sizeof(zero)) {
		u64 c = MIN(sizeof(zero), n - done);
		if (m->cpu_cache)
			memset(m->base + off + done, 0, c);
		else
			arch_memcpy_flushcache(m->base + off + done, zero, c);
	}
	media_flush(m);
	pmem_written_add(PMEM_WR_BTT, n);
}

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

static void log_read(const struct btt_media *m, const struct btt_arena *a, u32 lane,
		     struct btt_log_entry e[2])
{
	for (u32 s = 0; s < 2; s++)
		memcpy(&e[s], m->base + log_slot_off(a, lane, s), sizeof(e[s]));
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
static int walk_arenas(struct btt *b, const u8 parent[16], struct btt_arena *arenas, u32 *nr,
		       char *why, size_t n)
{
	u64 off = b->initial_offset, remaining = b->m.size - b->initial_offset, lba = 0;
	const char *w;

	for (*nr = 0;; (*nr)++) {
		const struct btt_sb *sb = (const void *)(b->m.base + off);
		struct btt_arena_geom g;

		if (*nr >= BTT_MAX_ARENAS)
			return fail(why, n, -EOPNOTSUPP, "more than %d arenas", BTT_MAX_ARENAS);
		if (remaining < BTT_INFO_SIZE)
			return fail(why, n, -EINVAL, "arena %u: no room for an info block", *nr);
		int err = btt_sb_identify(sb, parent, &w);
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
static void roll_forward(struct btt *b, struct btt_arena *a, u32 lane,
			 const struct btt_log_entry *e)
{
	u32 old = e->old_map & BTT_MAP_LBA_MASK, next = e->new_map & BTT_MAP_LBA_MASK;
	u64 lba = a->first_lba + e->lba;

	if (b->m.ro) {
		b->roll_forward_pending++;
		pr_warn("%s: arena %u lane %u: the write of LBA %llu was logged but not mapped; read-only, so not rolled forward: LBA %llu reads its old data\n",
			b->name, (u32)(a - b->arenas), lane, lba, lba);
		return;
	}
	media_store32(&b->m, map_off(a, e->lba), BTT_MAP_NORMAL | next);
	b->rolled_forward++;
	pr_warn("%s: repaired: arena %u lane %u: the write of LBA %llu was logged but not mapped; map[%u] %#x -> %#x (rolled forward, as Linux's start-up does)\n",
		b->name, (u32)(a - b->arenas), lane, lba, e->lba, old, next);
}

/* One lane of the free list from its newest log entry (FACTS-2 §1.6). */
static int lane_init(struct btt *b, struct btt_arena *a, u32 lane, u32 *free_block, char *why,
		     size_t n)
{
	struct btt_log_entry e[2];
	u32 ai = (u32)(a - b->arenas);

	log_read(&b->m, a, lane, e);
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
	 * Linux zeroes a free block whose old_map carries the error bit (media
	 * poison); pmemk has no poison list, and the block is rewritten whole
	 * before it is mapped again.
	 */
	if (old == next)
		return 0;	/* the lane's initial entry, or nothing pending */
	u32 cur = btt_map_block(media_load32(&b->m, map_off(a, E->lba)), E->lba);
	if (cur != next && cur == old)
		roll_forward(b, a, lane, E);
	return 0;
}

/* Padding scheme, free list, roll-forward; free blocks must be distinct. */
static int arena_init(struct btt *b, struct btt_arena *a, char *why, size_t n)
{
	const char *w;
	u32 ai = (u32)(a - b->arenas), nfree = a->g.nfree;

	if (btt_log_indices(b->m.base + a->base + a->g.logoff, nfree, a->log_index, &w))
		return fail(why, n, -EINVAL, "arena %u: %s", ai, w);
	u32 *blocks = malloc(nfree * sizeof(u32));
	if (!blocks)
		return fail(why, n, -ENOMEM, "no memory for the free list");
	int err = 0;
	for (u32 lane = 0; lane < nfree && !err; lane++)
		err = lane_init(b, a, lane, &blocks[lane], why, n);
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

int btt_open(struct btt *b, const struct btt_media *m, u64 info_off, const u8 parent_uuid[16],
	     const char *name, char *why, size_t why_len)
{
	u32 nr;

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
	int err = walk_arenas(b, parent_uuid, NULL, &nr, why, why_len);
	if (err)
		return err;
	b->arenas = calloc(nr, sizeof(*b->arenas));
	if (!b->arenas)
		return fail(why, why_len, -ENOMEM, "no memory for %u arenas", nr);
	err = walk_arenas(b, parent_uuid, b->arenas, &b->nr_arenas, why, why_len);
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

int btt_read(struct btt *b, u64 lba, void *buf)
{
	u32 premap;
	struct btt_arena *a = lba < b->nlba ? lba_arena(b, lba, &premap) : NULL;

	if (!a)
		return -ERANGE;
	u32 lane = lane_get(b);
	/*
	 * Publish the block in this lane's read tracking table, then re-read
	 * the map until it still names that block: from then on no writer
	 * takes the block as its next free one until the copy is done
	 * (FACTS-2 §1.7; a writer waits in wait_for_readers()).
	 */
	u32 entry = media_load32(&b->m, map_off(a, premap));
	for (;;) {
		__atomic_store_n(&b->rtt[lane], BTT_RTT_VALID | btt_map_block(entry, premap),
				 __ATOMIC_SEQ_CST);
		u32 again = media_load32(&b->m, map_off(a, premap));
		if (again == entry)
			break;
		entry = again;
	}
	int err = 0;
	u32 block = btt_map_block(entry, premap);
	switch (entry & BTT_MAP_NORMAL) {
	case BTT_MAP_Z:		/* trimmed: reads zeroes */
		memset(buf, 0, b->lbasize);
		break;
	case BTT_MAP_E:		/* error: reads fail until a write */
		err = -EIO;
		break;
	default:
		if (block >= a->g.internal_nlba)
			err = -EIO;	/* a corrupt map entry: never read outside the data area */
		else
			memcpy(buf, b->m.base + data_off(a, block), b->lbasize);
	}
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

/* Stop here if a test said so: the write ends as a crash would end it. */
#define STOP_AFTER(b, step)                                                                        \
	do {                                                                                       \
		if ((b)->stop_after == (step)) {                                                   \
			err = -EINTR;                                                              \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

int btt_write(struct btt *b, u64 lba, const void *buf)
{
	u32 premap;
	struct btt_arena *a = lba < b->nlba ? lba_arena(b, lba, &premap) : NULL;

	if (!a)
		return -ERANGE;
	if (b->m.ro)
		return -EROFS;
	if (a->flags & BTT_IB_FLAG_ERROR)
		return -EIO;
	int err = 0;
	u32 lane = lane_get(b);
	struct spinlock *ml = NULL;
	struct btt_free *f = &a->free[lane];
	u32 next = f->block;
	wait_for_readers(b, next);
	if (b->stop_after == BTT_STEP_DATA_HALF) {
		media_store(&b->m, data_off(a, next), buf, b->lbasize / 2, PMEM_WR_BLOCK);
		err = -EINTR;
		goto out;
	}
	media_store(&b->m, data_off(a, next), buf, b->lbasize, PMEM_WR_BLOCK);
	STOP_AFTER(b, BTT_STEP_DATA);

	/* Another lane may write the same sector: the map entry's lock from here to the map store. */
	ml = map_lock(b, a, premap);
	spin_lock(ml);
	u32 entry = media_load32(&b->m, map_off(a, premap));
	u32 old = btt_map_block(entry, premap);
	if (old >= a->g.internal_nlba) {
		err = -EIO;	/* corrupt map entry: log nothing */
		goto out;
	}
	if ((entry & BTT_MAP_NORMAL) == BTT_MAP_E)
		old |= BTT_MAP_E;	/* the log keeps the error bit, as Linux's does */
	/* The log entry: {lba, old_map}, then {new_map, seq} (seq last), FACTS-2 §1.5. */
	u64 slot = log_slot_off(a, lane, f->sub);
	media_store64(&b->m, slot, (u64)premap | (u64)old << 32);
	STOP_AFTER(b, BTT_STEP_LOG_HALF);
	media_store64(&b->m, slot + 8, (u64)next | (u64)f->seq << 32);
	STOP_AFTER(b, BTT_STEP_LOG);
	f->sub ^= 1;
	f->seq = btt_seq_next(f->seq);
	f->block = old & BTT_MAP_LBA_MASK;
	media_store32(&b->m, map_off(a, premap), BTT_MAP_NORMAL | next);
out:
	if (ml)
		spin_unlock(ml);
	lane_put(b, lane);
	return err;
}

/* ---- format ---- */

/* The log of a new arena: zeroed, then lane i's slot 0 = {i, ext + i, ext + i, 1}. */
static void log_init(const struct btt_media *m, u64 base, const struct btt_arena_geom *g)
{
	media_zero(m, base + g->logoff, g->info2off - g->logoff);
	for (u32 i = 0; i < g->nfree; i++) {
		u64 slot = base + g->logoff + (u64)i * BTT_LOG_GROUP;
		u32 block = g->external_nlba + i;
		media_store64(m, slot, (u64)i | (u64)block << 32);
		media_store64(m, slot + 8, (u64)block | 1ULL << 32);
	}
}

int btt_format(const struct btt_media *m, u64 info_off, u32 lbasize, const u8 uuid[16],
	       const u8 parent_uuid[16])
{
	static struct btt_sb sb;
	struct btt_arena_geom *arenas;
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
		const struct btt_arena_geom *g = &arenas[i];
		u64 base = info_off + g->off;

		media_zero(m, base + g->mapoff, g->logoff - g->mapoff);
		log_init(m, base, g);
		btt_sb_init(&sb, g, uuid, parent_uuid, info_off == BTT_V1_OFFSET ? 1 : 2,
			    info_off == BTT_V1_OFFSET ? 1 : 0);
		/* info2 first: a crash before the info block leaves no BTT, not half of one */
		media_store(m, base + g->info2off, &sb, sizeof(sb), PMEM_WR_BTT);
		media_store(m, base, &sb, sizeof(sb), PMEM_WR_BTT);
	}
	free(arenas);
	return err;
}
