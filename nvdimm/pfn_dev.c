/*
 * pfn devices: probe, enable, disable and reconfigure namespaces on Linux's
 * on-media format (FACTS §1.6-1.8). The raw block device of an unclaimed
 * namespace lives here too, so exactly one view of a namespace exists.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "direct_map.h"
#include "nd_pfn.h"
#include "nd_pfn_layout.h"
#include "nd_util.h"
#include "params.h"
#include "persist.h"
#include "printk.h"
#include "random.h"

static struct nd_pfn pfn_devs[ND_MAX_REGIONS];
static struct pmem_device raw_devs[ND_MAX_REGIONS];

void nd_pfn_reset(void)
{
	memset(pfn_devs, 0, sizeof(pfn_devs));
	memset(raw_devs, 0, sizeof(raw_devs));
}

static int ns_index(const struct nd_namespace_io *ns)
{
	return ns->region->id;
}

struct nd_pfn *nd_pfn_of(struct nd_namespace_io *ns)
{
	struct nd_pfn *pfn = &pfn_devs[ns_index(ns)];

	return ns->claim == pfn ? pfn : NULL;
}

static struct nd_pfn_geom ns_geom(const struct nd_namespace_io *ns)
{
	return (struct nd_pfn_geom){ .start = ns->start, .size = ns->size };
}

int nd_pfn_read_sb(struct nd_namespace_io *ns, struct nd_pfn_sb *sb)
{
	if (ns->size < ND_PFN_SB_OFFSET + ND_PFN_SB_SIZE)
		return -ENXIO;
	int err = direct_map_add(ns->start + ND_PFN_SB_OFFSET, ND_PFN_SB_SIZE);
	if (err)
		return err;
	memcpy(sb, phys_to_virt(ns->start + ND_PFN_SB_OFFSET), sizeof(*sb));
	return 0;
}

/* Store the info block durably: non-temporal copy, then a fence (FACTS §1.10). */
static int nd_pfn_write_sb(struct nd_namespace_io *ns, const struct nd_pfn_sb *sb)
{
	if (ns->region->ro)
		return -EROFS;
	int err = direct_map_add(ns->start + ND_PFN_SB_OFFSET, ND_PFN_SB_SIZE);
	if (err)
		return err;
	arch_memcpy_flushcache(phys_to_virt(ns->start + ND_PFN_SB_OFFSET), sb, sizeof(*sb));
	arch_wmb_pmem();
	pmem_written_add(PMEM_WR_INFOBLOCK, sizeof(*sb));
	return 0;
}

/* ndctl's JSON for a claimed namespace (ndctl list -N). */
static void pfn_list_json(const struct nd_namespace_io *ns, struct nd_json *j)
{
	const struct nd_pfn *pfn = ns->claim;
	char uuid[UUID_STR_LEN + 1];

	uuid_to_str(pfn->layout.uuid, uuid);
	nd_json_str(j, "mode", "fsdax");
	nd_json_str(j, "map", nd_pfn_mode_name(pfn->layout.mode));
	nd_json_u64(j, "size", pfn->enabled ? pfn->pmem.size : 0);
	nd_json_str(j, "uuid", uuid);
	nd_json_u64(j, "sector_size", ns->sector_size);
	nd_json_u64(j, "align", pfn->layout.align);
	if (pfn->enabled) {
		nd_json_str(j, "blockdev", pfn->pmem.name);
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
	return 0;
}

static void pfn_disable_reason(struct nd_pfn *pfn, const char *fmt, const char *what, int err)
{
	snprintf(pfn->reason, sizeof(pfn->reason), fmt, what, err);
	pfn->enabled = false;
}

/* Give a validated pfn device its struct pages and block device. */
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
	err = memremap_pages(&pfn->pgmap, l->mode == PFN_MODE_PMEM ? &p.altmap : NULL,
			     &pfn->memmap_stats);
	if (err) {
		pfn_disable_reason(pfn, "%s: cannot map struct pages (error %d)",
				   l->mode == PFN_MODE_RAM ? "map=mem needs RAM for them" :
							     "map=dev memmap does not fit",
				   err);
		return err;
	}
	snprintf(name, sizeof(name), "%sm", pfn->ns->blockdev);
	struct pmem_span span = {
		.start = pa_init(p.data),
		.size = p.data_size,
		.pfn_flags = PFN_DEV | PFN_MAP,
		.memmap_end = pa_init(p.range.end + 1),
	};
	err = pmem_attach(&pfn->pmem, pfn->ns, name, &span);
	if (err) {
		memunmap_pages(&pfn->pgmap);
		pfn_disable_reason(pfn, "%s (error %d)", "no block device", err);
		return err;
	}
	pfn->enabled = true;
	pfn->reason[0] = '\0';
	return 0;
}

