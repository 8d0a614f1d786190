/*
 * check-namespace for the BTT: ndctl's checks (ndctl/check.c, FACTS-2 §1.8)
 * over a namespace's media, reading only unless asked to repair: find the
 * info block (or recover it from info2), then per arena the metadata
 * rules, the log, every map entry, log against map, info2 against info,
 * and that the map and the free list name each internal block once. Map
 * and log entries on a bad sector (media_error.h) are reported by sector
 * and never repaired.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "badblocks.h"
#include "btt.h"
#include "mm.h"
#include "nd_util.h"
#include "printk.h"

struct check {
	const struct nsio *m;
	struct btt_sb *sb;	/* the arena's info block, as read (or recovered) */
	struct btt_sb *other;	/* another one read for a comparison */
	const char *name;
	const u8 *parent;
	bool repair;
	u32 errors;		/* findings left as they are */
	u32 repaired;
	u16 major, minor;
};

#define say(c, fmt, ...) kprintf("%s: " fmt "\n", (c)->name, ##__VA_ARGS__)

/* A finding: repaired when allowed (by `fix`, which stores), else counted. */
static void finding(struct check *c, bool can_fix)
{
	if (c->repair && can_fix) {
		c->repaired++;
		return;
	}
	c->errors++;
	if (can_fix)
		say(c, "  Run with --repair to make the changes");
}

/* A durable store of repaired metadata (the media path, as the engine's); false if it failed. */
static bool repair_store(struct check *c, u64 off, const void *src, size_t n)
{
	int err = nsio_write(c->m, off, src, n, PMEM_WR_BTT);

	if (err)
		say(c, "  the repair at %#llx could not be stored (error %d)", off, err);
	return !err;
}

/* Is a BTT info block of version major.minor at `off`? It is read into *sb. */
static bool sb_ok(const struct check *c, u64 off, u16 major, u16 minor, struct btt_sb *sb)
{
	const char *why;

	return !nsio_read(c->m, off, sb, sizeof(*sb)) && !btt_sb_identify(sb, c->parent, &why) &&
	       sb->version_major == major && sb->version_minor == minor;
}

/* Where an arena starting `remaining` bytes before the end keeps info2: its last 4 KiB. */
static u64 info2_guess(u64 off, u64 remaining)
{
	return off + ALIGN_DOWN(MIN(remaining, BTT_ARENA_MAX), BTT_PAGE) - BTT_INFO_SIZE;
}

/*
 * The info block of the arena at `off` into c->sb: the primary
 * (*primary_ok), or else info2 where Linux puts it (written back with
 * --repair).
 */
static int load_info(struct check *c, u32 ai, u64 off, u64 remaining, bool *primary_ok)
{
	*primary_ok = sb_ok(c, off, c->major, c->minor, c->sb);
	if (*primary_ok)
		return 0;
	u64 alt = info2_guess(off, remaining);
	if (remaining < BTT_ARENA_MIN || !sb_ok(c, alt, c->major, c->minor, c->sb)) {
		say(c, "arena %u: no valid info block at %#llx, nor an info2 at %#llx", ai, off,
		    alt);
		c->errors++;
		return -ENXIO;
	}
	u64 bad;
	if (nsio_first_bad(c->m, off, BTT_INFO_SIZE, &bad))
		say(c,
		    "arena %u: info block at %#llx: media error at sector %llu of the namespace; info2 at %#llx is intact (a repair rewrites the whole block, which heals the sector)",
		    ai, off, bad >> BADBLOCK_SHIFT, alt);
	else
		say(c, "arena %u: info block at %#llx is damaged; info2 at %#llx is intact", ai,
		    off, alt);
	if (c->repair && repair_store(c, off, c->sb, BTT_INFO_SIZE)) {
		say(c, "arena %u: repaired: info block restored from info2", ai);
		*primary_ok = true;	/* it is the primary now */
	}
	finding(c, true);
	return 0;
}

