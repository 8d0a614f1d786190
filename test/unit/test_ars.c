/*
 * Host tests: Address Range Scrub (nvdimm/ars.c, nd_ars.h) against a fake
 * firmware that speaks the root _DSM's layouts (ACPI 6.4 §9.20.7): the
 * boot scrub (the firmware's own results when they cover the region, else
 * one started and polled through "in progress"), records outside the
 * region ignored and records across its edge clipped, the status output
 * continued from the restart range when it overflowed, the status parser
 * on short and lying buffers, clear on write (through function 4, grown
 * to the clear unit or refused when the write does not cover it, the
 * firmware clearing less), and injection through 7/8/9.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "media_error.h"
#include "nd_ars.h"
#include "nvdimm.h"
#include "params.h"
#include "unaligned.h"

#define NS_START (4 * GiB)
#define NS_SIZE (64 * MiB)
#define SECTOR(n) ((u64)(n) << BADBLOCK_SHIFT)

/* ---- the fake firmware ---- */

#define FW_MAX_ERRORS 16

static struct fake_fw {
	u64 addr[FW_MAX_ERRORS], len[FW_MAX_ERRORS];
	u32 nerr;
	u32 per_output;	  /* records one status output holds before it overflows */
	u32 clear_unit;
	bool started;	  /* a scrub this boot */
	u64 s_addr, s_len; /* its range */
	u32 busy_polls;	  /* status answers "in progress" this many times after a start */
	u32 start_busy;	  /* start answers "busy" (status 6) this many times */
	u32 calls[16];
	u64 clear_addr, clear_len; /* the last clear */
	bool clear_half;	   /* clear only half of what is asked */
	u8 inj_options;
} fw;

static void fw_add(u64 addr, u64 len)
{
	fw.addr[fw.nerr] = addr;
	fw.len[fw.nerr++] = len;
}

/* Take [a, b) out of the error list: records inside go, edges are trimmed, one around it splits. */
static void fw_remove(u64 a, u64 b)
{
	u64 na[FW_MAX_ERRORS], nl[FW_MAX_ERRORS];
	u32 k = 0;

	for (u32 i = 0; i < fw.nerr; i++) {
		u64 s = fw.addr[i], e = s + fw.len[i];
		if (e <= a || s >= b) {
			na[k] = s;
			nl[k++] = e - s;
			continue;
		}
		if (s < a) {
			na[k] = s;
			nl[k++] = a - s;
		}
		if (e > b) {
			na[k] = b;
			nl[k++] = e - b;
		}
	}
	memcpy(fw.addr, na, sizeof(na));
	memcpy(fw.len, nl, sizeof(nl));
	fw.nerr = k;
}

static u32 out_of(void *out, u32 out_max, const u8 *buf, u32 n)
{
	memcpy(out, buf, MIN(n, out_max));
	return n;
}

/* Function 3: the errors meeting the scrubbed range, per_output at a time. */
static int fw_status(void *out, u32 out_max)
{
	u8 b[ND_ARS_STATUS_HDR + FW_MAX_ERRORS * ND_ARS_RECORD] = { 0 };
	u32 n = 0, status = 0;
	u64 end = fw.s_addr + fw.s_len;

	if (!fw.started) {
		put_le32(b, 2u << 16);
		put_le32(b + 4, 44);
		return (int)out_of(out, out_max, b, 48);
	}
	if (fw.busy_polls) {
		fw.busy_polls--;
		put_le32(b, 1u << 16);
		put_le32(b + 4, 4);
		return (int)out_of(out, out_max, b, 8);
	}
	put_le64(b + 8, fw.s_addr);
	put_le64(b + 16, fw.s_len);
	put_le16(b + 40, 2);
	for (u32 i = 0; i < fw.nerr; i++) {
		if (fw.addr[i] + fw.len[i] <= fw.s_addr || fw.addr[i] >= end)
			continue;
		if (n == fw.per_output) {
			/* Stopped: the output is full; go on from this record. */
			status = 3u << 16;
			put_le16(b + 42, 1);
			put_le64(b + 24, fw.addr[i]);
			put_le64(b + 32, end - fw.addr[i]);
			break;
		}
		u8 *rec = b + ND_ARS_STATUS_HDR + n++ * ND_ARS_RECORD;
		put_le32(rec, 0x11);
		put_le64(rec + 8, fw.addr[i]);
		put_le64(rec + 16, fw.len[i]);
	}
	put_le32(b, status);
	put_le32(b + 4, 44 + n * ND_ARS_RECORD);
	put_le32(b + 44, n);
	return (int)out_of(out, out_max, b, ND_ARS_STATUS_HDR + n * ND_ARS_RECORD);
}

