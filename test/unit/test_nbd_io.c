/*
 * Host tests: the NBD protocol engine's transmission phase
 * (net/nbd_transmission.c) with simple replies, driven as a client would
 * over a fake transport (test/unit/nbd_tests.c): every request type, and
 * bad requests: past the end, wrapping, over 32 MiB, on a read-only
 * export, unaligned, unknown; READ data copied or by reference to a slow
 * reader, WRITE data gathered or written straight into the device, a
 * device failing mid-reply.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"

/* Bad READs, cookies 1-6: their errors. */
static void bad_reads_get_their_errors(void)
{
	send_req(0, 0, 1, DEV_SIZE - 512, 1024);	/* READ past the end */
	assert_int_equal(simple_reply(1), 22);
	send_req(0, 0, 2, ~0ULL - 511, 1024);		/* READ wrapping */
	assert_int_equal(simple_reply(2), 22);
	send_req(0, 0, 3, 0, (32u << 20) + 512);	/* READ over 32 MiB */
	assert_int_equal(simple_reply(3), 75);
	send_req(0, 0, 4, 100, 512);			/* unaligned */
	assert_int_equal(simple_reply(4), 22);
	send_req(0, 0, 5, 0, 0);			/* empty */
	assert_int_equal(simple_reply(5), 22);
	send_req(0, 1, 6, 0, 512);			/* FUA on a read */
	assert_int_equal(simple_reply(6), 22);
}

/* Bad WRITEs (their payload drained), WRITE_ZEROES and other commands, cookies 7-15. */
static void bad_writes_and_commands_get_their_errors(void)
{
	u8 data[1024];

	memset(data, 0x5A, sizeof(data));
	send_req(1, 0, 7, DEV_SIZE - 512, 1024);	/* WRITE past the end: payload drained */
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(7), 28);
	send_req(1, 0, 8, ~0ULL - 511, 1024);		/* WRITE wrapping */
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(8), 28);
	send_req(1, 0, 9, 512, 100);			/* unaligned length */
	feed(data, 100);
	assert_int_equal(simple_reply(9), 22);
	send_req(1, 0x10, 10, 0, 512);			/* unknown flag */
	feed(data, 512);
	assert_int_equal(simple_reply(10), 22);
	send_req(6, 0, 11, DEV_SIZE, 512);		/* WRITE_ZEROES past the end */
	assert_int_equal(simple_reply(11), 28);
	send_req(4, 0, 12, 0, 512);			/* TRIM, not offered */
	assert_int_equal(simple_reply(12), 22);
	send_req(7, 0, 13, 0, 512);			/* BLOCK_STATUS, not negotiated */
	assert_int_equal(simple_reply(13), 22);
	send_req(0x99, 0, 14, 0, 512);			/* unknown command */
	assert_int_equal(simple_reply(14), 22);
	send_req(3, 0, 15, 0, 512);			/* FLUSH with a length */
	assert_int_equal(simple_reply(15), 22);
}

