/*
 * Host tests: the BTT's consistency. A write stopped after each of its
 * steps leaves every sector wholly old or new; check-namespace finds each
 * planted inconsistency and --repair fixes what ndctl's does.
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

/* ---- atomicity: a write stopped after each step ---- */

/*
 * For writes number 1..6 to one LBA (so the log slot and sequence number
 * go all the way round), stop the last one after each step, "power off"
 * and boot: the sector is wholly the old generation before the log entry
 * is complete and wholly the new one after (recovery rolls it forward),
 * other sectors are untouched, and check-namespace is clean.
 */
static void btt_write_stopped_at_every_step_is_atomic(void **state)
{
	(void)state;
	static u8 buf[4096], want[4096];
	const u64 lba = 5, other = 6;

	for (u32 k = 1; k <= 6; k++) {
		for (int step = BTT_STEP_DATA_HALF; step <= BTT_STEP_MAP; step++) {
			boot(false);
			create_sector(4096);
			pattern(buf, 4096, 100, other);
			write_lba(other, buf);
			for (u32 g = 1; g < k; g++) {
				pattern(buf, 4096, (u8)g, lba);
				write_lba(lba, buf);
			}
			struct nd_btt *b = nd_btt_of(ns);
			b->btt.stop_after = (enum btt_write_step)step;
			pattern(buf, 4096, (u8)k, lba);
			int err = pmem_rw(pmem0s(), lba * 4096, buf, 4096, PMEM_WRITE);
			assert_int_equal(err, step == BTT_STEP_MAP ? 0 : -EINTR);
			boot(true);
			assert_true(nd_btt_of(ns)->enabled);
			bool new = step >= BTT_STEP_LOG;
			if (new || k > 1)
				pattern(want, 4096, (u8)(new ? k : k - 1), lba);
			else
				memset(want, 0, sizeof(want));
			expect_lba(lba, want);
			pattern(want, 4096, 100, other);
			expect_lba(other, want);
			assert_int_equal(nd_btt_of(ns)->btt.rolled_forward, step == BTT_STEP_LOG);
			if (check(false))
				fail_msg(
					"write %u stopped after step %d: check-namespace not clean",
					k, step);
			/* And the device goes on working from there. */
			pattern(buf, 4096, 200, lba);
			write_lba(lba, buf);
			expect_lba(lba, buf);
			assert_int_equal(check(false), 0);
		}
	}
}

/* ---- check-namespace finds what is planted ---- */

static struct btt_arena *arena0(void)
{
	return &nd_btt_of(ns)->btt.arenas[0];
}


static u32 *map_entry(u32 lba)
{
	return (u32 *)media(arena0()->base + arena0()->g.mapoff + lba * 4ULL);
}

static void btt_check_finds_info2_mismatch_and_repairs(void **state)
{
	(void)state;
	written_btt();
	struct btt_sb *info2 = (void *)media(4096 + arena0()->g.info2off);
	info2->padding[0] = 1;
	info2->checksum = btt_sb_checksum(info2);
	host_console_reset();
	assert_int_equal(check(false), -EBADMSG);
	assert_true(host_console_has("info2 at 0x3ffff000 differs from the info block"));
	assert_true(host_console_has("Run with --repair"));
	assert_int_equal(check(true), 0);
	assert_true(host_console_has("repaired: info2 rewritten from the info block"));
	assert_int_equal(check(false), 0);
}

static void btt_check_finds_bad_map_entry(void **state)
{
	(void)state;
	written_btt();
	u32 saved = *map_entry(3);
	*map_entry(3) = BTT_MAP_NORMAL | arena0()->g.internal_nlba;
	host_console_reset();
	assert_int_equal(check(true), -EBADMSG);	/* nothing to repair it from */
	assert_true(host_console_has("map[0x3] = 0x3fef8 is past internal_nlba"));
	/* Read through the device: refused, never outside the data area. */
	static u8 buf[4096];
	assert_int_equal(pmem_rw(pmem0s(), 3 * 4096, buf, 4096, PMEM_READ), -EIO);
	*map_entry(3) = saved;
	assert_int_equal(check(false), 0);
}

static void btt_check_finds_block_mapped_twice(void **state)
{
	(void)state;
	written_btt();
	*map_entry(10) = *map_entry(11);
	host_console_reset();
	assert_int_equal(check(false), -EBADMSG);
	assert_true(host_console_has("is referenced by two map/log entries"));
	assert_true(host_console_has(
		"bitmap error: internal blocks are incorrectly referenced (1 twice, 1 never)"));
}

