/*
 * ACPI tables (ACPI 6.4 §5.2.6-5.2.8): map and check each table, walk the
 * XSDT (RSDT when there is no usable XSDT) and list every good table in
 * fw_tables. A bad table prints one line and is skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "acpi.h"
#include "arch.h"
#include "boot_info.h"
#include "direct_map.h"
#include "printk.h"

struct fw_tables fw_tables;

u8 sdt_checksum(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	while (len--)
		sum = (u8)(sum + *b++);
	return sum;
}

/* The CPU's physical address width (MAXPHYADDR), at most 52. */
static u64 phys_limit(void)
{
	u32 bits = arch_phys_addr_bits();

	return 1ULL << MIN(bits, 52U);
}

const void *fw_map(u64 pa, u64 len)
{
	if (pa + len < pa || pa + len > phys_limit())
		return NULL;
	if (direct_map_add(pa, len ? len : 1))
		return NULL;
	return phys_to_virt(pa);
}

/* A signature as printable text ('?' for anything else). */
static void sig_text(char out[5], const char sig[4])
{
	for (int i = 0; i < 4; i++)
		out[i] = sig[i] >= 0x20 && sig[i] < 0x7f ? sig[i] : '?';
	out[4] = 0;
}

const struct sdt_header *sdt_map(u64 pa, const char *what)
{
	const struct sdt_header *h = pa ? fw_map(pa, SDT_HEADER_LEN) : NULL;
	char sig[5];

	if (!pa) {
		pr_warn("ACPI: %s has a null address, skipped\n", what);
		return NULL;
	}
	if (!h) {
		pr_warn("ACPI: %s at %#llx cannot be mapped, skipped\n", what, pa);
		return NULL;
	}
	sig_text(sig, h->signature);
	u32 len = h->length;
	if (len < SDT_HEADER_LEN || len > SDT_MAX_LEN) {
		pr_warn("ACPI: %s %s at %#llx: length %u out of range, skipped\n", what, sig, pa,
			len);
		return NULL;
	}
	if (!fw_map(pa, len)) {
		pr_warn("ACPI: %s %s at %#llx: %u bytes cannot be mapped, skipped\n", what, sig, pa,
			len);
		return NULL;
	}
	u8 sum = sdt_checksum(h, len);
	if (sum) {
		pr_warn("ACPI: %s %s at %#llx: bad checksum (sum %#x), skipped\n", what, sig, pa,
			sum);
		return NULL;
	}
	return h;
}

/* The root table at pa if it maps, checks and carries `sig`. */
static const struct sdt_header *map_root(u64 pa, const char *sig)
{
	const struct sdt_header *h = sdt_map(pa, sig);

	if (h && memcmp(h->signature, sig, 4) != 0) {
		char found[5];
		sig_text(found, h->signature);
		pr_warn("ACPI: %s at %#llx has signature %s, skipped\n", sig, pa, found);
		return NULL;
	}
	return h;
}

static void list_table(struct fw_tables *out, u64 pa, const struct sdt_header *h)
{
	struct fw_table *t = &out->table[out->nr++];

	memset(t, 0, sizeof(*t));
	memcpy(t->signature, h->signature, 4);
	t->pa = pa;
	t->length = h->length;
	t->revision = h->revision;
	memcpy(t->oem_id, h->oem_id, 6);
	memcpy(t->oem_table_id, h->oem_table_id, 8);
}

/*
 * An entry naming the root table itself or a table already listed (an NFIT
 * listed twice would otherwise be parsed twice: its DIMMs registered twice
 * under one handle) is skipped with one line.
 */
static bool listed_before(const struct fw_tables *out, u64 pa, const char *what)
{
	if (pa == out->root_pa) {
		pr_warn("ACPI: %s at %#llx is the %s itself, skipped\n", what, pa,
			out->root_signature);
		return true;
	}
	for (u32 i = 0; i < out->nr; i++) {
		if (out->table[i].pa != pa)
			continue;
		pr_warn("ACPI: %s at %#llx: %s already listed, skipped\n", what, pa,
			out->table[i].signature);
		return true;
	}
	return false;
}

