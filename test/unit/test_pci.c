/*
 * Host tests: PCI enumeration over a fake configuration space
 * (test/host/pci_host.c): QEMU's pc machine with virtio-net and e1000
 * (FACTS-2 §5.3), a bridge, and configuration spaces that lie — capability
 * loops, pointers into the header, BAR masks that are no power of two,
 * misaligned bases, 64-bit BARs without an upper half, too many functions;
 * and the INTx routing from Interrupt Pin and Line (pci_intx.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "arch.h"
#include "direct_map.h"
#include "host.h"
#include "pci.h"

int direct_map_add(u64 pa, u64 len)
{
	(void)pa;
	(void)len;
	return 0;
}

static int reset(void **state)
{
	(void)state;
	pci_fake_reset();
	host_console_reset();
	host_intx_rc = -ENODEV;
	return 0;
}

static u32 cfg32(struct pci_fake_fn *f, u8 reg)
{
	u32 v;

	memcpy(&v, &f->cfg[reg], 4);
	return v;
}

static struct pci_fake_fn *virtio_net(u8 bus, u8 dev)
{
	struct pci_fake_fn *f = pci_fake_add(bus, dev, 0, 0x1af4, 0x1000, 0x02000000);

	f->cfg[4] = PCI_COMMAND_IO | PCI_COMMAND_MEMORY;
	pci_fake_bar(f, 0, 0xc001, 0xFFFFFFE0);		/* I/O, 32 bytes */
	pci_fake_bar(f, 1, 0xfebd1000, 0xFFFFF000);	/* mem32, 4 KiB (MSI-X) */
	pci_fake_bar(f, 4, 0xfe00000c, 0xFFFFC000);	/* mem64 prefetchable, 16 KiB */
	pci_fake_bar(f, 5, 0x00000000, 0xFFFFFFFF);
	f->cfg[PCI_CAP_PTR] = 0x98;
	pci_fake_cap(f, 0x98, PCI_CAP_ID_MSIX, 0x84, 0x0002);	/* 3 vectors */
	pci_fake_cap(f, 0x84, PCI_CAP_ID_VNDR, 0x70, 0);
	pci_fake_cap(f, 0x70, PCI_CAP_ID_VNDR, 0x00, 0);
	return f;
}

static void qemu_pc(void)
{
	pci_fake_add(0, 0, 0, 0x8086, 0x1237, 0x06000002);		/* i440FX */
	pci_fake_add(0, 1, 0, 0x8086, 0x7000, 0x06010000)->cfg[0x0E] = 0x80;	/* PIIX3, multi */
	pci_fake_add(0, 1, 1, 0x8086, 0x7010, 0x01018000);
	pci_fake_add(0, 1, 3, 0x8086, 0x7113, 0x06800003);
	virtio_net(0, 2);
	struct pci_fake_fn *e = pci_fake_add(0, 3, 0, 0x8086, 0x100e, 0x02000003);
	pci_fake_bar(e, 0, 0xfebc0000, 0xFFFE0000);	/* 128 KiB */
	pci_fake_bar(e, 1, 0xc041, 0xFFFFFFC0);		/* I/O, 64 bytes */
}

static void pci_scan_finds_qemu_pc_functions(void **state)
{
	(void)state;
	qemu_pc();
	assert_int_equal(pci_scan(), 6);
	struct pci_dev *d = pci_get(4);
	assert_int_equal(d->bus, 0);
	assert_int_equal(d->dev, 2);
	assert_int_equal(d->vendor, 0x1af4);
	assert_int_equal(d->device, 0x1000);
	assert_int_equal(d->class_code, 2);
	assert_ptr_equal(pci_find(0x8086, 0x100e, 0), pci_get(5));
	assert_null(pci_find(0x8086, 0x100e, 1));
	assert_int_equal(pci_get(2)->fn, 1);
	assert_int_equal(pci_get(3)->fn, 3);
	assert_string_equal(pci_class_name(pci_get(5)), "ethernet");
	assert_string_equal(pci_class_name(pci_get(0)), "host bridge");
}

