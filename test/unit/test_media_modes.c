/*
 * Host tests: a bad sector (media_error.h) in each namespace mode. The
 * BTT fails the one LBA whose block is bad and heals the block when the
 * LBA is written; a bad free block is healed before use, or (shared with
 * a neighbour) makes the arena read-only; a bad map or log makes the arena
 * read-only, and the checker names it without repairing over it. An info
 * block on a bad sector leaves the namespace disabled (never probed as
 * anything, never raw) until its head is rewritten; map=dev heals a bad
 * sector among its struct pages before storing them; a devdax mapping
 * never lends a bad sector. Injection as the kernel's injector does it:
 * listed at once (media_error_notify), or only poisoned, so that the read
 * takes the machine check (the host's arch_copy_mc_inject files it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "badblocks.h"
#include "btt.h"
#include "btt_tests.h"
#include "host.h"
#include "media_error.h"
#include "nd_btt.h"
#include "nd_dax.h"
#include "nd_pfn.h"
#include "params.h"

/* Namespace bytes [off, off + len) bad: listed at once, or only poisoned. */
static void inject(u64 off, u64 len, bool listed)
{
	u64 first = off >> BADBLOCK_SHIFT, last = (off + len - 1) >> BADBLOCK_SHIFT;

	assert_int_equal(media_inject(ns->region, first, last - first + 1), 0);
	if (listed)
		assert_true(media_error_notify(NS_START + (first << BADBLOCK_SHIFT),
					       (last - first + 1) << BADBLOCK_SHIFT,
					       MEDIA_ERR_INJECT));
	media_errors_drain();
}

/* Is anything still bad (listed or poisoned) in the region? */
static bool any_bad(void)
{
	media_errors_drain();
	return badblocks_count(&ns->region->bb) || badblocks_count(&ns->region->poison);
}

static struct btt_arena *arena0(void)
{
	struct nd_btt *b = nd_btt_of(ns);

	assert_non_null(b);
	return &b->btt.arenas[0];
}

/* Namespace offset of internal block `block` of arena 0. */
static u64 block_off(u32 block)
{
	struct btt_arena *a = arena0();

	return a->base + a->g.dataoff + (u64)block * a->g.internal_lbasize;
}

/* The block LBA `lba` (arena 0) maps to, from the media. */
static u32 lba_block(u32 lba)
{
	struct btt_arena *a = arena0();
	u32 entry;

	memcpy(&entry, media(a->base + a->g.mapoff + (u64)lba * 4), 4);
	return btt_map_block(entry, lba);
}

/* A BTT of `lbasize` sectors with LBAs 0-15 written (generation 1). */
static void btt_written(u32 lbasize)
{
	static u8 buf[4096];

	create_sector(lbasize);
	for (u64 lba = 0; lba < 16; lba++) {
		pattern(buf, lbasize, 1, lba);
		write_lba(lba, buf);
	}
}

static int rw(u64 lba, u8 *buf, enum pmem_dir dir)
{
	struct pmem_device *dev = pmem0s();

	return pmem_rw(dev, lba * dev->sector_size, buf, dev->sector_size, dir);
}

/* ---- BTT data blocks ---- */

/*
 * A bad data block fails reads of its LBA only, stores nothing, and the
 * shell names the LBA; a write of the LBA lands in a free block, and the
 * bad block it leaves is zeroed at once: nothing is bad any more.
 */
static void bad_data_block(u32 lbasize, bool listed)
{
	static u8 buf[4096], want[4096];

	btt_written(lbasize);
	u32 old = lba_block(5);
	inject(block_off(old), lbasize, listed);
	u64 before = ns_hash();
	/* The first read (of a poisoned block) takes the machine check, the second finds it listed. */
	for (int i = 0; i < 2; i++)
		assert_int_equal(rw(5, buf, PMEM_READ), -EIO);
	for (u64 lba = 4; lba <= 6; lba += 2) {
		pattern(want, lbasize, 1, lba);
		expect_lba(lba, want);
	}
	assert_int_equal(ns_hash(), before); /* a read of a bad sector changes nothing */
	assert_int_equal(host_shell("read pmem0s 0 16"), -EIO);
	assert_true(host_console_has("read pmem0s: I/O error at sector 5\n"));
	assert_true(any_bad());
	pattern(want, lbasize, 2, 5);
	write_lba(5, want);
	expect_lba(5, want);
	assert_int_not_equal(lba_block(5), old);
	assert_false(any_bad());
	assert_true(host_console_has("had a bad sector"));
	for (u32 i = 0; i < lbasize; i++)
		assert_int_equal(*media(block_off(old) + i), 0);
	assert_int_equal(check(false), 0);
}