/* ndctl's metadata rules beyond what the engine needs (FACTS-2 §1.8). */
static void check_meta(struct check *c, u32 ai, const struct btt_sb *sb)
{
	if (sb->internal_nlba - sb->external_nlba != sb->nfree) {
		say(c, "arena %u: internal_nlba %u - external_nlba %u != nfree %u", ai,
		    sb->internal_nlba, sb->external_nlba, sb->nfree);
		finding(c, false);
	}
	if (sb->internal_lbasize != sb->external_lbasize) {
		say(c,
		    "arena %u: internal_lbasize %u != external_lbasize %u (ndctl refuses this BTT)",
		    ai, sb->internal_lbasize, sb->external_lbasize);
		finding(c, false);
	}
	if (sb->flags & BTT_IB_FLAG_ERROR) {
		say(c, "arena %u: info block flags %#x: the arena is marked failed", ai, sb->flags);
		finding(c, false);
	}
}

struct arena_view {
	u32 ai;
	u64 base;
	struct btt_arena_geom g;
	u32 idx[2];
};

/*
 * Metadata on a bad sector: a finding no repair can make (the rest of the
 * sector's entries are lost with it, and a store of one entry covers the
 * sector only in part), named by the sector of the namespace.
 */
static void media_finding(struct check *c, const struct arena_view *v, const char *what, u64 off,
			  u64 len)
{
	u64 bad = off;

	nsio_first_bad(c->m, off, len, &bad);
	say(c,
	    "arena %u: %s: media error at sector %llu of the namespace (not repairable: the engine keeps the arena read-only)",
	    v->ai, what, bad >> BADBLOCK_SHIFT);
	finding(c, false);
}

/* Map entry `premap` into *entry; false (nothing said) when it cannot be read. */
static bool map_entry(const struct check *c, const struct arena_view *v, u32 premap, u32 *entry)
{
	return !nsio_load32(c->m, v->base + v->g.mapoff + (u64)premap * 4, entry);
}

/* Lane `lane`'s newest entry, if the pair is sound and in range (check (a)). */
static bool lane_newest(struct check *c, const struct arena_view *v, u32 lane,
			struct btt_log_entry *e)
{
	struct btt_log_entry s[2];
	u64 grp = v->base + v->g.logoff + (u64)lane * BTT_LOG_GROUP;

	for (u32 k = 0; k < 2; k++) {
		if (nsio_read(c->m, grp + v->idx[k] * sizeof(s[k]), &s[k], sizeof(s[k]))) {
			char what[32];
			snprintf(what, sizeof(what), "log group %u", lane);
			media_finding(c, v, what, grp, BTT_LOG_GROUP);
			return false;
		}
	}
	int newer = btt_log_newer(s[0].seq, s[1].seq);
	if (newer < 0) {
		say(c, "arena %u: log group %u: sequence numbers %u and %u are not a valid pair",
		    v->ai, lane, s[0].seq, s[1].seq);
		return false;
	}
	*e = s[newer];
	if (e->lba >= v->g.external_nlba || (e->old_map & BTT_MAP_LBA_MASK) >= v->g.internal_nlba ||
	    (e->new_map & BTT_MAP_LBA_MASK) >= v->g.internal_nlba) {
		say(c,
		    "arena %u: log group %u: entry out of range (lba %#x, old_map %#x, new_map %#x)",
		    v->ai, lane, e->lba, e->old_map, e->new_map);
		return false;
	}
	return true;
}

/* (a) the log, and (c) log against map: a logged write not in the map. */
static void check_log(struct check *c, const struct arena_view *v)
{
	for (u32 lane = 0; lane < v->g.nfree; lane++) {
		struct btt_log_entry e;
		u32 entry;
		if (!lane_newest(c, v, lane, &e)) {
			finding(c, false);
			continue;
		}
		u32 old = e.old_map & BTT_MAP_LBA_MASK, next = e.new_map & BTT_MAP_LBA_MASK;
		if (!map_entry(c, v, e.lba, &entry))
			continue; /* a bad map sector: check_map says so, nothing is stored over it */
		u32 cur = btt_map_block(entry, e.lba);
		if (old == next || cur == next || cur != old)
			continue;
		say(c, "arena %u: log[%u].new_map (%#x) doesn't match map[%#x] (%#x)", v->ai, lane,
		    next, e.lba, cur);
		say(c, "arena %u: map[%#x] needs to be updated to %#x", v->ai, e.lba, next);
		if (c->repair && !nsio_store32(c->m, v->base + v->g.mapoff + (u64)e.lba * 4,
					       BTT_MAP_NORMAL | next, PMEM_WR_BTT))
			say(c, "arena %u: repaired: map[%#x] = %#x", v->ai, e.lba, next);
		finding(c, true);
	}
}

