/*
 * Host tests: BTT (sector mode) against Linux itself. Linux 6.1's BTTs
 * (test/fixtures/linux-6.1-btt-*) rebuilt in simulated memory attach with
 * Linux's capacity and sectors; the geometry and info blocks pmemk writes
 * are Linux's byte for byte (600 GiB's two arenas included); the crash
 * fixtures recover as Linux's start-up did. Atomicity and check-namespace:
 * test_btt_check.c; the device's rules: test_btt_device.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "btt.h"
#include "btt_tests.h"
#include "host.h"
#include "mm.h"
#include "nd_btt.h"
#include "nd_pfn.h"
#include "nd_util.h"

/* ---- fixtures ---- */

static u8 *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	u8 *buf = malloc(*n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *n, f), *n);
	buf[*n] = 0;
	fclose(f);
	return buf;
}

/*
 * Put a fixture's chunks into the namespace (every other byte zero): the
 * chunk table in NAME.txt after the line containing `marker` gives, per
 * chunk, its .bin offset, its file offset and its length. Returns the
 * number of chunks; a chunk past `limit` (the namespace) is skipped.
 */
static int load_chunks(const char *name, const char *marker, u64 limit)
{
	char path[256];
	size_t tn, bn;

	snprintf(path, sizeof(path), "test/fixtures/%s.txt", name);
	char *txt = (char *)read_file(path, &tn);
	snprintf(path, sizeof(path), "test/fixtures/%s.bin", name);
	u8 *bin = read_file(path, &bn);
	char *p = strstr(txt, marker);
	int n = 0;

	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	for (char *line = p; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		unsigned idx;
		u64 boff, foff, foff2, len;
		if (*line == '\n' || *line != ' ')
			break;	/* the table ends at a blank or unindented line */
		if (sscanf(line, " %u 0x%llx %llu (0x%llx) %llu", &idx, &boff, &foff, &foff2,
			   &len) != 5)
			continue;	/* a line describing a page of the chunk */
		assert_int_equal(foff, foff2);
		assert_true(boff + len <= bn);
		if (foff + len <= limit)
			memcpy(media(foff), bin + boff, len);
		n++;
	}
	free(txt);
	free(bin);
	return n;
}

/* A sector of the Linux fixtures: the 16-byte unit 'BTT-LBA-%08x' repeated. */
static void fixture_sector(u8 *buf, u32 lbasize, u64 lba)
{
	char unit[17];

	snprintf(unit, sizeof(unit), "BTT-LBA-%08llx", lba);
	for (u32 i = 0; i < lbasize; i += 16)
		memcpy(buf + i, unit, 16);
}

/* A sector of the crash fixtures: 'X:%08x:PASS\n' for image X. */
static void crash_sector(u8 *buf, u32 lbasize, char image, u64 lba)
{
	char unit[17];

	snprintf(unit, sizeof(unit), "%c:%08llx:PASS\n", image, lba);
	for (u32 i = 0; i < lbasize; i += 16)
		memcpy(buf + i, unit, 16);
}


/* ---- geometry and info blocks: Linux's, byte for byte ---- */