static int fw_call(u32 fn, const void *in, u32 in_len, void *out, u32 out_max)
{
	const u8 *i8 = in;
	u8 b[16] = { 0 };

	fw.calls[fn & 15]++;
	switch (fn) {
	case ND_ARS_FN_CAP:
		assert_int_equal(in_len, 16);
		put_le32(b, 2u << 16);
		put_le32(b + 4, ND_ARS_STATUS_HDR + fw.per_output * ND_ARS_RECORD);
		put_le32(b + 8, fw.clear_unit);
		return (int)out_of(out, out_max, b, 16);
	case ND_ARS_FN_START:
		assert_int_equal(in_len, 24);
		assert_int_equal(get_le16(i8 + 16), 2); /* persistent memory */
		if (fw.start_busy) {
			fw.start_busy--;
			put_le32(b, 6);
			return (int)out_of(out, out_max, b, 8);
		}
		fw.started = true;
		fw.s_addr = get_le64(i8);
		fw.s_len = get_le64(i8 + 8);
		return (int)out_of(out, out_max, b, 8);
	case ND_ARS_FN_STATUS:
		return fw_status(out, out_max);
	case ND_ARS_FN_CLEAR: {
		u64 a = get_le64(i8), l = get_le64(i8 + 8);
		if ((a | l) & (fw.clear_unit - 1)) {
			put_le32(b, 2);
			return (int)out_of(out, out_max, b, 16);
		}
		fw.clear_addr = a;
		fw.clear_len = l;
		if (fw.clear_half)
			l /= 2;
		fw_remove(a, a + l);
		put_le64(b + 8, l);
		return (int)out_of(out, out_max, b, 16);
	}
	case ND_ARS_FN_INJECT:
		assert_int_equal(in_len, 17);
		fw.inj_options = i8[16];
		fw_add(get_le64(i8), get_le64(i8 + 8));
		return (int)out_of(out, out_max, b, 4);
	case ND_ARS_FN_INJECT_CLEAR:
		fw_remove(get_le64(i8), get_le64(i8) + get_le64(i8 + 8));
		return (int)out_of(out, out_max, b, 4);
	case ND_ARS_FN_INJECT_STATUS: {
		u8 s[8 + 16 * FW_MAX_ERRORS] = { 0 };
		put_le32(s + 4, fw.nerr);
		for (u32 k = 0; k < fw.nerr; k++) {
			put_le64(s + 8 + 16 * k, fw.addr[k]);
			put_le64(s + 16 + 16 * k, fw.len[k]);
		}
		return (int)out_of(out, out_max, s, 8 + 16 * fw.nerr);
	}
	default:
		put_le32(b, 1);
		return (int)out_of(out, out_max, b, 4);
	}
}

static const struct nd_ars_ops fake_ops = { fw_call };

/* ---- the machine ---- */

static struct nd_namespace_io *ns;
static struct nd_region *r;

static int boot(void **state)
{
	struct host_nd_machine m = { .ns_start = NS_START, .ns_size = NS_SIZE };

	(void)state;
	ns = host_nd_machine(&m);
	r = ns->region;
	assert_int_equal(nd_namespace_map(ns), 0);
	memset(&fw, 0, sizeof(fw));
	fw.per_output = 8;
	fw.clear_unit = 256;
	nd_ars_register(r->bus, &fake_ops, 0x39f);
	return 0;
}

static void assert_listed(u32 n, const struct bb_extent *want)
{
	assert_int_equal(badblocks_count(&r->bb), n);
	for (u32 i = 0; i < n; i++) {
		assert_int_equal(r->bb.e[i].sector, want[i].sector);
		assert_int_equal(r->bb.e[i].len, want[i].len);
	}
}

