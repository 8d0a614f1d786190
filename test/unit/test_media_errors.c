/*
 * Host tests: media errors (nvdimm/media_error.c, media_error.h) on a
 * machine with one pmem region (test/host/nd_host.c). The queue a machine
 * check fills (records for addresses outside pmem refused; the drain, by a
 * reader or by the idle loop, files them in their region's list with one
 * line; a full queue counts what it drops as lost and says so once), what
 * a write over bad sectors does (whole sectors healed, listed and injected
 * alike; a bad sector covered in part fails it with -EIO and heals
 * nothing), the injector's bounds, and the media path reading through it
 * all (nsio_read: -EIO before a byte is read, reads around it succeed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "idle.h"
#include "media_error.h"
#include "nvdimm.h"

#define NS_START (4 * GiB)
#define NS_SIZE (64 * MiB)
#define SECTORS (NS_SIZE >> BADBLOCK_SHIFT)

static struct nd_namespace_io *ns;
static struct nd_region *r;

static int boot(void **state)
{
	struct host_nd_machine m = { .ns_start = NS_START, .ns_size = NS_SIZE };

	(void)state;
	ns = host_nd_machine(&m);
	r = ns->region;
	assert_int_equal(r->start, NS_START);
	return 0;
}

/* Every test leaves the queue empty: the next machine's regions are new. */
static int drain(void **state)
{
	(void)state;
	media_errors_drain();
	return 0;
}

/* The region's list is exactly these n (sector, len) pairs. */
static void assert_listed(const struct badblocks *b, u32 n, const struct bb_extent *want)
{
	assert_int_equal(badblocks_count(b), n);
	for (u32 i = 0; i < n; i++) {
		assert_int_equal(b->e[i].sector, want[i].sector);
		assert_int_equal(b->e[i].len, want[i].len);
	}
}

#define EXTENTS(...)                                                                               \
	(sizeof((struct bb_extent[]){ __VA_ARGS__ }) / sizeof(struct bb_extent)),                  \
		((struct bb_extent[]){ __VA_ARGS__ })

static void notify_refuses_what_is_not_pmem(void **state)
{
	u64 notified = media_error_stats.notified;

	(void)state;
	assert_false(media_error_notify(1 * GiB + 0x1000, 4096, MEDIA_ERR_MCE_ASYNC)); /* RAM */
	assert_false(media_error_notify(NS_START - 4096, 4096, MEDIA_ERR_MCE_ASYNC));
	assert_false(media_error_notify(NS_START + NS_SIZE, 512, MEDIA_ERR_MCE_ASYNC));
	/* Across either end of the region, and empty. */
	assert_false(media_error_notify(NS_START - 512, 1024, MEDIA_ERR_MCE_ASYNC));
	assert_false(media_error_notify(NS_START + NS_SIZE - 512, 1024, MEDIA_ERR_MCE_ASYNC));
	assert_false(media_error_notify(NS_START, 0, MEDIA_ERR_MCE_ASYNC));
	assert_false(media_error_notify(~0ull - 511, 512, MEDIA_ERR_MCE_ASYNC));
	assert_int_equal(media_error_stats.notified, notified);
	assert_false(media_errors_suspect(r));
	/* The first and the last sector are pmem. */
	assert_true(media_error_notify(NS_START, 512, MEDIA_ERR_MCE_ASYNC));
	assert_true(media_error_notify(NS_START + NS_SIZE - 512, 512, MEDIA_ERR_MCE_ASYNC));
	assert_int_equal(media_error_stats.notified, notified + 2);
	media_errors_drain();
	assert_listed(&r->bb, EXTENTS({ 0, 1 }, { SECTORS - 1, 1 }));
}

static void drain_files_records_with_one_line_each(void **state)
{
	u64 filed = media_error_stats.filed;
	u64 first;
	bool poisoned;

	(void)state;
	/* A scrub's 4 KiB granule: queued, suspect, not yet listed. */
	assert_true(media_error_notify(NS_START + 0x10000, 4096, MEDIA_ERR_MCE_ASYNC));
	assert_true(media_errors_suspect(r));
	assert_int_equal(badblocks_count(&r->bb), 0);
	host_console_reset();
	media_errors_drain();
	assert_listed(&r->bb, EXTENTS({ 128, 8 }));
	assert_int_equal(media_error_stats.filed, filed + 1);
	assert_true(host_console_has("region0: media error at 0x100010000 (4096 bytes), "
				     "sectors 128-135: machine check (scrub), listed\n"));
	/* An unaligned record lists every sector it touches. */
	assert_true(media_error_notify(NS_START + 0x20000 + 100, 512, MEDIA_ERR_MCE_SYNC));
	host_console_reset();
	media_errors_drain();
	assert_true(host_console_has("sectors 256-257: machine check on a read, listed\n"));
	assert_listed(&r->bb, EXTENTS({ 128, 8 }, { 256, 2 }));
	/* Drained again: nothing more is said. */
	host_console_reset();
	media_errors_drain();
	assert_string_equal(host_console_text(), "");
	/* A reader's check drains first: a queued record is found. */
	assert_true(media_error_notify(NS_START + 0x30000, 512, MEDIA_ERR_INJECT));
	assert_true(media_errors_first(r, 300, 200, &first, &poisoned));
	assert_int_equal(first, 384);
	assert_false(poisoned);
	assert_int_equal(media_error_stats.filed, filed + 3);
}

