/*
 * The MADT (ACPI 6.4 §5.2.12; QEMU's form in ../shared/docs/FACTS-2.md
 * §6.1): CPUs, I/O APICs, ISA IRQ overrides and the local APIC address, parsed from untrusted
 * firmware bytes. subtable.c walks the entries and checks every length; an
 * entry shorter than its type's fields, or bad (ID, duplicate, override),
 * prints one line and is skipped, the rest is kept.
 */
#include <errno.h>
#include <string.h>

#include "acpi.h"
#include "madt.h"
#include "printk.h"
#include "subtable.h"
#include "unaligned.h"

struct madt_info madt;

struct walk {
	struct madt_info *out;
	bool cpus_full_said, ioapics_full_said;
};

/* Minimum length of each type read; 2 (the type and length bytes) for the rest. */
static u16 min_len(u16 type)
{
	switch (type) {
	case MADT_TYPE_LAPIC:
		return MADT_LAPIC_LEN;
	case MADT_TYPE_IOAPIC:
		return MADT_IOAPIC_LEN;
	case MADT_TYPE_OVERRIDE:
		return MADT_OVERRIDE_LEN;
	case MADT_TYPE_LAPIC_ADDR:
		return MADT_LAPIC_ADDR_LEN;
	case MADT_TYPE_X2APIC:
		return MADT_X2APIC_LEN;
	default:
		return 2;
	}
}

const struct madt_cpu *madt_find_cpu(const struct madt_info *m, u32 apic_id)
{
	for (u32 i = 0; i < m->nr_cpus; i++)
		if (m->cpu[i].apic_id == apic_id)
			return &m->cpu[i];
	return NULL;
}

static int add_cpu(struct walk *w, u32 off, u32 apic_id, u32 uid, u32 flags, bool x2apic)
{
	struct madt_info *m = w->out;
	const char *kind = x2apic ? "x2APIC" : "local APIC";

	if (apic_id == (x2apic ? MADT_X2APIC_ID_BROADCAST : MADT_APIC_ID_BROADCAST)) {
		pr_warn("madt: %s at offset %#x has the broadcast ID %#x, skipped\n", kind, off,
			apic_id);
		return -EINVAL;
	}
	const struct madt_cpu *dup = madt_find_cpu(m, apic_id);
	if (dup) {
		pr_warn("madt: %s at offset %#x: APIC ID %u already listed at offset %#x, skipped\n",
			kind, off, apic_id, dup->offset);
		return -EINVAL;
	}
	if (m->nr_cpus >= MADT_MAX_CPUS) {
		if (!w->cpus_full_said)
			pr_warn("madt: more than %d CPUs, the rest dropped\n", MADT_MAX_CPUS);
		w->cpus_full_said = true;
		return -ENOSPC;
	}
	m->cpu[m->nr_cpus++] = (struct madt_cpu){ .apic_id = apic_id, .uid = uid, .flags = flags,
						   .x2apic = x2apic, .offset = off };
	if (flags & MADT_CPU_ENABLED)
		m->nr_enabled++;
	return 0;
}

static int parse_ioapic(struct walk *w, u32 off, const u8 *e)
{
	struct madt_info *m = w->out;

	if (m->nr_ioapics >= MADT_MAX_IOAPICS) {
		if (!w->ioapics_full_said)
			pr_warn("madt: more than %d I/O APICs, the rest dropped\n",
				MADT_MAX_IOAPICS);
		w->ioapics_full_said = true;
		return -ENOSPC;
	}
	m->ioapic[m->nr_ioapics++] = (struct madt_ioapic){
		.id = e[2], .address = get_le32(e + 4), .gsi_base = get_le32(e + 8), .offset = off
	};
	return 0;
}

