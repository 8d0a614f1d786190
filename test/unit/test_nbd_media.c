/*
 * Host tests: the NBD server over a real pmem device with bad sectors
 * (issue 29): the engine (net/nbd_transmission.c) and the export's view of
 * the device (net/nbd_pmem.c) on a machine with one region
 * (test/host/nd_host.c), bad sectors listed or only poisoned through the
 * kernel's injector, whose machine check the host fakes file as the
 * kernel's #MC handler does (test/host/mce_host.c). A READ over a bad
 * sector gets EIO (simple) or an ERROR_OFFSET chunk at it (structured);
 * no bad sector is ever lent by reference; good ranges stay zero copy; a
 * WRITE heals the sectors it covers whole, however its data is cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "../../net/nbd_priv.h"
#include "host.h"
#include "media_error.h"
#include "nbd_tests.h"

#define NS_START (4 * GiB)
#define BAD (1 * MiB + 3 * 512) /* device offset of the first bad sector */

static struct nd_namespace_io *ns;
static struct srv_export ex;

static const struct nbd_export *ex_lookup(void *arg, const char *name)
{
	(void)arg;
	return strcmp(name, ex.name) ? NULL : &ex.exp;
}

static const struct nbd_export *ex_nth(void *arg, unsigned int i)
{
	(void)arg;
	return i ? NULL : &ex.exp;
}

static const struct nbd_exports exports = { .lookup = ex_lookup, .nth = ex_nth };

/* By-reference READ data: the device's own bytes at the address the NIC would get. */
static const u8 *ex_ref(u64 off, u32 n)
{
	assert_true(pmem_read_ref_clean(&ex.hold, off, n)); /* never a bad sector */
	return ex.base + off;
}

/* The pattern at device offset off. */
static u8 pattern(u64 off)
{
	return (u8)(off * 7 + off / 4093);
}

/* A 64 MiB raw pmem0, its first 4 MiB in the pattern, exported as nbd_exports.c does. */
static int setup(void **state)
{
	static u8 buf[4 * MiB];
	struct host_nd_machine m = { .ns_start = NS_START, .ns_size = DEV_SIZE, .probe = true };

	(void)state;
	ns = host_nd_machine(&m);
	struct pmem_device *dev = pmem_find("pmem0");
	assert_non_null(dev);
	for (u64 i = 0; i < sizeof(buf); i++)
		buf[i] = pattern(i);
	assert_int_equal(pmem_rw(dev, 0, buf, sizeof(buf), PMEM_WRITE), 0);
	memset(&ex, 0, sizeof(ex));
	strcpy(ex.name, "pmem0");
	ex.dev = dev;
	assert_int_equal(pmem_hold(dev, PMEM_HOLD_EXPORT, "test export", &ex.hold), 0);
	ex.base = pmem_read_ref(&ex.hold);
	assert_non_null(ex.base);
	nbd_pmem_export(&ex, false);
	nbd_test_start(&exports);
	drain_ref = ex_ref;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nbd_conn_free(&conn);
	pmem_release(&ex.hold);
	return 0;
}

/* Region sector of device offset off. */
static u64 region_sector(u64 off)
{
	return (ns->start - ns->region->start + off) >> BADBLOCK_SHIFT;
}

/* Poison `count` sectors at device offset off: listed at once (inject-error), or only poisoned (--no-notify). */
static void inject(u64 off, u64 count, bool notify)
{
	struct nd_region *r = ns->region;
	u64 s = region_sector(off);

	assert_int_equal(media_inject(r, s, count), 0);
	if (notify)
		assert_true(media_error_notify(r->start + (s << BADBLOCK_SHIFT),
					       count << BADBLOCK_SHIFT, MEDIA_ERR_INJECT));
	media_errors_drain();
}

static u32 listed(void)
{
	return badblocks_count(&ns->region->bb);
}

