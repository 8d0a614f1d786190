/*
 * Host tests: pfn devices end to end in simulated memory with real page
 * tables and struct pages: probe, create map=dev/map=mem, re-probe as after
 * a reboot, corrupted blocks, block I/O bounds, direct_access.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "memlayout.h"
#include "mm.h"
#include "nd_btt.h"
#include "nd_pfn.h"
#include "nd_util.h"
#include "persist.h"

#define NS_START (4 * GiB)
#define NS_SIZE (1 * GiB)

static struct nd_namespace_io *ns;

/* How the next boot looks: RAM size, the region read-only (an NFIT DIMM not armed). */
static u64 ram_size = 512 * MiB;
static bool region_ro;
static u32 nr_hinted_dimms;	/* DIMMs of the region, each with a flush hint */
#define HINT_PAGE(i) (1 * GiB + 256 * MiB + (u64)(i) * PAGE_SIZE)	/* scratch RAM */

/*
 * A fresh machine: RAM at 1 GiB, one e820 pmem region at 4 GiB. With
 * keep_pmem the whole namespace survives, as across a real reboot.
 */
static void boot(bool keep_pmem)
{
	struct host_nd_machine m = { .ram_size = ram_size, .ns_start = NS_START, .ns_size = NS_SIZE,
				     .keep_pmem = keep_pmem, .ro = region_ro,
				     .hinted_dimms = nr_hinted_dimms, .hint_base = HINT_PAGE(0),
				     .probe = true };

	ns = host_nd_machine(&m);
}

/* Everything the namespace holds, hashed (holes and zero pages alike). */
static u64 ns_hash(void)
{
	return host_phys_hash(NS_START, NS_SIZE);
}

static int setup(void **state)
{
	(void)state;
	ram_size = 512 * MiB;
	region_ro = false;
	nr_hinted_dimms = 0;
	host_set_leaf_allowed(PG_LEVEL_1G, true);
	boot(false);
	return 0;
}

static void pfn_probe_of_empty_namespace_is_raw(void **state)
{
	(void)state;
	assert_null(nd_pfn_of(ns));
	assert_non_null(pmem_find("pmem0"));
	assert_null(pmem_find("pmem0m"));
	assert_true(host_console_has("nd_pmem namespace0.0: raw, pmem0, 1024 MiB"));
}

static void pfn_create_needs_force(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB };

	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
	assert_true(host_console_has("namespace0.0 is active, specify -f/--force"));
	assert_non_null(pmem_find("pmem0"));
}

