/*
 * pfn devices: probe, enable, disable and reconfigure namespaces on Linux's
 * on-media format (FACTS §1.6-1.8). The raw block device of an unclaimed
 * namespace lives here too, and the probe hands a BTT to btt_dev.c, so
 * exactly one view of a namespace exists.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "btt_layout.h"
#include "mm.h"
#include "nd_btt.h"
#include "nd_dax.h"
#include "nd_label.h"
#include "nd_pfn.h"
#include "nd_pfn_layout.h"
#include "nd_util.h"
#include "page_alloc.h"
#include "params.h"
#include "printk.h"
#include "random.h"
#include "sparse.h"

static struct nd_pfn pfn_devs[ND_MAX_NAMESPACES];
static struct pmem_device raw_devs[ND_MAX_NAMESPACES];

void nd_pfn_reset(void)
{
	nd_btt_reset();
	memset(pfn_devs, 0, sizeof(pfn_devs));
	memset(raw_devs, 0, sizeof(raw_devs));
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
static struct nd_pfn_geom ns_geom(const struct nd_namespace_io *ns)
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
static int nd_pfn_write_sb(struct nd_namespace_io *ns, const struct nd_pfn_sb *sb)
{
	int err = nd_namespace_map(ns);

	return err ? err : nsio_write(&ns->io, ND_PFN_SB_OFFSET, sb, sizeof(*sb), PMEM_WR_INFOBLOCK);
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
		pfn_memmap_json(pfn, j);
		if (pfn->pmem.ro)
			nd_json_bool(j, "ro", true);
	} else {
		nd_json_str(j, "state", "disabled");
		nd_json_str(j, "reason", pfn->reason);
	}
}

static const struct nd_claim_ops pfn_claim_ops = { "pfn", pfn_list_json };

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
static int ram_memmap_check(struct nd_namespace_io *ns, const struct range *r, bool ro_dev,
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
		err = ram_memmap_check(pfn->ns, &p.range, l->mode == PFN_MODE_PMEM,
				       pfn->pgmap.vmemmap_shift, pfn->reason, sizeof(pfn->reason));
		if (err)
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
static int pfn_disable(struct nd_pfn *pfn)
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

static void pfn_print(const struct nd_pfn *pfn)
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
static struct nd_pfn *pfn_attach(struct nd_namespace_io *ns, enum nd_personality pers,
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
static void pfn_attach_disabled(struct nd_namespace_io *ns, enum nd_personality pers,
				const struct nd_pfn_sb *sb, const char *fmt, const char *why)
{
	struct nd_pfn *pfn = pfn_claim(ns, pers);

	if (sb) {
		memcpy(pfn->layout.uuid, sb->uuid, 16);
		pfn->layout.mode = (enum nd_pfn_mode)sb->mode;
		pfn->layout.align = sb->align;
	}
	snprintf(pfn->reason, sizeof(pfn->reason), fmt, why);
	pfn_print(pfn);
}

static int raw_attach(struct nd_namespace_io *ns)
{
	struct pmem_device *raw = &raw_devs[ns_index(ns)];
	struct pmem_span span = { .media = &ns->io, .size = ns->size, .pfn_flags = PFN_DEV };
	int err = pmem_attach(raw, ns, ns->blockdev, &span);

	if (err)
		pr_err("nd_pmem %s: no raw block device (error %d)\n", ns->name, err);
	else
		pr_info("nd_pmem %s: raw, %s, %llu MiB%s\n", ns->name, raw->name, (ns->size >> 20),
			raw->ro ? ", read-only" : "");
	return err;
}

static int raw_detach(struct nd_namespace_io *ns)
{
	return pmem_detach(&raw_devs[ns_index(ns)]);
}

/* The first 8 KiB of ns: BTT 2.0 at 0, the pfn/dax/BTT 1.1 block at 4 KiB. */
#define ND_PROBE_HEAD (2 * ND_INFO_BLOCK_SIZE)

/* A BTT at 4 KiB (1.1) or else at 0 (2.0): where its first info block is. */
static u64 btt_info_off(const u8 *head, const u8 parent[16])
{
	const char *why;

	return btt_sb_identify((const void *)(head + BTT_V1_OFFSET), parent, &why) ?
		       BTT_V2_OFFSET :
		       BTT_V1_OFFSET;
}

