/*
 * What the BTT host tests share (test_btt*.c): a machine with one pmem
 * namespace in simulated memory, sector I/O on its BTT, check-namespace
 * on its media, and a written BTT to damage. Linked into each of those
 * tests (UNIT_LINK_* in the Makefile).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "btt.h"
#include "btt_tests.h"
#include "host.h"
#include "mm.h"
#include "nd_btt.h"
#include "nd_pfn.h"
#include "pmem.h"

struct nd_namespace_io *ns;
bool region_ro;

/* A fresh machine up to the probe: RAM at 1 GiB, one e820 pmem region at 4 GiB. */
void machine(bool keep_pmem)
{
	struct host_nd_machine m = { .ns_start = NS_START, .ns_size = NS_SIZE,
				     .keep_pmem = keep_pmem, .ro = region_ro };

	ns = host_nd_machine(&m);
}

void boot(bool keep_pmem)
{
	machine(keep_pmem);
	nd_probe_namespaces();
}

u8 *media(u64 off)
{
	return phys_to_virt(NS_START + off);
}

u64 ns_hash(void)
{
	return host_phys_hash(NS_START, NS_SIZE);
}

int btt_test_setup(void **state)
{
	(void)state;
	region_ro = false;
	boot(false);
	return 0;
}

struct pmem_device *pmem0s(void)
{
	struct pmem_device *dev = pmem_find("pmem0s");

	assert_non_null(dev);
	return dev;
}

void read_lba(u64 lba, u8 *buf)
{
	struct pmem_device *dev = pmem0s();

	assert_int_equal(pmem_rw(dev, lba * dev->sector_size, buf, dev->sector_size, PMEM_READ), 0);
}

void write_lba(u64 lba, const u8 *buf)
{
	struct pmem_device *dev = pmem0s();

	assert_int_equal(
		pmem_rw(dev, lba * dev->sector_size, (void *)buf, dev->sector_size, PMEM_WRITE), 0);
}

void expect_lba(u64 lba, const u8 *want)
{
	static u8 got[8192];

	read_lba(lba, got);
	assert_memory_equal(got, want, pmem0s()->sector_size);
}

static struct nsio ns_media(void)
{
	return (struct nsio){ .base = media(0),
			      .phys = NS_START,
			      .size = NS_SIZE,
			      .region = ns->region,
			      .ro = region_ro };
}

int check(bool repair)
{
	struct nsio m = ns_media();
	static const u8 zero[16];

	return btt_check(&m, zero, "namespace0.0", repair);
}

void create_sector(u32 lbasize)
{
	struct nd_pfn_request req = { .sector = true, .lbasize = lbasize, .force = true };

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
}

void pattern(u8 *buf, u32 n, u8 gen, u64 lba)
{
	for (u32 i = 0; i < n; i++)
		buf[i] = (u8)(gen * 31 + lba * 7 + i / 64);
}

void written_btt(void)
{
	static u8 buf[4096];

	create_sector(4096);
	for (u64 lba = 0; lba < 16; lba++) {
		pattern(buf, 4096, 1, lba);
		write_lba(lba, buf);
	}
	assert_int_equal(check(false), 0);
}