/* (b) every map entry can be read and names a block of the data area. */
static bool check_map(struct check *c, const struct arena_view *v)
{
	u32 bad = 0, unreadable = 0, entry;

	for (u32 i = 0; i < v->g.external_nlba; i++) {
		if (!map_entry(c, v, i, &entry)) {
			/* One finding per bad sector of the map (128 entries of 4 bytes). */
			u64 off = v->base + v->g.mapoff + (u64)i * 4;
			if (!unreadable++ || !(off & ((1u << BADBLOCK_SHIFT) - 1)))
				media_finding(c, v, "map", off, 4);
			continue;
		}
		u32 block = btt_map_block(entry, i);
		if (block < v->g.internal_nlba)
			continue;
		if (!bad++)
			say(c, "arena %u: map[%#x] = %#x is past internal_nlba %#x", v->ai, i,
			    block, v->g.internal_nlba);
	}
	if (unreadable)
		say(c, "arena %u: %u map entries cannot be read", v->ai, unreadable);
	if (bad) {
		say(c, "arena %u: %u map entries out of range", v->ai, bad);
		finding(c, false);
	}
	return !bad && !unreadable;
}

/* Mark one reference to `block`; count it when it was marked already. */
static void mark(struct check *c, const struct arena_view *v, u64 *bits, u32 block, u32 *dups)
{
	u64 bit = 1ULL << (block % 64);

	if (bits[block / 64] & bit) {
		if (!(*dups)++)
			say(c, "arena %u: internal block %#x is referenced by two map/log entries",
			    v->ai, block);
	}
	bits[block / 64] |= bit;
}

/* (e) the map and the lanes' free blocks name every internal block exactly once. */
static int check_bitmap(struct check *c, const struct arena_view *v)
{
	u64 words = ((u64)v->g.internal_nlba + 63) / 64;
	u64 *bits = calloc(words, sizeof(u64));
	u32 dups = 0, missing = 0;
	struct btt_log_entry e;

	if (!bits) {
		say(c, "arena %u: no memory for a bitmap of %u blocks", v->ai, v->g.internal_nlba);
		return -ENOMEM;
	}
	for (u32 i = 0; i < v->g.external_nlba; i++) {
		u32 entry;
		if (map_entry(c, v, i, &entry)) /* check_map read them all */
			mark(c, v, bits, btt_map_block(entry, i), &dups);
	}
	for (u32 lane = 0; lane < v->g.nfree; lane++)
		if (lane_newest(c, v, lane, &e))
			mark(c, v, bits, e.old_map & BTT_MAP_LBA_MASK, &dups);
	for (u32 b = 0; b < v->g.internal_nlba; b++)
		missing += !(bits[b / 64] & (1ULL << (b % 64)));
	free(bits);
	if (dups || missing) {
		say(c,
		    "arena %u: bitmap error: internal blocks are incorrectly referenced (%u twice, %u never)",
		    v->ai, dups, missing);
		finding(c, false);
	}
	return 0;
}

/* (d) info2 is a copy of info (c->sb, the primary as read). */
static void check_info2(struct check *c, const struct arena_view *v)
{
	u64 at = v->base + v->g.info2off;

	if (!nsio_read(c->m, at, c->other, BTT_INFO_SIZE) &&
	    !memcmp(c->sb, c->other, BTT_INFO_SIZE))
		return;
	u64 bad;
	if (nsio_first_bad(c->m, at, BTT_INFO_SIZE, &bad))
		say(c,
		    "arena %u: info2 at %#llx: media error at sector %llu of the namespace (a repair rewrites the whole block, which heals the sector)",
		    v->ai, at, bad >> BADBLOCK_SHIFT);
	else
		say(c, "arena %u: info2 at %#llx differs from the info block", v->ai, at);
	if (c->repair && repair_store(c, at, c->sb, BTT_INFO_SIZE))
		say(c, "arena %u: repaired: info2 rewritten from the info block", v->ai);
	finding(c, true);
}

