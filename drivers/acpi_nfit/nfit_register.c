/*
 * The "nfit" bus provider: from a parsed NFIT (nfit.c) to nvdimm objects.
 * One DIMM per device handle, its identity from its control region (§5.2.25.6)
 * and its flush hints (§5.2.25.8); one region per persistent-memory SPA
 * range (§5.2.25.2) with a mapping per memdev (§5.2.25.3) that points at it.
 * The behaviour follows Linux's drivers/acpi/nfit (naming, read-only on a
 * DIMM not armed, persistence domain from §5.2.25.9); the code is our own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "acpi.h"
#include "nfit.h"
#include "nvdimm.h"
#include "printk.h"
#include "srat.h"

/* Handle -> DIMM for one table being registered. */
struct dimm_map {
	u32 nr;
	u32 handle[NFIT_MAX_MEMDEV];
	struct nvdimm *dimm[NFIT_MAX_MEMDEV];
};

static struct nvdimm *dimm_of(const struct dimm_map *m, u32 handle)
{
	for (u32 i = 0; i < m->nr; i++)
		if (m->handle[i] == handle)
			return m->dimm[i];
	return NULL;
}

/* The distinct handles of all memdevs, ascending (Linux names nmemN in handle order). */
static void collect_handles(const struct nfit_table *t, struct dimm_map *m)
{
	m->nr = 0;
	for (u32 i = 0; i < t->nr_memdev; i++) {
		u32 h = t->memdev[i].device_handle, j = m->nr;
		bool seen = false;
		for (u32 k = 0; k < m->nr; k++)
			seen |= m->handle[k] == h;
		if (seen)
			continue;
		while (j > 0 && m->handle[j - 1] > h) {
			m->handle[j] = m->handle[j - 1];
			j--;
		}
		m->handle[j] = h;
		m->nr++;
	}
}

/*
 * What the core keeps of a DIMM's control region (§5.2.25.6): vendor,
 * serial, manufacturing location and date (for the interleave-set cookie)
 * and Linux's nfit "id": vendor and serial as big-endian numbers, with the
 * location and date when the DCR says they are valid.
 */
static void set_dcr(struct nvdimm *d, const struct nfit_dcr *dcr)
{
	unsigned int vendor = __builtin_bswap16(dcr->vendor_id);
	unsigned long serial = __builtin_bswap32(dcr->serial_number);

	d->has_dcr = true;
	d->vendor_id = dcr->vendor_id;
	d->serial = dcr->serial_number;
	d->manufacturing_location = dcr->manufacturing_location;
	d->manufacturing_date = dcr->manufacturing_date;
	if (dcr->valid_fields & NFIT_DCR_MFG_VALID)
		snprintf(d->unique_id, sizeof(d->unique_id), "%04x-%02x-%04x-%08lx", vendor,
			 dcr->manufacturing_location,
			 (unsigned int)__builtin_bswap16(dcr->manufacturing_date), serial);
	else
		snprintf(d->unique_id, sizeof(d->unique_id), "%04x-%08lx", vendor, serial);
}

static void set_flush_hints(struct nvdimm *d, const struct nfit_table *t)
{
	bool found = false;

	for (u32 i = 0; i < t->nr_flush; i++) {
		const struct nfit_flush *f = &t->flush[i];
		if (f->device_handle != d->handle)
			continue;
		if (found) {
			pr_warn("nfit: FLUSH at offset %#x: second one for handle %#x ignored\n",
				f->offset, d->handle);
			continue;
		}
		found = true;
		d->nr_flush_hints = MIN((u32)f->hint_count, (u32)NFIT_MAX_FLUSH_HINTS);
		memcpy(d->flush_hint, f->hint, d->nr_flush_hints * sizeof(u64));
	}
}