/* map=dev: Linux's layout, struct pages on the device, data at dataoff. */
static void pfn_create_map_dev_layout_and_dax(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_sb sb;
	struct nd_pfn_layout l;
	const char *why;

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_null(pmem_find("pmem0"));	/* one view only */
	struct pmem_device *dev = pmem_find("pmem0m");
	assert_non_null(dev);
	assert_int_equal(nd_pfn_read_sb(ns, &sb), 0);
	struct nd_pfn_geom g = { .start = NS_START, .size = NS_SIZE };
	assert_int_equal(nd_pfn_validate(&sb, &g, &l, &why), 0);
	assert_int_equal(l.dataoff, 0x1200000);	/* FACTS §1.7, 1 GiB map=dev */
	assert_int_equal(dev->phys, NS_START + 0x1200000);
	assert_int_equal(dev->size, NS_SIZE - 0x1200000);
	/* The device keeps what its bring-up cost: every struct page (the reserve's too), stored. */
	const struct memremap_stats *st = &nd_pfn_of(ns)->memmap_stats;
	assert_int_equal(st->pages_init, PFN_DOWN(NS_SIZE));
	assert_int_equal(st->pmem_pages_stored, st->pages_init);

	struct pmem_dax dax;
	s64 avail = pmem_direct_access(dev, 0, "test", &dax);
	pfn_t pfn = dax.pfn;
	assert_int_equal(avail, (s64)dev->size);
	assert_ptr_equal(dax.hold.dev, dev);	/* the address holds the device, and its pages */
	assert_int_equal(nd_pfn_of(ns)->pgmap.pins, 1);
	pmem_dax_put(&dax);
	assert_int_equal(nd_pfn_of(ns)->pgmap.pins, 0);
	assert_int_equal(pfn_t_to_phys(pfn), NS_START + 0x1200000);
	assert_true(pfn.val & PFN_MAP);
	struct page *page = pfn_t_to_page(pfn);
	assert_non_null(page);
	assert_true(is_zone_device_page(page));
	assert_ptr_equal(page->pgmap, &nd_pfn_of(ns)->pgmap);
	/* That struct page lives in the namespace, between the reserve and dataoff. */
	u64 pa, prot;
	enum pg_level level;
	assert_true(host_walk((u64)VMEMMAP_BASE + PFN_DOWN(NS_START + 0x1200000) * 64, &pa, &level,
			      &prot));
	assert_true(pa >= NS_START + 8192 && pa < NS_START + 0x1200000);
	assert_int_equal(level, PG_LEVEL_2M);
	assert_int_equal(prot, PROT_KERNEL_RW);
	/* The namespace's direct map: read-write, no-execute. */
	assert_true(host_walk(PAGE_OFFSET + NS_START + 0x1200000, &pa, &level, &prot));
	assert_int_equal(pa, NS_START + 0x1200000);
	assert_int_equal(prot, PROT_KERNEL_RW);
	/* The last sector is mappable for exactly one sector. */
	u64 last = dev->size / 512 - 1;
	assert_int_equal(pmem_direct_access(dev, last, "test", &dax), 512);
	pmem_dax_put(&dax);
	assert_true(pmem_direct_access(dev, last + 1, "test", &dax) < 0);
	assert_null(dax.hold.dev);	/* a refusal holds nothing */
	assert_int_equal(nd_pfn_of(ns)->pgmap.pins, 0);
}

