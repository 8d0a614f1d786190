/*
 * Host tests: the NBD engine's long work done in bounded steps, over the
 * fake transport (test/unit/nbd_tests.c): a LIST of 1000 exports with
 * 300-byte names (and names of 4096 bytes and more) produced as a reader
 * drains 7 bytes at a time, with an option behind it held back until the
 * ACK; INFO and GO with the longest names; WRITE_ZEROES done
 * NBD_ZERO_SLICE per nbd_conn_work with the input held meanwhile and the
 * reply after the last slice (after the flush with FUA), a device failing
 * half-way, and the glue of before (work_in_steps off) zeroing all at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"

#define MANY 1000
#define LONG_NAME 300
/* After the MANY: one name of NBD_NAME_MAX bytes, one longer (sent cut to NBD_NAME_MAX). */
#define NEXPORTS (MANY + 2)

static struct nbd_export many[NEXPORTS];
static char *names[NEXPORTS];

static const struct nbd_export *many_lookup(void *arg, const char *name)
{
	(void)arg;
	for (unsigned int i = 0; i < NEXPORTS; i++)
		if (!strcmp(many[i].name, name))
			return &many[i];
	return NULL;
}

static const struct nbd_export *many_nth(void *arg, unsigned int i)
{
	(void)arg;
	return i < NEXPORTS ? &many[i] : NULL;
}

static const struct nbd_exports many_table = { .lookup = many_lookup, .nth = many_nth };

/* NEXPORTS views of devs[1]: names "NNNN" padded with letters to their length. */
static int many_setup(void **state)
{
	nbd_test_setup(state);
	nbd_conn_free(&conn);
	for (unsigned int i = 0; i < NEXPORTS; i++) {
		size_t n = i < MANY ? LONG_NAME : i == MANY ? NBD_NAME_MAX : NBD_NAME_MAX + 500;
		names[i] = malloc(n + 1);
		memset(names[i], 'a' + i % 26, n);
		names[i][n] = '\0';
		char num[8];
		snprintf(num, sizeof(num), "%04u", i);
		memcpy(names[i], num, 4);
		many[i] = devs[1].exp;
		many[i].name = names[i];
	}
	nbd_test_start(&many_table);
	take(18);
	client_flags(3);
	return 0;
}

static int many_teardown(void **state)
{
	nbd_test_teardown(state);
	for (unsigned int i = 0; i < NEXPORTS; i++)
		free(names[i]);
	return 0;
}

/* Drain all the engine has, drain_limit bytes per drain(). */
static void drain_all(void)
{
	const u8 *p;

	while (nbd_conn_output(&conn, &p))
		drain();
}

static void nbd_list_of_1000_long_names_drained_in_7_byte_pieces(void **state)
{
	u8 seg[32];
	u32 rlen;
	const u8 *d;

	(void)state;
	be(seg, 0x49484156454F5054ULL, 8);
	be(seg + 8, 3, 4);	/* LIST */
	be(seg + 12, 0, 4);
	be(seg + 16, 0x49484156454F5054ULL, 8);
	be(seg + 24, 2, 4);	/* ABORT right behind it: held until the LIST is done */
	be(seg + 28, 0, 4);
	assert_int_equal(nbd_conn_input(&conn, seg, 32), 16);
	drain_limit = 7;
	for (int turns = 0; conn.listing; turns++) {
		assert_true(turns < 1000000);
		assert_int_equal(nbd_conn_input(&conn, seg + 16, 16), 0);
		drain();
	}
	drain_all();
	for (unsigned int i = 0; i < NEXPORTS; i++) {
		u32 want = i < MANY ? LONG_NAME : NBD_NAME_MAX;
		assert_int_equal(opt_reply(3, &rlen, &d), 2);
		assert_int_equal(rlen, 4 + want);
		assert_int_equal(rd_be(d, 4), want);
		assert_memory_equal(d + 4, names[i], want);
	}
	assert_int_equal(opt_reply(3, &rlen, &d), 1);
	assert_int_equal(got_pos, got_len);
	feed(seg + 16, 16);
	drain_all();
	assert_int_equal(opt_reply(2, &rlen, &d), 1);
	assert_true(nbd_conn_done(&conn));
}

static void nbd_info_and_go_with_the_longest_name(void **state)
{
	u16 reqs[] = { 1 };
	u8 *b = malloc(NBD_NAME_MAX + 16);
	u32 len, rlen;
	const u8 *d;

	(void)state;
	go_body(b, &len, names[MANY], 1, reqs);
	send_opt(6, b, len);	/* INFO, NAME asked for */
	assert_int_equal(opt_reply(6, &rlen, &d), 3);
	assert_int_equal(opt_reply(6, &rlen, &d), 3);
	assert_int_equal(opt_reply(6, &rlen, &d), 3);
	assert_int_equal(rlen, 2 + NBD_NAME_MAX);
	assert_int_equal(rd_be(d, 2), 1);
	assert_memory_equal(d + 2, names[MANY], NBD_NAME_MAX);
	assert_int_equal(opt_reply(6, &rlen, &d), 1);
	/* GO to it: 4104 bytes of option data, read whole. */
	send_opt(7, b, len);
	while (opt_reply(7, &rlen, &d) == 3)
		;
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
	assert_ptr_equal(conn.exp, &many[MANY]);
	free(b);
}