/* Every entry of the root table (§5.2.7 RSDT: u32, §5.2.8 XSDT: unaligned u64). */
static void walk_root(const struct sdt_header *root, u32 entry_size,
		      struct fw_tables *out)
{
	const u8 *entries = (const u8 *)root + SDT_HEADER_LEN;
	u32 n = (root->length - SDT_HEADER_LEN) / entry_size;
	char what[32];

	if ((root->length - SDT_HEADER_LEN) % entry_size)
		pr_warn("ACPI: %s length %u is not a whole number of entries, tail ignored\n",
			out->root_signature, root->length);
	/* Each bad entry prints a line: a corrupt root must not flood the console. */
	if (n > FW_ROOT_ENTRIES_MAX) {
		pr_warn("ACPI: %s has %u entries, only the first %d are read\n",
			out->root_signature, n, FW_ROOT_ENTRIES_MAX);
		n = FW_ROOT_ENTRIES_MAX;
	}
	for (u32 i = 0; i < n; i++) {
		u64 pa = 0;
		memcpy(&pa, entries + (size_t)i * entry_size, entry_size);
		if (out->nr >= FW_TABLES_MAX) {
			pr_warn("ACPI: more than %d tables, the last %u ignored\n",
				FW_TABLES_MAX, n - i);
			break;
		}
		snprintf(what, sizeof(what), "%s entry %u", out->root_signature, i);
		if (pa && listed_before(out, pa, what))
			continue;
		const struct sdt_header *h = sdt_map(pa, what);
		if (h)
			list_table(out, pa, h);
	}
}

int fw_tables_load(const struct rsdp *rsdp, struct fw_tables *out)
{
	const struct sdt_header *root = NULL;
	u32 entry_size = 8;

	out->nr = 0;
	if (rsdp->revision >= 2 && rsdp->xsdt_address) {
		root = map_root(rsdp->xsdt_address, "XSDT");
		out->root_pa = rsdp->xsdt_address;
		if (!root && rsdp->rsdt_address)
			pr_warn("ACPI: XSDT unusable, falling back to the RSDT\n");
	}
	if (!root) {
		entry_size = 4;
		out->root_pa = rsdp->rsdt_address;
		root = rsdp->rsdt_address ? map_root(rsdp->rsdt_address, "RSDT") : NULL;
	}
	if (!root) {
		out->root_signature[0] = 0;
		return -ENODEV;
	}
	memcpy(out->root_signature, root->signature, 4);
	out->root_signature[4] = 0;
	walk_root(root, entry_size, out);
	return 0;
}

const struct fw_table *fw_table_find(const struct fw_tables *t, const char *sig, u32 n)
{
	for (u32 i = 0; i < t->nr; i++)
		if (memcmp(t->table[i].signature, sig, 4) == 0 && n-- == 0)
			return &t->table[i];
	return NULL;
}

const struct sdt_header *fw_table_map(const struct fw_table *t)
{
	return fw_map(t->pa, t->length);
}

/*
 * Linux's line:
 * "ACPI: NFIT 0x000000007FFE1A25 0000E0 (v01 BOCHS  BXPC     00000001 BXPC 00000001)"
 */
static void print_table(u64 pa, const struct sdt_header *h)
{
	char sig[5];

	sig_text(sig, h->signature);
	pr_info("ACPI: %s 0x%016llX %06X (v%02u %-6.6s %-8.8s %08X %-4.4s %08X)\n", sig, pa,
		h->length, h->revision, h->oem_id, h->oem_table_id, h->oem_revision, h->creator_id,
		h->creator_revision);
}

static void print_rsdp(const struct fw_tables *t, const struct rsdp *rsdp)
{
	u32 len = rsdp->revision >= 2 ? rsdp->length : RSDP_V1_LEN;

	if (t->rsdp_pa)
		pr_info("ACPI: RSDP 0x%016llX %06X (v%02u %-6.6s) from %s\n", t->rsdp_pa, len,
			rsdp->revision, rsdp->oem_id, t->rsdp_source);
	else
		pr_info("ACPI: RSDP (%s copy) %06X (v%02u %-6.6s)\n", t->rsdp_source, len,
			rsdp->revision, rsdp->oem_id);
}