static void pmem_rw_checks_bounds_and_alignment(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_RAM, .align = 4 * KiB, .force = true };
	static u8 buf[4096], back[4096];

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	struct pmem_device *dev = pmem_find("pmem0m");
	assert_non_null(dev);
	memset(buf, 0xA5, sizeof(buf));
	u64 fences = persist_stats.fences;
	assert_int_equal(pmem_rw(dev, 512, buf, 1024, PMEM_WRITE), 0);
	assert_true(persist_stats.fences > fences);	/* durable on return */
	assert_int_equal(pmem_rw(dev, 512, back, 1024, PMEM_READ), 0);
	assert_memory_equal(buf, back, 1024);
	assert_int_equal(pmem_rw(dev, 100, buf, 512, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_rw(dev, 512, buf, 100, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_rw(dev, dev->size, buf, 512, PMEM_WRITE), -ERANGE);
	assert_int_equal(pmem_rw(dev, dev->size - 512, buf, 1024, PMEM_WRITE), -ERANGE);
	assert_int_equal(pmem_rw(dev, ~0ULL - 511, buf, 1024, PMEM_READ), -ERANGE);
	/* Nothing around the good write changed. */
	assert_int_equal(pmem_rw(dev, 0, back, 512, PMEM_READ), 0);
	for (int i = 0; i < 512; i++)
		assert_int_equal(back[i], 0);
	/* Sector 0 of pmem0m is dataoff (2 MiB for map=mem) into the namespace. */
	assert_int_equal(((u8 *)phys_to_virt(NS_START + 0x200000))[512], 0xA5);
}

/* A namespace with 4 KiB logical sectors gets a 4 KiB-sector block device. */
static void pmem_4k_sectors(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	static u8 buf[8192];

	ns->sector_size = 4096;
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	struct pmem_device *dev = pmem_find("pmem0m");
	assert_non_null(dev);
	assert_int_equal(dev->sector_size, 4096);
	assert_int_equal(pmem_rw(dev, 4096, buf, 8192, PMEM_WRITE), 0);
	assert_int_equal(pmem_rw(dev, 512, buf, 4096, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_rw(dev, 4096, buf, 512, PMEM_READ), -EINVAL);
	struct pmem_dax dax;
	assert_int_equal(pmem_direct_access(dev, 1, "test", &dax), (s64)dev->size - 4096);
	assert_int_equal(pfn_t_to_phys(dax.pfn), dev->phys + 4096);
	pmem_dax_put(&dax);
}

/* A reboot (fresh machine, same pmem) brings the device back by itself. */
static void pfn_reprobe_after_reboot_finds_same_device(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	u8 uuid[16];

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	memcpy(uuid, nd_pfn_of(ns)->layout.uuid, 16);
	boot(true);
	struct nd_pfn *pfn = nd_pfn_of(ns);
	assert_non_null(pfn);
	assert_true(pfn->enabled);
	assert_memory_equal(pfn->layout.uuid, uuid, 16);
	assert_int_equal(pfn->layout.mode, PFN_MODE_PMEM);
	assert_non_null(pmem_find("pmem0m"));
}

/* A checksummed block this kernel cannot honour: disabled, not raw, nothing written. */
static void pfn_bad_field_leaves_namespace_disabled(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_sb *sb = phys_to_virt(NS_START + ND_PFN_SB_OFFSET);
	static struct nd_pfn_sb copy;

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	sb->page_struct_size = 16;
	sb->checksum = nd_pfn_sb_checksum(sb);
	memcpy(&copy, sb, sizeof(copy));
	u64 before = ns_hash();
	boot(true);
	struct nd_pfn *pfn = nd_pfn_of(ns);
	assert_non_null(pfn);
	assert_false(pfn->enabled);
	assert_null(pmem_find("pmem0"));
	assert_null(pmem_find("pmem0m"));
	assert_true(host_console_has("disabled: invalid info block: page_struct_size smaller"));
	assert_memory_equal(sb, &copy, sizeof(copy));
	assert_int_equal(ns_hash(), before);	/* the whole namespace, not only the block */
	/* -f is the way over it. */
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_true(nd_pfn_of(ns)->enabled);
}

static void pfn_destroy_zeroes_block_and_goes_raw(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_request raw = { .mode = PFN_MODE_NONE, .force = true };
	static const u8 zero[ND_PFN_SB_SIZE];
	u64 mapped_before = mm_stat(MM_DEVICE_MAPPED);

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_int_equal(nd_namespace_reconfigure(ns, &raw), 0);
	assert_memory_equal(phys_to_virt(NS_START + ND_PFN_SB_OFFSET), zero, sizeof(zero));
	assert_null(nd_pfn_of(ns));
	assert_non_null(pmem_find("pmem0"));
	assert_int_equal(mm_stat(MM_DEVICE_MAPPED), mapped_before);
}

static void pfn_disable_refused_while_pages_pinned(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	struct dev_pagemap *pg = pgmap_pin(PFN_DOWN(NS_START + 0x1200000));
	assert_non_null(pg);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
	assert_non_null(pmem_find("pmem0m"));
	pgmap_unpin(pg);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
}

/*
 * Regression (issue 11 item 8): pmem_direct_access handed out addresses with
 * no pin. Now whoever holds one holds the device: a raw device refuses to
 * go, a pfn device's pages stay pinned, until the address is given back.
 */
static void pfn_direct_access_holds_the_device(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct pmem_dax dax;

	assert_true(pmem_direct_access(pmem_find("pmem0"), 8, "test", &dax) > 0);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
	assert_true(host_console_has("pmem0: busy: 1 direct-access address lent (test)\n"));
	assert_non_null(pmem_find("pmem0"));
	pmem_dax_put(&dax);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_true(pmem_direct_access(pmem_find("pmem0m"), 8, "test", &dax) > 0);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
	assert_non_null(pmem_find("pmem0m"));
	pmem_dax_put(&dax);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
}

/*
 * The network's hold (pmem_hold) on every kind of block device: raw, sector
 * (BTT), devdax, fsdax. While an export and a client hold it, every detach
 * is refused naming the clients; with the export alone, naming the export;
 * released, the namespace changes.
 */
static void pmem_hold_refuses_detach_for_every_kind(void **state)
{
	(void)state;
	static const struct {
		const char *dev;
		struct nd_pfn_request next;	/* what the namespace becomes after */
	} steps[] = {
		{ "pmem0", { .sector = true, .force = true } },
		{ "pmem0s", { .devdax = true, .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true } },
		{ "dax0.0", { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true } },
		{ "pmem0m", { .mode = PFN_MODE_NONE, .force = true } },
	};
	char line[96];

	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		struct pmem_device *dev = pmem_find(steps[i].dev);
		struct pmem_hold exp, cl;
		assert_non_null(dev);
		assert_int_equal(pmem_hold(dev, PMEM_HOLD_EXPORT, "an export", &exp), 0);
		assert_int_equal(pmem_hold(dev, PMEM_HOLD_CLIENT, "a client", &cl), 0);
		host_console_reset();
		assert_int_equal(nd_namespace_reconfigure(ns, &steps[i].next), -EBUSY);
		snprintf(line, sizeof(line), "%s: busy: exported to 1 client (a client)\n",
			 steps[i].dev);
		assert_true(host_console_has(line));
		assert_int_equal(nd_namespace_detach(ns), -EBUSY);
		assert_ptr_equal(pmem_find(steps[i].dev), dev);
		pmem_release(&cl);
		pmem_release(&cl);	/* twice: nothing more */
		host_console_reset();
		assert_int_equal(nd_namespace_reconfigure(ns, &steps[i].next), -EBUSY);
		snprintf(line, sizeof(line), "%s: busy: exported (an export)\n", steps[i].dev);
		assert_true(host_console_has(line));
		pmem_release(&exp);
		assert_int_equal(dev->holds[PMEM_HOLD_EXPORT] + dev->holds[PMEM_HOLD_CLIENT], 0);
		assert_int_equal(nd_namespace_reconfigure(ns, &steps[i].next), 0);
		assert_null(pmem_find(steps[i].dev));
	}
	assert_non_null(pmem_find("pmem0"));
}

/*
 * pmem_write_bytes (the NBD server's WRITE path): any alignment inside the
 * device, nothing past the end or for an empty range, and not on a BTT,
 * whose sectors only go through it whole.
 */
static void pmem_write_bytes_any_alignment_inside_only(void **state)
{
	(void)state;
	struct pmem_device *dev = pmem_find("pmem0");
	static const u8 abc[3] = { 0xa1, 0xb2, 0xc3 };
	struct nd_pfn_request sector = { .sector = true, .force = true };

	assert_int_equal(pmem_write_bytes(dev, 4097, abc, 3), 0);
	assert_memory_equal(dev->io.base + 4097, abc, 3);
	assert_int_equal(pmem_write_bytes(dev, dev->size - 2, abc, 2), 0);
	assert_int_equal(pmem_write_bytes(dev, dev->size - 2, abc, 3), -ERANGE);
	assert_int_equal(pmem_write_bytes(dev, dev->size + 1, abc, 1), -ERANGE);
	assert_int_equal(pmem_write_bytes(dev, 0, abc, 0), -ERANGE);
	assert_int_equal(nd_namespace_reconfigure(ns, &sector), 0);
	assert_int_equal(pmem_write_bytes(pmem_find("pmem0s"), 0, abc, 3), -EOPNOTSUPP);
}

/*
 * Destroy during I/O (issue 14 item 2; Linux's 32b2397c1e56 class): while a
 * block device is held for I/O (PMEM_HOLD_IO), reconfiguring or destroying
 * its namespace says busy and changes nothing, raw and pfn alike; the
 * holder's I/O still works; once released it goes through.
 */
static void pfn_destroy_while_held_says_busy(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_request raw = { .mode = PFN_MODE_NONE, .force = true };
	u8 buf[512];
	struct pmem_hold h;

	assert_int_equal(pmem_hold_name("pmem0", PMEM_HOLD_IO, "write on CPU 1", &h), 0);
	struct pmem_device *dev = h.dev;
	assert_non_null(dev);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
	assert_true(host_console_has("pmem0: busy: in use by 1 command (write on CPU 1)\n"));
	assert_ptr_equal(pmem_find("pmem0"), dev);
	assert_null(pmem_find("pmem0m"));
	memset(buf, 0x5c, sizeof(buf));
	assert_int_equal(pmem_rw(dev, 8192, buf, sizeof(buf), PMEM_WRITE), 0);
	pmem_release(&h);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_int_equal(pmem_hold_name("pmem0m", PMEM_HOLD_IO, "cmp on CPU 0", &h), 0);
	dev = h.dev;
	assert_non_null(dev);
	host_console_reset();
	assert_int_equal(nd_namespace_reconfigure(ns, &raw), -EBUSY);
	assert_true(host_console_has("pmem0m: busy: in use by 1 command (cmp on CPU 0)\n"));
	assert_ptr_equal(pmem_find("pmem0m"), dev);
	assert_int_equal(pmem_rw(dev, 0, buf, sizeof(buf), PMEM_READ), 0);
	pmem_release(&h);
	assert_int_equal(nd_namespace_reconfigure(ns, &raw), 0);
	assert_null(pmem_find("pmem0m"));
	assert_int_equal(pmem_hold_name("pmem0m", PMEM_HOLD_IO, "x", &h), -ENODEV);	/* gone */
	assert_null(h.dev);
	assert_non_null(pmem_find("pmem0"));
}

/* A BTT info block as Linux writes one (FACTS-2 §1.2), at namespace offset `off`. */
static void plant_btt(u64 off)
{
	u8 *blk = phys_to_virt(NS_START + off);

	memset(blk, 0, ND_INFO_BLOCK_SIZE);
	memcpy(blk, BTT_SIG, BTT_SIG_LEN);
	memset(blk + 16, 0x5a, 16);		/* uuid */
	*(u16 *)(blk + 52) = 1;			/* version 1.1 */
	*(u16 *)(blk + 54) = 1;
	*(u32 *)(blk + 56) = 4096;		/* external_lbasize */
	*(u32 *)(blk + 72) = 256;		/* nfree */
	*(u64 *)(blk + 4088) = nd_info_block_checksum(blk);
}

/*
 * Regression (issue 11 item 4): a namespace holding Linux's BTT (at 4 KiB,
 * BTT 1.1, or at 0, BTT 2.0) was a writable raw pmemN. Now a BTT is a
 * sector device (test_btt.c); one whose block cannot be served (this one:
 * no geometry, or 1.1 at offset 0) is claimed by bttN.0, disabled with the
 * reason, no block device, nothing written.
 */
static void pfn_btt_namespace_listed_disabled_never_raw(void **state)
{
	(void)state;
	for (int at0 = 0; at0 < 3; at0++) {
		setup(NULL);
		plant_btt(at0 == 1 ? 0 : ND_BTT_V1_OFFSET);
		/* A BTT signature whose checksum does not hold: damaged, not raw (Linux: raw). */
		if (at0 == 2)
			((u8 *)phys_to_virt(NS_START + ND_BTT_V1_OFFSET))[100] ^= 1;
		u64 before = ns_hash();
		boot(true);
		struct nd_btt *b = nd_btt_of(ns);
		assert_non_null(b);
		assert_null(nd_pfn_of(ns));
		assert_false(b->enabled);
		assert_null(pmem_find("pmem0"));
		assert_null(pmem_find("pmem0m"));
		assert_null(pmem_find("pmem0s"));
		assert_true(host_console_has(
			"nd_btt btt0.0: namespace0.0 sector disabled: arena 0 info block at"));
		host_console_reset();
		nd_list(ND_LIST_NAMESPACES, NULL, NULL);
		assert_true(host_console_has("\"mode\":\"sector\""));
		assert_true(host_console_has("\"state\":\"disabled\""));
		assert_int_equal(ns_hash(), before);
	}
}

/*
 * Regression (issue 11 item 3): a read-only region (NFIT NOT_ARMED) with a
 * valid map=dev block was enabled and its probe stored struct pages into
 * it. Now the device comes up read-only with its struct pages in RAM, and
 * not one byte of the namespace changes.
 */
static void pfn_read_only_region_map_dev_writes_nothing(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	static u8 buf[512];

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	/* Struct pages as another kernel left them: a writable probe would store them all. */
	memset(phys_to_virt(NS_START + 0x200000), 0, 0x1000000);
	u64 before = ns_hash(), written = pmem_written_total(), ram_memmap = mm_stat(MM_VMEMMAP);
	region_ro = true;
	boot(true);
	struct nd_pfn *pfn = nd_pfn_of(ns);
	assert_non_null(pfn);
	assert_true(pfn->enabled);
	assert_true(pfn->memmap_in_ram);
	assert_true(pfn->pmem.ro);
	assert_int_equal(pfn->probe_pmem_written, 0);
	assert_int_equal(pmem_written_total(), written);
	assert_true(mm_stat(MM_VMEMMAP) >= ram_memmap + 16 * MiB);	/* in RAM instead */
	assert_true(host_console_has("read-only (struct pages in RAM)"));
	assert_int_equal(pmem_rw(&pfn->pmem, 0, buf, sizeof(buf), PMEM_READ), 0);
	assert_int_equal(pmem_rw(&pfn->pmem, 0, buf, sizeof(buf), PMEM_WRITE), -EROFS);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EROFS);
	assert_int_equal(ns_hash(), before);
}

