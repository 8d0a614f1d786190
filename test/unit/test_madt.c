/*
 * Host tests: the MADT parser (drivers/acpi_nfit/madt.c). QEMU's real
 * tables (test/fixtures/acpi, dumped from SeaBIOS and OVMF boots) are
 * checked field by field; a multi-CPU table built per FACTS-2 §6.1 (QEMU's
 * APIC.cphp test vector: absent CPUs listed disabled, APIC IDs not equal to
 * UIDs) and crafted malformed ones cover what the parser must survive.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "acpi.h"
#include "direct_map.h"
#include "host.h"
#include "madt.h"

/* acpi.c (linked in) needs it; nothing here maps. */
int direct_map_add(u64 pa, u64 len)
{
	return pa + len < pa || pa + len > HOST_PHYS_SIZE ? -EINVAL : 0;
}

static struct madt_info m;

static int reset(void **state)
{
	(void)state;
	host_console_reset();
	return 0;
}

static u8 *read_fixture(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	u8 *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s (run from the top directory)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* QEMU 7.2 pc, one CPU (FACTS-2 §6.1): LAPIC {UID 0, ID 0, enabled}, I/O APIC 0 at 0xFEC00000. */
static void check_qemu_one_cpu(const char *path)
{
	size_t len;
	u8 *t = read_fixture(path, &len);

	assert_int_equal(len, 120);
	assert_int_equal(sdt_checksum(t, len), 0);
	assert_int_equal(madt_parse(t, len, &m), 0);
	assert_int_equal(m.walk.length, 120);
	assert_int_equal(m.lapic_address, 0xfee00000);
	assert_false(m.lapic_override);
	assert_int_equal(m.flags, MADT_PCAT_COMPAT);
	assert_int_equal(m.nr_cpus, 1);
	assert_int_equal(m.nr_enabled, 1);
	assert_int_equal(m.cpu[0].apic_id, 0);
	assert_int_equal(m.cpu[0].uid, 0);
	assert_int_equal(m.cpu[0].flags, MADT_CPU_ENABLED);
	assert_false(m.cpu[0].x2apic);
	assert_int_equal(m.cpu[0].offset, 44);
	assert_int_equal(m.nr_ioapics, 1);
	assert_int_equal(m.ioapic[0].id, 0);
	assert_int_equal(m.ioapic[0].address, 0xfec00000);
	assert_int_equal(m.ioapic[0].gsi_base, 0);
	/*
	 * 5 interrupt source overrides: IRQ 0 on GSI 2 as ISA says, and the
	 * PCI IRQs 5, 9, 10, 11 on their own GSIs, level, active high (0xd);
	 * then 1 local APIC NMI.
	 */
	static const u8 irqs[5] = { 0, 5, 9, 10, 11 };
	assert_int_equal(m.nr_overrides, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(m.override[i].irq, irqs[i]);
		assert_int_equal(m.override[i].gsi, i ? irqs[i] : 2);
		assert_int_equal(m.override[i].flags, i ? 0xd : 0);
		assert_int_equal(m.override[i].offset, 64 + 10 * i);
	}
	assert_int_equal(m.nr_other, 1);
	assert_int_equal(m.walk.nr_rejected + m.walk.nr_dropped, 0);
	assert_false(m.walk.truncated);
	assert_string_equal(host_console_text(), "");
	free(t);
}

static void test_qemu_seabios(void **state)
{
	(void)state;
	check_qemu_one_cpu("test/fixtures/acpi/qemu-7.2-seabios/APIC-0x3ffe0e12.bin");
}

static void test_qemu_ovmf(void **state)
{
	(void)state;
	check_qemu_one_cpu("test/fixtures/acpi/qemu-7.2-ovmf/APIC-0x3f778000.bin");
}

/* ---- crafted tables ---- */

static u8 buf[8192];
static u32 blen;

static void begin(void)
{
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "APIC", 4);
	buf[8] = 1;
	u32 lapic = 0xfee00000, flags = MADT_PCAT_COMPAT;
	memcpy(buf + 36, &lapic, 4);
	memcpy(buf + 40, &flags, 4);
	blen = MADT_HEADER_LEN;
}

static void put(const void *e, u32 len)
{
	memcpy(buf + blen, e, len);
	blen += len;
}

static void lapic(u8 uid, u8 id, u32 flags)
{
	u8 e[8] = { MADT_TYPE_LAPIC, 8, uid, id };
	memcpy(e + 4, &flags, 4);
	put(e, sizeof(e));
}

static void x2apic(u32 id, u32 flags, u32 uid)
{
	u8 e[16] = { MADT_TYPE_X2APIC, 16 };
	memcpy(e + 4, &id, 4);
	memcpy(e + 8, &flags, 4);
	memcpy(e + 12, &uid, 4);
	put(e, sizeof(e));
}

/* Set the header length to what was put, fix the checksum, parse. */
static int finish_parse(void)
{
	memcpy(buf + 4, &blen, 4);
	buf[9] = 0;
	buf[9] = (u8)(0x100 - sdt_checksum(buf, blen));
	return madt_parse(buf, blen, &m);
}

