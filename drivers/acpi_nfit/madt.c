/*
 * The MADT (ACPI 6.4 §5.2.12; QEMU's form in ../shared/docs/FACTS-2.md
 * §6.1): CPUs, I/O APICs and the local APIC address, parsed from untrusted
 * firmware bytes. Every length is checked before it is used; a bad entry
 * prints one line and is skipped, the rest is kept.
 */
#include <errno.h>
#include <string.h>

#include "acpi.h"
#include "madt.h"
#include "printk.h"
#include "unaligned.h"

struct madt_info madt;

struct walk {
	const u8 *base;
	struct madt_info *out;
	bool cpus_full_said, ioapics_full_said, override_said;
};

/* Minimum length of each type read; 2 (the type and length bytes) for the rest. */
static u8 min_len(u8 type)
{
	switch (type) {
	case MADT_TYPE_LAPIC:
		return MADT_LAPIC_LEN;
	case MADT_TYPE_IOAPIC:
		return MADT_IOAPIC_LEN;
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

static void add_cpu(struct walk *w, u32 off, u32 apic_id, u32 uid, u32 flags, bool x2apic)
{
	struct madt_info *m = w->out;
	const char *kind = x2apic ? "x2APIC" : "local APIC";

	if (apic_id == (x2apic ? MADT_X2APIC_ID_BROADCAST : MADT_APIC_ID_BROADCAST)) {
		pr_warn("madt: %s at offset %#x has the broadcast ID %#x, skipped\n", kind, off,
			apic_id);
		m->nr_rejected++;
		return;
	}
	const struct madt_cpu *dup = madt_find_cpu(m, apic_id);
	if (dup) {
		pr_warn("madt: %s at offset %#x: APIC ID %u already listed at offset %#x, skipped\n",
			kind, off, apic_id, dup->offset);
		m->nr_rejected++;
		return;
	}
	if (m->nr_cpus >= MADT_MAX_CPUS) {
		if (!w->cpus_full_said)
			pr_warn("madt: more than %d CPUs, the rest dropped\n", MADT_MAX_CPUS);
		w->cpus_full_said = true;
		m->nr_dropped++;
		return;
	}
	m->cpu[m->nr_cpus++] = (struct madt_cpu){ .apic_id = apic_id, .uid = uid, .flags = flags,
						   .x2apic = x2apic, .offset = off };
	if (flags & MADT_CPU_ENABLED)
		m->nr_enabled++;
}

static void parse_ioapic(struct walk *w, u32 off, const u8 *e)
{
	struct madt_info *m = w->out;

	if (m->nr_ioapics >= MADT_MAX_IOAPICS) {
		if (!w->ioapics_full_said)
			pr_warn("madt: more than %d I/O APICs, the rest dropped\n",
				MADT_MAX_IOAPICS);
		w->ioapics_full_said = true;
		m->nr_dropped++;
		return;
	}
	m->ioapic[m->nr_ioapics++] = (struct madt_ioapic){
		.id = e[2], .address = get_le32(e + 4), .gsi_base = get_le32(e + 8), .offset = off
	};
}

/* §5.2.12.8: a 64-bit address replaces the header's 32-bit one; one is enough. */
static void parse_lapic_addr(struct walk *w, u32 off, const u8 *e)
{
	struct madt_info *m = w->out;
	u64 pa = get_le64(e + 4);

	if (!pa || (pa & 0xfff)) {
		pr_warn("madt: local APIC address override at offset %#x: address %#llx is not a page, skipped\n",
			off, pa);
		m->nr_rejected++;
		return;
	}
	if (w->override_said) {
		pr_warn("madt: second local APIC address override at offset %#x, skipped\n", off);
		m->nr_rejected++;
		return;
	}
	w->override_said = true;
	m->lapic_address = pa;
	m->lapic_override = true;
}

static void parse_entry(struct walk *w, u32 off, const u8 *e)
{
	switch (e[0]) {
	case MADT_TYPE_LAPIC:
		add_cpu(w, off, e[3], e[2], get_le32(e + 4), false);
		break;
	case MADT_TYPE_X2APIC:
		add_cpu(w, off, get_le32(e + 4), get_le32(e + 12), get_le32(e + 8), true);
		break;
	case MADT_TYPE_IOAPIC:
		parse_ioapic(w, off, e);
		break;
	case MADT_TYPE_LAPIC_ADDR:
		parse_lapic_addr(w, off, e);
		break;
	default:
		w->out->nr_other++;
	}
}

/*
 * One entry's framing: fewer than 2 bytes left, a length below 2 or past
 * the end leave nothing to find the next entry by, so the walk stops
 * (-EINVAL, printed). A length below its type's size is skipped by length
 * (1, printed). 0: parse it.
 */
static int check_entry(const u8 *e, u32 off, u32 end)
{
	if (end - off < 2) {
		pr_warn("madt: %u stray byte at offset %#x, walk stopped\n", end - off, off);
		return -EINVAL;
	}
	if (e[1] < 2) {
		pr_warn("madt: entry type %u at offset %#x has length %u, walk stopped\n", e[0],
			off, e[1]);
		return -EINVAL;
	}
	if (e[1] > end - off) {
		pr_warn("madt: entry type %u at offset %#x: length %u runs past the table end %#x, walk stopped\n",
			e[0], off, e[1], end);
		return -EINVAL;
	}
	if (e[1] < min_len(e[0])) {
		pr_warn("madt: entry type %u at offset %#x: length %u below its size %u, skipped\n",
			e[0], off, e[1], min_len(e[0]));
		return 1;
	}
	return 0;
}

/* The header (§5.2.6, §5.2.12): signature, and how many bytes the walk may use. */
static int check_header(const u8 *p, size_t len, struct madt_info *out, u32 *end)
{
	if (len < MADT_HEADER_LEN || memcmp(p, "APIC", 4) != 0) {
		pr_warn("madt: not a MADT (%zu bytes%s)\n", len,
			len >= 4 && memcmp(p, "APIC", 4) != 0 ? ", bad signature" : "");
		return -ENODEV;
	}
	u32 hdr_len = get_le32(p + 4);
	out->lapic_address = get_le32(p + 36);
	out->flags = get_le32(p + 40);
	if (hdr_len < MADT_HEADER_LEN) {
		pr_warn("madt: header length %u is shorter than the header itself\n", hdr_len);
		out->truncated = true;
		return -EINVAL;
	}
	*end = hdr_len;
	if (hdr_len > len) {
		pr_warn("madt: header length %u but only %zu bytes present, walking those\n",
			hdr_len, len);
		*end = (u32)len;
		out->truncated = true;
	}
	out->length = *end;
	return 0;
}

int madt_parse(const void *table, size_t len, struct madt_info *out)
{
	struct walk w = { .base = table, .out = out };
	u32 off = MADT_HEADER_LEN, end = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (len > SDT_MAX_LEN)
		len = SDT_MAX_LEN;
	err = check_header(table, len, out, &end);
	if (err)
		return err;
	while (off < end) {
		const u8 *e = w.base + off;
		err = check_entry(e, off, end);
		if (err < 0) {
			out->truncated = true;
			break;
		}
		if (err)
			out->nr_rejected++;
		else
			parse_entry(&w, off, e);
		off += e[1];
	}
	if (out->truncated || out->nr_rejected)
		return -EINVAL;
	return out->nr_dropped ? -ENOSPC : 0;
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
