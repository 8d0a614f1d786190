/*
 * The SRAT (ACPI 6.4 §5.2.16, include/srat.h): processor and memory
 * affinity parsed from untrusted firmware bytes, and proximity domains
 * numbered into NUMA nodes the way Linux 6.1 does, so that a region's
 * numa_node and target_node are Linux's. subtable.c walks the entries and
 * checks every length; a bad entry prints one line and is skipped.
 */
#include <errno.h>
#include <string.h>

#include "acpi.h"
#include "printk.h"
#include "srat.h"
#include "subtable.h"
#include "unaligned.h"

struct srat_info srat;

struct walk {
	struct srat_info *out;
	bool full_said;
	u8 revision;		/* the header's */
};

static u16 min_len(u16 type)
{
	switch (type) {
	case SRAT_TYPE_LAPIC:
		return SRAT_LAPIC_LEN;
	case SRAT_TYPE_MEMORY:
		return SRAT_MEMORY_LEN;
	case SRAT_TYPE_X2APIC:
		return SRAT_X2APIC_LEN;
	default:
		return 2;
	}
}

static int full(struct walk *w, const char *what)
{
	if (!w->full_said)
		pr_warn("srat: more %s than pmemk keeps, the rest dropped\n", what);
	w->full_said = true;
	return -ENOSPC;
}

static int add_cpu(struct walk *w, u32 pxm, u32 flags)
{
	struct srat_info *s = w->out;

	if (s->nr_cpus >= SRAT_MAX_CPUS)
		return full(w, "processor entries");
	s->cpu_pxm[s->nr_cpus] = pxm;
	s->cpu_enabled[s->nr_cpus++] = flags & SRAT_ENABLED;
	return 0;
}

static int add_mem(struct walk *w, u32 off, const u8 *e)
{
	struct srat_info *s = w->out;
	/* Linux: a revision 1 table's domains are 8 bits (ACPI 2.0's field). */
	u32 pxm = w->revision >= 2 ? get_le32(e + 2) : e[2];
	struct srat_mem m = { .pxm = pxm, .base = get_le64(e + 8),
			      .length = get_le64(e + 16), .flags = get_le32(e + 28), .offset = off };

	if (m.base + m.length < m.base) {
		pr_warn("srat: memory affinity at offset %#x: [%#llx, +%#llx) wraps, skipped\n", off,
			m.base, m.length);
		return -EINVAL;
	}
	if (s->nr_mems >= SRAT_MAX_MEMS)
		return full(w, "memory ranges");
	s->mem[s->nr_mems++] = m;
	return 0;
}

/* One framed entry (subtable_layout.entry). */
static int parse_entry(void *ctx, u16 type, u32 off, const u8 *e, u16 length)
{
	struct walk *w = ctx;

	(void)length;	/* at least min_len(type) */
	switch (type) {
	case SRAT_TYPE_LAPIC:
		/*
		 * §5.2.16.1: the domain's bits 7:0 at +2, bits 31:8 at +9..+11,
		 * which Linux reads from revision 2 on.
		 */
		return add_cpu(w, e[2] | (w->revision >= 2 ? get_le32(e + 8) >> 8 << 8 : 0),
			       get_le32(e + 4));
	case SRAT_TYPE_X2APIC:
		return add_cpu(w, get_le32(e + 4), get_le32(e + 12));
	case SRAT_TYPE_MEMORY:
		return add_mem(w, off, e);
	default:
		w->out->nr_other++;
		return 0;
	}
}

/* Linux's acpi_map_pxm_to_node: the domain's node, a new one the first time. */
static int map_pxm(struct walk *w, u32 pxm)
{
	struct srat_info *s = w->out;
	int n = srat_pxm_to_node(s, pxm);

	if (n >= 0)
		return n;
	if (s->nr_nodes >= SRAT_MAX_NODES) {
		full(w, "proximity domains");
		return -1;
	}
	s->pxm[s->nr_nodes] = pxm;
	return (int)s->nr_nodes++;
}

