/*
 * The namespace lifecycle (Linux's namespace_devs.c and the probe of
 * nd_pmem): what a namespace is at boot (probe, read-only: a BTT, a dax or
 * pfn block, else raw), the raw block device of an unclaimed namespace,
 * detach, reconfigure (create-namespace -e), and labelled namespaces'
 * create, destroy, disable and enable. Exactly one view of a namespace
 * exists at a time; the pfn and BTT devices themselves are pfn_dev.c and
 * btt_dev.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "badblocks.h"
#include "btt_layout.h"
#include "mm.h"
#include "nd_btt.h"
#include "nd_label.h"
#include "nd_pfn.h"
#include "nd_pfn_layout.h"
#include "nd_util.h"
#include "printk.h"
#include "random.h"

static struct pmem_device raw_devs[ND_MAX_NAMESPACES];

void nd_namespace_devs_reset(void)
{
	memset(raw_devs, 0, sizeof(raw_devs));
}

static int ns_index(const struct nd_namespace_io *ns)
{
	return nd_namespace_index(ns);
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
 * The head holds bad sector `bad`: a namespace too small for info blocks
 * is raw all the same; a bad sector only in the first 4 KiB leaves the
 * block at 4 KiB to say what it is (those 4 KiB are no part of a pfn, dax
 * or BTT 1.1 namespace's metadata); else (it may be a BTT 2.0, or its
 * block at 4 KiB is unreadable) it is claimed disabled: false.
 */
static bool probe_head_bad(struct nd_namespace_io *ns, u8 *head, u64 len, u64 bad)
{
	if (len < ND_PROBE_HEAD)
		return true;
	if (bad < ND_PFN_SB_OFFSET &&
	    !nsio_read(&ns->io, ND_PFN_SB_OFFSET, head + ND_PFN_SB_OFFSET, ND_PFN_SB_OFFSET)) {
		memset(head, 0, ND_PFN_SB_OFFSET);
		if (nd_identify_ns(head, ND_PROBE_HEAD, ns->uuid) != ND_PERS_RAW) {
			pr_warn("nd_pmem %s: media error at sector %llu, before its info block: probed by the block at 4 KiB\n",
				ns->name, bad >> BADBLOCK_SHIFT);
			return true;
		}
	}
	nd_bad_head_claim(ns, bad >> BADBLOCK_SHIFT);
	return false;
}

/*
 * Map ns and read its first 8 KiB (less if it is smaller) into head;
 * false after a line if not (a bad sector there: probe_head_bad).
 */
static bool probe_head(struct nd_namespace_io *ns, u8 *head)
{
	u64 len = MIN(ns->size, (u64)ND_PROBE_HEAD), bad;
	int err = nd_namespace_map(ns);

	if (err) {
		pr_err("nd_pmem %s: cannot map the namespace (error %d)\n", ns->name, err);
		return false;
	}
	err = nsio_read(&ns->io, 0, head, len);
	if (err == -EIO && nsio_first_bad(&ns->io, 0, len, &bad))
		return probe_head_bad(ns, head, len, bad);
	if (err)
		pr_err("nd_pmem %s: cannot read its first bytes (error %d)\n", ns->name, err);
	return !err;
}

/*
 * An fsdax or devdax signature on a block that is not valid for this
 * namespace (its checksum fails, or its parent_uuid is another namespace's):
 * damaged, claimed and disabled with the reason like a damaged BTT, never
 * raw. Linux shows it raw; a raw write there could land on the metadata or
 * on the data of the namespace the block describes. The block's fields are
 * kept for `list` only when its checksum holds.
 */
static void probe_damaged_pfn(struct nd_namespace_io *ns, enum nd_personality pers,
			      const struct nd_pfn_sb *sb, const char *why)
{
	bool sum_ok = sb->checksum == nd_pfn_sb_checksum(sb);

	nd_pfn_attach_disabled(ns, pers, sum_ok ? sb : NULL, "invalid info block: %s", why);
}

/* The personality a pfn or dax signature at 4 KiB claims, checksum or not; RAW if neither. */
static enum nd_personality pfn_signature(const struct nd_pfn_sb *sb)
{
	if (memcmp(sb->signature, PFN_SIG, PFN_SIG_LEN) == 0)
		return ND_PERS_FSDAX;
	if (memcmp(sb->signature, DAX_SIG, PFN_SIG_LEN) == 0)
		return ND_PERS_DEVDAX;
	return ND_PERS_RAW;
}

