/*
 * pfn devices (fsdax pfnN.0, devdax daxN.0) on Linux's on-media format
 * (FACTS §1.6-1.8): their info block, claim and `list` fields, bring-up
 * with struct pages (map=dev or map=mem) and teardown. ndctl's words for a
 * request are create_request.c's; what a namespace is, and when it changes,
 * namespace_devs.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "badblocks.h"
#include "mm.h"
#include "nd_btt.h"
#include "nd_dax.h"
#include "nd_pfn.h"
#include "nd_pfn_layout.h"
#include "nd_util.h"
#include "page_alloc.h"
#include "params.h"
#include "printk.h"
#include "sparse.h"

static struct nd_pfn pfn_devs[ND_MAX_NAMESPACES];

void nd_pfn_reset(void)
{
	nd_btt_reset();
	nd_namespace_devs_reset();
	memset(pfn_devs, 0, sizeof(pfn_devs));
}

static int ns_index(const struct nd_namespace_io *ns)
{
	return nd_namespace_index(ns);
}

struct nd_pfn *nd_pfn_of(struct nd_namespace_io *ns)
{
	struct nd_pfn *pfn = &pfn_devs[ns_index(ns)];

	return ns->claim == pfn ? pfn : NULL;
}

/* Its info blocks' parent_uuid is the label's uuid (all zero when label-less). */
struct nd_pfn_geom nd_pfn_geom_of(const struct nd_namespace_io *ns)
{
	struct nd_pfn_geom g = { .start = ns->start, .size = ns->size };

	memcpy(g.parent_uuid, ns->uuid, 16);
	return g;
}

int nd_pfn_read_sb(struct nd_namespace_io *ns, struct nd_pfn_sb *sb)
{
	if (ns->size < ND_PFN_SB_OFFSET + ND_PFN_SB_SIZE)
		return -ENXIO;
	int err = nd_namespace_map(ns);
	return err ? err : nsio_read(&ns->io, ND_PFN_SB_OFFSET, sb, sizeof(*sb));
}

/* Store the info block durably (FACTS §1.10): before anything relies on it. */
int nd_pfn_write_sb(struct nd_namespace_io *ns, const struct nd_pfn_sb *sb)
{
	int err = nd_namespace_map(ns);

	if (err)
		return err;
	return nsio_write(&ns->io, ND_PFN_SB_OFFSET, sb, sizeof(*sb), PMEM_WR_INFOBLOCK);
}

/*
 * ndctl's "daxregion" of an enabled devdax namespace (ndctl list -N; the
 * Linux fixtures' listing): the region, its size and align, and the one
 * device, whose chardev is our daxN.0.
 */
static void dax_region_json(const struct nd_namespace_io *ns, const struct nd_pfn *pfn,
			    struct nd_json *j)
{
	nd_json_open(j, "daxregion", '{');
	nd_json_int(j, "id", ns->region->id);
	nd_json_u64(j, "size", pfn->pmem.size);
	nd_json_u64(j, "align", pfn->layout.align);
	nd_json_open(j, "devices", '[');
	nd_json_open(j, NULL, '{');
	nd_json_str(j, "chardev", pfn->name);
	nd_json_u64(j, "size", pfn->pmem.size);
	if (ns->region->target_node >= 0)
		nd_json_int(j, "target_node", ns->region->target_node);
	nd_json_u64(j, "align", pfn->layout.align);
	nd_json_str(j, "mode", "devdax");
	nd_json_close(j, '}');
	nd_json_close(j, ']');
	nd_json_close(j, '}');
}

/* While deferred struct page init runs: how far (a field of pmemk's, not ndctl's). */
static void pfn_memmap_json(const struct nd_pfn *pfn, struct nd_json *j)
{
	struct memmap_progress p;
	char pct[8];

	if (!pfn->enabled)
		return;
	memmap_progress(&pfn->pgmap, &p);
	if (p.ready == p.sections)
		return;
	snprintf(pct, sizeof(pct), "%llu%%", p.ready * 100 / p.sections);
	nd_json_str(j, "memmap_init", pct);
}