static void nbd_bad_requests_get_their_errors_and_change_nothing(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	u8 *before = malloc(DEV_SIZE);
	memcpy(before, devs[0].mem, DEV_SIZE);

	bad_reads_get_their_errors();
	bad_writes_and_commands_get_their_errors();

	/* A WRITE over 32 MiB: EOVERFLOW once its payload is drained, in step after. */
	u32 big = (32u << 20) + 4096;
	u8 *payload = calloc(1, big);
	send_req(1, 0, 16, 0, big);
	feed(payload, big);
	free(payload);
	assert_int_equal(simple_reply(16), 75);
	send_req(0, 0, 17, 0, 512);
	assert_int_equal(simple_reply(17), 0);
	assert_memory_equal(take(512), before, 512);

	assert_memory_equal(devs[0].mem, before, DEV_SIZE);
	assert_int_equal(devs[0].writes, 0);
	free(before);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

static void nbd_write_to_read_only_export_is_eperm(void **state)
{
	(void)state;
	greeting_and_go("pmem1m");
	u8 data[512] = { 1 };
	send_req(1, 0, 1, 0, 512);
	feed(data, 512);
	assert_int_equal(simple_reply(1), 1);
	send_req(6, 0, 2, 0, 512);
	assert_int_equal(simple_reply(2), 1);
	assert_int_equal(devs[1].writes, 0);
	send_req(0, 0, 3, 0, 512);
	assert_int_equal(simple_reply(3), 0);
	take(512);
}

static void nbd_write_zeroes_and_large_read_write(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	send_req(6, 1, 1, 4096, 3 * 4096);
	assert_int_equal(simple_reply(1), 0);
	for (u32 i = 4096; i < 4 * 4096; i++)
		assert_int_equal(devs[0].mem[i], 0);
	assert_int_equal(devs[0].mem[4 * 4096], (u8)((4 * 4096 / 8) * 0x9E3779B97F4A7C15ULL));
	/* 32 MiB each way through the 64 KiB buffers. */
	u32 n = 32u << 20;
	u8 *pat = malloc(n);
	for (u32 i = 0; i < n; i++)
		pat[i] = (u8)(i ^ (i >> 11));
	send_req(1, 0, 2, 8u << 20, n);
	feed_step(pat, n, 100000);
	assert_int_equal(simple_reply(2), 0);
	assert_memory_equal(devs[0].mem + (8u << 20), pat, n);
	send_req(0, 0, 3, 8u << 20, n);
	assert_int_equal(simple_reply(3), 0);
	assert_memory_equal(take(n), pat, n);
	free(pat);
	assert_int_equal(conn.stats.bytes_read, n);
	assert_int_equal(conn.stats.bytes_written, n);
	/* A FUA WRITE and a FLUSH: counted with the WRITE_ZEROES's FUA above. */
	u8 data[4096] = { 7 };
	send_req(1, 1, 4, 0, sizeof(data));
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(4), 0);
	send_req(3, 0, 5, 0, 0);
	assert_int_equal(simple_reply(5), 0);
	assert_int_equal(conn.stats.fua, 2);
	assert_int_equal(conn.stats.zeroes, 1);
	assert_int_equal(conn.stats.flushes, 1);
	assert_int_equal(conn.stats.writes, 2);
	assert_int_equal(conn.stats.max_len, n);
	assert_int_equal(conn.stats.errors, 0);
}

/*
 * Regression: requests pipelined behind a large READ, with a reader slower
 * than the engine (as TCP's send buffer is): the last request header was
 * taken in while the output had no room for its reply, and nothing made the
 * engine look at it again once the room came (nbdcopy with several
 * requests in flight stalled on its last reply).
 */
static void nbd_pipelined_reads_with_a_slow_reader_all_get_replies(void **state)
{
	u8 reqs[8 * 28];

	(void)state;
	greeting_and_go("pmem0");
	for (int i = 0; i < 8; i++)
		put_req(reqs + 28 * i, 0, 0, 100 + (u64)i, (u64)i << 18, 1u << 18);
	drain_limit = 5000;
	feed(reqs, sizeof(reqs));
	drain_limit = 0;
	drain();
	for (int i = 0; i < 8; i++) {
		assert_int_equal(simple_reply(100 + (u64)i), 0);
		assert_memory_equal(take(1u << 18), devs[0].mem + ((u64)i << 18), 1u << 18);
	}
	assert_int_equal(got_pos, got_len);
}

/* The same with READ data handed out by reference (zero copy). */
static void nbd_zero_copy_reads_come_by_reference(void **state)
{
	conn.zero_copy = true;
	nbd_pipelined_reads_with_a_slow_reader_all_get_replies(state);
	assert_int_equal(conn.stats.bytes_by_ref, 8u << 18);
	assert_int_equal(conn.stats.bytes_read, 8u << 18);
	/* And a session cut at every byte, in step after a by-reference reply. */
	send_req(0, 0, 9, 4096, 4096);
	assert_int_equal(simple_reply(9), 0);
	assert_memory_equal(take(4096), devs[0].mem + 4096, 4096);
	send_req(2, 0, 10, 0, 0);
	assert_true(nbd_conn_done(&conn));
}