static void btt_geometry_1g_as_linux(void **state)
{
	(void)state;
	struct btt_arena_geom g;
	u32 nr;

	/* FACTS-2 §1.3 rows 2 and 3, and the fixtures' decodes. */
	assert_int_equal(btt_lay_out(NS_SIZE - 4096, 4096, &g, 1, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(g.size, 0x3ffff000);
	assert_int_equal(g.internal_nlba, 0x3fef8);
	assert_int_equal(g.external_nlba, 0x3fdf8);
	assert_int_equal(g.mapoff, 0x3fefa000);
	assert_int_equal(g.logoff, 0x3fffa000);
	assert_int_equal(g.info2off, 0x3fffe000);
	assert_int_equal(g.nextoff, 0);
	assert_int_equal((u64)g.external_nlba * 4096, 1071611904);	/* ndctl's size */
	assert_int_equal(btt_lay_out(NS_SIZE - 4096, 512, &g, 1, &nr), 0);
	assert_int_equal(g.internal_nlba, 0x1fc03f);
	assert_int_equal(g.external_nlba, 0x1fbf3f);
	assert_int_equal(g.mapoff, 0x3f80a000);
	assert_int_equal(g.logoff, 0x3fffa000);
	assert_int_equal((u64)g.external_nlba * 512, 1065254400);
	/* 64 MiB BTT 2.0 (ndctl's btt-pad-compat image), and 1 TiB: FACTS-2 §1.3. */
	assert_int_equal(btt_lay_out(64 * MiB, 4096, &g, 1, &nr), 0);
	assert_int_equal(g.internal_nlba, 0x3fe9);
	assert_int_equal(g.mapoff, 0x3feb000);
	struct btt_arena_geom two[2];
	assert_int_equal(btt_lay_out(1024 * GiB - 4096, 4096, two, 2, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(two[0].nextoff, 0x8000000000);
	assert_int_equal(two[1].size, 0x7ffffff000);
	assert_int_equal(btt_capacity_nlba(two, 2) * 4096, 1098436767744);
	/* Under 16 MiB: no BTT; an unsupported size: refused. */
	assert_int_equal(btt_lay_out(16 * MiB - 1, 4096, &g, 1, &nr), -ENOSPC);
	assert_int_equal(btt_lay_out(NS_SIZE, 1024, &g, 1, &nr), -EINVAL);
}

/* The info block btt_sb_init writes for `g` with the fixture's uuid equals Linux's. */
static void expect_linux_sb(const u8 *linux_sb, const struct btt_arena_geom *g, u64 remaining)
{
	struct btt_sb mine;
	static const u8 zero[16];
	struct btt_arena_geom back;
	const char *why;

	btt_sb_init(&mine, g, linux_sb + 16, zero, 1, 1);
	assert_memory_equal(&mine, linux_sb, sizeof(mine));
	assert_int_equal(btt_sb_identify(&mine, zero, &why), 0);
	assert_int_equal(btt_sb_validate(&mine, remaining, 1, 1, &back, &why), 0);
	assert_int_equal(back.size, g->size);
}

static void btt_600g_two_arenas_as_linux(void **state)
{
	(void)state;
	size_t n;
	u8 *bin = read_file("test/fixtures/linux-6.1-btt-4k-600G.bin", &n);
	struct btt_arena_geom g[2];
	u32 nr;

	assert_int_equal(n, 90112);
	assert_int_equal(btt_lay_out(600 * GiB - 4096, 4096, g, 2, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(g[0].nextoff, 0x8000000000);
	assert_int_equal(g[0].external_nlba, 134086520);
	assert_int_equal(g[1].off, 0x8000000000);
	assert_int_equal(g[1].external_nlba, 23045901);
	assert_int_equal(g[1].mapoff, 0x15fa810000);
	assert_int_equal(btt_capacity_nlba(g, 2) * 4096, 643614396416);	/* ndctl's size */
	/* Arena 0's info block: .bin 0x1000; arena 1's: chunk 3 (.bin 0x6000) + 0x6000. */
	expect_linux_sb(bin + 0x1000, &g[0], 600 * GiB - 4096);
	expect_linux_sb(bin + 0xc000, &g[1], 600 * GiB - 4096 - g[1].off);
	/* Their info2 copies: chunk 3 + 0x5000, chunk 6 (.bin 0x10000) + 0x5000. */
	assert_memory_equal(bin + 0xb000, bin + 0x1000, 4096);
	assert_memory_equal(bin + 0x15000, bin + 0xc000, 4096);
	free(bin);
}

static void btt_sb_validate_rejects_each_field(void **state)
{
	(void)state;
	static const u8 zero[16], uuid[16] = { 1, 2, 3 };
	struct btt_arena_geom g, out;
	struct btt_sb sb;
	const char *why;
	u32 nr;

	assert_int_equal(btt_lay_out(NS_SIZE - 4096, 4096, &g, 1, &nr), 0);
	struct {
		size_t off;
		u64 value;
		int width;
		const char *reason;
	} cases[] = {
		{ offsetof(struct btt_sb, version_major), 2, 2, "version" },
		{ offsetof(struct btt_sb, external_lbasize), 1024, 4, "external_lbasize" },
		{ offsetof(struct btt_sb, internal_lbasize), 512, 4, "internal_lbasize" },
		{ offsetof(struct btt_sb, nfree), 255, 4, "nfree" },
		{ offsetof(struct btt_sb, infosize), 8192, 4, "infosize" },
		{ offsetof(struct btt_sb, internal_nlba), 0x3fdf8, 4, "internal_nlba" },
		{ offsetof(struct btt_sb, nextoff), 1 * GiB, 8, "nextoff" },
		{ offsetof(struct btt_sb, dataoff), 0, 8, "dataoff" },
		{ offsetof(struct btt_sb, mapoff), 0x3fefb000, 8, "mapoff" },
		{ offsetof(struct btt_sb, logoff), 0x3fffe000, 8, "logoff" },
		{ offsetof(struct btt_sb, info2off), 0x3ffff000, 8, "info2off" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		btt_sb_init(&sb, &g, uuid, zero, 1, 1);
		memcpy((u8 *)&sb + cases[i].off, &cases[i].value, cases[i].width);
		sb.checksum = btt_sb_checksum(&sb);
		assert_int_equal(btt_sb_identify(&sb, zero, &why), 0);
		assert_true(btt_sb_validate(&sb, g.size, 1, 1, &out, &why) < 0);
		if (!strstr(why, cases[i].reason))
			fail_msg("case %zu: '%s' does not name %s", i, why, cases[i].reason);
	}
	/* Not ours at all: signature, checksum, a foreign parent uuid. */
	btt_sb_init(&sb, &g, uuid, zero, 1, 1);
	sb.checksum ^= 1;
	assert_int_equal(btt_sb_identify(&sb, zero, &why), -ENODEV);
	btt_sb_init(&sb, &g, uuid, uuid, 1, 1);
	assert_int_equal(btt_sb_identify(&sb, zero, &why), -ENODEV);
}

static void btt_log_rules(void **state)
{
	(void)state;
	/* FACTS-2 §1.5: 1 -> 2 -> 3 -> 1; 0 never written; equal or unrelated: corrupt. */
	assert_int_equal(btt_log_newer(1, 0), 0);
	assert_int_equal(btt_log_newer(0, 1), 1);
	assert_int_equal(btt_log_newer(1, 2), 1);
	assert_int_equal(btt_log_newer(3, 2), 0);
	assert_int_equal(btt_log_newer(1, 3), 0);
	assert_int_equal(btt_log_newer(3, 1), 1);
	assert_int_equal(btt_log_newer(2, 2), -1);
	assert_int_equal(btt_log_newer(0, 0), -1);
	assert_int_equal(btt_log_newer(2, 0), -1);
	assert_int_equal(btt_log_newer(4, 1), -1);
	/* Padding: ndctl's btt-pad-compat lane 6 uses slots 0 and 2 (old Linux). */
	static u8 log[256 * 64];
	const char *why;
	u32 idx[2];
	for (u32 i = 0; i < 256; i++) {
		u32 e[4] = { i, 0x3eef + i, 0x3eef + i, 1 };
		memcpy(log + i * 64, e, 16);
	}
	assert_int_equal(btt_log_indices(log, 256, idx, &why), 0);
	assert_true(idx[0] == 0 && idx[1] == 1);	/* all initial: the UEFI scheme */
	u32 slot2[4] = { 0, 0, 0x3eef, 2 };
	memcpy(log + 6 * 64 + 32, slot2, 16);
	assert_int_equal(btt_log_indices(log, 256, idx, &why), 0);
	assert_true(idx[0] == 0 && idx[1] == 2);
	memcpy(log + 7 * 64 + 16, slot2, 16);	/* another lane with {0,1}: disagree */
	assert_int_equal(btt_log_indices(log, 256, idx, &why), -EINVAL);
	memset(log + 7 * 64 + 16, 0, 16);
	memcpy(log + 8 * 64 + 48, slot2, 16);	/* {0,3}: no such scheme */
	memset(log + 6 * 64 + 32, 0, 16);
	assert_int_equal(btt_log_indices(log, 256, idx, &why), -EINVAL);
}

/* ---- Linux's BTTs attach ---- */

static void expect_linux_fixture(const char *name, u32 lbasize, u64 size, u64 last_lba)
{
	static u8 want[4096];

	machine(false);
	assert_int_equal(load_chunks(name, "chunks (every byte", NS_SIZE), 4);
	u64 before = ns_hash();
	nd_probe_namespaces();
	assert_int_equal(ns_hash(), before);	/* probing wrote nothing */
	assert_null(pmem_find("pmem0"));	/* one view */
	struct nd_btt *b = nd_btt_of(ns);
	assert_non_null(b);
	assert_true(b->enabled);
	assert_int_equal(pmem0s()->size, size);
	assert_int_equal(pmem0s()->sector_size, lbasize);
	for (u64 lba = 0; lba < 2; lba++) {
		fixture_sector(want, lbasize, lba);
		expect_lba(lba, want);
	}
	fixture_sector(want, lbasize, last_lba);
	expect_lba(last_lba, want);
	memset(want, 0, sizeof(want));
	expect_lba(2, want);	/* never written */
	assert_int_equal(check(false), 0);	/* ndctl check-namespace: rc 0 */
	assert_int_equal(ns_hash(), before);
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES, NULL, NULL);
	char line[160];
	snprintf(line, sizeof(line), "\"mode\":\"sector\",\n    \"size\":%llu", size);
	assert_true(host_console_has(line));
	snprintf(line, sizeof(line), "\"sector_size\":%u,\n    \"blockdev\":\"pmem0s\"", lbasize);
	assert_true(host_console_has(line));
}

static void btt_linux_4k_1g_attaches(void **state)
{
	(void)state;
	expect_linux_fixture("linux-6.1-btt-4k-1G", 4096, 1071611904, 261623);
	assert_true(host_console_has("\"uuid\":\"0ad70b71-71c6-4e58-be61-99ab9bd274f5\""));
}

static void btt_linux_512_1g_attaches(void **state)
{
	(void)state;
	expect_linux_fixture("linux-6.1-btt-512-1G", 512, 1065254400, 2080574);
}

/*
 * A BTT pmemk creates, written at Linux's LBAs in Linux's order on lane 0,
 * is the fixture byte for byte once the uuid is Linux's: geometry, map,
 * log (sequence rotation included), info, info2, data.
 */
static void expect_create_matches_linux(const char *name, u32 lbasize, const u64 lbas[3])
{
	struct nd_pfn_request req = { .sector = true, .lbasize = lbasize, .force = true };
	static u8 buf[4096];
	static const u8 zero[16];

	machine(false);
	load_chunks(name, "chunks (every byte", NS_SIZE);
	u8 linux_uuid[16];
	memcpy(linux_uuid, media(4096 + 16), 16);
	u64 linux_hash = ns_hash();

	boot(false);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	for (int i = 0; i < 3; i++) {
		fixture_sector(buf, lbasize, lbas[i]);
		write_lba(lbas[i], buf);
	}
	struct nd_btt *b = nd_btt_of(ns);
	const struct btt_arena *a = &b->btt.arenas[0];
	struct btt_sb *info = (void *)media(4096), *info2 = (void *)media(4096 + a->g.info2off);
	assert_memory_equal(info, info2, 4096);
	memcpy(info->uuid, linux_uuid, 16);
	info->checksum = btt_sb_checksum(info);
	memcpy(info2, info, 4096);
	assert_int_equal(ns_hash(), linux_hash);
	(void)zero;
}

static void btt_create_4k_is_linux_byte_for_byte(void **state)
{
	(void)state;
	static const u64 lbas[3] = { 0, 1, 261623 };
	expect_create_matches_linux("linux-6.1-btt-4k-1G", 4096, lbas);
}

static void btt_create_512_is_linux_byte_for_byte(void **state)
{
	(void)state;
	static const u64 lbas[3] = { 0, 1, 2080574 };
	expect_create_matches_linux("linux-6.1-btt-512-1G", 512, lbas);
}

/* ---- crash fixtures: start-up recovery as Linux's ---- */

struct crash_case {
	const char *bin;	/* fixture name */
	const char *marker;	/* its chunk table in linux-6.1-btt-crash.txt */
	u32 lbasize;
	u32 lba;		/* logged, not mapped */
	u32 old_block, new_block;
};

static const struct crash_case crash_4096 = {
	"linux-6.1-btt-crash-4096", "chunks of linux-6.1-btt-crash-4096.bin", 4096, 6547, 6532, 6531
};
static const struct crash_case crash_512 = {
	"linux-6.1-btt-crash-512", "chunks of linux-6.1-btt-crash-512.bin", 512, 15751, 15740, 15739
};

static void load_crash(const struct crash_case *c)
{
	char path[128];

	machine(false);
	/* The chunk table is in the shared .txt: load it under the .bin's name. */
	size_t tn, bn;
	char *txt = (char *)read_file("test/fixtures/linux-6.1-btt-crash.txt", &tn);
	snprintf(path, sizeof(path), "test/fixtures/%s.bin", c->bin);
	u8 *bin = read_file(path, &bn);
	char *p = strstr(txt, c->marker);
	assert_non_null(p);
	int chunks = 0;
	for (char *line = strchr(p, '\n') + 1; *line == ' '; line = strchr(line, '\n') + 1) {
		unsigned idx;
		u64 boff, foff, foff2, len;
		if (sscanf(line, " %u 0x%llx %llu (0x%llx) %llu", &idx, &boff, &foff, &foff2,
			   &len) != 5)
			continue;
		assert_true(boff + len <= bn && foff + len <= NS_SIZE);
		memcpy(media(foff), bin + boff, len);
		chunks++;
	}
	assert_int_equal(chunks, 4);
	free(txt);
	free(bin);
}

static u32 map_at(const struct crash_case *c, u32 lba)
{
	u32 v;
	const struct btt_sb *sb = (const void *)media(4096);

	memcpy(&v, media(4096 + sb->mapoff + (u64)lba * 4), 4);
	(void)c;
	return v;
}

/*
 * What Linux gave (linux-6.1-btt-crash.txt, trials t1 and t4): ndctl
 * check-namespace on the crashed media finds log[0].new_map not in the map
 * and the block referenced twice; Linux's start-up rewrites that one map
 * entry (metadiff: map[L] old -> new) and nothing else, after which the
 * check is clean and LBA L reads image A (runs A[0-L]).
 */
static void expect_crash_recovery(const struct crash_case *c)
{
	static u8 want[4096];
	char line[160];

	load_crash(c);
	assert_int_equal(map_at(c, c->lba), BTT_MAP_NORMAL | c->old_block);
	host_console_reset();
	assert_int_equal(check(false), -EBADMSG);
	snprintf(line, sizeof(line), "log[0].new_map (%#x) doesn't match map[%#x] (%#x)",
		 c->new_block, c->lba, c->old_block);
	assert_true(host_console_has(line));
	snprintf(line, sizeof(line), "internal block %#x is referenced by two map/log entries",
		 c->old_block);
	assert_true(host_console_has(line));

	u64 before = ns_hash();
	nd_probe_namespaces();
	snprintf(line, sizeof(line), "map[%u] %#x -> %#x (rolled forward", c->lba, c->old_block,
		 c->new_block);
	assert_true(host_console_has(line));
	assert_true(nd_btt_of(ns)->enabled);
	assert_int_equal(nd_btt_of(ns)->btt.rolled_forward, 1);
	assert_int_equal(map_at(c, c->lba), BTT_MAP_NORMAL | c->new_block);
	/* Only that entry changed: put it back and the media is as the kill left it. */
	u32 *e = (u32 *)media(4096 + ((const struct btt_sb *)media(4096))->mapoff + c->lba * 4ULL);
	*e = BTT_MAP_NORMAL | c->old_block;
	assert_int_equal(ns_hash(), before);
	*e = BTT_MAP_NORMAL | c->new_block;
	crash_sector(want, c->lbasize, 'A', c->lba);
	expect_lba(c->lba, want);
	host_console_reset();
	assert_int_equal(check(false), 0);
	/* A second boot has nothing to repair. */
	boot(true);
	assert_false(host_console_has("rolled forward"));
	expect_lba(c->lba, want);
}

static void btt_crash_4096_recovers_as_linux(void **state)
{
	(void)state;
	expect_crash_recovery(&crash_4096);
}

static void btt_crash_512_recovers_as_linux(void **state)
{
	(void)state;
	expect_crash_recovery(&crash_512);
}

/* Read-only (Linux's unarmed check boot): nothing stored; LBA L reads its old data, image B. */
static void btt_crash_read_only_stores_nothing(void **state)
{
	(void)state;
	static u8 want[4096];

	load_crash(&crash_4096);
	u64 before = ns_hash();
	region_ro = true;
	boot(true);
	region_ro = false;
	assert_true(host_console_has("read-only, so not rolled forward"));
	assert_int_equal(ns_hash(), before);
	assert_true(pmem0s()->ro);
	crash_sector(want, 4096, 'B', 6547);
	expect_lba(6547, want);
	assert_int_equal(pmem_rw(pmem0s(), 0, want, 4096, PMEM_WRITE), -EROFS);
	assert_int_equal(ns_hash(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(btt_geometry_1g_as_linux),
		cmocka_unit_test(btt_600g_two_arenas_as_linux),
		cmocka_unit_test(btt_sb_validate_rejects_each_field),
		cmocka_unit_test(btt_log_rules),
		cmocka_unit_test_setup(btt_linux_4k_1g_attaches, btt_test_setup),
		cmocka_unit_test_setup(btt_linux_512_1g_attaches, btt_test_setup),
		cmocka_unit_test_setup(btt_create_4k_is_linux_byte_for_byte, btt_test_setup),
		cmocka_unit_test_setup(btt_create_512_is_linux_byte_for_byte, btt_test_setup),
		cmocka_unit_test_setup(btt_crash_4096_recovers_as_linux, btt_test_setup),
		cmocka_unit_test_setup(btt_crash_512_recovers_as_linux, btt_test_setup),
		cmocka_unit_test_setup(btt_crash_read_only_stores_nothing, btt_test_setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