static void btt_bad_data_block_fails_that_lba_only(void **state)
{
	(void)state;
	bad_data_block(4096, true);
	btt_test_setup(NULL);
	bad_data_block(512, false);
}

/* The lane's free block found bad: healed (zeroed) before the write fills it. */
static void btt_bad_free_block_is_healed_before_use(void **state)
{
	(void)state;
	static u8 want[4096];

	btt_written(4096);
	u32 next = arena0()->free[0].block; /* the host runs on CPU 0: lane 0 */
	inject(block_off(next), 4096, false);
	pattern(want, 4096, 3, 9);
	write_lba(9, want);
	assert_int_equal(lba_block(9), next);
	expect_lba(9, want);
	assert_false(any_bad());
	assert_true(host_console_has("free block"));
	assert_int_equal(check(false), 0);
}

/*
 * 520-byte sectors (blocks of 576 bytes): a bad sector the free block
 * shares with its neighbour cannot be zeroed without losing the
 * neighbour's bytes. The write fails, stores nothing, and the arena turns
 * read-only; the neighbour's LBA reads -EIO, never zeroes.
 */
static void btt_bad_shared_sector_makes_the_arena_read_only(void **state)
{
	(void)state;
	static u8 buf[576];

	create_sector(520);
	struct btt_arena *a = arena0();
	u32 next = a->free[0].block; /* external_nlba: the last LBA's block is its neighbour */
	u64 off = block_off(next);
	assert_true(off & 511); /* shares its first sector with block next - 1 */
	assert_int_equal(lba_block(next - 1), next - 1);
	inject(off, 1, true);
	u64 before = ns_hash();
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(rw(0, buf, PMEM_WRITE), -EIO);
	assert_true(host_console_has("whose bad sector a neighbour shares"));
	assert_true(host_console_has("the arena is read-only"));
	assert_int_equal(rw(1, buf, PMEM_WRITE), -EROFS);
	assert_int_equal(ns_hash(), before);
	assert_int_equal(rw(next - 1, buf, PMEM_READ), -EIO);
	assert_int_equal(rw(7, buf, PMEM_READ), 0);
	assert_true(any_bad()); /* nothing was zeroed over the neighbour */
}

/* ---- BTT metadata ---- */

/*
 * A bad sector of the map: the read of an LBA whose entry is there fails
 * and makes the arena read-only (one line); other LBAs still read, no
 * write goes through, nothing is stored; check-namespace names the sector
 * and --repair stores nothing over it.
 */
static void btt_bad_map_sector_makes_the_arena_read_only(void **state)
{
	(void)state;
	static u8 buf[4096], want[4096];

	btt_written(4096);
	struct btt_arena *a = arena0();
	u64 map = a->base + a->g.mapoff;
	inject(map, 512, false); /* entries 0-127: found by the machine check */
	u64 before = ns_hash();
	pattern(want, 4096, 1, 200);
	memset(want, 0, sizeof(want)); /* never written: zeroes */
	expect_lba(200, want);
	assert_int_equal(rw(5, buf, PMEM_READ), -EIO);
	assert_true(host_console_has("arena 0: a media error in its map at sector"));
	assert_true(host_console_has("the arena is read-only"));
	assert_int_equal(rw(200, buf, PMEM_WRITE), -EROFS);
	expect_lba(200, want);
	assert_int_equal(ns_hash(), before);
	host_console_reset();
	assert_int_equal(check(false), -EBADMSG);
	char line[96];
	snprintf(line, sizeof(line), "arena 0: map: media error at sector %llu of the namespace",
		 map >> BADBLOCK_SHIFT);
	assert_true(host_console_has(line));
	assert_int_equal(check(true), -EBADMSG);
	assert_false(host_console_has("repaired"));
	assert_int_equal(ns_hash(), before);
	/* Probed again (check-namespace does): read-only from the start, nothing stored. */
	assert_int_equal(nd_btt_check_namespace(ns, true), -EBADMSG);
	assert_true(nd_btt_of(ns)->enabled);
	assert_int_equal(rw(300, buf, PMEM_WRITE), -EROFS);
	assert_int_equal(ns_hash(), before);
}