static void pci_bars_are_sized_with_decoding_off(void **state)
{
	(void)state;
	qemu_pc();
	pci_scan();
	struct pci_dev *d = pci_find(0x1af4, 0x1000, 0);
	assert_int_equal(d->bar[0].type, PCI_BAR_IO);
	assert_int_equal(d->bar[0].base, 0xc000);
	assert_int_equal(d->bar[0].size, 32);
	assert_int_equal(d->bar[1].type, PCI_BAR_MEM32);
	assert_int_equal(d->bar[1].base, 0xfebd1000);
	assert_int_equal(d->bar[1].size, 4096);
	assert_int_equal(d->bar[2].type, PCI_BAR_NONE);
	assert_int_equal(d->bar[4].type, PCI_BAR_MEM64);
	assert_true(d->bar[4].prefetch);
	assert_int_equal(d->bar[4].base, 0xfe000000);
	assert_int_equal(d->bar[4].size, 16384);
	assert_int_equal(d->bar[5].type, PCI_BAR_NONE);
	struct pci_dev *e = pci_find(0x8086, 0x100e, 0);
	assert_int_equal(e->bar[0].size, 128 * 1024);
	assert_int_equal(e->bar[1].size, 64);
	/* Never probed while decoding, and everything put back. */
	assert_int_equal(pci_fake_sized_while_decoding, 0);
	assert_int_equal(pci_fake[0][2][0].cfg[4], PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_int_equal(cfg32(&pci_fake[0][2][0], 0x10), 0xc001);
	assert_int_equal(cfg32(&pci_fake[0][2][0], 0x20), 0xfe00000c);
	assert_int_equal(cfg32(&pci_fake[0][2][0], 0x24), 0);
}

static void pci_capabilities_list_msix_and_vendor(void **state)
{
	(void)state;
	qemu_pc();
	pci_scan();
	struct pci_dev *d = pci_find(0x1af4, 0x1000, 0);
	assert_int_equal(d->nr_caps, 3);
	assert_int_equal(d->msix_vectors, 3);
	assert_int_equal(d->msi_vectors, 0);
	assert_int_equal(pci_find_cap(d, PCI_CAP_ID_MSIX, 0), 0x98);
	assert_int_equal(pci_find_cap(d, PCI_CAP_ID_VNDR, 0), 0x84);
	assert_int_equal(pci_find_cap(d, PCI_CAP_ID_VNDR, 0x84), 0x70);
	assert_int_equal(pci_find_cap(d, PCI_CAP_ID_VNDR, 0x70), 0);
	assert_int_equal(pci_find_cap(d, PCI_CAP_ID_MSI, 0), 0);
	assert_string_equal(host_console_text(), "");
}

static void pci_msi_counts_its_vectors(void **state)
{
	(void)state;
	struct pci_fake_fn *f = pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	f->cfg[PCI_CAP_PTR] = 0x40;
	pci_fake_cap(f, 0x40, PCI_CAP_ID_MSI, 0, 3 << 1);	/* 8 vectors */
	pci_scan();
	assert_int_equal(pci_get(0)->msi_vectors, 8);
}

static void pci_capability_loop_is_cut(void **state)
{
	(void)state;
	struct pci_fake_fn *f = pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	f->cfg[PCI_CAP_PTR] = 0x40;
	pci_fake_cap(f, 0x40, PCI_CAP_ID_PM, 0x50, 0);
	pci_fake_cap(f, 0x50, PCI_CAP_ID_MSI, 0x40, 0);
	pci_fake_add(0, 6, 0, 0x1234, 0x5679, 0x02000000);
	assert_int_equal(pci_scan(), 2);
	assert_int_equal(pci_get(0)->nr_caps, 2);
	assert_true(host_console_has("pci 00:05.0: capability list loops back to 0x40, list cut"));
	/* A loop onto itself. */
	host_console_reset();
	pci_fake_cap(f, 0x40, PCI_CAP_ID_PM, 0x40, 0);
	pci_scan();
	assert_int_equal(pci_get(0)->nr_caps, 1);
	assert_true(host_console_has("loops back to 0x40"));
}

static void pci_capability_pointer_out_of_range_is_cut(void **state)
{
	(void)state;
	struct pci_fake_fn *f = pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	f->cfg[PCI_CAP_PTR] = 0x40;
	pci_fake_cap(f, 0x40, PCI_CAP_ID_MSI, 0x3c, 0);
	pci_scan();
	assert_int_equal(pci_get(0)->nr_caps, 1);
	assert_true(host_console_has(
		"pci 00:05.0: capability pointer 0x3c points into the header, list cut"));
	/* The low two bits are reserved: 0xFF is 0xFC, the last dword. */
	host_console_reset();
	f->cfg[PCI_CAP_PTR] = 0xFF;
	pci_fake_cap(f, 0xFC, PCI_CAP_ID_VNDR, 0, 0);
	pci_scan();
	assert_int_equal(pci_get(0)->nr_caps, 1);
	assert_int_equal(pci_get(0)->cap[0].off, 0xFC);
	assert_string_equal(host_console_text(), "");
}

static void pci_long_capability_list_keeps_the_first(void **state)
{
	(void)state;
	struct pci_fake_fn *f = pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	f->cfg[PCI_CAP_PTR] = 0x40;
	for (u8 off = 0x40; off < 0xFC; off += 4)
		pci_fake_cap(f, off, PCI_CAP_ID_VNDR, (u8)(off + 4), 0);
	pci_fake_cap(f, 0xFC, PCI_CAP_ID_MSIX, 0, 0);
	pci_scan();
	assert_int_equal(pci_get(0)->nr_caps, PCI_MAX_CAPS);
	assert_int_equal(pci_get(0)->msix_vectors, 1);	/* noted even beyond the kept ones */
	assert_true(host_console_has("pci 00:05.0: 48 capabilities, only the first 16 kept"));
}

static void pci_bars_that_lie_are_ignored(void **state)
{
	(void)state;
	struct pci_fake_fn *f = pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	pci_fake_bar(f, 0, 0xfe000000, 0xFFF0F000);	/* holes in the mask */
	pci_fake_bar(f, 1, 0xfe001000, 0xFFFFF000);
	f->bar_lie[1] = 0xFFFFE000;			/* says 8 KiB, sits at a 4 KiB boundary */
	pci_fake_bar(f, 2, 0xc001, 0xFFFFF000);		/* I/O of 4 KiB */
	pci_fake_bar(f, 3, 0xfe000006, 0xFFFFF000);	/* memory type 3 */
	pci_fake_bar(f, 4, 0xfe004000, 0xFFFFF000);	/* fine */
	pci_fake_bar(f, 5, 0xfe008004, 0xFFFFF000);	/* 64-bit in the last register */
	pci_scan();
	struct pci_dev *d = pci_get(0);
	for (unsigned int i = 0; i < 6; i++)
		if (i != 4)
			assert_int_equal(d->bar[i].type, PCI_BAR_NONE);
	assert_int_equal(d->bar[4].type, PCI_BAR_MEM32);
	assert_int_equal(d->bar[4].size, 4096);
	assert_true(host_console_has(
		"pci 00:05.0: BAR0 size mask 0xfffffffffff0f000 is not a power of two, BAR ignored"));
	assert_true(host_console_has(
		"pci 00:05.0: BAR1 base 0xfe001000 is not aligned to its size 0x2000, BAR ignored"));
	assert_true(host_console_has("pci 00:05.0: BAR2 I/O size mask 0xfffff001 makes no sense"));
	assert_true(host_console_has("pci 00:05.0: BAR3 has the reserved memory type 3"));
	assert_true(host_console_has("pci 00:05.0: BAR5 is 64-bit but has no upper half"));
	assert_int_equal(pci_fake_sized_while_decoding, 0);
}

static void pci_64bit_bar_with_a_short_upper_mask_is_ignored(void **state)
{
	(void)state;
	struct pci_fake_fn *f = pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	pci_fake_bar(f, 0, 0x0000000c, 0xFFFFC000);
	pci_fake_bar(f, 1, 0x00000000, 0x00000000);	/* upper half not writable */
	pci_scan();
	assert_int_equal(pci_get(0)->bar[0].type, PCI_BAR_NONE);
	assert_true(host_console_has("BAR0 size mask 0x00000000ffffc00c is not a power of two"));
}

static void pci_bridge_leads_to_its_secondary_bus(void **state)
{
	(void)state;
	pci_fake_add(0, 0, 0, 0x8086, 0x1237, 0x06000002);
	struct pci_fake_fn *b = pci_fake_add(0, 4, 0, 0x1b36, 0x0001, 0x06040000);
	b->cfg[0x0E] = 1;
	b->cfg[PCI_SECONDARY_BUS] = 1;
	b->cfg[PCI_SUBORDINATE_BUS] = 1;
	virtio_net(1, 0);
	pci_fake_add(0, 5, 0, 0x8086, 0x100e, 0x02000003);
	assert_int_equal(pci_scan(), 4);
	assert_int_equal(pci_get(1)->secondary_bus, 1);
	assert_int_equal(pci_get(1)->nr_bars, 2);
	assert_int_equal(pci_get(2)->bus, 1);	/* depth first: behind the bridge before 00:05 */
	assert_int_equal(pci_get(2)->bar[4].size, 16384);
	assert_int_equal(pci_get(3)->dev, 5);
}

static void pci_bridge_loops_are_not_followed(void **state)
{
	(void)state;
	struct pci_fake_fn *b = pci_fake_add(0, 4, 0, 0x1b36, 0x0001, 0x06040000);
	b->cfg[0x0E] = 1;
	b->cfg[PCI_SECONDARY_BUS] = 1;
	struct pci_fake_fn *c = pci_fake_add(0, 6, 0, 0x1b36, 0x0001, 0x06040000);
	c->cfg[0x0E] = 1;
	c->cfg[PCI_SECONDARY_BUS] = 1;	/* the same bus again */
	struct pci_fake_fn *back = pci_fake_add(1, 0, 0, 0x1b36, 0x0001, 0x06040000);
	back->cfg[0x0E] = 1;
	back->cfg[0x18] = 1;
	back->cfg[PCI_SECONDARY_BUS] = 0;	/* back to bus 0: unconfigured, silent */
	struct pci_fake_fn *down = pci_fake_add(1, 1, 0, 0x1b36, 0x0001, 0x06040000);
	down->cfg[0x0E] = 1;
	down->cfg[PCI_SECONDARY_BUS] = 1;	/* to itself */
	assert_int_equal(pci_scan(), 4);
	assert_true(host_console_has("pci 01:01.0: bridge to bus 01, not above its own bus 01"));
	assert_true(host_console_has("pci 00:06.0: bridge to bus 01, which was scanned already"));
}

static void pci_single_function_device_hides_ghost_functions(void **state)
{
	(void)state;
	pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	pci_fake_add(0, 5, 1, 0x1234, 0x5679, 0x02000000);	/* not multi-function: not scanned */
	assert_int_equal(pci_scan(), 1);
}

static void pci_too_many_functions_are_counted_once(void **state)
{
	(void)state;
	for (u8 dev = 0; dev < 32; dev++)
		for (u8 fn = 0; fn < 8; fn++)
			pci_fake_add(0, dev, fn, 0x1234, 0x5678, 0x02000000)->cfg[0x0E] = 0x80;
	assert_int_equal(pci_scan(), PCI_MAX_FUNCTIONS);
	assert_true(host_console_has("pci: more than 64 functions, 00:08.0 and later ignored"));
	const char *t = host_console_text();
	assert_null(strstr(strstr(t, "more than") + 1, "more than"));
}

static void pci_unknown_header_type_is_listed_only(void **state)
{
	(void)state;
	struct pci_fake_fn *f = pci_fake_add(0, 5, 0, 0x1234, 0x5678, 0x02000000);
	f->cfg[0x0E] = 0x05;
	pci_fake_bar(f, 0, 0xfe000000, 0xFFFFF000);
	assert_int_equal(pci_scan(), 1);
	assert_int_equal(pci_get(0)->nr_bars, 0);
	assert_int_equal(pci_get(0)->bar[0].type, PCI_BAR_NONE);
	assert_true(host_console_has("pci 00:05.0: unknown header type 0x05"));
}

static void pci_without_mechanism_1_finds_nothing(void **state)
{
	(void)state;
	qemu_pc();
	pci_fake_mechanism = false;
	assert_int_equal(pci_scan(), 0);
	assert_int_equal(pci_fake_reads, 0);
	assert_true(host_console_has("pci: no configuration mechanism #1"));
}

static void pci_enable_sets_memory_and_bus_master(void **state)
{
	(void)state;
	qemu_pc();
	pci_fake[0][3][0].cfg[4] = 0;
	pci_scan();
	struct pci_dev *e = pci_find(0x8086, 0x100e, 0);
	pci_enable(e, false, true);
	assert_int_equal(pci_fake[0][3][0].cfg[4], PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_non_null(pci_map_bar(e, 0));
	assert_null(pci_map_bar(e, 1));	/* I/O */
	assert_true(host_console_has("pci 00:03.0: BAR1 is not a memory BAR"));
	assert_null(pci_map_bar(e, 6));
}

static void pci_msix_entry_is_written_and_enabled(void **state)
{
	(void)state;
	qemu_pc();
	struct pci_fake_fn *f = &pci_fake[0][2][0];
	u32 table = 0x00000001;	/* BAR1 + 0, as QEMU's virtio-pci */
	memcpy(&f->cfg[0x98 + PCI_MSIX_TABLE], &table, 4);
	pci_scan();
	struct pci_dev *d = pci_find(0x1af4, 0x1000, 0);
	u32 *t = phys_to_virt(0xfebd1000);
	memset(t, 0xff, 3 * PCI_MSIX_ENTRY_SIZE);	/* all masked, junk messages */
	assert_int_equal(pci_msix_enable(d, 1, 0xFEE01000, 0xE0), 0);
	assert_int_equal(t[4], 0xFEE01000);
	assert_int_equal(t[5], 0);
	assert_int_equal(t[6], 0xE0);
	assert_int_equal(t[7], 0);			/* unmasked */
	assert_int_equal(t[3], 0xffffffff);		/* other entries untouched */
	u16 ctl;
	memcpy(&ctl, &f->cfg[0x98 + PCI_MSIX_CTL], 2);
	assert_int_equal(ctl, PCI_MSIX_CTL_ENABLE | 2);	/* on, not masked, size kept */
	u16 cmd;
	memcpy(&cmd, &f->cfg[PCI_COMMAND], 2);
	assert_true(cmd & PCI_COMMAND_INTX_DISABLE);
	assert_int_equal(pci_msix_enable(d, 3, 0xFEE00000, 0xE0), -EINVAL);
	assert_true(host_console_has("pci 00:02.0: MSI-X entry 3 past its 3-entry table"));
	assert_int_equal(pci_msix_enable(pci_find(0x8086, 0x100e, 0), 0, 0xFEE00000, 0xE0), -ENODEV);
}

static void pci_msix_table_outside_its_bar_is_refused(void **state)
{
	(void)state;
	qemu_pc();
	struct pci_fake_fn *f = &pci_fake[0][2][0];
	u32 table = 0x00000FF9;	/* BAR1 + 0xff8: the second entry would pass the BAR's end */
	memcpy(&f->cfg[0x98 + PCI_MSIX_TABLE], &table, 4);
	pci_scan();
	struct pci_dev *d = pci_find(0x1af4, 0x1000, 0);
	assert_int_equal(pci_msix_enable(d, 0, 0xFEE00000, 0xE0), -EINVAL);
	assert_true(host_console_has("pci 00:02.0: MSI-X table at BAR1+0xff8, 3 entries, is not inside a BAR"));
	table = 0x00000003;	/* BAR3: not implemented */
	memcpy(&f->cfg[0x98 + PCI_MSIX_TABLE], &table, 4);
	assert_int_equal(pci_msix_enable(d, 0, 0xFEE00000, 0xE0), -EINVAL);
	u16 ctl;
	memcpy(&ctl, &f->cfg[0x98 + PCI_MSIX_CTL], 2);
	assert_int_equal(ctl & PCI_MSIX_CTL_ENABLE, 0);
}

/* The e1000 at 00:03.0 with INTA# and the Interrupt Line `line`, INTx off in its command register. */
static struct pci_dev *e1000_with_irq(u8 pin, u8 line)
{
	qemu_pc();
	struct pci_fake_fn *f = &pci_fake[0][3][0];
	f->cfg[PCI_IRQ_PIN] = pin;
	f->cfg[PCI_IRQ_LINE] = line;
	f->cfg[4] = PCI_COMMAND_MEMORY;
	f->cfg[5] = PCI_COMMAND_INTX_DISABLE >> 8;
	pci_scan();
	return pci_find(0x8086, 0x100e, 0);
}

static u16 command(void)
{
	u16 cmd;

	memcpy(&cmd, &pci_fake[0][3][0].cfg[4], 2);
	return cmd;
}

/* Interrupt Line 11 (one of the IRQs QEMU's firmware routes PCI to): ISA IRQ 11's line, INTx turned on. */
static void pci_intx_routes_the_firmware_irq_and_enables_intx(void **state)
{
	(void)state;
	struct pci_dev *d = e1000_with_irq(1, 11);
	struct arch_intx line;

	host_intx_rc = 0;
	assert_int_equal(pci_intx_wake(d, &line), 0);
	assert_int_equal(line.gsi, 11);
	assert_true(line.level && line.active_low);
	assert_int_equal(host_intx_routed.gsi, 11);
	assert_int_equal(command(), PCI_COMMAND_MEMORY);
}

/* No pin, a pin past INTD#, no IRQ routed (0xFF, 0, 16), no I/O APIC: refused, INTx left off. */
static void pci_intx_without_pin_line_or_ioapic_is_refused(void **state)
{
	(void)state;
	struct arch_intx line;

	host_intx_rc = 0;
	assert_int_equal(pci_intx_wake(e1000_with_irq(0, 11), &line), -ENOENT);
	assert_int_equal(pci_intx_wake(e1000_with_irq(5, 11), &line), -EINVAL);
	assert_int_equal(pci_intx_wake(e1000_with_irq(1, 0xFF), &line), -ENXIO);
	assert_int_equal(pci_intx_wake(e1000_with_irq(1, 0), &line), -ENXIO);
	assert_int_equal(pci_intx_wake(e1000_with_irq(1, 16), &line), -ENXIO);
	assert_string_equal(pci_intx_why(-ENXIO), "the firmware routed its INTx to no ISA IRQ");
	host_intx_rc = -ENODEV;
	assert_int_equal(pci_intx_wake(e1000_with_irq(1, 11), &line), -ENODEV);
	assert_string_equal(pci_intx_why(-ENODEV), "no I/O APIC has its line");
	assert_int_equal(command(), PCI_COMMAND_MEMORY | PCI_COMMAND_INTX_DISABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(pci_scan_finds_qemu_pc_functions, reset),
		cmocka_unit_test_setup(pci_bars_are_sized_with_decoding_off, reset),
		cmocka_unit_test_setup(pci_capabilities_list_msix_and_vendor, reset),
		cmocka_unit_test_setup(pci_msi_counts_its_vectors, reset),
		cmocka_unit_test_setup(pci_capability_loop_is_cut, reset),
		cmocka_unit_test_setup(pci_capability_pointer_out_of_range_is_cut, reset),
		cmocka_unit_test_setup(pci_long_capability_list_keeps_the_first, reset),
		cmocka_unit_test_setup(pci_bars_that_lie_are_ignored, reset),
		cmocka_unit_test_setup(pci_64bit_bar_with_a_short_upper_mask_is_ignored, reset),
		cmocka_unit_test_setup(pci_bridge_leads_to_its_secondary_bus, reset),
		cmocka_unit_test_setup(pci_bridge_loops_are_not_followed, reset),
		cmocka_unit_test_setup(pci_single_function_device_hides_ghost_functions, reset),
		cmocka_unit_test_setup(pci_too_many_functions_are_counted_once, reset),
		cmocka_unit_test_setup(pci_unknown_header_type_is_listed_only, reset),
		cmocka_unit_test_setup(pci_without_mechanism_1_finds_nothing, reset),
		cmocka_unit_test_setup(pci_enable_sets_memory_and_bus_master, reset),
		cmocka_unit_test_setup(pci_msix_entry_is_written_and_enabled, reset),
		cmocka_unit_test_setup(pci_msix_table_outside_its_bar_is_refused, reset),
		cmocka_unit_test_setup(pci_intx_routes_the_firmware_irq_and_enables_intx, reset),
		cmocka_unit_test_setup(pci_intx_without_pin_line_or_ioapic_is_refused, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