/* An export without fixed addresses (a BTT's) is copied even with zero_copy on. */
static void nbd_export_without_by_ref_is_copied(void **state)
{
	(void)state;
	conn.zero_copy = true;
	greeting_and_go("pmem1m");
	send_req(0, 0, 7, 8192, 65536);
	assert_int_equal(simple_reply(7), 0);
	assert_memory_equal(take(65536), devs[1].mem + 8192, 65536);
	assert_int_equal(conn.stats.bytes_read, 65536);
	assert_int_equal(conn.stats.bytes_by_ref, 0);
}

/*
 * WRITE data straight from the input into the device (write_bytes): in
 * whatever pieces it comes, unaligned ones included, in one copy; one
 * flush before each reply (durable when acknowledged), FUA or not; a
 * refused WRITE's payload drained without a byte written; a failing
 * device gives EIO and the rest of the payload is drained.
 */
static void nbd_write_bytes_straight_into_the_device(void **state)
{
	static u8 data[65536 + 512];

	(void)state;
	devs[0].exp.write_bytes = dev_write_bytes;
	greeting_and_go("pmem0");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + 3);
	send_req(1, 0, 1, 3 << 20, sizeof(data));
	feed_step(data, sizeof(data), 1459);	/* TCP-sized pieces, never block aligned */
	assert_int_equal(simple_reply(1), 0);
	assert_memory_equal(devs[0].mem + (3 << 20), data, sizeof(data));
	assert_int_equal(devs[0].flushes, 1);
	assert_int_equal(devs[0].writes, 0);	/* nothing through the gathering path */
	assert_int_equal(devs[0].byte_writes, (sizeof(data) + 1458) / 1459);
	assert_int_equal(conn.stats.bytes_direct, sizeof(data));
	assert_int_equal(conn.stats.bytes_written, sizeof(data));
	u8 before[8192];
	memcpy(before, devs[0].mem + DEV_SIZE - 4096, sizeof(before) / 2);
	send_req(1, 1, 2, DEV_SIZE - 4096, 8192);	/* past the end: drained */
	feed(data, 8192);
	assert_int_equal(simple_reply(2), 28);
	assert_memory_equal(devs[0].mem + DEV_SIZE - 4096, before, 4096);
	devs[0].fail_byte_writes = true;
	send_req(1, 1, 3, 0, 4096);
	feed_step(data, 4096, 1000);
	assert_int_equal(simple_reply(3), 5);	/* EIO, and the stream still in step */
	devs[0].fail_byte_writes = false;
	send_req(0, 0, 4, 3 << 20, 512);
	assert_int_equal(simple_reply(4), 0);
	assert_memory_equal(take(512), data, 512);
	assert_int_equal(devs[0].flushes, 1);
	assert_int_equal(got_pos, got_len);
}

static void nbd_read_failure_mid_reply_closes(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	devs[0].fail_reads = true;
	send_req(0, 0, 1, 0, 1 << 20);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "device read failed in the middle of a reply");
}

/*
 * Simple replies and a bad range the export knows of (first_bad): a READ
 * over it gets EIO and no payload, with or without zero copy, and nothing
 * is read or lent; the stream stays in step and READs around it go on.
 */
