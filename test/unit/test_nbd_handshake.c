/*
 * Host tests: the NBD protocol engine's handshake (net/nbd_handshake.c)
 * driven as a client would, over a fake transport (test/unit/nbd_tests.c):
 * the option sequences real clients send (FACTS-2 §4.3), a whole session
 * from GO to DISC, and bad input: bad magic, unknown client flags and
 * options, option lengths that lie or are too long, an unknown export, a
 * session cut into pieces at every byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"

static void nbd_go_then_read_write_flush_disc(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	/* READ 0+8192, as nbdinfo does. */
	send_req(0, 0, 0x1111, 0, 8192);
	assert_int_equal(simple_reply(0x1111), 0);
	assert_memory_equal(take(8192), devs[0].mem, 8192);
	/* WRITE with FUA, as qemu-io does. */
	u8 data[4096];
	memset(data, 0xA5, sizeof(data));
	send_req(1, 1, 0x2222, 1 << 20, sizeof(data));
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(0x2222), 0);
	assert_memory_equal(devs[0].mem + (1 << 20), data, sizeof(data));
	assert_int_equal(devs[0].flushes, 1);
	send_req(3, 0, 0x3333, 0, 0);
	assert_int_equal(simple_reply(0x3333), 0);
	assert_int_equal(devs[0].flushes, 2);
	send_req(2, 0, 0x4444, 0, 0);
	assert_true(nbd_conn_done(&conn));
	assert_null(conn.close_reason);
	assert_int_equal(got_pos, got_len);	/* nothing after the DISC */
}

static void nbd_info_flags_for_read_only_export(void **state)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;
	u16 reqs[] = { 1 };

	(void)state;
	take(18);
	client_flags(1);
	go_body(b, &len, "pmem1m", 1, reqs);
	send_opt(6, b, len);	/* INFO: stays in options */
	assert_int_equal(opt_reply(6, &rlen, &d), 3);
	/* HAS_FLAGS, READ_ONLY, FLUSH, FUA, WRITE_ZEROES, CAN_MULTI_CONN */
	assert_int_equal(rd_be(d + 10, 2), 0x14F);
	assert_int_equal(opt_reply(6, &rlen, &d), 3);	/* BLOCK_SIZE, always */
	assert_int_equal(opt_reply(6, &rlen, &d), 3);	/* NAME, asked for */
	assert_int_equal(rlen, 2 + 6);
	assert_memory_equal(d + 2, "pmem1m", 6);
	assert_int_equal(opt_reply(6, &rlen, &d), 1);
	assert_int_equal(conn.state, NBD_S_OPTIONS);
}

static void nbd_unsupported_options_get_err_unsup_and_parsing_goes_on(void **state)
{
	u32 rlen;
	const u8 *d;

	(void)state;
	take(18);
	client_flags(3);
	send_opt(8, "x", 1);	/* STRUCTURED_REPLY takes no data */
	assert_int_equal(opt_reply(8, &rlen, &d), 0x80000003);
	assert_false(conn.structured);
	send_opt(5, NULL, 0);	/* STARTTLS, TLS off: ERR_POLICY */
	assert_int_equal(opt_reply(5, &rlen, &d), 0x80000002);
	u8 meta[32] = { 0 };
	send_opt(10, meta, sizeof(meta));	/* SET_META_CONTEXT */
	assert_int_equal(opt_reply(10, &rlen, &d), 0x80000001);
	send_opt(0x7777, "junk", 4);
	assert_int_equal(opt_reply(0x7777, &rlen, &d), 0x80000001);
	/* Still haggling: LIST works. */
	send_opt(3, NULL, 0);
	assert_int_equal(opt_reply(3, &rlen, &d), 2);
	assert_int_equal(rd_be(d, 4), 5);
	assert_memory_equal(d + 4, "pmem0", 5);
	assert_int_equal(opt_reply(3, &rlen, &d), 2);
	assert_memory_equal(d + 4, "pmem1m", 6);
	assert_int_equal(opt_reply(3, &rlen, &d), 1);
	send_opt(3, "x", 1);	/* LIST takes no data */
	assert_int_equal(opt_reply(3, &rlen, &d), 0x80000003);
	send_opt(2, NULL, 0);	/* ABORT */
	assert_int_equal(opt_reply(2, &rlen, &d), 1);
	assert_true(nbd_conn_done(&conn));
}

static void nbd_go_with_lying_lengths_or_unknown_export(void **state)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;

	(void)state;
	take(18);
	client_flags(1);
	go_body(b, &len, "nope", 0, NULL);
	send_opt(7, b, len);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000006);	/* ERR_UNKNOWN */
	go_body(b, &len, "pmem0", 0, NULL);
	be(b, 200, 4);	/* name length past the option's data */
	send_opt(7, b, len);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000003);
	go_body(b, &len, "pmem0", 0, NULL);
	be(b + 9, 5, 2);	/* five requests announced, none there */
	send_opt(7, b, len);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000003);
	send_opt(7, b, 3);	/* shorter than any GO */
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000003);
	memcpy(b, "\0\0\0\6pmem0\0\0\0", 12);	/* a NUL inside the name */
	send_opt(7, b, 12);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000006);
	assert_int_equal(conn.state, NBD_S_OPTIONS);
}