#define EXTENTS(...)                                                                               \
	(sizeof((struct bb_extent[]){ __VA_ARGS__ }) / sizeof(struct bb_extent)),                  \
		((struct bb_extent[]){ __VA_ARGS__ })

/* ---- tests ---- */

static void boot_starts_a_scrub_and_lists_what_meets_the_region(void **state)
{
	(void)state;
	fw_add(NS_START + 0x1000, 4096);		/* sectors 8-15 */
	fw_add(NS_START - 4096, 4096);			/* before the region: ignored */
	fw_add(NS_START + NS_SIZE - 512, 4096);		/* across its end: the last sector */
	fw_add(NS_START + 0x10000 + 100, 100);		/* inside one sector */
	fw.busy_polls = 2;
	host_console_reset();
	nd_ars_boot();
	assert_int_equal(fw.calls[ND_ARS_FN_START], 1);
	assert_int_equal(fw.s_addr, NS_START);
	assert_int_equal(fw.s_len, NS_SIZE);
	assert_int_equal(fw.calls[ND_ARS_FN_STATUS], 1 + 2 + 1); /* none, busy twice, done */
	assert_listed(EXTENTS({ 8, 8 }, { 128, 1 }, { (NS_SIZE >> 9) - 1, 1 }));
	assert_true(host_console_has("region0: Address Range Scrub (started at boot): 3 error "
				     "records, 10 bad sectors listed; clear unit 256 bytes\n"));
	assert_int_equal(r->ars_clear_unit, 256);
	/* Listed bad: a read fails before a byte is read. */
	u8 buf[512];
	assert_int_equal(nsio_read(&ns->io, SECTOR(9), buf, 512), -EIO);
	assert_int_equal(nsio_read(&ns->io, SECTOR(16), buf, 512), 0);
}

static void boot_takes_the_firmwares_own_results(void **state)
{
	(void)state;
	fw_add(NS_START + 0x2000, 512);
	fw.started = true; /* the platform scrubbed before the OS started */
	fw.s_addr = NS_START - 1 * GiB;
	fw.s_len = 2 * GiB;
	host_console_reset();
	nd_ars_boot();
	assert_int_equal(fw.calls[ND_ARS_FN_START], 0);
	assert_listed(EXTENTS({ 16, 1 }));
	assert_true(host_console_has("(the firmware's): 1 error record, 1 bad sector listed"));
}

static void a_scrub_of_another_range_is_not_taken(void **state)
{
	(void)state;
	fw_add(NS_START + 0x2000, 512);
	fw.started = true;
	fw.s_addr = NS_START + NS_SIZE; /* another region's */
	fw.s_len = NS_SIZE;
	nd_ars_boot();
	assert_int_equal(fw.calls[ND_ARS_FN_START], 1);
	assert_listed(EXTENTS({ 16, 1 }));
}

static void an_overflowing_status_is_continued_from_the_restart_range(void **state)
{
	(void)state;
	fw.per_output = 2;
	for (u32 i = 0; i < 7; i++)
		fw_add(NS_START + SECTOR(10 * i), 512);
	host_console_reset();
	nd_ars_boot();
	/* The start, then restarts after 2, 4 and 6 records. */
	assert_int_equal(fw.calls[ND_ARS_FN_START], 4);
	assert_int_equal(fw.s_addr, NS_START + SECTOR(60));
	assert_int_equal(fw.s_addr + fw.s_len, NS_START + NS_SIZE);
	assert_listed(EXTENTS({ 0, 1 }, { 10, 1 }, { 20, 1 }, { 30, 1 }, { 40, 1 }, { 50, 1 },
			      { 60, 1 }));
	assert_true(host_console_has("7 error records, 7 bad sectors listed"));
}