u32 nfit_dimm_flags(u16 memdev_flags)
{
	/* ACPI 6.4 Table 5.134, NVDIMM State Flags. */
	static const struct {
		u16 nfit;
		u32 nd;
	} map[] = {
		{ NFIT_MEM_SAVE_FAILED, ND_DIMM_SAVE_FAILED },
		{ NFIT_MEM_RESTORE_FAILED, ND_DIMM_RESTORE_FAILED },
		{ NFIT_MEM_FLUSH_FAILED, ND_DIMM_FLUSH_FAILED },
		{ NFIT_MEM_NOT_ARMED, ND_DIMM_NOT_ARMED },
		{ NFIT_MEM_HEALTH_OBSERVED, ND_DIMM_SMART_EVENT },
		{ NFIT_MEM_HEALTH_ENABLED, ND_DIMM_SMART_NOTIFY },
		{ NFIT_MEM_MAP_FAILED, ND_DIMM_MAP_FAILED },
	};
	u32 flags = 0;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (memdev_flags & map[i].nfit)
			flags |= map[i].nd;
	return flags;
}

/* Identity, flags and flush hints of the DIMM with `handle`, from all its memdevs. */
static void describe_dimm(const struct nfit_table *t, u32 handle, struct nvdimm *d)
{
	const struct nfit_memdev *first = NULL;

	memset(d, 0, sizeof(*d));
	d->handle = handle;
	for (u32 i = 0; i < t->nr_memdev; i++) {
		const struct nfit_memdev *m = &t->memdev[i];
		if (m->device_handle != handle)
			continue;
		d->flags |= nfit_dimm_flags(m->flags);
		if (!first)
			first = m;
		const struct nfit_dcr *dcr = nfit_find_dcr(t, m->region_index);
		if (dcr && !d->has_dcr)
			set_dcr(d, dcr);
	}
	d->phys_id = first->physical_id;
	if (!d->has_dcr)
		pr_warn("nfit: DIMM handle %#x: no control region %u, no id\n", handle,
			first->region_index);
	set_flush_hints(d, t);
}

static void warn_orphans(const struct nfit_table *t, const struct dimm_map *m)
{
	for (u32 i = 0; i < t->nr_flush; i++)
		if (!dimm_of(m, t->flush[i].device_handle))
			pr_warn("nfit: FLUSH at offset %#x: no memdev has handle %#x, ignored\n",
				t->flush[i].offset, t->flush[i].device_handle);
	for (u32 i = 0; i < t->nr_memdev; i++) {
		const struct nfit_memdev *md = &t->memdev[i];
		if (md->range_index && !nfit_find_spa(t, md->range_index))
			pr_warn("nfit: MEMDEV at offset %#x (handle %#x): no SPA range %u\n",
				md->offset, md->device_handle, md->range_index);
	}
}

static void register_dimms(const struct nfit_table *t, struct nd_bus *bus, struct dimm_map *m)
{
	struct nvdimm desc;

	collect_handles(t, m);
	for (u32 i = 0; i < m->nr; i++) {
		describe_dimm(t, m->handle[i], &desc);
		m->dimm[i] = nvdimm_create(bus, &desc);
	}
	warn_orphans(t, m);
}

/* Order mappings by their offset in the SPA range: that is their position. */
static void set_positions(struct nd_region_desc *rd, const u64 *region_offset)
{
	for (u32 i = 0; i < rd->nr_mappings; i++) {
		int pos = 0;
		for (u32 j = 0; j < rd->nr_mappings; j++)
			if (region_offset[j] < region_offset[i] ||
			    (region_offset[j] == region_offset[i] && j < i))
				pos++;
		rd->mapping[i].position = pos;
	}
}