void fw_tables_init(const struct boot_info *bi)
{
	struct fw_tables *t = &fw_tables;
	struct rsdp rsdp;

	memset(t, 0, sizeof(*t));
	if (rsdp_find(bi, &rsdp, &t->rsdp_pa, &t->rsdp_source)) {
		pr_warn("ACPI: no RSDP found: no NFIT, pmem from e820 only\n");
		return;
	}
	t->rsdp_revision = rsdp.revision;
	print_rsdp(t, &rsdp);
	if (fw_tables_load(&rsdp, t)) {
		pr_warn("ACPI: no usable RSDT or XSDT: no NFIT, pmem from e820 only\n");
		return;
	}
	print_table(t->root_pa, fw_map(t->root_pa, SDT_HEADER_LEN));
	for (u32 i = 0; i < t->nr; i++)
		print_table(t->table[i].pa, fw_table_map(&t->table[i]));
}

/* §5.2.9 Fixed ACPI Description Table: where the FACS and the DSDT are. */
#define FADT_FIRMWARE_CTRL 36	/* u32 */
#define FADT_DSDT 40		/* u32 */
#define FADT_X_FIRMWARE_CTRL 132	/* u64, ACPI 2.0 and later */
#define FADT_X_DSDT 140		/* u64 */
#define FACS_MIN_LEN 64		/* §5.2.10 */

static u32 range_add(struct boot_reserved *out, u32 n, u32 max, u64 pa, u64 len, const char *sig)
{
	static char what[FW_RANGES_MAX][10];

	if (!pa || !len || n >= max || n >= FW_RANGES_MAX)
		return n;
	snprintf(what[n], sizeof(what[n]), "ACPI %.4s", sig);
	out[n] = (struct boot_reserved){ pa, len, what[n] };
	return n + 1;
}

/* The length the header at pa gives (DSDT and FACS alike: bytes 4-7), else min. */
static u64 length_at(u64 pa, u32 min)
{
	const struct sdt_header *h = fw_map(pa, SDT_HEADER_LEN);

	if (!h || h->length < min || h->length > SDT_MAX_LEN)
		return min;
	return h->length;
}

/* The u32 or u64 field at `off` of a table of `len` bytes; 0 past its end. */
static u64 field_at(const u8 *table, u32 len, u32 off, u32 size)
{
	u64 v = 0;

	if (off + size <= len)
		memcpy(&v, table + off, size);
	return v;
}

/* The DSDTs and FACSes a FADT names (both fields of each where both are set). */
static u32 fadt_ranges(const struct fw_table *fadt, struct boot_reserved *out, u32 n, u32 max)
{
	const u8 *f = (const void *)fw_table_map(fadt);
	u64 dsdt[2], facs[2];

	if (!f)
		return n;
	dsdt[0] = field_at(f, fadt->length, FADT_DSDT, 4);
	dsdt[1] = field_at(f, fadt->length, FADT_X_DSDT, 8);
	facs[0] = field_at(f, fadt->length, FADT_FIRMWARE_CTRL, 4);
	facs[1] = field_at(f, fadt->length, FADT_X_FIRMWARE_CTRL, 8);
	for (int i = 0; i < 2; i++) {
		if (dsdt[i] && (i == 0 || dsdt[1] != dsdt[0]))
			n = range_add(out, n, max, dsdt[i], length_at(dsdt[i], SDT_HEADER_LEN),
				      "DSDT");
		if (facs[i] && (i == 0 || facs[1] != facs[0]))
			n = range_add(out, n, max, facs[i], length_at(facs[i], FACS_MIN_LEN),
				      "FACS");
	}
	return n;
}

u32 fw_tables_ranges(const struct fw_tables *t, struct boot_reserved *out, u32 max)
{
	const struct fw_table *fadt;
	u32 n = 0;

	if (t->rsdp_pa)
		n = range_add(out, n, max, t->rsdp_pa,
			      t->rsdp_revision >= 2 ? RSDP_V2_LEN : RSDP_V1_LEN, "RSDP");
	if (t->root_signature[0])
		n = range_add(out, n, max, t->root_pa, length_at(t->root_pa, SDT_HEADER_LEN),
			      t->root_signature);
	for (u32 i = 0; i < t->nr; i++)
		n = range_add(out, n, max, t->table[i].pa, t->table[i].length,
			      t->table[i].signature);
	for (u32 k = 0; (fadt = fw_table_find(t, "FACP", k)); k++)
		n = fadt_ranges(fadt, out, n, max);
	return n;
}
