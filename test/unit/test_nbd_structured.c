/*
 * Host tests: the NBD protocol engine's structured replies
 * (net/nbd_transmission.c) once the client asked for them in the
 * handshake, over a fake transport (test/unit/nbd_tests.c): READ data in
 * OFFSET_DATA chunks, refused READs as ERROR chunks, pipelined behind a
 * slow reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"

/* A structured reply chunk's header: checks magic and cookie; returns its length. */
static u32 chunk(u64 cookie, u16 *flags, u16 *type)
{
	const u8 *h = take(20);

	assert_int_equal(rd_be(h, 4), 0x668e33ef);
	assert_int_equal(rd_be(h + 8, 8), cookie);
	*flags = (u16)rd_be(h + 4, 2);
	*type = (u16)rd_be(h + 6, 2);
	return (u32)rd_be(h + 16, 4);
}

/* Greeting, STRUCTURED_REPLY acknowledged, GO name (its replies skipped up to the ACK). */
static void structured_go(const char *name)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;

	take(18);
	client_flags(3);
	send_opt(8, NULL, 0);
	assert_int_equal(opt_reply(8, &rlen, &d), 1);	/* ACK */
	assert_true(conn.structured);
	go_body(b, &len, name, 0, NULL);
	send_opt(7, b, len);
	while (opt_reply(7, &rlen, &d) == 3)
		;
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nbd_structured_replies_for_read, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_structured_pipelined_reads_with_a_slow_reader,
						nbd_test_setup, nbd_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