/* A WRITE_ZEROES of len at off with flags, and a READ of 512 at off behind it, in one segment. */
static void zeroes_then_read(u8 *seg, u16 flags, u64 off, u32 len)
{
	put_req(seg, 6, flags, 0x20, off, len);
	put_req(seg + 28, 0, 0, 0x21, off, 512);
}

static void nbd_write_zeroes_done_in_slices_with_input_held(void **state)
{
	u8 seg[56];
	const u64 off = 512;
	const u32 len = 40u << 20;

	(void)state;
	conn.work_in_steps = true;
	greeting_and_go("pmem0");
	u8 before = devs[0].mem[off - 1], after = devs[0].mem[off + len];
	assert_false(nbd_conn_busy(&conn));
	assert_false(nbd_conn_work(&conn));
	zeroes_then_read(seg, 1, off, len);	/* FUA */
	assert_int_equal(nbd_conn_input(&conn, seg, sizeof(seg)), 28);
	unsigned int calls = 0, writes = devs[0].writes;
	while (nbd_conn_busy(&conn)) {
		bool more = nbd_conn_work(&conn);
		calls++;
		/* At most NBD_ZERO_SLICE per step, in NBD_WBUF writes. */
		assert_true(devs[0].writes - writes <= NBD_ZERO_SLICE / NBD_WBUF);
		writes = devs[0].writes;
		assert_int_equal(more, nbd_conn_busy(&conn));
		if (more) {
			drain();
			assert_int_equal(got_pos, got_len);	/* no reply before the last slice */
			assert_int_equal(devs[0].flushes, 0);
			assert_int_equal(nbd_conn_input(&conn, seg + 28, 28), 0);
		}
	}
	assert_int_equal(calls, len / NBD_ZERO_SLICE);
	drain();
	assert_int_equal(simple_reply(0x20), 0);
	assert_int_equal(devs[0].flushes, 1);	/* FUA: flushed before the reply */
	for (u64 i = off; i < off + len; i += 4096 - 8)
		assert_int_equal(devs[0].mem[i], 0);
	assert_int_equal(devs[0].mem[off + len - 1], 0);
	assert_int_equal(devs[0].mem[off - 1], before);
	assert_int_equal(devs[0].mem[off + len], after);
	feed(seg + 28, 28);	/* the READ behind it, taken only now */
	assert_int_equal(simple_reply(0x21), 0);
	assert_memory_equal(take(512), devs[0].mem + off, 512);
	assert_false(nbd_conn_work(&conn));

	/* Empty: one step, the reply. */
	send_req(6, 0, 0x22, 0, 0);
	assert_true(nbd_conn_busy(&conn));
	assert_false(nbd_conn_work(&conn));
	drain();
	assert_int_equal(simple_reply(0x22), 0);
	/* Bad ones are answered at once, nothing to work on. */
	send_req(6, 0, 0x23, DEV_SIZE - 512, 1024);
	assert_false(nbd_conn_busy(&conn));
	assert_int_equal(simple_reply(0x23), 28);
}

static void nbd_write_zeroes_failing_half_way_gets_eio(void **state)
{
	u8 seg[56];

	(void)state;
	conn.work_in_steps = true;
	greeting_and_go("pmem0");
	devs[0].fail_writes_at = (5u << 20) + 4096;
	u8 later = devs[0].mem[8u << 20];
	zeroes_then_read(seg, 1, 0, 16u << 20);
	assert_int_equal(nbd_conn_input(&conn, seg, sizeof(seg)), 28);
	unsigned int calls = 0;
	while (nbd_conn_work(&conn))
		calls++;
	assert_int_equal(calls, 5);	/* the sixth slice failed, the rest not tried */
	drain();
	assert_int_equal(simple_reply(0x20), 5);
	assert_int_equal(devs[0].flushes, 0);
	assert_int_equal(devs[0].mem[8u << 20], later);
	feed(seg + 28, 28);
	assert_int_equal(simple_reply(0x21), 0);
}

/* A glue that does not call nbd_conn_work: zeroed all at once, as before. */
static void nbd_write_zeroes_whole_without_work_in_steps(void **state)
{
	u8 seg[56];

	(void)state;
	greeting_and_go("pmem0");
	zeroes_then_read(seg, 0, 0, 40u << 20);
	feed(seg, sizeof(seg));
	assert_false(nbd_conn_busy(&conn));
	assert_int_equal(simple_reply(0x20), 0);
	assert_int_equal(simple_reply(0x21), 0);
	const u8 *z = take(512);
	for (int i = 0; i < 512; i++)
		assert_int_equal(z[i], 0);
	assert_int_equal(devs[0].mem[(40u << 20) - 1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nbd_list_of_1000_long_names_drained_in_7_byte_pieces,
						many_setup, many_teardown),
		cmocka_unit_test_setup_teardown(nbd_info_and_go_with_the_longest_name, many_setup,
						many_teardown),
		cmocka_unit_test_setup_teardown(nbd_write_zeroes_done_in_slices_with_input_held,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_write_zeroes_failing_half_way_gets_eio,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_write_zeroes_whole_without_work_in_steps,
						nbd_test_setup, nbd_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