/* Processors first, then memory (acpi_numa_init's order); online nodes. */
static void number_nodes(struct walk *w)
{
	struct srat_info *s = w->out;
	int n;

	for (u32 i = 0; i < s->nr_cpus; i++)
		if (s->cpu_enabled[i] && (n = map_pxm(w, s->cpu_pxm[i])) >= 0)
			s->online[n] = true;
	for (u32 i = 0; i < s->nr_mems; i++) {
		const struct srat_mem *m = &s->mem[i];

		if (!(m->flags & SRAT_ENABLED) || !m->length)
			continue;
		n = map_pxm(w, m->pxm);
		if (n >= 0 && !(m->flags & (SRAT_MEM_HOTPLUGGABLE | SRAT_MEM_NON_VOLATILE)))
			s->online[n] = true;
	}
}

/* The SDT header's revision (+8): how wide the domain fields are. */
static void read_header(void *ctx, const u8 *table)
{
	((struct walk *)ctx)->revision = table[8];
}

static const struct subtable_layout srat_layout = {
	.log = "srat", .signature = "SRAT", .a_table = "a SRAT", .header_len = SRAT_HEADER_LEN,
	.field_size = 1, .short_stops = false, .min_len = min_len, .name = NULL,
	.header = read_header, .entry = parse_entry,
};

int srat_parse(const void *table, size_t len, struct srat_info *out)
{
	struct walk w = { .out = out };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = subtable_walk(&srat_layout, table, len, &w, &out->walk);
	if (rc == -ENODEV)
		return rc;
	out->present = true;
	number_nodes(&w);
	return rc;
}

int srat_pxm_to_node(const struct srat_info *s, u32 pxm)
{
	for (u32 n = 0; n < s->nr_nodes; n++)
		if (s->pxm[n] == pxm)
			return (int)n;
	return -1;
}

int srat_pxm_to_online_node(const struct srat_info *s, u32 pxm)
{
	int n = srat_pxm_to_node(s, pxm);

	if (n < 0 || s->online[n])
		return n;
	for (u32 i = 0; i < s->nr_nodes; i++)
		if (s->online[i])
			return (int)i;
	return n;
}

static bool holds(const struct srat_mem *m, u64 addr)
{
	return (m->flags & SRAT_ENABLED) && m->length && addr >= m->base &&
	       addr - m->base < m->length;
}

static bool is_ram(const struct srat_mem *m)
{
	return (m->flags & SRAT_ENABLED) && m->length &&
	       !(m->flags & (SRAT_MEM_HOTPLUGGABLE | SRAT_MEM_NON_VOLATILE));
}

int srat_addr_to_node(const struct srat_info *s, u64 addr)
{
	int first = -1;

	for (u32 i = 0; i < s->nr_mems; i++) {
		if (!is_ram(&s->mem[i]))
			continue;
		if (holds(&s->mem[i], addr))
			return srat_pxm_to_node(s, s->mem[i].pxm);
		if (first < 0)
			first = srat_pxm_to_node(s, s->mem[i].pxm);
	}
	return first < 0 ? 0 : first;
}

int srat_addr_to_target_node(const struct srat_info *s, u64 addr)
{
	for (u32 i = 0; i < s->nr_mems; i++)
		if (holds(&s->mem[i], addr))
			return srat_pxm_to_node(s, s->mem[i].pxm);
	return -1;
}

int srat_init(void)
{
	const struct fw_table *at = fw_table_find(&fw_tables, "SRAT", 0);
	const struct sdt_header *h = at ? fw_table_map(at) : NULL;
	u32 online = 0;

	memset(&srat, 0, sizeof(srat));
	if (!h) {
		pr_info("srat: no SRAT: no NUMA information\n");
		return -ENODEV;
	}
	if (srat_parse(h, at->length, &srat) == -ENODEV) {
		memset(&srat, 0, sizeof(srat));
		return -ENODEV;
	}
	for (u32 n = 0; n < srat.nr_nodes; n++)
		online += srat.online[n];
	pr_info("srat: %u CPU and %u memory affinity entries, %u proximity domain%s as nodes 0-%d, %u online\n",
		srat.nr_cpus, srat.nr_mems, srat.nr_nodes, srat.nr_nodes == 1 ? "" : "s",
		(int)srat.nr_nodes - 1, online);
	for (u32 n = 0; n < srat.nr_nodes; n++)
		pr_info("srat: node %u: proximity domain %u%s\n", n, srat.pxm[n],
			srat.online[n] ? "" : ", offline (no CPU, no RAM)");
	return 0;
}
