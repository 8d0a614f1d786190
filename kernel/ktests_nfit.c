/*
 * In-kernel tests of discovery (issue "ACPI and NFIT discovery"), run on
 * whatever the firmware gave: every listed ACPI table checks out, every
 * region is a persistent-memory range of an NFIT or of the e820 map,
 * regions are ordered and disjoint, namespaces cover them, and their first
 * and last pages are readable through the direct map.
 *
 * The firmware's tables are judged by a decoding of their bytes here, not
 * by the code under test (acpi.c's walk and checksum, nfit_parse): the root
 * table's entries, each table's header and byte sum, and the NFIT's SPA
 * range structures, at the offsets of ACPI 6.4 §5.2.6-5.2.8 and §5.2.25.2.
 */
#include <string.h>

#include "acpi.h"
#include "arch.h"
#include "direct_map.h"
#include "e820.h"
#include "ktest.h"
#include "nvdimm.h"
#include "unaligned.h"

/* §5.2.6 header: signature at 0, length at 4 (the sum of `length` bytes is 0). */
#define HDR_LEN 36

/* [pa, pa + len) through the direct map, or NULL. */
static const u8 *bytes_at(u64 pa, u64 len)
{
	if (!len || pa + len < pa || direct_map_add(pa, len))
		return NULL;
	return phys_to_virt(pa);
}

/* A table whose header maps, whose length is sane and whose bytes sum to 0: its bytes, else NULL. */
static const u8 *good_table(u64 pa, u32 *len)
{
	const u8 *h = pa ? bytes_at(pa, HDR_LEN) : NULL;
	u8 sum = 0;

	if (!h)
		return NULL;
	*len = get_le32(h + 4);
	if (*len < HDR_LEN || *len > SDT_MAX_LEN || !(h = bytes_at(pa, *len)))
		return NULL;
	for (u32 i = 0; i < *len; i++)
		sum = (u8)(sum + h[i]);
	return sum ? NULL : h;
}

/* The root table (§5.2.7 RSDT: u32 entries, §5.2.8 XSDT: u64) and its entry count. */
static const u8 *root_table(u32 *esize, u32 *n)
{
	u32 len;
	const u8 *r = good_table(fw_tables.root_pa, &len);

	if (!r)
		return NULL;
	*esize = memcmp(r, "XSDT", 4) == 0 ? 8 : 4;
	*n = (len - HDR_LEN) / *esize;
	return r;
}

static u64 root_entry(const u8 *root, u32 esize, u32 i)
{
	const u8 *e = root + HDR_LEN + (size_t)i * esize;

	return esize == 8 ? get_le64(e) : get_le32(e);
}

static const struct fw_table *listed_at(u64 pa)
{
	for (u32 i = 0; i < fw_tables.nr; i++)
		if (fw_tables.table[i].pa == pa)
			return &fw_tables.table[i];
	return NULL;
}

/* Every table the root lists that checks out by our own sum is listed, with its signature and length. */
static void root_tables_all_listed(const u8 *root, u32 esize, u32 n)
{
	for (u32 i = 0; i < n && i < FW_ROOT_ENTRIES_MAX; i++) {
		u64 pa = root_entry(root, esize, i);
		const struct fw_table *t;
		const u8 *h;
		u32 len;

		if (pa == fw_tables.root_pa || !(h = good_table(pa, &len)))
			continue;
		t = listed_at(pa);
		if (!t) {
			ktest_fail(__FILE__, __LINE__, "%.4s at %#llx (root entry %u) not listed",
				   h, pa, i);
			continue;
		}
		KT_EXPECT_EQ(memcmp(t->signature, h, 4), 0);
		KT_EXPECT_EQ(t->length, len);
	}
}

/* And every listed table is a root entry whose bytes check out. */
static void listed_tables_all_in_root(const u8 *root, u32 esize, u32 n)
{
	for (u32 k = 0; k < fw_tables.nr; k++) {
		const struct fw_table *t = &fw_tables.table[k];
		bool in_root = false;
		u32 len;

		for (u32 i = 0; i < n && !in_root; i++)
			in_root = root_entry(root, esize, i) == t->pa;
		KT_ASSERT(in_root);
		KT_ASSERT(good_table(t->pa, &len) != NULL);
		KT_EXPECT_EQ(len, t->length);
	}
}

KTEST(fw_tables_listed_check_out)
{
	u32 esize, n;
	const u8 *root;

	if (!fw_tables.root_signature[0]) {
		ktest_skip("no ACPI root table");
		return;
	}
	root = root_table(&esize, &n);
	KT_ASSERT(root != NULL);
	KT_EXPECT_EQ(memcmp(root, fw_tables.root_signature, 4), 0);
	root_tables_all_listed(root, esize, n);
	listed_tables_all_in_root(root, esize, n);
}