/*
 * Regression (issue 11 item 5): -a 1G on a 1 GiB namespace detached the
 * device, then failed, leaving no block device until reboot. The layout is
 * checked first now: nothing detached, nothing written.
 */
static void pfn_reconfigure_bad_layout_changes_nothing(void **state)
{
	(void)state;
	struct nd_pfn_request big = { .mode = PFN_MODE_PMEM, .align = 1 * GiB, .force = true };
	struct nd_pfn_request dev = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };

	memset(phys_to_virt(NS_START), 0x3c, 3 * PAGE_SIZE);	/* user data */
	u64 before = ns_hash();
	assert_int_equal(nd_namespace_reconfigure(ns, &big), -ENXIO);
	assert_non_null(pmem_find("pmem0"));
	assert_int_equal(ns_hash(), before);
	assert_true(host_console_has("nothing changed"));
	/* The same from a pfn device: it stays up. */
	assert_int_equal(nd_namespace_reconfigure(ns, &dev), 0);
	before = ns_hash();
	assert_int_equal(nd_namespace_reconfigure(ns, &big), -ENXIO);
	assert_true(nd_pfn_of(ns)->enabled);
	assert_non_null(pmem_find("pmem0m"));
	assert_int_equal(ns_hash(), before);
}

/*
 * A reconfigure that fails after the old device is gone (here: every RAM
 * allocation of the new device's bring-up fails in turn; map=mem, since a
 * map=dev bring-up in a region allocates no RAM) puts the old info block
 * back and the old device up; the media ends as it began.
 */
