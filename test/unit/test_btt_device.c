/*
 * Host tests: the BTT device (sector mode): create, reconfigure to fsdax
 * and raw and back, one view of the namespace, the I/O rules, sectors of
 * 4160 bytes, a read-only region.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "btt.h"
#include "btt_tests.h"
#include "host.h"
#include "mm.h"
#include "nd_btt.h"
#include "nd_pfn.h"
#include "nd_util.h"

/* ---- the device: create, reconfigure, one view, I/O rules ---- */

static void btt_reconfigure_sector_fsdax_raw(void **state)
{
	(void)state;
	static u8 buf[4096];
	struct nd_pfn_request fsdax = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_request raw = { .mode = PFN_MODE_NONE, .force = true };
	struct nd_pfn_request sector = { .sector = true };

	assert_int_equal(nd_namespace_reconfigure(ns, &sector), -EBUSY);	/* needs -f */
	create_sector(0);	/* ndctl's default: 4096 */
	assert_int_equal(pmem0s()->sector_size, 4096);
	assert_int_equal(pmem0s()->size, 1071611904);
	assert_null(pmem_find("pmem0"));
	assert_true(host_console_has(
		"nd_btt btt0.0: namespace0.0 sector 4096, BTT 1.1, 1 arena: pmem0s, 261624 sectors"));
	struct pmem_dax dax;
	assert_int_equal(pmem_direct_access(pmem0s(), 0, "test", &dax), -EOPNOTSUPP);
	assert_int_equal(pmem_rw(pmem0s(), 512, buf, 4096, PMEM_READ), -EINVAL);
	assert_int_equal(pmem_rw(pmem0s(), pmem0s()->size, buf, 4096, PMEM_READ), -ERANGE);
	/* Found again at boot. */
	pattern(buf, 4096, 3, 77);
	write_lba(77, buf);
	boot(true);
	expect_lba(77, buf);
	/* Sector -> fsdax: the first 8 KiB zeroed (ndctl), the pfn block written. */
	assert_int_equal(nd_namespace_reconfigure(ns, &fsdax), 0);
	assert_null(pmem_find("pmem0s"));
	assert_non_null(pmem_find("pmem0m"));
	assert_int_equal(*(u64 *)media(0), 0);
	boot(true);
	assert_non_null(pmem_find("pmem0m"));
	/* fsdax -> sector 512 -> raw (destroy): nothing of the BTT is recognised after. */
	create_sector(512);
	assert_int_equal(pmem0s()->sector_size, 512);
	assert_int_equal(pmem0s()->size, 1065254400);
	assert_int_equal(nd_namespace_reconfigure(ns, &raw), 0);
	for (int i = 0; i < 8192; i += 8)
		assert_int_equal(*(u64 *)media(i), 0);
	boot(true);
	assert_null(nd_btt_of(ns));
	assert_non_null(pmem_find("pmem0"));
	/* Unsupported sizes are refused before anything changes. */
	struct nd_pfn_request bad = { .sector = true, .lbasize = 1024, .force = true };
	u64 before = ns_hash();
	assert_int_equal(nd_namespace_reconfigure(ns, &bad), -EINVAL);
	assert_int_equal(ns_hash(), before);
	assert_non_null(pmem_find("pmem0"));
}

/* Sectors of 4160 (internal = external, like 512 and 4096): whole-sector I/O by division. */
static void btt_sector_4160(void **state)
{
	(void)state;
	static u8 buf[2 * 4160], back[2 * 4160];

	create_sector(4160);
	struct pmem_device *dev = pmem0s();
	assert_int_equal(dev->sector_size, 4160);
	for (u32 i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 13);
	assert_int_equal(pmem_rw(dev, 4160, buf, sizeof(buf), PMEM_WRITE), 0);
	assert_int_equal(pmem_rw(dev, 4160, back, sizeof(back), PMEM_READ), 0);
	assert_memory_equal(buf, back, sizeof(buf));
	assert_int_equal(pmem_rw(dev, 4096, buf, 4160, PMEM_READ), -EINVAL);
	assert_int_equal(check(false), 0);
}

/* On a read-only region: attached read-only, nothing stored by probe, write or create. */
static void btt_read_only_region(void **state)
{
	(void)state;
	static u8 buf[4096];

	written_btt();
	u64 before = ns_hash();
	region_ro = true;
	boot(true);
	region_ro = false;
	assert_true(pmem0s()->ro);
	pattern(buf, 4096, 1, 9);
	expect_lba(9, buf);
	assert_int_equal(pmem_rw(pmem0s(), 0, buf, 4096, PMEM_WRITE), -EROFS);
	assert_int_equal(nd_btt_check_namespace(ns, true), -EROFS);
	assert_int_equal(check(false), 0);
	assert_int_equal(ns_hash(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(btt_reconfigure_sector_fsdax_raw, btt_test_setup),
		cmocka_unit_test_setup(btt_sector_4160, btt_test_setup),
		cmocka_unit_test_setup(btt_read_only_region, btt_test_setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