/* ndctl's JSON for a claimed namespace (ndctl list -N). */
static void pfn_list_json(const struct nd_namespace_io *ns, struct nd_json *j)
{
	const struct nd_pfn *pfn = ns->claim;
	char uuid[UUID_STR_LEN + 1];

	uuid_to_str(pfn->layout.uuid, uuid);
	if (pfn->pers == ND_PERS_DEVDAX) {
		/* Linux 6.1's fields and order: no sector_size, no blockdev (FACTS-2 §2.1). */
		nd_json_str(j, "mode", "devdax");
		nd_json_str(j, "map", nd_pfn_mode_name(pfn->layout.mode));
		nd_json_u64(j, "size", pfn->enabled ? pfn->pmem.size : 0);
		nd_json_str(j, "uuid", uuid);
		nd_namespace_raw_uuid_json(ns, j);
		if (pfn->enabled)
			dax_region_json(ns, pfn, j);
		nd_json_u64(j, "align", pfn->layout.align);
		/* ndctl list -v prints the node of a devdax namespace too (platform_linux_judges_modes). */
		if (pfn->enabled)
			nd_node_json(j, ns->region->numa_node, ns->region->target_node);
		pfn_memmap_json(pfn, j);
		if (!pfn->enabled) {
			nd_json_str(j, "state", "disabled");
			nd_json_str(j, "reason", pfn->reason);
		} else if (pfn->pmem.ro) {
			nd_json_bool(j, "ro", true);
		}
		return;
	}
	nd_json_str(j, "mode", nd_personality_name(pfn->pers));
	if (pfn->pers != ND_PERS_SECTOR)
		nd_json_str(j, "map", nd_pfn_mode_name(pfn->layout.mode));
	nd_json_u64(j, "size", pfn->enabled ? pfn->pmem.size : 0);
	nd_json_str(j, "uuid", uuid);
	nd_namespace_raw_uuid_json(ns, j);
	nd_json_u64(j, "sector_size", ns->sector_size);
	if (pfn->pers != ND_PERS_SECTOR)
		nd_json_u64(j, "align", pfn->layout.align);
	if (pfn->enabled) {
		nd_json_str(j, "blockdev", pfn->pmem.name);
		/* ndctl prints the node after the block device (linux-6.1.txt of synthetic-4way). */
		nd_node_json(j, ns->region->numa_node, ns->region->target_node);
		pfn_memmap_json(pfn, j);
		if (pfn->pmem.ro)
			nd_json_bool(j, "ro", true);
	} else {
		nd_json_str(j, "state", "disabled");
		nd_json_str(j, "reason", pfn->reason);
	}
}

/* The data after the info block (and the struct pages of map=dev), as ndctl's pfn and dax resources. */
static void pfn_media_span(const struct nd_namespace_io *ns, u64 *start, u64 *size,
			   bool *count_only)
{
	const struct nd_pfn *pfn = ns->claim;

	*start = pfn->enabled ? pfn->pmem.phys : ns->start;
	*size = pfn->enabled ? pfn->pmem.size : ns->size;
	*count_only = false;
}

/* The fields pfn_list_json shows them from. */
static void pfn_view(const struct nd_namespace_io *ns, struct nd_ns_view *v)
{
	const struct nd_pfn *pfn = ns->claim;

	v->mode = nd_personality_name(pfn->pers);
	v->map = pfn->pers != ND_PERS_SECTOR ? nd_pfn_mode_name(pfn->layout.mode) : NULL;
	v->size = pfn->enabled ? pfn->pmem.size : 0;
	v->device = pfn->enabled ? pfn->pmem.name : NULL;
	v->pgmap = pfn->enabled ? &pfn->pgmap : NULL;
}

static const struct nd_claim_ops pfn_claim_ops = { "pfn", pfn_list_json, pfn_media_span, pfn_view };

/* Linux's view of a valid block (FACTS §1.8): the range, and the altmap for map=dev. */
static int pfn_setup_pgmap(struct nd_pfn *pfn, struct nd_pfn_placement *p, const char **why)
{
	int err = nd_pfn_place(pfn->ns->start, pfn->ns->size, &pfn->layout, p, why);

	if (err)
		return err;
	memset(&pfn->pgmap, 0, sizeof(pfn->pgmap));
	pfn->pgmap.range = p->range;
	pfn->pgmap.type = MEMORY_DEVICE_FS_DAX;
	pfn->pgmap.owner = pfn;
	pfn->pgmap.name = pfn->name;
	/* Its users pin (pmem_direct_access, dax_map, the network's hold): init may be deferred. */
	pfn->pgmap.flags = PGMAP_DEFER_INIT;
	if (pfn->pers == ND_PERS_DEVDAX) {
		/* Linux's device_dax: compound pages of the align (FACTS-2 §2.1). */
		pfn->pgmap.type = MEMORY_DEVICE_GENERIC;
		pfn->pgmap.vmemmap_shift = nd_dax_vmemmap_shift(pfn->layout.align);
	}
	return 0;
}

static void pfn_disable_reason(struct nd_pfn *pfn, const char *fmt, const char *what, int err)
{
	snprintf(pfn->reason, sizeof(pfn->reason), fmt, what, err);
	pfn->enabled = false;
}