static void pfn_reconfigure_failing_late_restores_old_device(void **state)
{
	(void)state;
	struct nd_pfn_request dev = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_request mem = { .mode = PFN_MODE_RAM, .align = 2 * MiB, .force = true };
	int failed = 0;

	assert_int_equal(nd_namespace_reconfigure(ns, &dev), 0);
	u8 uuid[16];
	memcpy(uuid, nd_pfn_of(ns)->layout.uuid, 16);
	u64 before = ns_hash();
	for (u64 n = 1; n < 64; n++) {
		mm_fail_nth = n;
		int err = nd_namespace_reconfigure(ns, &mem);
		mm_fail_nth = 0;
		if (!err)
			break;
		failed++;
		struct nd_pfn *pfn = nd_pfn_of(ns);
		assert_non_null(pfn);
		assert_true(pfn->enabled);
		assert_int_equal(pfn->layout.mode, PFN_MODE_PMEM);
		assert_memory_equal(pfn->layout.uuid, uuid, 16);
		assert_int_equal(ns_hash(), before);
		assert_true(host_console_has("reconfiguration failed"));
	}
	assert_true(failed > 0);
	assert_int_equal(nd_pfn_of(ns)->layout.mode, PFN_MODE_RAM);
}

/*
 * Regression (issue 11 item 6): map=mem with too little RAM wrote the info
 * block, then failed. The need is checked first and named; at boot, a block
 * that needs more RAM than there is stays disabled with the same numbers.
 */