/*
 * Probe one namespace, read-only, in Linux's order (FACTS-2 §1.1): a BTT,
 * else a dax or pfn block, else raw.
 */
void nd_namespace_probe(struct nd_namespace_io *ns)
{
	u64 t0 = arch_cycles(), written = pmem_written_total();
	static u8 head[ND_PROBE_HEAD] __aligned(8);
	const struct nd_pfn_sb *sb = (const void *)(head + ND_PFN_SB_OFFSET);
	struct nd_pfn_geom g = ns_geom(ns);
	struct nd_pfn_layout l;
	const char *why = NULL;
	int err;

	if (ns->disabled)
		return;
	err = nd_namespace_map(ns);
	if (err) {
		pr_err("nd_pmem %s: cannot map the namespace (error %d)\n", ns->name, err);
		return;
	}
	if (ns->size < ND_PROBE_HEAD) {
		raw_attach(ns);	/* too small for any info block */
		return;
	}
	err = nsio_read(&ns->io, 0, head, sizeof(head));
	if (err) {
		pr_err("nd_pmem %s: cannot read its first %u KiB (error %d)\n", ns->name,
		       ND_PROBE_HEAD >> 10, err);
		return;
	}
	enum nd_personality pers = nd_identify_ns(head, sizeof(head), ns->uuid);
	switch (pers) {
	case ND_PERS_SECTOR:
		nd_btt_probe(ns, btt_info_off(head, ns->uuid));
		return;
	case ND_PERS_DEVDAX:
		break;
	case ND_PERS_RAW:
		/* A BTT's signature on a block that is not valid: damaged, never raw. */
		if (memcmp(head + BTT_V1_OFFSET, BTT_SIG, BTT_SIG_LEN) == 0) {
			nd_btt_probe(ns, BTT_V1_OFFSET);
			return;
		}
		if (memcmp(head + BTT_V2_OFFSET, BTT_SIG, BTT_SIG_LEN) == 0) {
			nd_btt_probe(ns, BTT_V2_OFFSET);
			return;
		}
		if (memcmp(sb->signature, PFN_SIG, PFN_SIG_LEN) == 0)
			pr_warn("nd_pmem %s: info block checksum mismatch: left raw\n", ns->name);
		raw_attach(ns);
		return;
	case ND_PERS_FSDAX:
		break;
	}
	err = pers == ND_PERS_DEVDAX ? nd_dax_validate(sb, &g, &l, &why) :
				       nd_pfn_validate(sb, &g, &l, &why);
	if (err == -ENODEV) {
		pr_warn("nd_pmem %s: %s: left raw\n", ns->name, why);
		raw_attach(ns);
		return;
	}
	if (err) {
		/* Ours but unusable: claimed and disabled, never exposed raw. */
		pfn_attach_disabled(ns, pers, sb, "invalid info block: %s", why);
		return;
	}
	struct nd_pfn *pfn = pfn_attach(ns, pers, &l);
	pfn->probe_ns = arch_cycles_to_ns(arch_cycles() - t0);
	pfn->probe_pmem_written = pmem_written_total() - written;
	pfn->probed = true;
	pfn_print(pfn);
}

void nd_probe_namespaces(void)
{
	for_each_nd_namespace(ns)
		nd_namespace_probe(ns);
}

int nd_namespace_detach(struct nd_namespace_io *ns)
{
	struct nd_pfn *pfn = nd_pfn_of(ns);

	/* Whatever it is, its block device's pmem_detach is the one check of its holders. */
	if (pfn) {
		int err = pfn_disable(pfn);
		if (err)
			return err;
		nd_namespace_release(ns, pfn);
	}
	/* One view at a time: at most one of these is registered, so a refusal changes nothing. */
	int err = nd_btt_detach(ns);
	return err ? err : raw_detach(ns);
}

/*
 * Everything about a request that can fail without touching anything: the
 * new block (laid out and validated) and, for map=mem, the RAM its struct
 * pages need. Prints one line on failure.
 */