/*
 * No valid block of any personality: a BTT's, a pfn's or a dax's signature
 * on a block that is not valid is damaged, never raw; else raw.
 */
static void probe_unknown(struct nd_namespace_io *ns, const u8 *head)
{
	const struct nd_pfn_sb *sb = (const void *)(head + ND_PFN_SB_OFFSET);
	enum nd_personality pers = pfn_signature(sb);

	if (memcmp(head + BTT_V1_OFFSET, BTT_SIG, BTT_SIG_LEN) == 0) {
		nd_btt_probe(ns, BTT_V1_OFFSET);
		return;
	}
	if (memcmp(head + BTT_V2_OFFSET, BTT_SIG, BTT_SIG_LEN) == 0) {
		nd_btt_probe(ns, BTT_V2_OFFSET);
		return;
	}
	if (pers != ND_PERS_RAW) {
		struct nd_pfn_geom g = nd_pfn_geom_of(ns);
		struct nd_pfn_layout l;
		const char *why = "info block checksum mismatch";

		/* For its reason: the checksum, or a field the identify did not look at. */
		if (pers == ND_PERS_DEVDAX)
			nd_dax_validate(sb, &g, &l, &why);
		else
			nd_pfn_validate(sb, &g, &l, &why);
		probe_damaged_pfn(ns, pers, sb, why);
		return;
	}
	raw_attach(ns);
}

/* An fsdax or devdax block: enabled, or disabled with the reason; never raw. */
static void probe_pfn(struct nd_namespace_io *ns, enum nd_personality pers, const u8 *head,
		      u64 t0, u64 written)
{
	const struct nd_pfn_sb *sb = (const void *)(head + ND_PFN_SB_OFFSET);
	struct nd_pfn_geom g = nd_pfn_geom_of(ns);
	struct nd_pfn_layout l;
	const char *why = NULL;
	int err = pers == ND_PERS_DEVDAX ? nd_dax_validate(sb, &g, &l, &why) :
					   nd_pfn_validate(sb, &g, &l, &why);

	if (err == -ENODEV) {
		/* The signature and checksum hold: another namespace's block. */
		probe_damaged_pfn(ns, pers, sb, why);
		return;
	}
	if (err) {
		/* Ours but unusable: claimed and disabled, never exposed raw. */
		nd_pfn_attach_disabled(ns, pers, sb, "invalid info block: %s", why);
		return;
	}
	struct nd_pfn *pfn = nd_pfn_attach(ns, pers, &l);
	pfn->probe_ns = arch_cycles_to_ns(arch_cycles() - t0);
	pfn->probe_pmem_written = pmem_written_total() - written;
	pfn->probed = true;
	nd_pfn_print(pfn);
}

/*
 * Probe one namespace, read-only, in Linux's order (FACTS-2 §1.1): a BTT,
 * else a dax or pfn block, else raw.
 */
void nd_namespace_probe(struct nd_namespace_io *ns)
{
	u64 t0 = arch_cycles(), written = pmem_written_total();
	static u8 head[ND_PROBE_HEAD] __aligned(8);	/* under the model lock */

	if (ns->disabled || !probe_head(ns, head))
		return;
	if (ns->size < ND_PROBE_HEAD) {
		raw_attach(ns);	/* too small for any info block */
		return;
	}
	enum nd_personality pers = nd_identify_ns(head, sizeof(head), ns->uuid);
	if (pers == ND_PERS_SECTOR)
		nd_btt_probe(ns, btt_info_off(head, ns->uuid));
	else if (pers == ND_PERS_RAW)
		probe_unknown(ns, head);
	else
		probe_pfn(ns, pers, head, t0, written);
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
		int err = nd_pfn_disable(pfn);
		if (err)
			return err;
		nd_namespace_release(ns, pfn);
	}
	/* One view at a time: at most one of these is registered, so a refusal changes nothing. */
	int err = nd_btt_detach(ns);
	nd_bad_head_release(ns);
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
	struct nd_pfn_geom g = nd_pfn_geom_of(ns);
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
	    nd_pfn_ram_check(ns, &p.range, false, req->devdax ? nd_dax_vmemmap_shift(req->align) : 0,
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
	struct nd_pfn_geom g = nd_pfn_geom_of(ns);
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
	struct nd_pfn *pfn = nd_pfn_attach(ns, req->devdax ? ND_PERS_DEVDAX : ND_PERS_FSDAX, &l);
	nd_pfn_print(pfn);
	return pfn->enabled ? 0 : -EIO;
}