static void pfn_map_mem_without_ram_refused_first(void **state)
{
	(void)state;
	struct nd_pfn_request mem = { .mode = PFN_MODE_RAM, .align = 2 * MiB, .force = true };

	ram_size = 16 * MiB;	/* a 1 GiB map=mem needs 16 MiB of struct pages */
	boot(false);
	u64 before = ns_hash();
	assert_int_equal(nd_namespace_reconfigure(ns, &mem), -ENOMEM);
	assert_true(host_console_has("map=mem: need 16 MiB of RAM for struct pages,"));
	assert_true(host_console_has("MiB free; use -M dev; nothing changed"));
	assert_non_null(pmem_find("pmem0"));
	assert_int_equal(ns_hash(), before);
	/* Made where RAM sufficed, found where it does not. */
	ram_size = 512 * MiB;
	boot(false);
	assert_int_equal(nd_namespace_reconfigure(ns, &mem), 0);
	ram_size = 16 * MiB;
	boot(true);
	struct nd_pfn *pfn = nd_pfn_of(ns);
	assert_non_null(pfn);
	assert_false(pfn->enabled);
	assert_non_null(strstr(pfn->reason, "map=mem: need 16 MiB of RAM for struct pages"));
	assert_null(pmem_find("pmem0m"));
	assert_null(pmem_find("pmem0"));
}