static int reconfigure_prepare(struct nd_namespace_io *ns, const struct nd_pfn_request *req,
			       struct nd_pfn_sb *sb)
{
	struct nd_pfn_geom g = ns_geom(ns);
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	char why_ram[160];
	const char *why = NULL;
	u8 uuid[16];

	memset(sb, 0, sizeof(*sb));	/* raw and sector: Linux's destroy zeroes the block */
	if (req->sector)
		return nd_btt_prepare(ns, req->lbasize ? req->lbasize : ND_BTT_DEFAULT_LBASIZE);
	if (req->mode == PFN_MODE_NONE)
		return 0;
	uuid_gen(uuid, random_u64);
	int err = req->devdax ? nd_dax_init(sb, &g, req->mode, req->align, uuid, &why) :
				nd_pfn_init(sb, &g, req->mode, req->align, uuid, &why);
	if (!err)
		err = req->devdax ? nd_dax_validate(sb, &g, &l, &why) :
				    nd_pfn_validate(sb, &g, &l, &why);
	if (!err)
		err = nd_pfn_place(ns->start, ns->size, &l, &p, &why);
	if (err) {
		pr_err("%s: %s (error %d); nothing changed\n", ns->name, why ? why : "bad layout", err);
		return err;
	}
	if (req->mode == PFN_MODE_RAM &&
	    ram_memmap_check(ns, &p.range, false, req->devdax ? nd_dax_vmemmap_shift(req->align) : 0,
			     why_ram, sizeof(why_ram))) {
		pr_err("%s: %s; nothing changed\n", ns->name, why_ram);
		return -ENOMEM;
	}
	return 0;
}

/* Bring up what the block just written says; 0 if it is enabled (or raw). */
static int reconfigure_attach(struct nd_namespace_io *ns, const struct nd_pfn_request *req,
			      const struct nd_pfn_sb *sb)
{
	struct nd_pfn_geom g = ns_geom(ns);
	struct nd_pfn_layout l;
	const char *why;

	if (req->sector)
		return nd_btt_create(ns, req->lbasize ? req->lbasize : ND_BTT_DEFAULT_LBASIZE);
	if (req->mode == PFN_MODE_NONE)
		return raw_attach(ns);
	/* checked by reconfigure_prepare */
	if (req->devdax)
		nd_dax_validate(sb, &g, &l, &why);
	else
		nd_pfn_validate(sb, &g, &l, &why);
	struct nd_pfn *pfn = pfn_attach(ns, req->devdax ? ND_PERS_DEVDAX : ND_PERS_FSDAX, &l);
	pfn_print(pfn);
	return pfn->enabled ? 0 : -EIO;
}

static bool is_raw(struct nd_namespace_io *ns)
{
	return !nd_pfn_of(ns) && !nd_btt_of(ns);
}

/* The namespace's first 8 KiB: a BTT 2.0 block at 0, the pfn/dax/BTT 1.1 one at 4 KiB. */
static int head_read(struct nd_namespace_io *ns, u8 *head)
{
	int err = nd_namespace_map(ns);

	return err ? err : nsio_read(&ns->io, 0, head, ND_PROBE_HEAD);
}

static int head_write(struct nd_namespace_io *ns, const u8 *head, size_t len)
{
	int err = nd_namespace_map(ns);

	return err ? err : nsio_write(&ns->io, 0, head, len, PMEM_WR_INFOBLOCK);
}

/*
 * The new head: ndctl zeroes the first 8 KiB when a namespace becomes or
 * stops being sector (FACTS-2 §1.1); otherwise only the block at 4 KiB is
 * written (zeroed for raw), as before.
 */
static int head_write_new(struct nd_namespace_io *ns, const struct nd_pfn_sb *sb, bool wipe)
{
	static const u8 zero[ND_PFN_SB_OFFSET];

	if (wipe) {
		int err = head_write(ns, zero, sizeof(zero));
		if (err)
			return err;
	}
	return nd_pfn_write_sb(ns, sb);
}

static enum nd_claim_class request_class(const struct nd_region *r,
					 const struct nd_pfn_request *req);