/* Tear an enabled device down; -EBUSY while someone holds its pages. */
static int pfn_disable(struct nd_pfn *pfn)
{
	if (!pfn->enabled)
		return 0;
	if (pfn->pgmap.pins) {
		pr_err("%s: %llu pages pinned, cannot disable\n", pfn->name, pfn->pgmap.pins);
		return -EBUSY;
	}
	pmem_detach(&pfn->pmem);
	memunmap_pages(&pfn->pgmap);
	pfn->enabled = false;
	return 0;
}

static void pfn_print(const struct nd_pfn *pfn)
{
	const struct nd_pfn_layout *l = &pfn->layout;

	if (!pfn->enabled) {
		pr_err("nd_pfn %s: %s fsdax map=%s disabled: %s\n", pfn->name, pfn->ns->name,
		       nd_pfn_mode_name(l->mode), pfn->reason);
		return;
	}
	pr_info("nd_pfn %s: %s fsdax map=%s align %#llx dataoff %#llx: %s, %llu MiB\n", pfn->name,
		pfn->ns->name, nd_pfn_mode_name(l->mode), l->align, l->dataoff, pfn->pmem.name,
		(pfn->pmem.size >> 20));
	if (pfn->probed)	/* at boot: what bringing it back cost */
		pr_info("nd_pfn %s: brought back in %llu us, %llu bytes stored to pmem\n",
			pfn->name, (pfn->probe_ns / 1000), pfn->probe_pmem_written);
}

/* Claim ns with a pfn device described by a validated layout; enable it. */
static struct nd_pfn *pfn_attach(struct nd_namespace_io *ns, const struct nd_pfn_layout *l)
{
	struct nd_pfn *pfn = &pfn_devs[ns_index(ns)];

	memset(pfn, 0, sizeof(*pfn));
	snprintf(pfn->name, sizeof(pfn->name), "pfn%d.0", ns_index(ns));
	pfn->ns = ns;
	pfn->layout = *l;
	nd_namespace_claim(ns, pfn, &pfn_claim_ops, false);
	pfn_enable(pfn);
	return pfn;
}

static void raw_attach(struct nd_namespace_io *ns)
{
	struct pmem_device *raw = &raw_devs[ns_index(ns)];
	struct pmem_span span = { .start = pa_init(ns->start), .size = ns->size, .pfn_flags = PFN_DEV };
	int err = pmem_attach(raw, ns, ns->blockdev, &span);

	if (err)
		pr_err("nd_pmem %s: no raw block device (error %d)\n", ns->name, err);
	else
		pr_info("nd_pmem %s: raw, %s, %llu MiB\n", ns->name, raw->name, (ns->size >> 20));
}

static void raw_detach(struct nd_namespace_io *ns)
{
	pmem_detach(&raw_devs[ns_index(ns)]);
}