static bool is_raw(struct nd_namespace_io *ns)
{
	return !ns->claim;
}

/*
 * The namespace's first 8 KiB: a BTT 2.0 block at 0, the pfn/dax/BTT 1.1
 * one at 4 KiB. Bad sectors read as zeroes, and *bad gets a bit per bad
 * sector for head_heal.
 */
static int head_read(struct nd_namespace_io *ns, u8 *head, u16 *bad)
{
	int err = nd_namespace_map(ns);

	*bad = 0;
	if (err || (err = nsio_read(&ns->io, 0, head, ND_PROBE_HEAD)) != -EIO)
		return err;
	for (u32 s = 0; s < ND_PROBE_HEAD >> BADBLOCK_SHIFT; s++) {
		u8 *p = head + (s << BADBLOCK_SHIFT);
		err = nsio_read(&ns->io, s << BADBLOCK_SHIFT, p, 1u << BADBLOCK_SHIFT);
		if (err == -EIO) {
			memset(p, 0, 1u << BADBLOCK_SHIFT);
			*bad |= (u16)(1u << s);
		} else if (err) {
			return err;
		}
	}
	return 0;
}

/* Zero the head's bad sectors, which heals them (whole sectors written), one line each. */
static int head_heal(struct nd_namespace_io *ns, u16 bad)
{
	for (u32 s = 0; bad >> s; s++) {
		if (!(bad & (1u << s)))
			continue;
		int err = nsio_zero(&ns->io, s << BADBLOCK_SHIFT, 1u << BADBLOCK_SHIFT,
				    PMEM_WR_INFOBLOCK);
		if (err)
			return err;
		pr_warn("%s: sector %u of its info blocks was bad: zeroed, healed\n", ns->name, s);
	}
	return 0;
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
	u16 bad;
	int err = reconfigure_prepare(ns, req, &sb);
	if (!err)
		err = ns->size < ND_PROBE_HEAD ? -ENXIO : head_read(ns, old, &bad);
	if (!err)
		err = nd_namespace_detach(ns);
	if (err)
		return err;	/* nothing changed */
	err = head_heal(ns, bad);
	if (!err)
		err = head_write_new(ns, &sb, wipe);
	if (!err)
		err = reconfigure_attach(ns, req, &sb);
	if (!err) {
		label_record_class(ns, req);
		return 0;
	}
	/*
	 * Back to what it was: the old head on the media, the old device up;
	 * unless a command on another CPU already holds what came up, which
	 * then stays as it is.
	 */
	int derr = nd_namespace_detach(ns);
	int werr = derr ? derr : head_write(ns, old, sizeof(old));
	if (!derr)
		nd_namespace_probe(ns);
	pr_err("%s: reconfiguration failed (error %d); %s\n", ns->name, err,
	       derr ? "what came up is in use, left as it is" :
	       werr ? "the old info block could not be written back" : "left as it was");
	return err;
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
 * DIMMs with blank label areas whose region holds only its raw label-less
 * namespace get v1.2 labels first, every DIMM of the set, as Linux does on
 * the first namespace creation (FACTS-2 §3.3).
 */
static int region_make_labelled(struct nd_region *r)
{
	struct nvdimm *d = nd_region_label_dimm(r);
	struct nd_namespace_io *ns = nd_region_namespace(r, 0);

	if (r->closed) {
		pr_err("%s: disabled: %s\n", r->name, r->closed);
		return -ENXIO;
	}
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
	/* The last DIMM's index makes the set labelled (a stop before: closed, one line). */
	for (u32 i = 1; i < r->nr_mappings; i++) {
		int err = nd_label_init(r->mapping[i].nvdimm, 256);
		if (err)
			return err;
	}
	return nd_region_relabel(r, d, 256);
}

int nd_region_relabel(struct nd_region *r, struct nvdimm *d, u32 label_size)
{
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
		if (nd_namespace_detach(ns) || nd_label_namespace_delete(ns))
			pr_err("%s: %s is in use or its label cannot be freed: it stays\n", r->name,
			       ns->name);
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
	if (nd_bad_head_of(ns)) {
		nd_bad_head_release(ns); /* disabled by a media error: probed again */
		nd_namespace_probe(ns);
		return;
	}
	if (!ns->disabled)
		return;
	ns->disabled = false;
	nd_namespace_probe(ns);
}
