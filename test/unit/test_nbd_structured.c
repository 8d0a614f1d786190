/*
 * Host tests: the NBD protocol engine's structured replies
 * (net/nbd_transmission.c) once the client asked for them in the
 * handshake, over a fake transport (test/unit/nbd_tests.c): READ data in
 * OFFSET_DATA chunks, refused READs as ERROR chunks, pipelined behind a
 * slow reader, bad sectors as ERROR_OFFSET chunks (before the data, or
 * after data cut short).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"

/*
 * Structured replies (libnbd asks for them by default): READ data in one
 * OFFSET_DATA chunk, final at once when sent by reference, else followed
 * by a final NONE chunk; refused READs as a final ERROR chunk with a
 * message; the other commands keep simple replies.
 */
static void nbd_structured_replies_for_read(void **state)
{
	u16 flags, type;
	u32 len;

	(void)state;
	conn.zero_copy = true;
	structured_go("pmem0");
	send_req(0, 0, 1, 4096, 8192);	/* by reference */
	assert_int_equal(chunk(1, &flags, &type), 8 + 8192);
	assert_int_equal(flags, 1);
	assert_int_equal(type, 1);
	assert_int_equal(rd_be(take(8), 8), 4096);
	assert_memory_equal(take(8192), devs[0].mem + 4096, 8192);
	conn.zero_copy = false;	/* copied: data, then NONE with DONE */
	send_req(0, 0, 2, 1 << 20, 200 * 1024);
	assert_int_equal(chunk(2, &flags, &type), 8 + 200 * 1024);
	assert_int_equal(flags, 0);
	assert_int_equal(type, 1);
	assert_int_equal(rd_be(take(8), 8), 1 << 20);
	assert_memory_equal(take(200 * 1024), devs[0].mem + (1 << 20), 200 * 1024);
	assert_int_equal(chunk(2, &flags, &type), 0);
	assert_int_equal(flags, 1);
	assert_int_equal(type, 0);
	/* Errors: ERROR chunks, final, with the error and a message. */
	static const struct {
		u16 flags;
		u64 off;
		u32 len;
		u32 err;
		const char *msg;
	} bad[] = {
		{ 0, DEV_SIZE - 512, 1024, 22, "past the end of the export" },
		{ 0, 100, 512, 22, "not aligned to the block size" },
		{ 0, 0, 0, 22, "empty read" },
		{ 0x80, 0, 512, 22, "unknown flag" },
		{ 0, 0, (32u << 20) + 512, 75, "longer than 32 MiB" },
	};
	for (u64 i = 0; i < ARRAY_SIZE(bad); i++) {
		send_req(0, bad[i].flags, 10 + i, bad[i].off, bad[i].len);
		len = chunk(10 + i, &flags, &type);
		assert_int_equal(flags, 1);
		assert_int_equal(type, 0x8001);
		const u8 *p = take(len);
		assert_int_equal(rd_be(p, 4), bad[i].err);
		assert_int_equal(rd_be(p + 4, 2), strlen(bad[i].msg));
		assert_int_equal(len, 6 + strlen(bad[i].msg));
		assert_memory_equal(p + 6, bad[i].msg, strlen(bad[i].msg));
	}
	assert_int_equal(conn.stats.errors, ARRAY_SIZE(bad));
	u8 data[512];
	memset(data, 0x3c, sizeof(data));
	send_req(1, 1, 20, 0, sizeof(data));	/* WRITE: a simple reply */
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(20), 0);
	send_req(3, 0, 21, 0, 0);		/* FLUSH too */
	assert_int_equal(simple_reply(21), 0);
	assert_int_equal(got_pos, got_len);
}

/*
 * Structured and copied, pipelined behind a slow reader: each READ's final
 * NONE chunk waits for room after the data without letting the next
 * request's reply in ahead of it.
 */
static void nbd_structured_pipelined_reads_with_a_slow_reader(void **state)
{
	u8 reqs[8 * 28];
	u16 flags, type;

	(void)state;
	structured_go("pmem0");
	for (int i = 0; i < 8; i++) {
		/* Lengths that leave the buffer a few bytes short of a chunk header. */
		put_req(reqs + 28 * i, 0, 0, 100 + (u64)i, (u64)i << 18, (1u << 18) - 512 * (u32)i);
	}
	drain_limit = 5000;
	feed(reqs, sizeof(reqs));
	drain_limit = 0;
	drain();
	for (int i = 0; i < 8; i++) {
		u32 n = (1u << 18) - 512 * (u32)i;
		assert_int_equal(chunk(100 + (u64)i, &flags, &type), 8 + n);
		assert_int_equal(type, 1);
		assert_int_equal(rd_be(take(8), 8), (u64)i << 18);
		assert_memory_equal(take(n), devs[0].mem + ((u64)i << 18), n);
		assert_int_equal(chunk(100 + (u64)i, &flags, &type), 0);
		assert_int_equal(flags, 1);
		assert_int_equal(type, 0);
	}
	assert_int_equal(got_pos, got_len);
}