/* §5.2.12.5: bus 0 (ISA) is the only one defined; one override per IRQ 0-15. */
static int parse_override(struct madt_info *m, u32 off, const u8 *e)
{
	u8 bus = e[2], irq = e[3];

	if (bus != 0 || irq > 15) {
		pr_warn("madt: interrupt override at offset %#x names bus %u IRQ %u, not an ISA IRQ: skipped\n",
			off, bus, irq);
		return -EINVAL;
	}
	for (u32 i = 0; i < m->nr_overrides; i++)
		if (m->override[i].irq == irq) {
			pr_warn("madt: interrupt override at offset %#x: IRQ %u already overridden at offset %#x, skipped\n",
				off, irq, m->override[i].offset);
			return -EINVAL;
		}
	m->override[m->nr_overrides++] = (struct madt_override){
		.irq = irq, .gsi = get_le32(e + 4), .flags = get_le16(e + 8), .offset = off
	};
	return 0;
}

/* §5.2.12.8: a 64-bit address replaces the header's 32-bit one; one is enough. */
static int parse_lapic_addr(struct madt_info *m, u32 off, const u8 *e)
{
	u64 pa = get_le64(e + 4);

	if (!pa || (pa & 0xfff)) {
		pr_warn("madt: local APIC address override at offset %#x: address %#llx is not a page, skipped\n",
			off, pa);
		return -EINVAL;
	}
	if (m->lapic_override) {
		pr_warn("madt: second local APIC address override at offset %#x, skipped\n", off);
		return -EINVAL;
	}
	m->lapic_address = pa;
	m->lapic_override = true;
	return 0;
}

/* One framed entry (subtable_layout.entry): -EINVAL rejects it, -ENOSPC drops it. */
static int parse_entry(void *ctx, u16 type, u32 off, const u8 *e, u16 length)
{
	struct walk *w = ctx;

	(void)length;	/* at least min_len(type): every field read is there */
	switch (type) {
	case MADT_TYPE_LAPIC:
		return add_cpu(w, off, e[3], e[2], get_le32(e + 4), false);
	case MADT_TYPE_X2APIC:
		return add_cpu(w, off, get_le32(e + 4), get_le32(e + 12), get_le32(e + 8), true);
	case MADT_TYPE_IOAPIC:
		return parse_ioapic(w, off, e);
	case MADT_TYPE_OVERRIDE:
		return parse_override(w->out, off, e);
	case MADT_TYPE_LAPIC_ADDR:
		return parse_lapic_addr(w->out, off, e);
	default:
		w->out->nr_other++;
		return 0;
	}
}

/* §5.2.12 table 5.43: after the SDT header, the local APIC address and flags. */
static void read_header(void *ctx, const u8 *table)
{
	struct madt_info *m = ((struct walk *)ctx)->out;

	m->lapic_address = get_le32(table + 36);
	m->flags = get_le32(table + 40);
}

static const struct subtable_layout madt_layout = {
	.log = "madt", .signature = "APIC", .a_table = "a MADT", .header_len = MADT_HEADER_LEN,
	.field_size = 1, .short_stops = false, .min_len = min_len, .name = NULL,
	.header = read_header, .entry = parse_entry,
};

int madt_parse(const void *table, size_t len, struct madt_info *out)
{
	struct walk w = { .out = out };

	memset(out, 0, sizeof(*out));
	return subtable_walk(&madt_layout, table, len, &w, &out->walk);
}

int madt_init(void)
{
	const struct fw_table *at = fw_table_find(&fw_tables, "APIC", 0);
	const struct sdt_header *h = at ? fw_table_map(at) : NULL;

	memset(&madt, 0, sizeof(madt));
	if (!h) {
		pr_warn("madt: no MADT: running on the boot CPU only\n");
		return -ENODEV;
	}
	if (madt_parse(h, at->length, &madt) == -ENODEV) {
		memset(&madt, 0, sizeof(madt));
		return -ENODEV;
	}
	pr_info("madt: %u CPUs listed, %u enabled, %u I/O APIC%s, local APIC at %#llx%s\n",
		madt.nr_cpus, madt.nr_enabled, madt.nr_ioapics, madt.nr_ioapics == 1 ? "" : "s",
		madt.lapic_address, madt.lapic_override ? " (override)" : "");
	return 0;
}