/* The mappings of one SPA range: every memdev naming its range index. */
static int add_mappings(const struct nfit_table *t, const struct nfit_spa *spa,
			const struct dimm_map *m, struct nd_region_desc *rd)
{
	u64 region_offset[ND_MAX_MAPPINGS];

	for (u32 i = 0; i < t->nr_memdev; i++) {
		const struct nfit_memdev *md = &t->memdev[i];
		if (md->range_index != spa->range_index)
			continue;
		struct nvdimm *d = dimm_of(m, md->device_handle);
		if (!d)
			continue;	/* nvdimm_create failed: already printed */
		if (rd->nr_mappings >= ND_MAX_MAPPINGS) {
			pr_warn("nfit: SPA range %u: more than %d DIMMs interleaved, not registered\n",
				spa->range_index, ND_MAX_MAPPINGS);
			return -1;
		}
		if (nfit_dimm_flags(md->flags) & ND_DIMM_NOT_ARMED) {
			if (!rd->ro)
				pr_warn("nfit: SPA range %u: %s (handle %#x) not armed, region read-only\n",
					spa->range_index, d->name, d->handle);
			rd->ro = true;
		}
		region_offset[rd->nr_mappings] = md->region_offset;
		rd->mapping[rd->nr_mappings++] = (struct nd_mapping){
			.nvdimm = d, .start = md->address, .size = md->region_size,
			.region_offset = md->region_offset,
		};
	}
	set_positions(rd, region_offset);
	return 0;
}


/*
 * A region's nodes as Linux 6.1 sets them (drivers/acpi/nfit/core.c,
 * acpi_nfit_register_region): with a valid proximity domain (§5.2.25.2
 * flags bit 1), numa_node is its node or the nearest online one and
 * target_node its own node; what that leaves at -1 falls back to the
 * address (srat.h). Without a SRAT pmemk takes the domain as the node for
 * both (QEMU always has one with NVDIMMs: both 0), and -1 when not valid.
 */
static void spa_nodes(const struct nfit_spa *spa, struct nd_region_desc *rd)
{
	bool valid = spa->flags & NFIT_SPA_PROXIMITY_VALID;

	if (!srat.present) {
		rd->numa_node = valid ? (int)MIN(spa->proximity_domain, (u32)INT32_MAX) : -1;
		rd->target_node = rd->numa_node;
		return;
	}
	rd->numa_node = valid ? srat_pxm_to_online_node(&srat, spa->proximity_domain) : -1;
	rd->target_node = valid ? srat_pxm_to_node(&srat, spa->proximity_domain) : -1;
	if (rd->numa_node < 0)
		rd->numa_node = srat_addr_to_node(&srat, spa->address);
	if (rd->target_node < 0)
		rd->target_node = srat_addr_to_target_node(&srat, spa->address);
}

/* Memdevs say how many ways the range is interleaved; the table should agree. */
static void check_ways(const struct nfit_table *t, const struct nfit_spa *spa, u32 nr)
{
	for (u32 i = 0; i < t->nr_memdev; i++) {
		const struct nfit_memdev *md = &t->memdev[i];
		if (md->range_index == spa->range_index && md->interleave_ways > 1 &&
		    md->interleave_ways != nr) {
			pr_warn("nfit: SPA range %u: handle %#x says %u-way interleave, %u DIMMs map it\n",
				spa->range_index, md->device_handle, md->interleave_ways, nr);
			return;
		}
	}
}

static bool spa_index_duplicate(const struct nfit_table *t, const struct nfit_spa *spa)
{
	for (const struct nfit_spa *s = t->spa; s < spa; s++)
		if (s->range_index == spa->range_index)
			return true;
	return false;
}

static int register_spa(const struct nfit_table *t, const struct nfit_spa *spa,
			struct nd_bus *bus, const struct dimm_map *m)
{
	struct nd_region_desc rd = { 0 };

	if (spa->length == 0 || spa->address + spa->length < spa->address) {
		pr_warn("nfit: SPA range %u at offset %#x: base %#llx length %#llx, ignored\n",
			spa->range_index, spa->offset, spa->address, spa->length);
		return -1;
	}
	/* §5.2.25.2: index 0 is invalid; memdevs use 0 for "not mapped" (Linux skips it too). */
	if (spa->range_index == 0) {
		pr_warn("nfit: SPA at offset %#x: range index 0 is invalid, ignored\n",
			spa->offset);
		return -1;
	}
	if (spa_index_duplicate(t, spa)) {
		pr_warn("nfit: SPA at offset %#x: range index %u already used, ignored\n",
			spa->offset, spa->range_index);
		return -1;
	}
	rd.start = spa->address;
	rd.size = spa->length;
	spa_nodes(spa, &rd);
	rd.persistence = nfit_caps_persistence(&t->caps);
	rd.range_index = spa->range_index;
	if (add_mappings(t, spa, m, &rd))
		return -1;
	check_ways(t, spa, rd.nr_mappings);
	return nd_region_create(bus, &rd, NULL);
}