static void nbd_read_over_a_known_bad_range_is_eio_without_data(void **state)
{
	(void)state;
	devs[0].bad_off = 64 * 512;
	devs[0].bad_len = 512;
	devs[0].exp.first_bad = dev_first_bad;
	devs[0].exp.ref_clean = dev_ref_clean;
	greeting_and_go("pmem0");
	for (int zc = 0; zc < 2; zc++) {
		conn.zero_copy = zc;
		send_req(0, 0, 1, 32 * 512, 64 * 512);
		assert_int_equal(simple_reply(1), 5);
		assert_int_equal(got_pos, got_len); /* no payload */
		send_req(0, 0, 2, 0, 64 * 512); /* up to it */
		assert_int_equal(simple_reply(2), 0);
		assert_memory_equal(take(64 * 512), devs[0].mem, 64 * 512);
		send_req(0, 0, 3, 65 * 512, 512); /* after it */
		assert_int_equal(simple_reply(3), 0);
		assert_memory_equal(take(512), devs[0].mem + 65 * 512, 512);
	}
	assert_int_equal(devs[0].reads, 2); /* the copied READs around it, nothing else */
	assert_int_equal(conn.stats.errors, 2);
	assert_int_equal(conn.stats.bytes_by_ref, 64 * 512 + 512);
	assert_int_equal(got_pos, got_len);
}

/*
 * A bad sector that turns up after a zero-copy READ's header left: its
 * bytes are never lent; the rest is read, fails, and a simple reply can
 * only close (the header said success).
 */
static void nbd_zero_copy_read_turning_bad_closes_without_lending(void **state)
{
	(void)state;
	devs[0].exp.first_bad = dev_first_bad;
	devs[0].exp.ref_clean = dev_ref_clean;
	conn.zero_copy = true;
	greeting_and_go("pmem0");
	u8 req[28];
	put_req(req, 0, 0, 1, 0, 1 << 20);
	assert_int_equal(nbd_conn_input(&conn, req, sizeof(req)), sizeof(req)); /* checked: clean */
	devs[0].bad_off = 4096;
	devs[0].bad_len = 512;
	drain();
	assert_int_equal(simple_reply(1), 0);
	assert_int_equal(conn.stats.bytes_by_ref, 0);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "device read failed in the middle of a reply");
}

/*
 * A WRITE over a bad sector heals it even when the sector arrives split
 * across pieces (TCP segments): the piece that covers it in part is
 * refused by the device, so the engine stores what comes before it and
 * carries the sector until it is whole. Those 512 bytes take two copies.
 */
static void nbd_write_over_a_bad_sector_split_across_pieces_heals_it(void **state)
{
	static u8 data[4096];

	(void)state;
	devs[0].exp.write_bytes = dev_write_bytes;
	devs[0].bad_off = 3 * 512;
	devs[0].bad_len = 512;
	greeting_and_go("pmem0");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 13 + 1);
	send_req(1, 0, 1, 0, sizeof(data));
	feed_step(data, sizeof(data), 1700); /* the first piece ends inside sector 3 */
	assert_int_equal(simple_reply(1), 0);
	assert_int_equal(devs[0].bad_len, 0);
	assert_memory_equal(devs[0].mem, data, sizeof(data));
	assert_int_equal(conn.stats.bytes_written, sizeof(data));
	assert_int_equal(conn.stats.bytes_direct, sizeof(data) - 512);
	assert_int_equal(devs[0].flushes, 1);
	send_req(0, 0, 2, 0, sizeof(data));
	assert_int_equal(simple_reply(2), 0);
	assert_memory_equal(take(sizeof(data)), data, sizeof(data));
	assert_int_equal(got_pos, got_len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			nbd_bad_requests_get_their_errors_and_change_nothing, nbd_test_setup,
			nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_write_to_read_only_export_is_eperm,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_write_zeroes_and_large_read_write,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(
			nbd_pipelined_reads_with_a_slow_reader_all_get_replies, nbd_test_setup,
			nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_zero_copy_reads_come_by_reference,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_export_without_by_ref_is_copied, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_write_bytes_straight_into_the_device,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_read_failure_mid_reply_closes, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_read_over_a_known_bad_range_is_eio_without_data,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(
			nbd_zero_copy_read_turning_bad_closes_without_lending, nbd_test_setup,
			nbd_test_teardown),
		cmocka_unit_test_setup_teardown(
			nbd_write_over_a_bad_sector_split_across_pieces_heals_it, nbd_test_setup,
			nbd_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