/* Probe one namespace, read-only: pfn (enabled or disabled) or raw. */
void nd_namespace_probe(struct nd_namespace_io *ns)
{
	u64 t0 = arch_cycles(), written = pmem_written_total();
	static struct nd_pfn_sb sb;
	struct nd_pfn_geom g = ns_geom(ns);
	struct nd_pfn_layout l;
	const char *why = NULL;
	int err = direct_map_add(ns->start, ns->size);

	if (!err)
		err = nd_pfn_read_sb(ns, &sb);
	if (err) {
		pr_err("nd_pmem %s: cannot read the info block (error %d)\n", ns->name, err);
		return;
	}
	err = nd_pfn_validate(&sb, &g, &l, &why);
	if (err == -ENODEV) {
		if (memcmp(sb.signature, PFN_SIG, PFN_SIG_LEN) == 0)
			pr_warn("nd_pmem %s: %s: left raw\n", ns->name, why);
		raw_attach(ns);
		return;
	}
	if (err) {
		/* Ours but unusable: claimed and disabled, never exposed raw. */
		struct nd_pfn *pfn = &pfn_devs[ns_index(ns)];
		memset(pfn, 0, sizeof(*pfn));
		snprintf(pfn->name, sizeof(pfn->name), "pfn%d.0", ns_index(ns));
		pfn->ns = ns;
		memcpy(pfn->layout.uuid, sb.uuid, 16);
		pfn->layout.mode = (enum nd_pfn_mode)sb.mode;
		pfn->layout.align = sb.align;
		snprintf(pfn->reason, sizeof(pfn->reason), "invalid info block: %s", why);
		nd_namespace_claim(ns, pfn, &pfn_claim_ops, false);
		pfn_print(pfn);
		return;
	}
	struct nd_pfn *pfn = pfn_attach(ns, &l);
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

	if (pfn) {
		int err = pfn_disable(pfn);
		if (err)
			return err;
		nd_namespace_release(ns, pfn);
	}
	raw_detach(ns);
	return 0;
}

static int ns_make_raw(struct nd_namespace_io *ns)
{
	static struct nd_pfn_sb zero;
	int err = nd_pfn_write_sb(ns, &zero);	/* Linux's destroy: zero the block */

	if (err)
		return err;
	raw_attach(ns);
	return 0;
}

static int ns_make_pfn(struct nd_namespace_io *ns, const struct nd_pfn_request *req)
{
	static struct nd_pfn_sb sb;
	struct nd_pfn_geom g = ns_geom(ns);
	struct nd_pfn_layout l;
	const char *why;
	u8 uuid[16];

	uuid_gen(uuid, random_u64);
	int err = nd_pfn_init(&sb, &g, req->mode, req->align, uuid, &why);
	if (err) {
		pr_err("%s: %s\n", ns->name, why);
		return err;
	}
	err = nd_pfn_write_sb(ns, &sb);
	if (!err)
		err = nd_pfn_validate(&sb, &g, &l, &why);
	if (err) {
		pr_err("%s: info block not written: %s (error %d)\n", ns->name, why ? why : "", err);
		return err;
	}
	struct nd_pfn *pfn = pfn_attach(ns, &l);
	pfn_print(pfn);
	return pfn->enabled ? 0 : -EIO;
}

int nd_namespace_reconfigure(struct nd_namespace_io *ns, const struct nd_pfn_request *req)
{
	if (ns->region->ro) {
		pr_err("%s: region %s is read-only\n", ns->name, ns->region->name);
		return -EROFS;
	}
	if (!req->force) {
		pr_err("%s is active, specify -f/--force for re-configuration\n", ns->name);
		return -EBUSY;
	}
	int err = nd_namespace_detach(ns);
	if (err)
		return err;
	return req->mode == PFN_MODE_NONE ? ns_make_raw(ns) : ns_make_pfn(ns, req);
}

/* ndctl's spellings of a request, for create-namespace and pmem.create=. */
int nd_pfn_parse_align(const char *s, u64 *align)
{
	const char *end;

	if (parse_size(s, align, &end) || *end || !nd_pfn_align_supported(*align)) {
		kprintf("align '%s': expected 4K, 2M or 1G\n", s);
		return -EINVAL;
	}
	return 0;
}

int nd_pfn_parse_mode(const char *m, const char *map, struct nd_pfn_request *req)
{
	if (!strcmp(m, "raw")) {
		req->mode = PFN_MODE_NONE;
		return 0;
	}
	if (strcmp(m, "fsdax") && strcmp(m, "memory")) {
		kprintf("mode '%s': expected fsdax or raw (devdax and sector are not supported)\n", m);
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