/* A labelled namespace's label follows what it now is (Linux reads the claim class). */
static void label_record_class(struct nd_namespace_io *ns, const struct nd_pfn_request *req)
{
	u32 lbasize = req->sector ? (req->lbasize ? req->lbasize : ND_BTT_DEFAULT_LBASIZE) : 512;

	if (ns->labelled && nd_label_namespace_set_class(ns, request_class(ns->region, req), lbasize))
		pr_warn("%s: its label could not be updated to the new mode\n", ns->name);
}

int nd_namespace_reconfigure(struct nd_namespace_io *ns, const struct nd_pfn_request *req)
{
	static struct nd_pfn_sb sb;
	static u8 old[ND_PROBE_HEAD];

	if (ns->region->ro) {
		pr_err("%s: region %s is read-only\n", ns->name, ns->region->name);
		return -EROFS;
	}
	if (!req->force) {
		if (is_raw(ns) && req->mode == PFN_MODE_NONE)
			pr_err("%s is raw: destroying it zeroes 4 KiB of its data at offset 4096, specify -f/--force\n",
			       ns->name);
		else
			pr_err("%s is active, specify -f/--force for re-configuration\n", ns->name);
		return -EBUSY;
	}
	bool wipe = req->sector || nd_btt_of(ns);
	int err = reconfigure_prepare(ns, req, &sb);
	if (!err)
		err = ns->size < ND_PROBE_HEAD ? -ENXIO : head_read(ns, old);
	if (!err)
		err = nd_namespace_detach(ns);
	if (err)
		return err;	/* nothing changed */
	err = head_write_new(ns, &sb, wipe);
	if (!err)
		err = reconfigure_attach(ns, req, &sb);
	if (!err) {
		label_record_class(ns, req);
		return 0;
	}
	/* Back to what it was: the old head on the media, the old device up. */
	nd_namespace_detach(ns);
	int werr = head_write(ns, old, sizeof(old));
	nd_namespace_probe(ns);
	pr_err("%s: reconfiguration failed (error %d); %s\n", ns->name, err,
	       werr ? "the old info block could not be written back" : "left as it was");
	return err;
}

/* ndctl's spellings of a request, for create-namespace and pmem.create=. */
int nd_pfn_parse_align(const char *s, u64 *align)
{
	const char *end;

	if (parse_size(s, align, &end) || *end ||
	    (*align != PAGE_SIZE && *align != 2 * MiB && *align != 1 * GiB)) {
		kprintf("align '%s': expected 4K, 2M or 1G\n", s);
		return -EINVAL;
	}
	if (!nd_pfn_align_supported(*align)) {
		kprintf("align '%s': this CPU has no 1 GiB pages (pdpe1gb); use 4K or 2M\n", s);
		return -EOPNOTSUPP;
	}
	return 0;
}

int nd_pfn_parse_mode(const char *m, const char *map, struct nd_pfn_request *req)
{
	if (!strcmp(m, "raw") || !strcmp(m, "sector")) {
		req->mode = PFN_MODE_NONE;
		req->sector = !strcmp(m, "sector");
		if (req->sector && map && *map) {
			kprintf("map '%s': sector mode has no -M\n", map);
			return -EINVAL;
		}
		return 0;
	}
	/* ndctl's spellings: fsdax or memory, devdax or dax. */
	req->devdax = !strcmp(m, "devdax") || !strcmp(m, "dax");
	if (strcmp(m, "fsdax") && strcmp(m, "memory") && !req->devdax) {
		kprintf("mode '%s': expected fsdax, devdax, sector or raw\n", m);
		return -EINVAL;
	}
	if (!map || !strcmp(map, "dev")) {
		req->mode = PFN_MODE_PMEM;
	} else if (!strcmp(map, "mem")) {
		req->mode = PFN_MODE_RAM;
	} else {
		kprintf("map '%s': expected mem or dev\n", map);
		return -EINVAL;
	}
	return 0;
}

/* ---- labelled namespaces: create, destroy, disable, enable ---- */

/* The claim class a label records for a request (sector: the BTT version nd_btt_create writes). */
static enum nd_claim_class request_class(const struct nd_region *r,
					 const struct nd_pfn_request *req)
{
	if (req->sector)
		return nd_label_region_v1_2(r) ? ND_CLAIM_BTT2 : ND_CLAIM_BTT;
	if (req->mode == PFN_MODE_NONE)
		return ND_CLAIM_NONE;
	return req->devdax ? ND_CLAIM_DAX : ND_CLAIM_PFN;
}