static int check_arena(struct check *c, struct arena_view *v, const struct btt_sb *sb,
		       u64 remaining, bool primary_ok)
{
	const char *why;

	say(c, "checking arena %u", v->ai);
	if (btt_sb_validate(sb, remaining, c->major, c->minor, &v->g, &why)) {
		say(c, "arena %u: %s", v->ai, why);
		c->errors++;
		return -EBADMSG;
	}
	check_meta(c, v->ai, sb);
	int err = btt_log_indices_read(c->m, v->base + v->g.logoff, v->g.nfree, v->idx, &why);
	if (err == -EIO) {
		media_finding(c, v, "log", v->base + v->g.logoff, (u64)v->g.nfree * BTT_LOG_GROUP);
		return 0;
	}
	if (err) {
		say(c, "arena %u: %s", v->ai, why);
		c->errors++;
		return 0;
	}
	check_log(c, v);
	if (!check_map(c, v))
		return 0;
	if (primary_ok)
		check_info2(c, v);
	return check_bitmap(c, v);
}

/* Which BTT this is: 1.1 at 4096, else 2.0 at 0 (a primary first, then an info2). */
static int find_start(struct check *c, u64 *off)
{
	static const struct {
		u64 off;
		u16 major, minor;
	} where[] = { { BTT_V1_OFFSET, 1, 1 }, { BTT_V2_OFFSET, 2, 0 } };

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
			u64 at = where[i].off, rem = c->m->size > at ? c->m->size - at : 0;
			if (rem < BTT_ARENA_MIN)
				continue;
			if (!sb_ok(c, pass ? info2_guess(at, rem) : at, where[i].major,
				   where[i].minor, c->other))
				continue;
			*off = at;
			c->major = where[i].major;
			c->minor = where[i].minor;
			return 0;
		}
	}
	say(c, "no BTT info block at 4096 or 0, nor an info2 where Linux puts one");
	return -ENXIO;
}

/* Every arena from the one at `off`: 0, -EBADMSG for a BTT that cannot be walked, -ENOMEM. */
static int check_arenas(struct check *c, u64 off)
{
	u64 remaining = c->m->size - off;
	bool primary_ok;
	int err = 0;

	for (u32 ai = 0; !err; ai++) {
		struct arena_view v = { .ai = ai, .base = off };

		if (ai >= BTT_MAX_ARENAS || load_info(c, ai, off, remaining, &primary_ok))
			return -EBADMSG;
		if (!ai)
			say(c, "found a BTT %u.%u at %#llx", c->major, c->minor, off);
		err = check_arena(c, &v, c->sb, remaining, primary_ok);
		if (err || !v.g.nextoff)
			break;
		off += v.g.nextoff;
		remaining -= v.g.nextoff;
	}
	return err;
}

int btt_check(const struct nsio *m, const u8 parent_uuid[16], const char *name, bool repair)
{
	struct check c = { .m = m, .name = name, .parent = parent_uuid, .repair = repair };
	u64 off;
	int err = 0;

	if (repair && m->ro) {
		say(&c, "read-only region: cannot repair");
		return -EROFS;
	}
	c.sb = malloc(sizeof(*c.sb));
	c.other = malloc(sizeof(*c.other));
	if (!c.sb || !c.other)
		err = -ENOMEM;
	else if (find_start(&c, &off))
		err = -ENXIO;
	else
		err = check_arenas(&c, off);
	free(c.sb);
	free(c.other);
	if (err == -ENOMEM || err == -ENXIO)
		return err;
	if (c.repaired)
		say(&c, "%u repair%s made", c.repaired, c.repaired == 1 ? "" : "s");
	return c.errors || err ? -EBADMSG : 0;
}