static void the_boot_scrub_can_be_left_out(void **state)
{
	(void)state;
	fw_add(NS_START + 0x2000, 512);
	assert_int_equal(params_parse("nd.ars=off"), 0);
	host_console_reset();
	nd_ars_boot();
	assert_int_equal(params_parse("nd.ars=on"), 0);
	assert_int_equal(fw.calls[ND_ARS_FN_START], 0);
	assert_int_equal(fw.calls[ND_ARS_FN_STATUS], 0);
	assert_int_equal(badblocks_count(&r->bb), 0);
	assert_true(host_console_has("region0: Address Range Scrub: not at boot (nd.ars=off)"));
	/* wait-scrub with nothing run: it starts one. */
	u32 records;
	assert_int_equal(nd_ars_wait(r, 1000, &records), 0);
	assert_int_equal(records, 1);
	assert_listed(EXTENTS({ 16, 1 }));
}

static void start_then_wait_lists_an_injection(void **state)
{
	u64 a[4], l[4];
	u32 records;

	(void)state;
	nd_ars_boot();
	assert_int_equal(nd_ars_inject(r, NS_START + SECTOR(100), SECTOR(2), false), 0);
	assert_int_equal(fw.inj_options, 0);
	assert_int_equal(nd_ars_inject_status(r, a, l, 4), 1);
	assert_int_equal(a[0], NS_START + SECTOR(100));
	assert_int_equal(l[0], SECTOR(2));
	assert_int_equal(badblocks_count(&r->bb), 0); /* not before a scrub */
	assert_int_equal(nd_ars_start_region(r), 0);
	assert_int_equal(r->ars_state, ND_ARS_RUNNING);
	fw.busy_polls = 3;
	assert_int_equal(nd_ars_wait(r, 1000, &records), 0);
	assert_int_equal(records, 1);
	assert_int_equal(r->ars_state, ND_ARS_IDLE);
	assert_listed(EXTENTS({ 100, 2 }));
	/* Uninject: the firmware forgets it; the list keeps it until a write. */
	assert_int_equal(nd_ars_uninject(r, NS_START + SECTOR(100), SECTOR(2)), 0);
	assert_int_equal(nd_ars_inject_status(r, a, l, 4), 0);
	assert_listed(EXTENTS({ 100, 2 }));
}

static void a_busy_firmware_is_waited_for_before_the_start(void **state)
{
	u32 records;

	(void)state;
	nd_ars_boot();
	fw_add(NS_START + SECTOR(7), SECTOR(1));
	fw.start_busy = 3;
	assert_int_equal(nd_ars_start_region(r), -EBUSY);
	assert_int_equal(r->ars_state, ND_ARS_REQUESTED);
	assert_int_equal(nd_ars_wait(r, 1000, &records), 0);
	assert_int_equal(fw.calls[ND_ARS_FN_START], 1 + 1 + 3); /* boot, busy, busy twice, ours */
	assert_int_equal(records, 1);
	assert_listed(EXTENTS({ 7, 1 }));
}

static void a_write_over_a_bad_range_clears_it_through_the_firmware(void **state)
{
	u8 buf[SECTOR(8)];

	(void)state;
	fw_add(NS_START + SECTOR(8), SECTOR(8));
	nd_ars_boot();
	assert_listed(EXTENTS({ 8, 8 }));
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(nsio_write(&ns->io, SECTOR(8), buf, sizeof(buf), PMEM_WR_OTHER), 0);
	assert_int_equal(fw.calls[ND_ARS_FN_CLEAR], 1);
	assert_int_equal(fw.clear_addr, NS_START + SECTOR(8));
	assert_int_equal(fw.clear_len, SECTOR(8));
	assert_int_equal(fw.nerr, 0);
	assert_int_equal(badblocks_count(&r->bb), 0);
	assert_int_equal(nsio_read(&ns->io, SECTOR(8), buf, sizeof(buf)), 0);
	/* A rescrub finds nothing. */
	u32 records;
	assert_int_equal(nd_ars_start_region(r), 0);
	assert_int_equal(nd_ars_wait(r, 1000, &records), 0);
	assert_int_equal(records, 0);
}