/* RAM free now, plus what `ns`'s current device would give back when torn down. */
static u64 ram_free_for(struct nd_namespace_io *ns)
{
	struct page_alloc_stats st;
	struct nd_pfn *cur = nd_pfn_of(ns);
	u64 free;

	page_alloc_stats(&st);
	free = st.free_pages * PAGE_SIZE;
	if (cur && cur->enabled && cur->memmap_in_ram)
		free += cur->memmap_stats.vmemmap_ram;
	return free;
}

unsigned int nd_dax_vmemmap_shift(u64 align)
{
	return align > PAGE_SIZE ? (unsigned int)__builtin_ctzll(align) - PAGE_SHIFT : 0;
}

/*
 * Struct pages in RAM need 64 bytes per page of the range, or with
 * compound pages of 2^dedup pages (devdax) two 4 KiB pages per compound and
 * a page table per section: refuse up front, with the numbers, when there
 * is not that much free (issue 11 item 6).
 */
int nd_pfn_ram_check(struct nd_namespace_io *ns, const struct range *r, bool ro_dev,
		     unsigned int dedup, char *why, size_t n)
{
	u64 need = vmemmap_ram_estimate(PFN_DOWN(range_len(r)), dedup), free = ram_free_for(ns);

	if (need <= free)
		return 0;
	snprintf(why, n, "%s need %llu MiB of RAM for struct pages, %llu MiB free%s",
		 ro_dev ? "read-only region: map=dev's struct pages go to RAM and" : "map=mem:",
		 need >> 20, free >> 20, ro_dev ? "" : "; use -M dev");
	return -ENOMEM;
}

/*
 * map=dev keeps its struct pages in [8 KiB, dataoff) of the namespace and
 * reaches them by plain loads and stores, which no machine check may meet:
 * known bad sectors there are zeroed first, which heals them (Linux's
 * nd_pfn_clear_memmap_errors; the struct pages are stored there anyway).
 * One line; -EIO if one cannot be.
 */
static int pfn_clear_memmap_errors(struct nd_pfn *pfn)
{
	const struct nsio *io = &pfn->ns->io;
	u64 off = ND_PFN_SB_OFFSET + ND_PFN_SB_SIZE, end = pfn->layout.dataoff, bad, n = 0;

	while (off < end && nsio_first_bad(io, off, end - off, &bad)) {
		int err = nsio_zero(io, bad, 1u << BADBLOCK_SHIFT, PMEM_WR_MEMMAP);
		if (err)
			return err;
		off = bad + (1u << BADBLOCK_SHIFT);
		n++;
	}
	if (n)
		pr_warn("nd_pfn %s: %llu bad sector%s among its struct pages (map=dev): zeroed, healed\n",
			pfn->name, n, n == 1 ? "" : "s");
	return 0;
}

/*
 * Give a validated pfn device its block device and struct pages. The block
 * device comes first and is dropped again if the struct pages fail:
 * memremap_pages stores struct pages only once nothing else can fail, so a
 * failed enable has written nothing (map=dev) and taken nothing.
 */
static int pfn_enable(struct nd_pfn *pfn)
{
	struct nd_pfn_placement p;
	const struct nd_pfn_layout *l = &pfn->layout;
	char name[sizeof(pfn->ns->blockdev) + 1];
	const char *why;

	int err = pfn_setup_pgmap(pfn, &p, &why);
	if (err) {
		pfn_disable_reason(pfn, "%s (error %d)", why, err);
		return err;
	}
	/* A read-only region takes no stores, not even struct pages. */
	pfn->memmap_in_ram = l->mode == PFN_MODE_RAM || pfn->ns->region->ro;
	if (pfn->memmap_in_ram) {
		err = nd_pfn_ram_check(pfn->ns, &p.range, l->mode == PFN_MODE_PMEM,
				       pfn->pgmap.vmemmap_shift, pfn->reason, sizeof(pfn->reason));
		if (err)
			return err;
	}
	if (!pfn->memmap_in_ram && (err = pfn_clear_memmap_errors(pfn))) {
		pfn_disable_reason(pfn, "%s (error %d)", "a bad sector among its struct pages",
				   err);
		return err;
	}
	/* devdax's block view of its data has the device's name (NAMESPACES.md). */
	if (pfn->pers == ND_PERS_DEVDAX)
		snprintf(name, sizeof(name), "%s", pfn->name);
	else
		snprintf(name, sizeof(name), "%sm", pfn->ns->blockdev);
	struct pmem_span span = {
		.media = &pfn->ns->io,
		.off = p.data - pfn->ns->start,
		.size = p.data_size,
		.pfn_flags = PFN_DEV | PFN_MAP,
		.memmap_end = pa_init(p.range.end + 1),
		.pgmap = &pfn->pgmap,
	};
	err = pmem_attach(&pfn->pmem, pfn->ns, name, &span);
	if (err) {
		pfn_disable_reason(pfn, "%s (error %d)", "no block device", err);
		return err;
	}
	err = memremap_pages(&pfn->pgmap, pfn->memmap_in_ram ? NULL : &p.altmap,
			     &pfn->memmap_stats);
	if (err) {
		pmem_detach_wait(&pfn->pmem);
		pfn_disable_reason(pfn, "%s: cannot map struct pages (error %d)",
				   pfn->memmap_in_ram ? "not enough RAM for them" :
							"map=dev memmap does not fit",
				   err);
		return err;
	}
	pfn->enabled = true;
	pfn->reason[0] = '\0';
	return 0;
}