/* A bad log sector found at open: the arena comes up read-only, its data readable. */
static void btt_bad_log_at_open_makes_the_arena_read_only(void **state)
{
	(void)state;
	static u8 want[4096], buf[4096];

	btt_written(4096);
	struct btt_arena *a = arena0();
	inject(a->base + a->g.logoff, 512, true);
	u64 before = ns_hash();
	assert_int_equal(nd_namespace_detach(ns), 0);
	host_console_reset();
	nd_namespace_probe(ns);
	assert_true(nd_btt_of(ns)->enabled);
	assert_true(host_console_has("arena 0: a media error in its log at sector"));
	for (u64 lba = 0; lba < 16; lba++) {
		pattern(want, 4096, 1, lba);
		expect_lba(lba, want);
	}
	assert_int_equal(rw(3, buf, PMEM_WRITE), -EROFS);
	assert_int_equal(ns_hash(), before);
	assert_int_equal(check(false), -EBADMSG);
	assert_true(host_console_has("arena 0: log: media error at sector"));
}

/*
 * A log slot gone bad under a running BTT: the write that needs it fails
 * (its data went to a free block only), the LBA keeps its old data, the
 * arena is read-only after.
 */
static void btt_bad_log_slot_fails_the_write(void **state)
{
	(void)state;
	static u8 want[4096], buf[4096];

	btt_written(4096);
	struct btt_arena *a = arena0();
	inject(a->base + a->g.logoff, 512, true); /* lanes 0-7's log groups */
	pattern(buf, 4096, 2, 3);
	assert_int_equal(rw(3, buf, PMEM_WRITE), -EIO);
	assert_true(host_console_has("arena 0: a media error in its log at sector"));
	pattern(want, 4096, 1, 3);
	expect_lba(3, want);
	assert_int_equal(rw(4, buf, PMEM_WRITE), -EROFS);
}

/* ---- info blocks on a bad sector ---- */

/* Re-probe the namespace, as disable-namespace + enable-namespace do. */
static void reprobe(void)
{
	assert_int_equal(nd_namespace_detach(ns), 0);
	host_console_reset();
	nd_namespace_probe(ns);
}

/* Nothing of ns is up: no block device of any kind, claimed disabled. */
static void expect_disabled(u64 sector)
{
	char line[96];

	for (size_t k = 0; k < ARRAY_SIZE(host_nd_kinds); k++)
		assert_null(pmem_find(host_nd_kinds[k].dev));
	assert_null(nd_pfn_of(ns));
	assert_null(nd_btt_of(ns));
	assert_true(nd_bad_head_of(ns));
	snprintf(line, sizeof(line),
		 "nd_pmem namespace0.0: media error at sector %llu of its info blocks", sector);
	assert_true(host_console_has(line));
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES | ND_LIST_MEDIA_ERRORS, NULL, NULL);
	assert_true(host_console_has("\"state\":\"disabled\""));
	assert_true(host_console_has("\"reason\":\"media error at sector"));
	assert_false(host_console_has("\"blockdev\""));
	snprintf(line, sizeof(line), "\"offset\":%llu,", sector);
	assert_true(host_console_has(line));
}

/*
 * Every mode, its head on a bad sector (the block at 4 KiB; for raw the
 * first sector, where a BTT 2.0 block would be): disabled, never probed
 * as anything and never raw, and the probe stores nothing.
 */