static void nbd_option_too_long_is_skipped(void **state)
{
	u32 rlen;
	const u8 *d;

	(void)state;
	take(18);
	client_flags(1);
	u8 *big = calloc(1, 100000);
	send_opt(7, big, 100000);
	free(big);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000009);	/* ERR_TOO_BIG */
	send_opt(3, NULL, 0);
	assert_int_equal(opt_reply(3, &rlen, &d), 2);
}

static void nbd_export_name_for_old_clients(void **state)
{
	(void)state;
	take(18);
	client_flags(1);	/* no NO_ZEROES: 124 zero bytes follow */
	send_opt(1, "pmem0", 5);
	assert_int_equal(rd_be(take(8), 8), DEV_SIZE);
	assert_int_equal(rd_be(take(2), 2), 0x14D);
	const u8 *z = take(124);
	for (int i = 0; i < 124; i++)
		assert_int_equal(z[i], 0);
	assert_int_equal(got_pos, got_len);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

static void nbd_export_name_unknown_closes(void **state)
{
	(void)state;
	take(18);
	client_flags(3);
	send_opt(1, "nope", 4);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "EXPORT_NAME of an unknown export");
	assert_int_equal(got_pos, got_len);
}

static void nbd_bad_magic_and_flags_close(void **state)
{
	(void)state;
	take(18);
	client_flags(1 | 8);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "unknown client flags");

	nbd_test_teardown(NULL);
	nbd_test_setup(NULL);
	take(18);
	client_flags(2);	/* NO_ZEROES without FIXED_NEWSTYLE */
	assert_string_equal(conn.close_reason, "client is not fixed newstyle");

	nbd_test_teardown(NULL);
	nbd_test_setup(NULL);
	take(18);
	client_flags(1);
	u8 b[16] = "IHAVEOPX";
	feed(b, 16);
	assert_string_equal(conn.close_reason, "bad option magic");
	/* Nothing more is taken once closed. */
	assert_int_equal(nbd_conn_input(&conn, b, 16), 0);

	nbd_test_teardown(NULL);
	nbd_test_setup(NULL);
	greeting_and_go("pmem0");
	u8 r[28] = { 0x25, 0x60, 0x95, 0x14 };
	feed(r, 28);
	assert_string_equal(conn.close_reason, "bad request magic");
}

/* The same session fed whole and one byte at a time must produce the same bytes. */
static void nbd_session_cut_at_every_byte(void **state)
{
	u8 s[1024], b[64];
	size_t n = 0;
	u32 len;
	u16 reqs[] = { 3, 1 };

	(void)state;
	be(s, 3, 4);
	n = 4;
	be(s + n, 0x49484156454F5054ULL, 8);
	be(s + n + 8, 8, 4);
	be(s + n + 12, 0, 4);	/* STRUCTURED_REPLY */
	n += 16;
	go_body(b, &len, "pmem0", 2, reqs);
	be(s + n, 0x49484156454F5054ULL, 8);
	be(s + n + 8, 7, 4);
	be(s + n + 12, len, 4);
	memcpy(s + n + 16, b, len);
	n += 16 + len;
	u8 r[28];
	be(r, 0x25609513, 4);
	be(r + 4, 1, 2);
	be(r + 6, 1, 2);
	be(r + 8, 42, 8);
	be(r + 16, 512, 8);
	be(r + 24, 512, 4);
	memcpy(s + n, r, 28);
	n += 28;
	memset(s + n, 0xEE, 512);
	n += 512;
	be(r + 4, 0, 2);
	be(r + 6, 0, 2);	/* READ it back */
	memcpy(s + n, r, 28);
	n += 28;
	be(r + 6, 2, 2);	/* DISC */
	memcpy(s + n, r, 28);
	n += 28;

	feed(s, n);
	u8 *whole = malloc(got_len);
	size_t whole_len = got_len;
	memcpy(whole, got, got_len);
	u8 mem512[512];
	memcpy(mem512, devs[0].mem + 512, 512);
	assert_true(nbd_conn_done(&conn));
	nbd_conn_free(&conn);

	nbd_test_setup(NULL);
	feed_step(s, n, 1);
	assert_int_equal(got_len, whole_len);
	assert_memory_equal(got, whole, whole_len);
	assert_memory_equal(devs[0].mem + 512, mem512, 512);
	assert_int_equal(mem512[0], 0xEE);
	assert_true(nbd_conn_done(&conn));
	free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nbd_go_then_read_write_flush_disc, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_info_flags_for_read_only_export, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(
			nbd_unsupported_options_get_err_unsup_and_parsing_goes_on, nbd_test_setup,
			nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_go_with_lying_lengths_or_unknown_export,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_option_too_long_is_skipped, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_export_name_for_old_clients, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_export_name_unknown_closes, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_bad_magic_and_flags_close, nbd_test_setup,
						nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_session_cut_at_every_byte, nbd_test_setup,
						nbd_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