/* Issue 11 item 10: the small ones. */
static void pfn_small_edges(void **state)
{
	(void)state;
	static u8 buf[512];
	u64 align;

	/* A zero-length request is an error, not a no-op success. */
	assert_int_equal(pmem_rw(pmem_find("pmem0"), 0, buf, 0, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_rw(pmem_find("pmem0"), 0, buf, 0, PMEM_READ), -EINVAL);
	/* 1 GiB align needs 1 GiB pages. */
	host_set_leaf_allowed(PG_LEVEL_1G, false);
	assert_int_equal(nd_pfn_parse_align("1G", &align), -EOPNOTSUPP);
	assert_true(host_console_has("this CPU has no 1 GiB pages"));
	assert_int_equal(nd_pfn_parse_align("2M", &align), 0);
	host_set_leaf_allowed(PG_LEVEL_1G, true);
	assert_int_equal(nd_pfn_parse_align("1G", &align), 0);
	/* ndctl's align words, and what it refuses (RELIABILITY D.32). */
	static const char *const bad[] = { "0", "3", "8K", "4M", "9223372036854775808",
					   "18446744073709551615", "18446744073709551616", "2G",
					   "2Mx", "" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(nd_pfn_parse_align(bad[i], &align), -EINVAL);
	assert_int_equal(nd_pfn_parse_align("4096", &align), 0);
	assert_int_equal(align, 4096);
	assert_int_equal(nd_pfn_parse_align("2097152", &align), 0);
	/* Destroying a raw namespace zeroes user data: it says so and wants -f. */
	struct nd_pfn_request raw = { .mode = PFN_MODE_NONE };
	memset(phys_to_virt(NS_START + ND_PFN_SB_OFFSET), 0x77, 512);
	assert_int_equal(nd_namespace_reconfigure(ns, &raw), -EBUSY);
	assert_true(host_console_has("namespace0.0 is raw: destroying it zeroes 4 KiB of its data at offset 4096, specify -f/--force"));
	assert_int_equal(((u8 *)phys_to_virt(NS_START + ND_PFN_SB_OFFSET))[0], 0x77);
	/* A namespace too small for an info block is still a block device. */
	struct nd_bus *bus = nd_bus_register("e820");
	struct nd_region_desc d = { .start = 8 * GiB, .size = 4 * KiB, .numa_node = -1,
				    .target_node = -1 };
	assert_int_equal(nd_region_create(bus, &d, NULL), 0);
	nd_regions_publish();
	nd_namespace_probe(nd_namespace_find("namespace1.0"));
	assert_non_null(pmem_find("pmem1"));
}

/*
 * Regression (issue 11 item 11): the flush hints were mapped but never
 * written. Every durable write (block writes, info blocks) now ends with a
 * fence, one write to a flush hint of every DIMM of the region, a fence.
 * The hints point at scratch pages here, so the writes can be seen.
 */
static void pfn_durable_writes_hit_every_dimms_flush_hint(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	static u8 buf[4096];

	nr_hinted_dimms = 2;
	boot(false);
	struct nd_region *r = ns->region;
	assert_int_equal(r->flush_hint_writes, 0);	/* probing is not a write */
	assert_int_equal(pmem_rw(pmem_find("pmem0"), 0, buf, sizeof(buf), PMEM_WRITE), 0);
	assert_int_equal(r->flush_hint_writes, 2);
	assert_int_equal(*(u64 *)phys_to_virt(HINT_PAGE(0)), 1);
	assert_int_equal(*(u64 *)phys_to_virt(HINT_PAGE(1)), 1);
	*(u64 *)phys_to_virt(HINT_PAGE(0)) = 0;
	assert_int_equal(pmem_rw(pmem_find("pmem0"), 0, buf, sizeof(buf), PMEM_READ), 0);
	assert_int_equal(r->flush_hint_writes, 2);	/* reads flush nothing */
	u64 fences = persist_stats.fences;
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);	/* info block: durable */
	assert_int_equal(r->flush_hint_writes, 4);
	assert_true(persist_stats.fences >= fences + 2);	/* before and after the hints */
	assert_int_equal(*(u64 *)phys_to_virt(HINT_PAGE(0)), 1);
	assert_int_equal(pmem_rw(pmem_find("pmem0m"), 512, buf, 512, PMEM_WRITE), 0);
	assert_int_equal(r->flush_hint_writes, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(pfn_probe_of_empty_namespace_is_raw, setup),
		cmocka_unit_test_setup(pfn_create_needs_force, setup),
		cmocka_unit_test_setup(pfn_create_map_dev_layout_and_dax, setup),
		cmocka_unit_test_setup(pmem_rw_checks_bounds_and_alignment, setup),
		cmocka_unit_test_setup(pmem_4k_sectors, setup),
		cmocka_unit_test_setup(pfn_reprobe_after_reboot_finds_same_device, setup),
		cmocka_unit_test_setup(pfn_bad_field_leaves_namespace_disabled, setup),
		cmocka_unit_test_setup(pfn_destroy_zeroes_block_and_goes_raw, setup),
		cmocka_unit_test_setup(pfn_disable_refused_while_pages_pinned, setup),
		cmocka_unit_test_setup(pfn_direct_access_holds_the_device, setup),
		cmocka_unit_test_setup(pfn_destroy_while_held_says_busy, setup),
		cmocka_unit_test_setup(pfn_durable_writes_hit_every_dimms_flush_hint, setup),
		cmocka_unit_test_setup(pfn_btt_namespace_listed_disabled_never_raw, setup),
		cmocka_unit_test_setup(pfn_read_only_region_map_dev_writes_nothing, setup),
		cmocka_unit_test_setup(pfn_reconfigure_bad_layout_changes_nothing, setup),
		cmocka_unit_test_setup(pfn_reconfigure_failing_late_restores_old_device, setup),
		cmocka_unit_test_setup(pfn_map_mem_without_ram_refused_first, setup),
		cmocka_unit_test_setup(pfn_small_edges, setup),
		cmocka_unit_test_setup(pmem_hold_refuses_detach_for_every_kind, setup),
		cmocka_unit_test_setup(pmem_write_bytes_any_alignment_inside_only, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