static void only_the_listed_runs_a_write_covers_are_cleared(void **state)
{
	u8 buf[SECTOR(32)] = { 0 };

	(void)state;
	fw_add(NS_START + SECTOR(4), SECTOR(2));
	fw_add(NS_START + SECTOR(20), SECTOR(1));
	fw_add(NS_START + SECTOR(40), SECTOR(4)); /* past the write: stays */
	nd_ars_boot();
	/* Sectors 0-31: the runs 4-5 and 20 are cleared, one call each. */
	assert_int_equal(nsio_write(&ns->io, 0, buf, sizeof(buf), PMEM_WR_OTHER), 0);
	assert_int_equal(fw.calls[ND_ARS_FN_CLEAR], 2);
	assert_int_equal(fw.clear_addr, NS_START + SECTOR(20));
	assert_int_equal(fw.nerr, 1);
	assert_listed(EXTENTS({ 40, 4 }));
	/* A write over part of a run clears that part: the firmware trims its record. */
	assert_int_equal(nsio_write(&ns->io, SECTOR(41), buf, SECTOR(2), PMEM_WR_OTHER), 0);
	assert_int_equal(fw.clear_addr, NS_START + SECTOR(41));
	assert_int_equal(fw.clear_len, SECTOR(2));
	assert_listed(EXTENTS({ 40, 1 }, { 43, 1 }));
	assert_int_equal(fw.nerr, 2);
}

static void a_clear_unit_past_the_write_fails_it(void **state)
{
	u8 buf[SECTOR(8)] = { 0 };

	(void)state;
	fw.clear_unit = 4096;
	fw_add(NS_START + SECTOR(9), SECTOR(1));
	nd_ars_boot();
	assert_int_equal(r->ars_clear_unit, 4096);
	/* Sectors 9-10 only: the 4 KiB unit around sector 9 is not all written. */
	assert_int_equal(nsio_write(&ns->io, SECTOR(9), buf, SECTOR(2), PMEM_WR_OTHER), -EIO);
	assert_int_equal(fw.calls[ND_ARS_FN_CLEAR], 0);
	assert_listed(EXTENTS({ 9, 1 }));
	/* Sectors 8-15, the whole unit: grown to it and cleared. */
	assert_int_equal(nsio_write(&ns->io, SECTOR(8), buf, SECTOR(8), PMEM_WR_OTHER), 0);
	assert_int_equal(fw.clear_addr, NS_START + SECTOR(8));
	assert_int_equal(fw.clear_len, 4096);
	assert_int_equal(badblocks_count(&r->bb), 0);
	assert_int_equal(fw.nerr, 0);
}

static void a_firmware_that_clears_less_fails_the_write(void **state)
{
	u8 buf[SECTOR(8)] = { 0 };

	(void)state;
	fw_add(NS_START + SECTOR(8), SECTOR(8));
	nd_ars_boot();
	fw.clear_half = true;
	host_console_reset();
	assert_int_equal(nsio_write(&ns->io, SECTOR(8), buf, SECTOR(8), PMEM_WR_OTHER), -EIO);
	assert_true(host_console_has("the firmware cleared 2048 of 4096 bytes"));
	assert_listed(EXTENTS({ 8, 8 }));
}

static void without_a_firmware_clear_the_list_alone_heals(void **state)
{
	u8 buf[SECTOR(8)] = { 0 };

	(void)state;
	nd_ars_register(r->bus, &fake_ops, 0x0f & ~(1u << ND_ARS_FN_CLEAR));
	fw_add(NS_START + SECTOR(8), SECTOR(8));
	nd_ars_boot();
	assert_int_equal(r->ars_clear_unit, 0);
	assert_int_equal(nsio_write(&ns->io, SECTOR(8), buf, SECTOR(8), PMEM_WR_OTHER), 0);
	assert_int_equal(fw.calls[ND_ARS_FN_CLEAR], 0);
	assert_int_equal(badblocks_count(&r->bb), 0);
}