/* The scrub's records are filed by the boot CPU's idle loop too. */
static void the_idle_loop_files_queued_records(void **state)
{
	(void)state;
	assert_true(media_error_notify(NS_START + 0x40000, 4096, MEDIA_ERR_MCE_ASYNC));
	for_each_registered(idle_work, w) if ((*w)->cpus & IDLE_BOOT_CPU)(*w)->fn();
	assert_listed(&r->bb, EXTENTS({ 512, 8 }));
}

static void a_full_queue_counts_what_it_drops(void **state)
{
	u64 lost = media_error_stats.lost, filed = media_error_stats.filed;
	int queued = 0;

	(void)state;
	/* Sectors 0, 2, 4, ...: one extent each, until the queue is full. */
	while (media_error_stats.lost == lost) {
		assert_true(media_error_notify(NS_START + (u64)queued * 1024, 512,
					       MEDIA_ERR_MCE_ASYNC));
		queued++;
		assert_true(queued <= 1024);
	}
	queued--; /* the last was dropped */
	assert_int_equal(queued, 64);
	assert_true(media_error_notify(NS_START + 1 * MiB, 512, MEDIA_ERR_MCE_ASYNC));
	assert_int_equal(media_error_stats.lost, lost + 2);
	host_console_reset();
	media_errors_drain();
	assert_int_equal(media_error_stats.filed, filed + 64);
	assert_int_equal(badblocks_count(&r->bb), 64);
	assert_true(host_console_has(
		"media errors: 2 machine-check records lost while the queue was full\n"));
	/* Said once; the queue takes records again. */
	host_console_reset();
	media_errors_drain();
	assert_false(host_console_has("lost"));
	assert_true(media_error_notify(NS_START + 2 * MiB, 512, MEDIA_ERR_MCE_ASYNC));
	assert_int_equal(media_error_stats.lost, lost + 2);
	media_errors_drain();
	assert_int_equal(media_error_stats.filed, filed + 65);
}

#define SECTOR(s) ((u64)(s) << BADBLOCK_SHIFT)

static void a_write_heals_the_whole_sectors_it_covers(void **state)
{
	(void)state;
	assert_int_equal(badblocks_set(&r->bb, 8, 8), 0);
	assert_int_equal(media_inject(r, 20, 4), 0);
	assert_int_equal(media_errors_write(r, 0, 0), 0);
	/* Sectors 10 and 11 whole: the extent splits around them. */
	assert_int_equal(media_errors_write(r, SECTOR(10), SECTOR(2)), 0);
	assert_listed(&r->bb, EXTENTS({ 8, 2 }, { 12, 4 }));
	/* Good sectors covered in part around whole bad ones: those are healed. */
	assert_int_equal(media_errors_write(r, SECTOR(6) + 10, SECTOR(4)), 0);
	assert_listed(&r->bb, EXTENTS({ 12, 4 }));
	assert_int_equal(media_errors_write(r, SECTOR(12) - 1, SECTOR(4) + 2), 0);
	assert_int_equal(badblocks_count(&r->bb), 0);
	/* Injected sectors heal the same way. */
	assert_int_equal(media_errors_write(r, SECTOR(20), SECTOR(2)), 0);
	assert_listed(&r->poison, EXTENTS({ 22, 2 }));
	assert_int_equal(media_errors_write(r, SECTOR(22), SECTOR(2)), 0);
	assert_int_equal(badblocks_count(&r->poison), 0);
	assert_false(media_errors_suspect(r));
}