/*
 * FACTS-2 §6.1, QEMU's APIC.cphp (-smp 2,cores=3,sockets=2,maxcpus=6):
 * UID/ID/flags 0/0/1, 1/1/1, 2/2/0, 3/4/0, 4/5/0, 5/6/0.
 */
static void test_hotplug_layout(void **state)
{
	static const u8 cpus[6][3] = { { 0, 0, 1 }, { 1, 1, 1 }, { 2, 2, 0 },
				       { 3, 4, 0 }, { 4, 5, 0 }, { 5, 6, 0 } };
	(void)state;
	begin();
	for (int i = 0; i < 6; i++)
		lapic(cpus[i][0], cpus[i][1], cpus[i][2]);
	u8 io[12] = { MADT_TYPE_IOAPIC, 12, 0, 0, 0, 0, 0xc0, 0xfe };
	put(io, sizeof(io));
	assert_int_equal(finish_parse(), 0);
	assert_int_equal(m.nr_cpus, 6);
	assert_int_equal(m.nr_enabled, 2);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(m.cpu[i].uid, cpus[i][0]);
		assert_int_equal(m.cpu[i].apic_id, cpus[i][1]);
		assert_int_equal(m.cpu[i].flags, cpus[i][2]);
	}
	assert_non_null(madt_find_cpu(&m, 4));
	assert_int_equal(madt_find_cpu(&m, 4)->uid, 3);
	assert_null(madt_find_cpu(&m, 3));
	assert_int_equal(m.nr_ioapics, 1);
	assert_int_equal(m.ioapic[0].address, 0xfec00000);
}

static void test_x2apic_and_override(void **state)
{
	(void)state;
	begin();
	lapic(0, 0, MADT_CPU_ENABLED);
	x2apic(300, MADT_CPU_ENABLED, 1);
	x2apic(301, MADT_CPU_ONLINE_CAPABLE, 2);
	u8 ov[12] = { MADT_TYPE_LAPIC_ADDR, 12 };
	u64 pa = 0x1fee00000ULL;
	memcpy(ov + 4, &pa, 8);
	put(ov, sizeof(ov));
	assert_int_equal(finish_parse(), 0);
	assert_int_equal(m.nr_cpus, 3);
	assert_int_equal(m.nr_enabled, 2);
	assert_true(m.cpu[1].x2apic);
	assert_int_equal(m.cpu[1].apic_id, 300);
	assert_int_equal(m.cpu[1].uid, 1);
	assert_int_equal(m.cpu[2].flags, MADT_CPU_ONLINE_CAPABLE);
	assert_true(m.lapic_override);
	assert_int_equal(m.lapic_address, 0x1fee00000ULL);
}

static void irq_override(u8 bus, u8 irq, u32 gsi, u16 flags)
{
	u8 e[10] = { MADT_TYPE_OVERRIDE, 10, bus, irq };
	memcpy(e + 4, &gsi, 4);
	memcpy(e + 8, &flags, 2);
	put(e, sizeof(e));
}

/* An override of a bus other than ISA, of an IRQ above 15, or twice of one IRQ is skipped. */
static void test_irq_overrides(void **state)
{
	(void)state;
	begin();
	lapic(0, 0, MADT_CPU_ENABLED);
	irq_override(0, 9, 20, 0xf);
	irq_override(1, 10, 10, 0);
	irq_override(0, 16, 16, 0);
	irq_override(0, 9, 9, 0);
	irq_override(0, 0, 2, 0);
	u8 shorto[8] = { MADT_TYPE_OVERRIDE, 8, 0, 5 };
	put(shorto, sizeof(shorto));
	assert_int_equal(finish_parse(), -EINVAL);
	assert_int_equal(m.nr_overrides, 2);
	assert_int_equal(m.override[0].irq, 9);
	assert_int_equal(m.override[0].gsi, 20);
	assert_int_equal(m.override[0].flags, 0xf);
	assert_int_equal(m.override[1].irq, 0);
	assert_int_equal(m.override[1].gsi, 2);
	assert_true(host_console_has("names bus 1 IRQ 10, not an ISA IRQ"));
	assert_true(host_console_has("bus 0 IRQ 16"));
	assert_true(host_console_has("IRQ 9 already overridden at offset 0x34"));
	assert_int_equal(m.walk.nr_rejected, 4);
}

static void test_not_a_madt(void **state)
{
	(void)state;
	begin();
	memcpy(buf, "FACP", 4);
	assert_int_equal(finish_parse(), -ENODEV);
	assert_true(host_console_has("not a MADT"));
	assert_int_equal(madt_parse(buf, 10, &m), -ENODEV);
}

/* A header length below 44 parses nothing; one above the buffer walks the buffer. */
static void test_header_lengths(void **state)
{
	(void)state;
	begin();
	lapic(0, 0, 1);
	lapic(1, 1, 1);
	assert_int_equal(finish_parse(), 0);
	u32 small = 20;
	memcpy(buf + 4, &small, 4);
	assert_int_equal(madt_parse(buf, blen, &m), -EINVAL);
	assert_int_equal(m.nr_cpus, 0);
	assert_true(m.walk.truncated);
	u32 big = blen + 100;
	memcpy(buf + 4, &big, 4);
	host_console_reset();
	assert_int_equal(madt_parse(buf, blen, &m), -EINVAL);
	assert_int_equal(m.nr_cpus, 2);
	assert_true(host_console_has("only 60 bytes present"));
}