/*
 * Say why an SPA makes no region, at a level the default console shows
 * (console_loglevel prints below LOGLEVEL_DEBUG): a range of a known
 * non-pmem type (volatile, control region, virtual disk or CD...) is
 * information; an unknown GUID is a warning, printed as the GUID reads.
 */
static void say_not_pmem(const struct nfit_spa *spa)
{
	char guid[NFIT_GUID_TEXT_LEN];

	if (spa->type != NFIT_SPA_UNKNOWN) {
		pr_info("nfit: SPA range %u at offset %#x: %s, not a pmem region, skipped\n",
			spa->range_index, spa->offset, nfit_spa_type_name(spa->type));
		return;
	}
	nfit_guid_text(spa->range_guid, guid);
	pr_warn("nfit: SPA range %u at offset %#x: unknown range type %s, skipped\n",
		spa->range_index, spa->offset, guid);
}

int nfit_register(const struct nfit_table *t, struct nd_bus *bus)
{
	static struct dimm_map map;	/* too big for the kernel stack */
	int added = 0;

	register_dimms(t, bus, &map);
	for (u32 i = 0; i < t->nr_spa; i++) {
		const struct nfit_spa *spa = &t->spa[i];
		if (spa->type != NFIT_SPA_PM) {
			say_not_pmem(spa);
			continue;
		}
		if (register_spa(t, spa, bus, &map) == 0)
			added++;
	}
	return added;
}

static void print_summary(const struct fw_table *at, const struct nfit_table *t)
{
	pr_info("nfit: NFIT at %#llx (%u bytes): %u SPA, %u MEMDEV, %u DCR, %u IDT, %u SMBIOS, %u BDW, %u FLUSH, %s CAPS%s\n",
		at->pa, at->length, t->nr_spa, t->nr_memdev, t->nr_dcr, t->nr_idt, t->nr_smbios,
		t->nr_bdw, t->nr_flush, t->caps.present ? "1" : "no",
		t->walk.truncated ? " (walk stopped early)" : "");
}

/*
 * A DIMM of `t` that an earlier NFIT registered (same device handle on an
 * nfit bus), or NULL. Linux reads only the first NFIT. We read them all,
 * but a later table naming a DIMM an earlier one described is a second,
 * possibly contradicting, view of the same hardware: taking only its other
 * DIMMs would leave interleave sets with members missing, and which
 * description of the shared DIMM is right cannot be told. So the first
 * table wins and such a table is refused whole; disjoint ones register.
 */
static const struct nvdimm *handle_registered(const struct nfit_table *t)
{
	for (u32 i = 0; i < nvdimm_count(); i++) {
		const struct nvdimm *d = nvdimm_get(i);
		if (strcmp(d->bus->provider, "nfit") != 0)
			continue;
		for (u32 j = 0; j < t->nr_memdev; j++)
			if (t->memdev[j].device_handle == d->handle)
				return d;
	}
	return NULL;
}

int nfit_probe(void)
{
	static struct nfit_table parsed;	/* reused: registration copies what it keeps */
	const struct fw_table *at;
	const struct nvdimm *d;
	int added = 0;

	for (u32 n = 0; (at = fw_table_find(&fw_tables, "NFIT", n)); n++) {
		const struct sdt_header *h = fw_table_map(at);
		if (!h || nfit_parse(h, at->length, &parsed) == -ENODEV)
			continue;
		print_summary(at, &parsed);
		if ((d = handle_registered(&parsed))) {
			pr_warn("nfit: NFIT at %#llx: DIMM handle %#x is already %s from an earlier NFIT, this table refused\n",
				at->pa, d->handle, d->name);
			continue;
		}
		struct nd_bus *bus = nd_bus_register("nfit");
		if (bus)
			added += nfit_register(&parsed, bus);
	}
	return added;
}