static void info_block_on_a_bad_sector_is_never_probed(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(host_nd_kinds); k++) {
		boot(false);
		assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[k].req), 0);
		u64 sector = k == 0 ? 0 : 8;
		inject(sector << BADBLOCK_SHIFT, 512, k % 2);
		u64 before = ns_hash();
		reprobe();
		expect_disabled(sector);
		assert_int_equal(ns_hash(), before);
		/* enable-namespace probes again: still bad, still disabled. */
		host_console_reset();
		nd_namespace_enable(ns);
		expect_disabled(sector);
	}
}

/*
 * The ways back: uninject + enable; reconfigure (heals); destroy (heals);
 * for a BTT, check-namespace --repair (info2 written over it heals it).
 */
static void info_block_on_a_bad_sector_ways_back(void **state)
{
	(void)state;
	const struct nd_pfn_request *fsdax = &host_nd_kinds[3].req;

	assert_int_equal(nd_namespace_reconfigure(ns, fsdax), 0);
	inject(4096, 512, true);
	reprobe();
	expect_disabled(8);
	/* Refused without -f, as any namespace in use. */
	struct nd_pfn_request noforce = *fsdax;
	noforce.force = false;
	assert_int_equal(nd_namespace_reconfigure(ns, &noforce), -EBUSY);
	assert_true(nd_bad_head_of(ns));
	assert_int_equal(media_uninject(ns->region, 8, 1), 0);
	nd_namespace_enable(ns);
	assert_non_null(pmem_find("pmem0m"));
	/* create-namespace -f -e: the head rewritten, the sector healed. */
	inject(4096 + 1024, 512, false);
	reprobe();
	expect_disabled(10);
	host_console_reset();
	assert_int_equal(nd_namespace_reconfigure(ns, fsdax), 0);
	assert_true(host_console_has("sector 10 of its info blocks was bad: zeroed, healed"));
	assert_false(any_bad());
	assert_non_null(pmem_find("pmem0m"));
	reprobe();
	assert_non_null(pmem_find("pmem0m"));
	/* destroy-namespace -f (label-less: raw): the same. */
	inject(4096 + 3584, 512, true);
	reprobe();
	expect_disabled(15);
	assert_int_equal(nd_namespace_destroy(ns, true), 0);
	assert_false(any_bad());
	assert_non_null(pmem_find("pmem0"));
	for (u64 i = 0; i < 8192; i += 8)
		assert_int_equal(*(u64 *)media(i), 0);
	/* Sector mode: check-namespace --repair restores the info block from info2. */
	static u8 want[4096];
	create_sector(4096);
	pattern(want, 4096, 4, 12);
	write_lba(12, want);
	inject(4096, 512, false);
	reprobe();
	expect_disabled(8);
	host_console_reset();
	assert_int_equal(nd_btt_check_namespace(ns, true), 0);
	assert_true(host_console_has(
		"arena 0: info block at 0x1000: media error at sector 8 of the namespace; info2 at"));
	assert_false(any_bad());
	expect_lba(12, want);
}

/* pmem.create= never formats a namespace disabled by a bad info block unless told :force. */
static void create_param_leaves_a_bad_head_alone(void **state)
{
	(void)state;
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[3].req), 0);
	inject(4096, 512, true);
	reprobe();
	u64 before = ns_hash();
	assert_int_equal(params_parse("pmem.create=namespace0.0:fsdax"), 0);
	nd_apply_create_param();
	assert_true(nd_bad_head_of(ns));
	assert_true(host_console_has("namespace0.0 is active, specify -f/--force"));
	assert_int_equal(ns_hash(), before);
}

/*
 * A bad sector only in the first 4 KiB of an fsdax namespace (no part of
 * its metadata): probed by the block at 4 KiB, with a line.
 */
static void bad_sector_before_the_info_block_is_probed_by_the_block(void **state)
{
	(void)state;
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[3].req), 0);
	inject(1024, 512, true);
	reprobe();
	assert_non_null(pmem_find("pmem0m"));
	assert_true(host_console_has("media error at sector 2, before its info block"));
}