static void a_write_over_part_of_a_bad_sector_fails(void **state)
{
	(void)state;
	assert_int_equal(badblocks_set(&r->bb, 8, 8), 0);
	assert_int_equal(media_inject(r, 30, 1), 0);
	/* Its head, its tail, inside one sector: -EIO, nothing healed. */
	assert_int_equal(media_errors_write(r, SECTOR(8) + 1, SECTOR(4)), -EIO);
	assert_int_equal(media_errors_write(r, SECTOR(4), SECTOR(4) + 100), -EIO);
	assert_int_equal(media_errors_write(r, SECTOR(15) + 100, 10), -EIO);
	assert_int_equal(media_errors_write(r, SECTOR(30) + 511, 1), -EIO);
	assert_int_equal(media_errors_write(r, SECTOR(29), SECTOR(1) + 1), -EIO);
	assert_listed(&r->bb, EXTENTS({ 8, 8 }));
	assert_listed(&r->poison, EXTENTS({ 30, 1 }));
	/* Part of a good sector next to a bad one is fine. */
	assert_int_equal(media_errors_write(r, SECTOR(7) + 1, SECTOR(1) - 1), 0);
	assert_int_equal(media_errors_write(r, SECTOR(16), 1), 0);
	assert_listed(&r->bb, EXTENTS({ 8, 8 }));
}

/* A heal that needs a split the full list has no slot for: -EIO, still bad. */
static void a_heal_the_full_list_cannot_split_fails(void **state)
{
	(void)state;
	for (u64 i = 0; i < BADBLOCKS_MAX; i++)
		assert_int_equal(badblocks_set(&r->bb, i * 10, 5), 0);
	assert_int_equal(media_errors_write(r, SECTOR(11), SECTOR(2)), -EIO);
	assert_int_equal(badblocks_count(&r->bb), BADBLOCKS_MAX);
	u64 first = 0;
	bool poisoned = true;
	assert_true(media_errors_first(r, 11, 2, &first, &poisoned));
	assert_int_equal(first, 11);
	assert_false(poisoned);
}

/*
 * The same when the injector's list is the full one: the write fails and
 * the sector stays listed (a regression test: the listed copy was cleared
 * first, so `list -M` lost a sector the write never healed).
 */
static void a_heal_the_full_poison_list_cannot_split_leaves_it_listed(void **state)
{
	u64 first = 0;
	bool poisoned = true;

	(void)state;
	for (u64 i = 0; i < BADBLOCKS_MAX; i++)
		assert_int_equal(media_inject(r, i * 10, 5), 0);
	assert_int_equal(badblocks_set(&r->bb, 11, 2), 0);
	assert_int_equal(media_errors_write(r, SECTOR(11), SECTOR(2)), -EIO);
	assert_listed(&r->bb, EXTENTS({ 11, 2 }));
	assert_int_equal(badblocks_count(&r->poison), BADBLOCKS_MAX);
	assert_true(media_errors_first(r, 11, 2, &first, &poisoned));
	assert_int_equal(first, 11);
	assert_false(poisoned);
}

static void inject_and_uninject_stay_inside_the_region(void **state)
{
	(void)state;
	assert_int_equal(media_inject(r, 0, 0), -ERANGE);
	assert_int_equal(media_inject(r, SECTORS, 1), -ERANGE);
	assert_int_equal(media_inject(r, SECTORS - 1, 2), -ERANGE);
	assert_int_equal(media_inject(r, 1, ~0ull), -ERANGE);
	assert_int_equal(media_uninject(r, 0, 0), -ERANGE);
	assert_int_equal(media_uninject(r, SECTORS, 1), -ERANGE);
	assert_int_equal(media_uninject(r, SECTORS - 1, 2), -ERANGE);
	assert_int_equal(badblocks_count(&r->poison), 0);
	assert_int_equal(media_inject(r, SECTORS - 1, 1), 0);
	assert_int_equal(media_inject(r, 0, 8), 0);
	assert_listed(&r->poison, EXTENTS({ 0, 8 }, { SECTORS - 1, 1 }));
	assert_int_equal(badblocks_count(&r->bb), 0); /* poisoned, not listed */
	/* Uninject forgets the listed copy of an injection too (queued ones first). */
	assert_true(media_error_notify(NS_START, SECTOR(8), MEDIA_ERR_INJECT));
	assert_int_equal(media_uninject(r, 2, 4), 0);
	assert_listed(&r->poison, EXTENTS({ 0, 2 }, { 6, 2 }, { SECTORS - 1, 1 }));
	assert_listed(&r->bb, EXTENTS({ 0, 2 }, { 6, 2 }));
	assert_int_equal(media_uninject(r, 0, SECTORS), 0);
	assert_int_equal(badblocks_count(&r->poison), 0);
	assert_int_equal(badblocks_count(&r->bb), 0);
}

