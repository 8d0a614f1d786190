/*
 * Host tests: one door to the media. On a read-only region every writer of
 * namespace bytes is refused and nothing changes: block writes (raw, fsdax,
 * devdax's block view, sector), the NBD server's WRITE path
 * (pmem_write_bytes), the BTT engine and its checker's repair, info blocks
 * (reconfigure), stores through a devdax mapping, and the media path
 * itself with either copy a benchmark measures. On a writable region the
 * same path stores, counts and flushes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "nd_btt.h"
#include "nd_dax.h"
#include "nd_pfn.h"

#define NS_START (4 * GiB)
#define NS_SIZE (256 * MiB)

static struct nd_namespace_io *ns;

static void boot(bool keep, bool ro)
{
	struct host_nd_machine m = { .ns_start = NS_START,
				     .ns_size = NS_SIZE,
				     .keep_pmem = keep,
				     .ro = ro,
				     .hinted_dimms = 2,
				     .hint_base = 1 * GiB + 256 * MiB,
				     .probe = true };

	ns = host_nd_machine(&m);
}

/* The media path itself, with either copy: -EROFS for every store. */
static void media_refuses(const struct nsio *io)
{
	static const u8 buf[4096];

	for (int plain = 0; plain < 2; plain++) {
		struct nsio v = *io;
		v.cpu_cache = plain; /* the copy a benchmark baseline measures */
		assert_int_equal(nsio_write(&v, 8192, buf, sizeof(buf), PMEM_WR_OTHER), -EROFS);
		assert_int_equal(nsio_write_unflushed(&v, 0, buf, 1, PMEM_WR_OTHER), -EROFS);
		assert_int_equal(nsio_zero(&v, 0, 4096, PMEM_WR_OTHER), -EROFS);
		assert_int_equal(nsio_store32(&v, 0, 1, PMEM_WR_BTT), -EROFS);
		assert_int_equal(nsio_store64(&v, 8, 1, PMEM_WR_BTT), -EROFS);
	}
}

/* Every writer that reaches device `name` of the read-only namespace. */
static void device_refuses(const char *name)
{
	static u8 buf[8192];
	struct pmem_device *dev = pmem_find(name);

	assert_non_null(dev);
	assert_true(dev->ro);
	assert_int_equal(pmem_rw(dev, 0, buf, dev->sector_size, PMEM_WRITE), -EROFS);
	assert_int_equal(pmem_write_bytes(dev, 0, buf, 3), dev->rw ? -EOPNOTSUPP : -EROFS);
	if (dev->rw) {
		struct nd_btt *b = nd_btt_of(ns);
		assert_int_equal(btt_write(&b->btt, 0, buf), -EROFS);
		assert_int_equal(nd_btt_check_namespace(ns, true), -EROFS);
	} else {
		media_refuses(&dev->io);
	}
	struct nd_pfn *dax = nd_dax_find(name);
	if (dax) {
		struct dax_mapping m;
		assert_int_equal(dax_map(dax, 0, 2 * MiB, "test", &m), 0);
		assert_true(m.io.ro);
		media_refuses(&m.io);
		dax_unmap(&m);
	}
}

static void read_only_region_refuses_every_writer(void **state)
{
	static u8 buf[4096];

	(void)state;
	host_set_leaf_allowed(PG_LEVEL_1G, true);
	for (size_t k = 0; k < ARRAY_SIZE(host_nd_kinds); k++) {
		boot(false, false);
		assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[k].req), 0);
		memset(buf, 0x5a, sizeof(buf));
		assert_int_equal(
			pmem_rw(pmem_find(host_nd_kinds[k].dev), 0, buf, sizeof(buf), PMEM_WRITE),
			0);
		boot(true, true);
		u64 hash = host_phys_hash(NS_START, NS_SIZE), written = pmem_written_total();
		device_refuses(host_nd_kinds[k].dev);
		media_refuses(&ns->io);
		/* The info block: no reconfigure, no destroy. */
		assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[(k + 1) % 4].req),
				 -EROFS);
		assert_int_equal(nd_namespace_destroy(ns, true), -EROFS);
		assert_int_equal(host_phys_hash(NS_START, NS_SIZE), hash);
		assert_int_equal(pmem_written_total(), written);
		/* Reading goes on. */
		memset(buf, 0, sizeof(buf));
		assert_int_equal(
			pmem_rw(pmem_find(host_nd_kinds[k].dev), 0, buf, sizeof(buf), PMEM_READ),
			0);
		assert_int_equal(buf[0], 0x5a);
	}
}

/*
 * A writable region's media path: a durable write is the copy, one count
 * and one flush (fence, a hint write per DIMM, fence); the unflushed one
 * waits for nsio_flush; nothing outside the media is touched.
 */
static void writable_media_stores_counts_and_flushes(void **state)
{
	static const u8 abc[3] = { 1, 2, 3 };
	u8 got[3];
	u32 v32;

	(void)state;
	boot(false, false);
	const struct nsio *io = &ns->io;
	u64 hints = ns->region->flush_hint_writes, wr = pmem_written[PMEM_WR_OTHER];
	assert_int_equal(nsio_write(io, 4097, abc, 3, PMEM_WR_OTHER), 0);
	assert_int_equal(ns->region->flush_hint_writes, hints + 2);
	assert_int_equal(pmem_written[PMEM_WR_OTHER], wr + 3);
	assert_int_equal(nsio_write_unflushed(io, 8191, abc, 3, PMEM_WR_OTHER), 0);
	assert_int_equal(ns->region->flush_hint_writes, hints + 2);
	nsio_flush(io);
	assert_int_equal(ns->region->flush_hint_writes, hints + 4);
	assert_int_equal(nsio_read(io, 4097, got, 3), 0);
	assert_memory_equal(got, abc, 3);
	assert_int_equal(nsio_store32(io, 64, 0xfeedf00d, PMEM_WR_BTT), 0);
	assert_int_equal(nsio_load32(io, 64, &v32), 0);
	assert_int_equal(v32, 0xfeedf00d);
	assert_int_equal(nsio_store32(io, 66, 1, PMEM_WR_BTT), -EINVAL);
	assert_int_equal(nsio_store64(io, 68, 1, PMEM_WR_BTT), -EINVAL);
	assert_int_equal(nsio_write(io, NS_SIZE - 2, abc, 3, PMEM_WR_OTHER), -ERANGE);
	assert_int_equal(nsio_read(io, NS_SIZE, got, 1), -ERANGE);
	assert_int_equal(nsio_read(io, ~0ull, got, 2), -ERANGE);
	assert_null(nsio_kaddr(io, NS_SIZE));
	struct nsio view;
	assert_int_equal(nsio_view(io, 4096, 8192, &view), 0);
	assert_int_equal(nsio_read(&view, 1, got, 3), 0);
	assert_memory_equal(got, abc, 3);
	assert_int_equal(nsio_view(io, 4096, NS_SIZE, &view), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_only_region_refuses_every_writer),
		cmocka_unit_test(writable_media_stores_counts_and_flushes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