static bool all_zero(const u8 *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * A READ over a bad range the export knows of (first_bad): one final
 * ERROR_OFFSET chunk, EIO at the first bad byte, and nothing read; READs
 * around it and the requests behind it go on.
 */
static void nbd_structured_read_over_a_known_bad_range_is_error_offset(void **state)
{
	(void)state;
	devs[0].bad_off = 5 * 512;
	devs[0].bad_len = 3 * 512;
	devs[0].exp.first_bad = dev_first_bad;
	structured_go("pmem0");
	send_req(0, 0, 1, 0, 8192);
	error_offset(1, 5, 5 * 512);
	send_req(0, 0, 2, 6 * 512, 512); /* inside it: the request's own first byte */
	error_offset(2, 5, 6 * 512);
	assert_int_equal(devs[0].reads, 0);
	assert_int_equal(conn.stats.errors, 2);
	assert_int_equal(conn.stats.bytes_read, 0);
	send_req(0, 0, 3, 0, 5 * 512); /* right up to it */
	assert_memory_equal(data_chunk(3, 0, 5 * 512), devs[0].mem, 5 * 512);
	none_chunk(3);
	send_req(0, 0, 4, 8 * 512, 4096); /* right after it */
	assert_memory_equal(data_chunk(4, 8 * 512, 4096), devs[0].mem + 8 * 512, 4096);
	none_chunk(4);
	assert_int_equal(got_pos, got_len);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

/*
 * A read failing once the reply has begun (a bad sector nobody knew of,
 * met by the copy): the data chunk is completed with zeros (doc/proto.md:
 * the current chunk must be finished), then a final ERROR_OFFSET chunk at
 * the first byte not sent as data, with everything before it the device's
 * bytes. The next request is answered in step.
 */
static void nbd_structured_read_failing_mid_reply_ends_in_error_offset(void **state)
{
	const u32 len = 1 << 20;

	(void)state;
	devs[0].bad_off = (1 << 20) + 700 * 1024;
	devs[0].bad_len = 512;
	structured_go("pmem0");
	send_req(0, 0, 1, 1 << 20, len);
	const u8 *d = data_chunk(1, 1 << 20, len);
	u16 flags, type;
	u32 clen = chunk(1, &flags, &type);
	const u8 *p = take(clen);
	assert_int_equal(flags, 1);
	assert_int_equal(type, 0x8002);
	assert_int_equal(rd_be(p, 4), 5);
	u64 at = rd_be(p + clen - 8, 8);
	/* No first_bad: the offset is where the failed piece began, at or before the bad byte. */
	assert_true(at > (1 << 20) && at <= devs[0].bad_off && at % 512 == 0);
	assert_memory_equal(d, devs[0].mem + (1 << 20), at - (1 << 20));
	assert_true(all_zero(d + (at - (1 << 20)), (1 << 21) - at));
	assert_int_equal(conn.stats.bytes_read, at - (1 << 20));
	assert_int_equal(conn.stats.errors, 1);
	send_req(0, 0, 2, 0, 4096);
	assert_memory_equal(data_chunk(2, 0, 4096), devs[0].mem, 4096);
	none_chunk(2);
	assert_int_equal(got_pos, got_len);
}

/*
 * By reference: the chunk is not final while a bad sector may still turn
 * up (the export has ref_clean), so a NONE chunk ends it. One that turns
 * up after the header left but before the data: the rest is read instead
 * of lent, the good blocks before the bad byte go out as data, zeros
 * after, and ERROR_OFFSET names the bad byte exactly (first_bad).
 */
static void nbd_structured_zero_copy_never_lends_a_bad_sector(void **state)
{
	const u32 len = 256 * 1024;

	(void)state;
	conn.zero_copy = true;
	devs[0].exp.first_bad = dev_first_bad;
	devs[0].exp.ref_clean = dev_ref_clean;
	structured_go("pmem0");
	send_req(0, 0, 1, 4096, 8192); /* clean: by reference, then NONE */
	assert_memory_equal(data_chunk(1, 4096, 8192), devs[0].mem + 4096, 8192);
	none_chunk(1);
	assert_int_equal(conn.stats.bytes_by_ref, 8192);
	/* The header and some 100 KiB by reference, then the range goes bad at 200 KiB. */
	drain_limit = 28 + 100 * 1024;
	send_req(0, 0, 2, 0, len);
	u64 lent = conn.stats.bytes_by_ref - 8192;
	assert_true(lent > 0 && lent < 200 * 1024);
	assert_int_not_equal(lent % 512, 0); /* the copy then starts inside a block */
	devs[0].bad_off = 200 * 1024 + 512;
	devs[0].bad_len = 1024;
	drain_limit = 0;
	drain();
	const u8 *d = data_chunk(2, 0, len);
	error_offset(2, 5, 200 * 1024 + 512);
	assert_memory_equal(d, devs[0].mem, 200 * 1024 + 512);
	assert_true(all_zero(d + 200 * 1024 + 512, len - 200 * 1024 - 512));
	assert_int_equal(conn.stats.bytes_by_ref, 8192 + lent);
	assert_int_equal(conn.stats.bytes_read, 8192 + 200 * 1024 + 512);
	/* And a READ over it now: refused before anything is lent or read. */
	unsigned int reads = devs[0].reads;
	send_req(0, 0, 3, 200 * 1024, 4096);
	error_offset(3, 5, 200 * 1024 + 512);
	assert_int_equal(devs[0].reads, reads);
	assert_int_equal(conn.stats.bytes_by_ref, 8192 + lent);
	assert_int_equal(got_pos, got_len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nbd_structured_replies_for_read, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_structured_pipelined_reads_with_a_slow_reader,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(
			nbd_structured_read_over_a_known_bad_range_is_error_offset, nbd_test_setup,
			nbd_test_teardown),
		cmocka_unit_test_setup_teardown(
			nbd_structured_read_failing_mid_reply_ends_in_error_offset, nbd_test_setup,
			nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_structured_zero_copy_never_lends_a_bad_sector,
						nbd_test_setup, nbd_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
