/*
 * Host tests: nbd.test-cache= (net/nbd_wcache.c), the volatile write-back
 * cache a crash test puts in front of an export, driven through the NBD
 * engine over the fake device of test/unit/nbd_tests.c: acknowledged WRITEs
 * stay in RAM (a crash, nbd_wcache_drop, loses them) until FLUSH or FUA
 * writes them back in order; a READ over held data sees it; a full cache
 * writes back; a failed write-back is FLUSH's EIO; the mutation
 * (writeback-ignore-flush) acknowledges FLUSH and FUA and writes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"
#include "nbd_wcache.h"

#define CMD_READ 0
#define CMD_WRITE 1
#define CMD_FLUSH 3
#define CMD_WRITE_ZEROES 6
#define FUA 1

static struct nbd_wcache wc;
static u8 before[DEV_SIZE / 64];	/* the device's first MiB as set up */

static int setup(void **state, enum nbd_wcache_mode mode)
{
	nbd_test_setup(state);
	memcpy(before, devs[0].mem, sizeof(before));
	assert_int_equal(nbd_wcache_wrap(&wc, &devs[0].exp, mode), 0);
	assert_false(devs[0].exp.by_ref);
	greeting_and_go("pmem0");
	return 0;
}

static int setup_writeback(void **state)
{
	return setup(state, NBD_WCACHE_WRITEBACK);
}

static int setup_ignore_flush(void **state)
{
	return setup(state, NBD_WCACHE_IGNORE_FLUSH);
}

static int teardown(void **state)
{
	if (wc.mode != NBD_WCACHE_OFF)
		nbd_wcache_unwrap(&wc);
	return nbd_test_teardown(state);
}

static void write_req(u16 flags, u64 cookie, u64 off, u8 byte, u32 len)
{
	static u8 data[65536];

	memset(data, byte, len);
	send_req(CMD_WRITE, flags, cookie, off, len);
	feed(data, len);
	assert_int_equal(simple_reply(cookie), 0);
}

static bool device_holds(u64 off, u8 byte, u32 len)
{
	for (u32 i = 0; i < len; i++)
		if (devs[0].mem[off + i] != byte)
			return false;
	return true;
}

/* Acknowledged, not written: a crash loses it; after FLUSH it is in the device. */
static void acked_write_waits_for_flush(void **state)
{
	(void)state;
	write_req(0, 1, 4096, 0xA1, 8192);
	assert_int_equal(devs[0].writes, 0);
	assert_memory_equal(devs[0].mem, before, sizeof(before));
	nbd_wcache_drop(&wc);				/* the crash */
	assert_memory_equal(devs[0].mem, before, sizeof(before));

	write_req(0, 2, 4096, 0xB2, 8192);
	send_req(CMD_FLUSH, 0, 3, 0, 0);
	assert_int_equal(simple_reply(3), 0);
	assert_true(device_holds(4096, 0xB2, 8192));
	assert_int_equal(devs[0].flushes, 1);
	assert_int_equal(wc.n, 0);
}

/* FUA writes back everything held, older writes first, before its reply. */
static void fua_writes_back_in_order(void **state)
{
	(void)state;
	write_req(0, 1, 0, 0x11, 4096);
	write_req(0, 2, 512, 0x22, 1024);	/* over the first */
	write_req(FUA, 3, 65536, 0x33, 512);
	assert_true(device_holds(0, 0x11, 512));
	assert_true(device_holds(512, 0x22, 1024));
	assert_true(device_holds(1536, 0x11, 4096 - 1536));
	assert_true(device_holds(65536, 0x33, 512));
	assert_int_equal(devs[0].flushes, 1);
	nbd_wcache_drop(&wc);
	assert_true(device_holds(65536, 0x33, 512));
}

/* A READ over held data writes it back first; one beside it leaves it held. */
static void read_sees_held_writes(void **state)
{
	(void)state;
	write_req(0, 1, 8192, 0x5C, 4096);
	send_req(CMD_READ, 0, 2, 0, 4096);	/* beside it */
	assert_int_equal(simple_reply(2), 0);
	assert_memory_equal(take(4096), before, 4096);
	assert_int_equal(wc.n, 1);
	send_req(CMD_READ, 0, 3, 8192 + 2048, 4096);	/* over half of it */
	assert_int_equal(simple_reply(3), 0);
	const u8 *d = take(4096);
	for (int i = 0; i < 2048; i++)
		assert_int_equal(d[i], 0x5C);
	assert_memory_equal(d + 2048, before + 8192 + 4096, 2048);
	assert_int_equal(wc.n, 0);
}