/*
 * A DIMM with a blank label area whose region holds only its raw label-less
 * namespace gets v1.2 labels first, as Linux does on the first namespace
 * creation (FACTS-2 §3.3).
 */
static int region_make_labelled(struct nd_region *r)
{
	struct nvdimm *d = nd_region_label_dimm(r);
	struct nd_namespace_io *ns = nd_region_namespace(r, 0);

	if (r->labelled)
		return 0;
	if (!d || !nd_labels_enabled()) {
		pr_err("%s: no label area%s: its one namespace is %s (use -e)\n", r->name,
		       d ? " in use (nd.labels=off)" : "", ns ? ns->name : "(none)");
		return -ENXIO;
	}
	if (ns && (!is_raw(ns) || nd_region_namespace(r, 1))) {
		pr_err("%s: %s is not raw: destroy it before labelling the region\n", r->name,
		       ns->name);
		return -EBUSY;
	}
	return nd_region_relabel(r, 256);
}

int nd_region_relabel(struct nd_region *r, u32 label_size)
{
	struct nvdimm *d = nd_region_label_dimm(r);
	struct nd_namespace_io *ns;
	int err;

	if (!d)
		return -ENXIO;
	while ((ns = nd_region_namespace(r, 0))) {
		err = nd_namespace_detach(ns);
		if (err)
			return err;
		nd_namespace_remove(ns);
	}
	err = label_size ? nd_label_init(d, label_size) : 0;
	nd_region_namespaces_init(r);
	for (u32 i = 0; (ns = nd_region_namespace(r, i)); i++)
		nd_namespace_probe(ns);
	return err;
}

int nd_namespace_create_labelled(struct nd_region *r, u64 size, const char *name,
				 const struct nd_pfn_request *req, struct nd_namespace_io **out)
{
	struct nd_pfn_request q = *req;
	struct nd_namespace_io *ns;
	u8 uuid[16];
	int err = region_make_labelled(r);

	if (err)
		return err;
	if (!size) {
		u64 avail;
		nd_region_available(r, &avail, &size);	/* ndctl: the largest free extent */
	}
	uuid_gen(uuid, random_u64);
	err = nd_label_namespace_create(r, size, name, request_class(r, req),
					req->sector ? (req->lbasize ? req->lbasize : 4096) : 512, uuid,
					&ns);
	if (err)
		return err;
	*out = ns;
	/* Old info blocks in its range have another parent uuid: it comes up raw. */
	nd_namespace_probe(ns);
	if (req->mode == PFN_MODE_NONE && !req->sector)
		return 0;
	q.force = true;
	err = nd_namespace_reconfigure(ns, &q);
	if (err) {
		pr_err("%s: %s could not be formatted; its label is removed again\n", r->name,
		       ns->name);
		nd_namespace_detach(ns);
		nd_label_namespace_delete(ns);
	}
	return err;
}

int nd_namespace_destroy(struct nd_namespace_io *ns, bool force)
{
	struct nd_pfn_request raw = { .mode = PFN_MODE_NONE, .force = force };
	int err;

	if (!ns->labelled)
		return nd_namespace_reconfigure(ns, &raw);
	if (!force) {
		pr_err("%s is active, specify -f/--force to destroy it\n", ns->name);
		return -EBUSY;
	}
	/* Its info block zeroed as ndctl does (raw, up), then the label freed. */
	ns->disabled = false;
	err = nd_namespace_reconfigure(ns, &raw);
	if (!err)
		err = nd_namespace_detach(ns);
	if (err)
		return err;
	err = nd_label_namespace_delete(ns);
	if (err)
		nd_namespace_probe(ns);	/* still labelled: raw again */
	return err;
}

int nd_namespace_disable(struct nd_namespace_io *ns)
{
	int err = ns->disabled ? 0 : nd_namespace_detach(ns);

	if (!err)
		ns->disabled = true;
	return err;
}

void nd_namespace_enable(struct nd_namespace_io *ns)
{
	if (!ns->disabled)
		return;
	ns->disabled = false;
	nd_namespace_probe(ns);
}