static void btt_check_finds_duplicate_free_block(void **state)
{
	(void)state;
	written_btt();
	/* Lane 7's initial entry names lane 8's free block: two lanes, one block. */
	u32 *slot = (u32 *)media(arena0()->base + arena0()->g.logoff + 7 * 64);
	slot[1] = slot[2] = slot[1] + 1;
	host_console_reset();
	assert_int_equal(check(false), -EBADMSG);
	assert_true(host_console_has("(1 twice, 1 never)"));
	/* The probe refuses it too: disabled with the reason, not raw. */
	boot(true);
	assert_false(nd_btt_of(ns)->enabled);
	assert_true(host_console_has("two lanes hold free block"));
	assert_null(pmem_find("pmem0"));
}

static void btt_check_finds_bad_log_sequence(void **state)
{
	(void)state;
	written_btt();
	u32 *slot = (u32 *)media(arena0()->base + arena0()->g.logoff + 3 * 64);
	slot[3] = 2;
	slot[7] = 2;
	host_console_reset();
	assert_int_equal(check(false), -EBADMSG);
	assert_true(host_console_has("log group 3: sequence numbers 2 and 2 are not a valid pair"));
	boot(true);
	assert_true(host_console_has(
		"nd_btt btt0.0: namespace0.0 sector disabled: arena 0 lane 3: log sequence numbers 2 and 2"));
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES, NULL, NULL);
	assert_true(host_console_has("\"state\":\"disabled\""));
}

static void btt_check_finds_stale_map_and_repairs(void **state)
{
	(void)state;
	static u8 buf[4096], want[4096];

	written_btt();
	nd_btt_of(ns)->btt.stop_after = BTT_STEP_LOG;
	pattern(buf, 4096, 9, 4);
	assert_int_equal(pmem_rw(pmem0s(), 4 * 4096, buf, 4096, PMEM_WRITE), -EINTR);
	assert_int_equal(nd_namespace_detach(ns), 0);	/* offline, as ndctl takes it */
	host_console_reset();
	assert_int_equal(check(false), -EBADMSG);
	assert_true(host_console_has("map[0x4] needs to be updated to"));
	assert_int_equal(check(true), 0);
	assert_true(host_console_has("repaired: map[0x4]"));
	assert_int_equal(check(false), 0);
	nd_namespace_probe(ns);
	assert_int_equal(nd_btt_of(ns)->btt.rolled_forward, 0);
	pattern(want, 4096, 9, 4);
	expect_lba(4, want);
}

/* A damaged info block: disabled (never raw), and --repair restores it from info2. */
static void btt_damaged_info_block_repaired_from_info2(void **state)
{
	(void)state;
	static u8 want[4096];

	written_btt();
	struct btt_sb *info = (void *)media(4096);
	info->external_nlba ^= 0x10;	/* checksum now wrong */
	boot(true);
	struct nd_btt *b = nd_btt_of(ns);
	assert_non_null(b);
	assert_false(b->enabled);
	assert_null(pmem_find("pmem0"));
	assert_null(pmem_find("pmem0s"));
	assert_true(host_console_has(
		"BTT info block checksum mismatch; info2 is intact: check-namespace --repair restores it"));
	host_console_reset();
	assert_int_equal(nd_btt_check_namespace(ns, false), -EBADMSG);
	assert_true(
		host_console_has("info block at 0x1000 is damaged; info2 at 0x3ffff000 is intact"));
	assert_false(nd_btt_of(ns)->enabled);
	assert_int_equal(nd_btt_check_namespace(ns, true), 0);
	assert_true(host_console_has("repaired: info block restored from info2"));
	assert_true(nd_btt_of(ns)->enabled);	/* brought back by the re-probe */
	pattern(want, 4096, 1, 7);
	expect_lba(7, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(btt_write_stopped_at_every_step_is_atomic, btt_test_setup),
		cmocka_unit_test_setup(btt_check_finds_info2_mismatch_and_repairs, btt_test_setup),
		cmocka_unit_test_setup(btt_check_finds_bad_map_entry, btt_test_setup),
		cmocka_unit_test_setup(btt_check_finds_block_mapped_twice, btt_test_setup),
		cmocka_unit_test_setup(btt_check_finds_duplicate_free_block, btt_test_setup),
		cmocka_unit_test_setup(btt_check_finds_bad_log_sequence, btt_test_setup),
		cmocka_unit_test_setup(btt_check_finds_stale_map_and_repairs, btt_test_setup),
		cmocka_unit_test_setup(btt_damaged_info_block_repaired_from_info2, btt_test_setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