/* Tear an enabled device down; -EBUSY while anyone holds it (pmem_detach's line). */
int nd_pfn_disable(struct nd_pfn *pfn)
{
	if (!pfn->enabled)
		return 0;
	int err = pmem_detach(&pfn->pmem);
	if (err)
		return err;
	memunmap_pages(&pfn->pgmap);	/* nothing pins it: the holds are gone */
	pfn->enabled = false;
	return 0;
}

void nd_pfn_print(const struct nd_pfn *pfn)
{
	const struct nd_pfn_layout *l = &pfn->layout;
	const char *mode = nd_personality_name(pfn->pers);

	if (!pfn->enabled) {
		pr_err("nd_pfn %s: %s %s map=%s disabled: %s\n", pfn->name, pfn->ns->name, mode,
		       nd_pfn_mode_name(l->mode), pfn->reason);
		return;
	}
	pr_info("nd_pfn %s: %s %s map=%s align %#llx dataoff %#llx: %s, %llu MiB%s\n", pfn->name,
		pfn->ns->name, mode, nd_pfn_mode_name(l->mode), l->align, l->dataoff,
		pfn->pmem.name, (pfn->pmem.size >> 20),
		pfn->pmem.ro ? ", read-only (struct pages in RAM)" : "");
	if (pfn->pers == ND_PERS_DEVDAX)
		nd_dax_print_memmap(pfn);
	if (pfn->memmap_stats.deferred)
		pr_info("nd_pfn %s: %llu struct pages left to idle CPUs and first users "
			"(memmap_init=deferred; progress in 'list')\n",
			pfn->name, PFN_DOWN(range_len(&pfn->pgmap.range)));
	else
		pr_info("nd_pfn %s: %llu struct pages initialised on %u CPU%s\n", pfn->name,
			pfn->memmap_stats.pages_init, pfn->memmap_stats.init_cpus,
			pfn->memmap_stats.init_cpus == 1 ? "" : "s");
	if (pfn->probed)	/* at boot: what bringing it back cost */
		pr_info("nd_pfn %s: brought back in %llu us, %llu bytes stored to pmem\n",
			pfn->name, (pfn->probe_ns / 1000), pfn->probe_pmem_written);
}

/* A fresh device of personality `pers` claiming ns (not enabled). */
static struct nd_pfn *pfn_claim(struct nd_namespace_io *ns, enum nd_personality pers)
{
	static const char *const prefix[] = {
		[ND_PERS_FSDAX] = "pfn", [ND_PERS_DEVDAX] = "dax", [ND_PERS_SECTOR] = "btt",
	};
	struct nd_pfn *pfn = &pfn_devs[ns_index(ns)];

	memset(pfn, 0, sizeof(*pfn));
	pfn->pers = pers;
	snprintf(pfn->name, sizeof(pfn->name), "%s%d.%d", prefix[pers] ? prefix[pers] : "pfn",
		 ns->region->id, ns->id);
	pfn->ns = ns;
	nd_namespace_claim(ns, pfn, &pfn_claim_ops, false);
	return pfn;
}

/* Claim ns with an fsdax or devdax device described by a validated layout; enable it. */
struct nd_pfn *nd_pfn_attach(struct nd_namespace_io *ns, enum nd_personality pers,
			     const struct nd_pfn_layout *l)
{
	struct nd_pfn *pfn = pfn_claim(ns, pers);

	pfn->layout = *l;
	pfn_enable(pfn);
	return pfn;
}

/*
 * Claim ns, disabled with a reason, in what the media says it is: never
 * raw, so a write cannot destroy what is there. `sb` (may be NULL) gives
 * the uuid, map and align that `list` shows.
 */
void nd_pfn_attach_disabled(struct nd_namespace_io *ns, enum nd_personality pers,
			    const struct nd_pfn_sb *sb, const char *fmt, const char *why)
{
	struct nd_pfn *pfn = pfn_claim(ns, pers);

	if (sb) {
		memcpy(pfn->layout.uuid, sb->uuid, 16);
		pfn->layout.mode = (enum nd_pfn_mode)sb->mode;
		pfn->layout.align = sb->align;
	}
	snprintf(pfn->reason, sizeof(pfn->reason), fmt, why);
	nd_pfn_print(pfn);
}
