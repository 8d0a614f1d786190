/*
 * libFuzzer harness: the MADT parser (drivers/acpi_nfit/madt.c).
 *
 * Input: a whole table when it starts with "APIC" (the header is then
 * fuzzed too, including a length that disagrees with the input), else the
 * entries alone, behind a header made to fit them. Seeds:
 * test/fuzz/seeds/fuzz_madt (QEMU's SeaBIOS and OVMF tables in both forms,
 * a multi-CPU table with x2APIC entries and an address override).
 *
 * Checked after every input: the result is one the contract allows and
 * agrees with the counters, the arrays are within bounds, every kept entry
 * lies inside the parsed length, no kept CPU has a broadcast ID, APIC IDs
 * are unique, nr_enabled counts the enabled CPUs, and an override address
 * is a nonzero page.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct_map.h"
#include "madt.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                     \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "invariant broken: %s\n", #cond); \
			abort();                                        \
		}                                                       \
	} while (0)

/* acpi.c (linked for fw_table_find) needs the symbol; nothing maps here. */
int direct_map_add(u64 pa, u64 len)
{
	(void)pa;
	(void)len;
	return -EINVAL;
}

static struct madt_info m;
static u8 table[MADT_HEADER_LEN + 65536];

static size_t make_table(const u8 *data, size_t size)
{
	if (size >= 4 && !memcmp(data, "APIC", 4)) {
		size = MIN(size, sizeof(table));
		memcpy(table, data, size);
		return size;
	}
	size = MIN(size, sizeof(table) - MADT_HEADER_LEN);
	memset(table, 0, MADT_HEADER_LEN);
	memcpy(table, "APIC", 4);
	u32 len = (u32)(MADT_HEADER_LEN + size), lapic = 0xfee00000;
	memcpy(table + 4, &len, 4);
	table[8] = 1;
	memcpy(table + 36, &lapic, 4);
	memcpy(table + MADT_HEADER_LEN, data, size);
	return MADT_HEADER_LEN + size;
}

static void check_cpus(void)
{
	u32 enabled = 0;

	for (u32 i = 0; i < m.nr_cpus; i++) {
		const struct madt_cpu *c = &m.cpu[i];
		CHECK(c->offset >= MADT_HEADER_LEN);
		CHECK(c->offset + (c->x2apic ? MADT_X2APIC_LEN : MADT_LAPIC_LEN) <= m.walk.length);
		CHECK(c->apic_id != (c->x2apic ? MADT_X2APIC_ID_BROADCAST : MADT_APIC_ID_BROADCAST));
		CHECK(c->x2apic || (c->apic_id <= 0xff && c->uid <= 0xff));
		CHECK(i == 0 || c->offset > m.cpu[i - 1].offset);
		CHECK(madt_find_cpu(&m, c->apic_id) == c);
		enabled += !!(c->flags & MADT_CPU_ENABLED);
	}
	CHECK(enabled == m.nr_enabled);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	size_t len = make_table(data, size);
	int err = madt_parse(table, len, &m);

	CHECK(err == 0 || err == -EINVAL || err == -ENODEV || err == -ENOSPC);
	CHECK(m.walk.length <= len);
	CHECK(m.nr_cpus <= MADT_MAX_CPUS && m.nr_ioapics <= MADT_MAX_IOAPICS);
	if (err == -ENODEV)
		return 0;
	CHECK((err == -EINVAL) == (m.walk.truncated || m.walk.nr_rejected > 0));
	CHECK(err != -ENOSPC || m.walk.nr_dropped > 0);
	CHECK(err != 0 || m.walk.nr_dropped == 0);
	check_cpus();
	for (u32 i = 0; i < m.nr_ioapics; i++)
		CHECK(m.ioapic[i].offset + MADT_IOAPIC_LEN <= m.walk.length);
	/* Overrides: ISA IRQs only, one each, inside the walk. */
	CHECK(m.nr_overrides <= MADT_MAX_OVERRIDES);
	for (u32 i = 0; i < m.nr_overrides; i++) {
		CHECK(m.override[i].irq <= 15);
		CHECK(m.override[i].offset + MADT_OVERRIDE_LEN <= m.walk.length);
		for (u32 j = 0; j < i; j++)
			CHECK(m.override[j].irq != m.override[i].irq);
	}
	CHECK(!m.lapic_override || (m.lapic_address && !(m.lapic_address & 0xfff)));
	CHECK(m.lapic_override || m.lapic_address <= 0xffffffffu);
	return 0;
}