/* A full cache writes back: NBD_WCACHE_WRITES writes, or NBD_WCACHE_BYTES. */
static void full_cache_writes_back(void **state)
{
	(void)state;
	for (u32 i = 0; i < NBD_WCACHE_WRITES; i++)
		write_req(0, i + 1, (u64)i * 512, (u8)i, 512);
	assert_int_equal(devs[0].writes, 0);
	write_req(0, 5000, 1 << 20, 0x77, 512);	/* the one that does not fit */
	assert_int_equal(devs[0].writes, NBD_WCACHE_WRITES);
	assert_int_equal(wc.n, 1);
	nbd_wcache_drop(&wc);
	for (u32 i = 0; i < NBD_WCACHE_WRITES; i++)
		assert_true(device_holds((u64)i * 512, (u8)i, 512));

	for (u32 i = 0; i < NBD_WCACHE_BYTES / 65536; i++)
		write_req(0, i + 1, 2u << 20, 0x66, 65536);
	assert_int_equal(wc.used, NBD_WCACHE_BYTES);
	write_req(0, 99, 0, 0x67, 512);
	assert_int_equal(wc.n, 1);
	assert_true(device_holds(2u << 20, 0x66, 65536));
}

/* WRITE_ZEROES goes through the cache like a WRITE; FUA on it writes back. */
static void write_zeroes_is_held_too(void **state)
{
	(void)state;
	send_req(CMD_WRITE_ZEROES, 0, 1, 0, 65536);
	assert_int_equal(simple_reply(1), 0);
	assert_memory_equal(devs[0].mem, before, sizeof(before));
	send_req(CMD_WRITE_ZEROES, FUA, 2, 1 << 20, 4096);
	assert_int_equal(simple_reply(2), 0);
	assert_true(device_holds(0, 0, 65536));
	assert_true(device_holds(1 << 20, 0, 4096));
}

/* A write-back that fails is the next FLUSH's EIO, once; unwrap writes back what is held. */
static void failed_write_back_is_flush_eio(void **state)
{
	(void)state;
	devs[0].fail_writes_at = 4096;
	write_req(0, 1, 4096, 0x42, 512);
	write_req(0, 2, 0, 0x43, 512);
	send_req(CMD_FLUSH, 0, 3, 0, 0);
	assert_int_equal(simple_reply(3), 5);
	assert_true(device_holds(0, 0x43, 512));	/* the others still written */
	send_req(CMD_FLUSH, 0, 4, 0, 0);
	assert_int_equal(simple_reply(4), 0);
	devs[0].fail_writes_at = 0;
	write_req(0, 5, 8192, 0x44, 512);
	assert_int_equal(nbd_wcache_unwrap(&wc), 0);
	assert_true(device_holds(8192, 0x44, 512));
}

/* The mutation: FLUSH and FUA acknowledged, nothing written back; a crash loses it all. */
static void ignore_flush_loses_acknowledged_writes(void **state)
{
	(void)state;
	write_req(0, 1, 4096, 0xE1, 4096);
	send_req(CMD_FLUSH, 0, 2, 0, 0);
	assert_int_equal(simple_reply(2), 0);
	write_req(FUA, 3, 16384, 0xE2, 4096);
	assert_int_equal(devs[0].writes, 0);
	assert_int_equal(devs[0].flushes, 0);
	assert_int_equal(wc.flushes_ignored, 2);
	nbd_wcache_drop(&wc);
	assert_memory_equal(devs[0].mem, before, sizeof(before));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(acked_write_waits_for_flush, setup_writeback, teardown),
		cmocka_unit_test_setup_teardown(fua_writes_back_in_order, setup_writeback, teardown),
		cmocka_unit_test_setup_teardown(read_sees_held_writes, setup_writeback, teardown),
		cmocka_unit_test_setup_teardown(full_cache_writes_back, setup_writeback, teardown),
		cmocka_unit_test_setup_teardown(write_zeroes_is_held_too, setup_writeback, teardown),
		cmocka_unit_test_setup_teardown(failed_write_back_is_flush_eio, setup_writeback,
						teardown),
		cmocka_unit_test_setup_teardown(ignore_flush_loses_acknowledged_writes,
						setup_ignore_flush, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