/* A short CPU entry is skipped by its length, the next one still read. */
static void test_short_entry_skipped(void **state)
{
	(void)state;
	begin();
	lapic(0, 0, 1);
	u8 shortl[6] = { MADT_TYPE_LAPIC, 6, 1, 1, 1, 0 };
	put(shortl, sizeof(shortl));
	u8 shortx[12] = { MADT_TYPE_X2APIC, 12 };
	put(shortx, sizeof(shortx));
	lapic(2, 2, 1);
	assert_int_equal(finish_parse(), -EINVAL);
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(m.cpu[1].apic_id, 2);
	assert_int_equal(m.walk.nr_rejected, 2);
	assert_false(m.walk.truncated);
	assert_true(host_console_has("offset 0x34: length 6 below its size 8, skipped"));
	assert_true(host_console_has("offset 0x3a: length 12 below its size 16, skipped"));
}

/* Length 0 or past the end stops the walk; what came before is kept. */
static void test_bad_framing_stops(void **state)
{
	(void)state;
	begin();
	lapic(0, 0, 1);
	u8 zero[2] = { 0x7f, 0 };
	put(zero, 2);
	lapic(1, 1, 1);
	assert_int_equal(finish_parse(), -EINVAL);
	assert_int_equal(m.nr_cpus, 1);
	assert_true(m.walk.truncated);
	assert_true(host_console_has("has length 0, walk stopped"));

	host_console_reset();
	begin();
	lapic(0, 0, 1);
	u8 over[4] = { MADT_TYPE_LAPIC, 200, 1, 1 };
	put(over, 4);
	assert_int_equal(finish_parse(), -EINVAL);
	assert_int_equal(m.nr_cpus, 1);
	assert_true(host_console_has("runs past the table end"));

	host_console_reset();
	begin();
	lapic(0, 0, 1);
	u8 stray = MADT_TYPE_LAPIC;
	put(&stray, 1);
	assert_int_equal(finish_parse(), -EINVAL);
	assert_int_equal(m.nr_cpus, 1);
	assert_true(host_console_has("1 stray byte at offset 0x34"));
}

static void test_bad_ids(void **state)
{
	(void)state;
	begin();
	lapic(0, 0, 1);
	lapic(1, 0xff, 1);
	lapic(2, 0, 1);		/* duplicate of the first */
	x2apic(0xffffffffu, 1, 3);
	x2apic(1, 1, 4);	/* an x2APIC entry may carry a small ID */
	assert_int_equal(finish_parse(), -EINVAL);
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(m.walk.nr_rejected, 3);
	assert_int_equal(m.cpu[1].apic_id, 1);
	assert_true(host_console_has("broadcast ID 0xff"));
	assert_true(host_console_has("APIC ID 0 already listed at offset 0x2c"));
}

static void test_bad_override(void **state)
{
	(void)state;
	begin();
	u8 ov[12] = { MADT_TYPE_LAPIC_ADDR, 12 };
	u64 pa = 0xfee00010;
	memcpy(ov + 4, &pa, 8);
	put(ov, sizeof(ov));
	assert_int_equal(finish_parse(), -EINVAL);
	assert_false(m.lapic_override);
	assert_int_equal(m.lapic_address, 0xfee00000);
	assert_true(host_console_has("is not a page"));
}

/* More CPUs than the array: one line, the rest counted as dropped. */
static void test_too_many_cpus(void **state)
{
	(void)state;
	begin();
	for (u32 i = 0; i < MADT_MAX_CPUS + 3; i++)
		x2apic(i, 1, i);
	assert_int_equal(finish_parse(), -ENOSPC);
	assert_int_equal(m.nr_cpus, MADT_MAX_CPUS);
	assert_int_equal(m.walk.nr_dropped, 3);
	const char *t = host_console_text();
	const char *first = strstr(t, "the rest dropped");
	assert_non_null(first);
	assert_null(strstr(first + 1, "the rest dropped"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_qemu_seabios, reset),
		cmocka_unit_test_setup(test_qemu_ovmf, reset),
		cmocka_unit_test_setup(test_hotplug_layout, reset),
		cmocka_unit_test_setup(test_x2apic_and_override, reset),
		cmocka_unit_test_setup(test_irq_overrides, reset),
		cmocka_unit_test_setup(test_not_a_madt, reset),
		cmocka_unit_test_setup(test_header_lengths, reset),
		cmocka_unit_test_setup(test_short_entry_skipped, reset),
		cmocka_unit_test_setup(test_bad_framing_stops, reset),
		cmocka_unit_test_setup(test_bad_ids, reset),
		cmocka_unit_test_setup(test_bad_override, reset),
		cmocka_unit_test_setup(test_too_many_cpus, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