/* map=dev: a bad sector among the struct pages is zeroed (healed) before they are stored. */
static void map_dev_bad_memmap_sector_is_healed_at_enable(void **state)
{
	(void)state;
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[3].req), 0);
	inject(64 * KiB, 512, false);
	reprobe();
	assert_non_null(pmem_find("pmem0m"));
	assert_true(
		host_console_has("1 bad sector among its struct pages (map=dev): zeroed, healed"));
	assert_false(any_bad());
}

/* ---- devdax ---- */

/*
 * dax_map never lends a bad sector; reads and partial writes through a
 * mapping fail over one found later. (The host has no CPU mapping of the
 * window: only requests the bad-block list refuses before a byte moves.)
 */
static void devdax_map_refuses_a_bad_range(void **state)
{
	(void)state;
	static u8 buf[4096];
	struct dax_mapping m;

	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[2].req), 0);
	struct nd_pfn *dax = nd_dax_find("dax0.0");
	assert_non_null(dax);
	u64 data = dax->pmem.phys - NS_START;
	assert_int_equal(host_shell("dax-map dax0.0 0 0x200000"), 0);
	inject(data + 4096 + 512, 512, true);
	assert_int_equal(host_shell("dax-cmp 0 4608 4096 pattern=0x33"), -EIO);
	assert_true(
		host_console_has("dax-cmp dax0.0: I/O error at sector 9 (mapping offset 0x1200)"));
	assert_int_equal(host_shell("dax-write 0 4616 8 pattern=0x44"), -EIO);
	assert_true(host_console_has(
		"dax-write dax0.0: I/O error at sector 9 (mapping offset 0x1208)"));
	assert_int_equal(host_shell("dax-unmap 0"), 0);
	assert_int_equal(dax_map(dax, 0, 2 * MiB, "test", &m), -EIO);
	assert_int_equal(pmem_holds("dax0.0"), 0);
	assert_int_equal(dax_map(dax, 2 * MiB, 2 * MiB, "test", &m), 0);
	dax_unmap(&m);
	assert_int_equal(host_shell("dax-map dax0.0 0 0x200000"), -EIO);
	assert_true(
		host_console_has("dax-map dax0.0: I/O error at sector 9: a mapping would lend it"));
	assert_int_equal(pmem_holds("dax0.0"), 0);
	/* A whole-sector write through the block view heals it; then it maps. */
	memset(buf, 0x33, sizeof(buf));
	assert_int_equal(pmem_rw(&dax->pmem, 4096, buf, 4096, PMEM_WRITE), 0);
	assert_false(any_bad());
	assert_int_equal(dax_map(dax, 0, 2 * MiB, "test", &m), 0);
	dax_unmap(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(btt_bad_data_block_fails_that_lba_only, btt_test_setup),
		cmocka_unit_test_setup(btt_bad_free_block_is_healed_before_use, btt_test_setup),
		cmocka_unit_test_setup(btt_bad_shared_sector_makes_the_arena_read_only,
				       btt_test_setup),
		cmocka_unit_test_setup(btt_bad_map_sector_makes_the_arena_read_only,
				       btt_test_setup),
		cmocka_unit_test_setup(btt_bad_log_at_open_makes_the_arena_read_only,
				       btt_test_setup),
		cmocka_unit_test_setup(btt_bad_log_slot_fails_the_write, btt_test_setup),
		cmocka_unit_test_setup(info_block_on_a_bad_sector_is_never_probed, btt_test_setup),
		cmocka_unit_test_setup(info_block_on_a_bad_sector_ways_back, btt_test_setup),
		cmocka_unit_test_setup(create_param_leaves_a_bad_head_alone, btt_test_setup),
		cmocka_unit_test_setup(bad_sector_before_the_info_block_is_probed_by_the_block,
				       btt_test_setup),
		cmocka_unit_test_setup(map_dev_bad_memmap_sector_is_healed_at_enable,
				       btt_test_setup),
		cmocka_unit_test_setup(devdax_map_refuses_a_bad_range, btt_test_setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