/* Status outputs built by hand for the parser. */
static void the_parser_takes_only_what_the_buffer_and_length_hold(void **state)
{
	u8 b[ND_ARS_STATUS_HDR + 3 * ND_ARS_RECORD] = { 0 };
	struct nd_ars_status st;
	u64 s, c;

	(void)state;
	assert_int_equal(nd_ars_status_parse(b, 7, &st), -EINVAL);
	/* Complete, but shorter than the header. */
	put_le32(b + 4, 44);
	assert_int_equal(nd_ars_status_parse(b, 40, &st), -EINVAL);
	/* In progress: 8 bytes are enough. */
	put_le32(b, 1u << 16);
	assert_int_equal(nd_ars_status_parse(b, 8, &st), 0);
	assert_int_equal(nd_ars_status_result(&st), ND_ARS_BUSY);
	/* Three records claimed, two in the length, three in the buffer: two taken. */
	put_le32(b, 0);
	put_le32(b + 4, 44 + 2 * ND_ARS_RECORD);
	put_le32(b + 44, 3);
	for (u32 i = 0; i < 3; i++) {
		put_le64(b + 48 + 24 * i + 8, NS_START + SECTOR(i));
		put_le64(b + 48 + 24 * i + 16, 512);
	}
	assert_int_equal(nd_ars_status_parse(b, sizeof(b), &st), 0);
	assert_int_equal(st.nrec, 3);
	assert_int_equal(st.nrec_valid, 2);
	/* Linux's 48 + 24 n length too; a buffer cut short wins. */
	put_le32(b + 4, 48 + 3 * ND_ARS_RECORD);
	assert_int_equal(nd_ars_status_parse(b, sizeof(b) - 1, &st), 0);
	assert_int_equal(st.nrec_valid, 2);
	assert_int_equal(nd_ars_status_parse(b, sizeof(b), &st), 0);
	assert_int_equal(st.nrec_valid, 3);
	assert_true(nd_ars_record_sectors(&st, 2, NS_START, NS_SIZE, &s, &c));
	assert_int_equal(s, 2);
	assert_int_equal(c, 1);
	assert_false(nd_ars_record_sectors(&st, 3, NS_START, NS_SIZE, &s, &c));
	/* Outside the range, empty, wrapping: nothing. */
	assert_false(nd_ars_record_sectors(&st, 0, NS_START + SECTOR(1), NS_SIZE, &s, &c));
	put_le64(b + 48 + 16, 0);
	assert_false(nd_ars_record_sectors(&st, 0, NS_START, NS_SIZE, &s, &c));
	put_le64(b + 48 + 8, ~0ull - 10);
	put_le64(b + 48 + 16, 512);
	assert_false(nd_ars_record_sectors(&st, 0, NS_START, NS_SIZE, &s, &c));
	/* Stopped early without overflow: done; with it: go on; unknown: failed. */
	put_le32(b, 3u << 16);
	assert_int_equal(nd_ars_status_parse(b, sizeof(b), &st), 0);
	assert_int_equal(nd_ars_status_result(&st), ND_ARS_DONE);
	put_le16(b + 42, 1);
	assert_int_equal(nd_ars_status_parse(b, sizeof(b), &st), 0);
	assert_int_equal(nd_ars_status_result(&st), ND_ARS_OVERFLOW);
	put_le32(b, 5u << 16);
	assert_int_equal(nd_ars_status_parse(b, sizeof(b), &st), 0);
	assert_int_equal(nd_ars_status_result(&st), ND_ARS_FAILED);
	put_le32(b, 1);
	assert_int_equal(nd_ars_status_parse(b, sizeof(b), &st), 0);
	assert_int_equal(nd_ars_status_result(&st), ND_ARS_FAILED);
}

#define T(f) cmocka_unit_test_setup(f, boot)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(boot_starts_a_scrub_and_lists_what_meets_the_region),
		T(boot_takes_the_firmwares_own_results),
		T(a_scrub_of_another_range_is_not_taken),
		T(an_overflowing_status_is_continued_from_the_restart_range),
		T(the_boot_scrub_can_be_left_out),
		T(start_then_wait_lists_an_injection),
		T(a_busy_firmware_is_waited_for_before_the_start),
		T(a_write_over_a_bad_range_clears_it_through_the_firmware),
		T(only_the_listed_runs_a_write_covers_are_cleared),
		T(a_clear_unit_past_the_write_fails_it),
		T(a_firmware_that_clears_less_fails_the_write),
		T(without_a_firmware_clear_the_list_alone_heals),
		T(the_parser_takes_only_what_the_buffer_and_length_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