/* The device's pattern for [off, off + len) is in p. */
static void assert_pattern(const u8 *p, u64 off, u64 len)
{
	for (u64 i = 0; i < len; i++)
		if (p[i] != pattern(off + i))
			fail_msg("byte %#llx is %#x, want %#x", (unsigned long long)(off + i), p[i],
				 pattern(off + i));
}

/*
 * Simple replies: a READ over a listed bad sector gets EIO and no
 * payload, zero copy or not, and changes nothing; READs right up to it and
 * right after it get the device's bytes, by reference when zero copy is on.
 */
static void nbd_media_read_over_a_bad_sector_is_eio(void **state)
{
	(void)state;
	inject(BAD, 2, true);
	assert_int_equal(listed(), 1);
	greeting_and_go("pmem0");
	for (int zc = 0; zc < 2; zc++) {
		conn.zero_copy = zc;
		u64 by_ref = conn.stats.bytes_by_ref;
		send_req(0, 0, 1, 1 * MiB, 64 * 1024);
		assert_int_equal(simple_reply(1), 5);
		assert_int_equal(got_pos, got_len); /* no payload */
		send_req(0, 0, 2, BAD + 512, 512); /* its second sector alone */
		assert_int_equal(simple_reply(2), 5);
		send_req(0, 0, 3, 0, BAD); /* everything before it */
		assert_int_equal(simple_reply(3), 0);
		assert_pattern(take(BAD), 0, BAD);
		send_req(0, 0, 4, BAD + 1024, 3 * MiB - BAD - 1024); /* everything after it */
		assert_int_equal(simple_reply(4), 0);
		assert_pattern(take(3 * MiB - BAD - 1024), BAD + 1024, 3 * MiB - BAD - 1024);
		assert_int_equal(conn.stats.bytes_by_ref - by_ref, zc ? 3 * MiB - 1024 : 0);
	}
	assert_int_equal(conn.stats.errors, 4);
	assert_int_equal(conn.stats.bytes_read, 2 * (3 * MiB - 1024));
	assert_int_equal(listed(), 1); /* a read changes no state */
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

/*
 * Structured replies: one final ERROR_OFFSET chunk, EIO at the first bad
 * byte of the request; good READs are an OFFSET_DATA chunk and a NONE
 * chunk (by reference the data chunk is not final: a bad sector may still
 * turn up while it is sent).
 */
static void nbd_media_structured_read_over_a_bad_sector_is_error_offset(void **state)
{
	(void)state;
	inject(BAD, 2, true);
	conn.zero_copy = true;
	structured_go("pmem0");
	send_req(0, 0, 1, 1 * MiB, 64 * 1024);
	error_offset(1, 5, BAD);
	send_req(0, 0, 2, BAD + 512, 4096);
	error_offset(2, 5, BAD + 512);
	send_req(0, 0, 3, 1 * MiB, 1536);
	assert_pattern(data_chunk(3, 1 * MiB, 1536), 1 * MiB, 1536);
	none_chunk(3);
	assert_int_equal(conn.stats.bytes_by_ref, 1536);
	conn.zero_copy = false;
	send_req(0, 0, 4, BAD + 1024, 8192);
	assert_pattern(data_chunk(4, BAD + 1024, 8192), BAD + 1024, 8192);
	none_chunk(4);
	assert_int_equal(conn.stats.errors, 2);
	assert_int_equal(got_pos, got_len);
}

/*
 * A sector poisoned while a zero-copy READ waits to be sent (after its
 * check, before its bytes leave): pmem_read_ref_clean refuses it, so the
 * rest is read through pmem_rw, whose machine-check-safe copy takes the
 * machine check, lists the sector and fails; the reply is the good bytes,
 * zeros, and ERROR_OFFSET at the bad sector. Nothing of it was lent.
 */
static void nbd_media_zero_copy_falls_back_to_the_checked_copy(void **state)
{
	u8 req[28];

	(void)state;
	conn.zero_copy = true;
	structured_go("pmem0");
	put_req(req, 0, 0, 1, 1 * MiB, 64 * 1024);
	assert_int_equal(nbd_conn_input(&conn, req, sizeof(req)), sizeof(req)); /* checked: clean */
	u64 mc = media_error_stats.notified;
	inject(BAD, 1, false); /* poisoned, not listed: as a line nobody has read yet */
	assert_int_equal(listed(), 0);
	drain();
	const u8 *d = data_chunk(1, 1 * MiB, 64 * 1024);
	error_offset(1, 5, BAD);
	assert_pattern(d, 1 * MiB, BAD - 1 * MiB);
	for (u64 i = BAD - 1 * MiB; i < 64 * 1024; i++)
		assert_int_equal(d[i], 0);
	assert_int_equal(conn.stats.bytes_by_ref, 0);
	assert_int_equal(conn.stats.bytes_read, BAD - 1 * MiB);
	assert_int_equal(media_error_stats.notified, mc + 1); /* the copy's machine check */
	assert_int_equal(listed(), 1);
	/* Now listed: the next READ over it is refused before anything is read. */
	send_req(0, 0, 2, BAD, 512);
	error_offset(2, 5, BAD);
	assert_int_equal(media_error_stats.notified, mc + 1);
	assert_int_equal(got_pos, got_len);
}

/*
 * A WRITE over bad sectors (listed and poisoned) heals them and succeeds,
 * though its data comes in pieces that end inside them (TCP segments);
 * the bytes then read back, over NBD and through the device. A store that
 * covers a bad sector only in part is refused with -EIO by the media path
 * the server writes through, and the sector stays listed.
 */
static void nbd_media_write_heals_the_sectors_it_covers(void **state)
{
	static u8 data[8192];
	const u64 at = 2 * MiB;

	(void)state;
	inject(at + 1024, 3, true); /* listed */
	inject(at + 5000 / 512 * 512, 1, false); /* only poisoned */
	assert_int_equal(listed(), 1);
	u8 few[200];
	memset(few, 0xee, sizeof(few));
	assert_int_equal(pmem_write_bytes(ex.dev, at + 1024 + 100, few, 10), -EIO);
	assert_int_equal(pmem_write_bytes(ex.dev, at + 1024 - 100, few, 200), -EIO);
	assert_int_equal(listed(), 1);
	greeting_and_go("pmem0");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 11 + 5);
	send_req(1, 1, 1, at, sizeof(data)); /* FUA, as qemu-io writes */
	feed_step(data, sizeof(data), 1459);
	assert_int_equal(simple_reply(1), 0);
	assert_int_equal(listed(), 0);
	assert_int_equal(badblocks_count(&ns->region->poison), 0);
	assert_int_equal(conn.stats.bytes_written, sizeof(data));
	assert_true(conn.stats.bytes_direct < sizeof(data)); /* the carried sectors */
	u8 back[sizeof(data)];
	assert_int_equal(pmem_rw(ex.dev, at, back, sizeof(back), PMEM_READ), 0);
	assert_memory_equal(back, data, sizeof(data));
	send_req(0, 0, 2, at, sizeof(data));
	assert_int_equal(simple_reply(2), 0);
	assert_memory_equal(take(sizeof(data)), data, sizeof(data));
	/* WRITE_ZEROES heals too (whole sectors through pmem_rw). */
	inject(at, 1, true);
	send_req(6, 0, 3, at, 512);
	assert_int_equal(simple_reply(3), 0);
	assert_int_equal(listed(), 0);
	assert_int_equal(got_pos, got_len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nbd_media_read_over_a_bad_sector_is_eio, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			nbd_media_structured_read_over_a_bad_sector_is_error_offset, setup,
			teardown),
		cmocka_unit_test_setup_teardown(nbd_media_zero_copy_falls_back_to_the_checked_copy,
						setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_media_write_heals_the_sectors_it_covers, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