static void first_says_whether_it_is_only_poisoned(void **state)
{
	u64 first = 0;
	bool poisoned = false;

	(void)state;
	assert_false(media_errors_first(r, 0, SECTORS, &first, &poisoned));
	assert_int_equal(badblocks_set(&r->bb, 10, 2), 0);
	assert_int_equal(media_inject(r, 5, 1), 0);
	assert_true(media_errors_first(r, 0, 20, &first, &poisoned));
	assert_int_equal(first, 5);
	assert_true(poisoned);
	assert_true(media_errors_first(r, 6, 20, &first, &poisoned));
	assert_int_equal(first, 10);
	assert_false(poisoned);
	/* Listed and injected both: the list wins (no machine check needed). */
	assert_int_equal(media_inject(r, 10, 1), 0);
	assert_true(media_errors_first(r, 6, 20, &first, &poisoned));
	assert_int_equal(first, 10);
	assert_false(poisoned);
	assert_false(media_errors_first(r, 12, 100, &first, &poisoned));
}

/* The media path: a listed sector fails the read, an injected one lists itself. */
static void nsio_reads_fail_on_bad_sectors_only(void **state)
{
	static u8 buf[4096];
	const struct nsio *io = &ns->io;

	(void)state;
	assert_int_equal(nd_namespace_map(ns), 0);
	assert_int_equal(io->size, NS_SIZE);
	assert_int_equal(nsio_write(io, SECTOR(16), (u8[512]){ 0x5A }, 512, PMEM_WR_OTHER), 0);
	assert_int_equal(badblocks_set(&r->bb, 8, 8), 0);
	assert_int_equal(nsio_read(io, SECTOR(8), buf, 512), -EIO);
	assert_int_equal(nsio_read(io, SECTOR(0), buf, SECTOR(8) + 1), -EIO);
	assert_int_equal(nsio_read(io, SECTOR(15) + 511, buf, 2), -EIO);
	assert_int_equal(nsio_read(io, SECTOR(0), buf, SECTOR(8)), 0);
	assert_int_equal(nsio_read(io, SECTOR(16), buf, 512), 0);
	assert_int_equal(buf[0], 0x5A);
	u32 v;
	assert_int_equal(nsio_load32(io, SECTOR(9), &v), -EIO);
	assert_int_equal(nsio_load32(io, SECTOR(16), &v), 0);
	/* Direct access stops at the first bad byte. */
	assert_int_equal(nsio_clean_len(io, 0, SECTOR(32)), SECTOR(8));
	assert_int_equal(nsio_clean_len(io, SECTOR(9), SECTOR(1)), 0);
	assert_int_equal(nsio_clean_len(io, SECTOR(16), SECTOR(16)), SECTOR(16));
	/* Injected, not listed: the read takes the (host's) machine check, which lists it. */
	assert_int_equal(media_inject(r, 40, 1), 0);
	assert_int_equal(nsio_read(io, SECTOR(36), buf, sizeof(buf)), -EIO);
	assert_listed(&r->bb, EXTENTS({ 8, 8 }, { 40, 1 }));
	/* A whole-sector write heals; the data reads back. */
	assert_int_equal(nsio_write(io, SECTOR(40), (u8[512]){ 0x77 }, 512, PMEM_WR_OTHER), 0);
	assert_int_equal(nsio_read(io, SECTOR(36), buf, sizeof(buf)), 0);
	assert_int_equal(buf[SECTOR(4)], 0x77);
	assert_listed(&r->bb, EXTENTS({ 8, 8 }));
	assert_int_equal(badblocks_count(&r->poison), 0);
	/* A partial one over a bad sector stores nothing. */
	assert_int_equal(nsio_write(io, SECTOR(8) + 4, (u8[4]){ 1, 2, 3, 4 }, 4, PMEM_WR_OTHER),
			 -EIO);
}

#define T(f) cmocka_unit_test_setup_teardown(f, boot, drain)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(notify_refuses_what_is_not_pmem),
		T(drain_files_records_with_one_line_each),
		T(the_idle_loop_files_queued_records),
		T(a_full_queue_counts_what_it_drops),
		T(a_write_heals_the_whole_sectors_it_covers),
		T(a_write_over_part_of_a_bad_sector_fails),
		T(a_heal_the_full_list_cannot_split_fails),
		T(a_heal_the_full_poison_list_cannot_split_leaves_it_listed),
		T(inject_and_uninject_stay_inside_the_region),
		T(first_says_whether_it_is_only_poisoned),
		T(nsio_reads_fail_on_bad_sectors_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