/* §5.2.25.2 SPA Range Structure: type 0, at least 56 bytes. */
#define NFIT_SUBTABLES 40	/* after the header and 4 reserved bytes */
#define SPA_TYPE 0
#define SPA_MIN_LEN 56
#define SPA_GUID 16
#define SPA_BASE 32
#define SPA_LENGTH 40
/* Persistent Memory Region: 66F0D379-B4F3-4074-AC43-0D3318B78CDB, as the table holds it. */
static const u8 spa_pm_guid[16] = { 0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
				    0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb };

/*
 * Is [start, start + size) a persistent-memory SPA range of the NFIT `t`
 * (len bytes)? Subtables are walked until one is malformed (shorter than
 * its header or than an SPA, or running past the table), as the parser
 * stops there too.
 */
static bool nfit_bytes_have_pm_range(const u8 *t, u32 len, u64 start, u64 size)
{
	for (u32 off = NFIT_SUBTABLES; off + 4 <= len;) {
		u16 type = get_le16(t + off), sublen = get_le16(t + off + 2);

		if (sublen < 4 || off + sublen > len || (type == SPA_TYPE && sublen < SPA_MIN_LEN))
			return false;
		if (type == SPA_TYPE && !memcmp(t + off + SPA_GUID, spa_pm_guid, 16) &&
		    get_le64(t + off + SPA_BASE) == start && get_le64(t + off + SPA_LENGTH) == size)
			return true;
		off += sublen;
	}
	return false;
}

/* ... of any NFIT the root table lists, found and decoded here. */
static bool nfit_has_range(u64 start, u64 size)
{
	u32 esize, n, len;
	const u8 *root = root_table(&esize, &n), *t;

	for (u32 i = 0; root && i < n; i++) {
		t = good_table(root_entry(root, esize, i), &len);
		if (t && !memcmp(t, "NFIT", 4) && nfit_bytes_have_pm_range(t, len, start, size))
			return true;
	}
	return false;
}

static bool e820_has_pmem_range(u64 start, u64 size)
{
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (e820_is_pmem(e->type) && e->addr == start && e->size == size)
			return true;
	}
	return false;
}

/* A region test on a machine without pmem would pass without checking anything. */
static bool skip_without_regions(void)
{
	if (nd_region_count())
		return false;
	ktest_skip("no pmem region (boot with an nvdimm or memmap=nn!ss)");
	return true;
}

KTEST(nvdimm_regions_come_from_the_firmware)
{
	if (skip_without_regions())
		return;
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		if (!strcmp(r->bus->provider, "nfit"))
			KT_ASSERT(nfit_has_range(r->start, r->size));
		else
			KT_ASSERT(e820_has_pmem_range(r->start, r->size));
	}
}

/* Every e820 pmem range is inside some region (its own or an NFIT one). */
KTEST(nvdimm_e820_pmem_all_registered)
{
	u32 seen = 0;

	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (!e820_is_pmem(e->type))
			continue;
		seen++;
		const struct nd_region *r = nd_region_overlapping(e->addr, e->size);
		if (!r || r->start > e->addr || r->start + r->size < e->addr + e->size)
			ktest_fail(__FILE__, __LINE__, "e820 pmem %#llx+%#llx not in a region",
				   e->addr, e->size);
	}
	if (!seen)
		ktest_skip("no pmem in the e820 map (boot with memmap=nn!ss)");
}

KTEST(nvdimm_regions_ordered_with_namespaces)
{
	int n = 0, label_less = 0;

	if (skip_without_regions())
		return;
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		KT_EXPECT_EQ(r->id, i);
		KT_ASSERT(r->size > 0);
		const struct nd_region *prev = i ? nd_region_get(i - 1) : NULL;
		if (prev)
			KT_ASSERT(prev->start + prev->size <= r->start);
		/* Label-less (labelled regions are in labels.sh, closed ones in platform.sh). */
		if (r->labelled || r->closed) {
			KT_EXPECT_EQ(r->closed ? r->nr_namespaces : 0, 0);
			continue;
		}
		label_less++;
		const struct nd_namespace_io *ns = nd_region_namespace(r, 0);
		KT_ASSERT(ns && ns->region == r);
		KT_EXPECT_EQ(ns->start, r->start);
		KT_EXPECT_EQ(ns->size, r->size);
	}
	for_each_nd_namespace(ns)
		if (!ns->region->labelled)
			n++;
	KT_EXPECT_EQ(n, label_less);
}

/* Read (never write) the first and last word of each region, then unmap what we mapped. */
KTEST(nvdimm_region_edges_readable)
{
	if (skip_without_regions())
		return;
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		u64 edges[2] = { r->start, ALIGN_DOWN(r->start + r->size - 8, PAGE_SIZE) };
		for (int e = 0; e < 2; e++) {
			bool was_mapped = direct_map_covers(edges[e], PAGE_SIZE);
			KT_ASSERT(direct_map_add(edges[e], PAGE_SIZE) == 0);
			volatile const u64 *p = phys_to_virt(r->start + (e ? r->size - 8 : 0));
			(void)*p;
			if (!was_mapped)
				KT_ASSERT(direct_map_remove(edges[e], PAGE_SIZE) == 0);
		}
	}
}
