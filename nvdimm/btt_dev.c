/*
 * BTT devices: bttN.0 claiming a namespace that holds a BTT, block device
 * pmemNs whose sectors go through the BTT engine (btt.c), ndctl's list
 * fields for mode sector, create and check-namespace. pfn_dev.c decides
 * what a namespace is (one view each) and calls in here for sector mode.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "nd_btt.h"
#include "nd_label.h"
#include "nd_pfn.h"
#include "nd_util.h"
#include "printk.h"
#include "random.h"

static struct nd_btt btt_devs[ND_MAX_NAMESPACES];

void nd_btt_reset(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(btt_devs); i++)
		if (btt_devs[i].open)
			btt_close(&btt_devs[i].btt);
	memset(btt_devs, 0, sizeof(btt_devs));
}

static struct nd_btt *slot_of(const struct nd_namespace_io *ns)
{
	return &btt_devs[nd_namespace_index(ns)];
}

struct nd_btt *nd_btt_of(struct nd_namespace_io *ns)
{
	struct nd_btt *b = slot_of(ns);

	return ns->claim == b ? b : NULL;
}

/* ndctl's JSON for a sector namespace (ndctl list -N; FACTS-2 fixtures). */
static void btt_list_json(const struct nd_namespace_io *ns, struct nd_json *j)
{
	const struct nd_btt *b = ns->claim;
	char uuid[UUID_STR_LEN + 1];

	uuid_to_str(b->uuid, uuid);
	nd_json_str(j, "mode", "sector");
	nd_json_u64(j, "size", b->enabled ? b->pmem.size : 0);
	nd_json_str(j, "uuid", uuid);
	nd_namespace_raw_uuid_json(ns, j);
	nd_json_u64(j, "sector_size", b->lbasize ? b->lbasize : ns->sector_size);
	if (b->enabled) {
		nd_json_str(j, "blockdev", b->pmem.name);
		if (b->pmem.ro)
			nd_json_bool(j, "ro", true);
	} else {
		nd_json_str(j, "state", "disabled");
		nd_json_str(j, "reason", b->reason);
	}
	if (ns->region->numa_node >= 0)
		nd_json_int(j, "numa_node", ns->region->numa_node);
	if (ns->region->target_node >= 0)
		nd_json_int(j, "target_node", ns->region->target_node);
}

/* ndctl counts a BTT's bad blocks over its namespace; offsets mean nothing through the map. */
static void btt_media_span(const struct nd_namespace_io *ns, u64 *start, u64 *size,
			   bool *count_only)
{
	*start = ns->start;
	*size = ns->size;
	*count_only = true;
}

/* The fields btt_list_json shows them from. */
static void btt_view(const struct nd_namespace_io *ns, struct nd_ns_view *v)
{
	const struct nd_btt *b = ns->claim;

	v->mode = "sector";
	v->size = b->enabled ? b->pmem.size : 0;
	v->device = b->enabled ? b->pmem.name : NULL;
}

static const struct nd_claim_ops btt_claim_ops = { "btt", btt_list_json, btt_media_span, btt_view };

/* pmemNs: whole sectors, checked by pmem_rw; one BTT sector at a time. */
static int btt_dev_rw(struct pmem_device *dev, u64 off, void *buf, u64 len, enum pmem_dir dir)
{
	struct nd_btt *b = (struct nd_btt *)((u8 *)dev - offsetof(struct nd_btt, pmem));
	u32 ss = dev->sector_size;

	for (u64 done = 0; done < len; done += ss) {
		u64 lba = (off + done) / ss;
		u8 *p = (u8 *)buf + done;
		int err = dir == PMEM_READ ? btt_read(&b->btt, lba, p) : btt_write(&b->btt, lba, p);
		if (err)
			return err;
	}
	return 0;
}

/* Is the backup intact where Linux puts it? Then check-namespace --repair can restore. */
static bool info2_intact(const struct nsio *m, u64 info_off, struct btt_sb *sb)
{
	u64 rem = m->size - info_off;
	u64 at = info_off + ALIGN_DOWN(MIN(rem, BTT_ARENA_MAX), BTT_PAGE) - BTT_INFO_SIZE;
	static const u8 zero[16];
	const char *why;

	return rem >= BTT_ARENA_MIN && !nsio_read(m, at, sb, sizeof(*sb)) &&
	       !btt_sb_identify(sb, zero, &why);
}

static void btt_print(const struct nd_btt *b)
{
	char ro[40] = "";
	u32 nr_ro = 0;

	if (!b->enabled) {
		pr_err("nd_btt %s: %s sector disabled: %s\n", b->name, b->ns->name, b->reason);
		return;
	}
	for (u32 i = 0; i < b->btt.nr_arenas; i++)
		nr_ro += (b->btt.arenas[i].flags & BTT_IB_FLAG_ERROR) || b->btt.arenas[i].media_ro;
	if (b->pmem.ro)
		snprintf(ro, sizeof(ro), ", read-only");
	else if (nr_ro)
		snprintf(ro, sizeof(ro), ", %u arena%s read-only", nr_ro, nr_ro == 1 ? "" : "s");
	pr_info("nd_btt %s: %s sector %u, BTT %u.%u, %u arena%s: %s, %llu sectors (%llu MiB)%s\n",
		b->name, b->ns->name, b->lbasize, b->btt.version_major, b->btt.version_minor,
		b->btt.nr_arenas, b->btt.nr_arenas == 1 ? "" : "s", b->pmem.name, b->btt.nlba,
		(b->pmem.size >> 20), ro);
}

/* Register pmemNs over the open BTT; else close it again with the reason. */
static void btt_register(struct nd_btt *b)
{
	char name[sizeof(b->ns->blockdev) + 1];

	snprintf(name, sizeof(name), "%ss", b->ns->blockdev);
	int err = pmem_attach_indirect(&b->pmem, b->ns, name, b->btt.nlba * b->btt.lbasize,
				       b->btt.lbasize, btt_dev_rw);
	if (err) {
		snprintf(b->reason, sizeof(b->reason), "no block device (error %d)", err);
		btt_close(&b->btt);
		b->open = false;
	} else {
		b->enabled = true;
	}
}

void nd_btt_probe(struct nd_namespace_io *ns, u64 info_off)
{
	static struct btt_sb sb;	/* under the model lock */
	struct nd_btt *b = slot_of(ns);
	const char *w;

	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "btt%d.%d", ns->region->id, ns->id);
	b->ns = ns;
	nd_namespace_claim(ns, b, &btt_claim_ops, false);
	/* What list shows even when the rest is bad: the block's uuid and sector size. */
	bool read = !nsio_read(&ns->io, info_off, &sb, sizeof(sb));
	if (read) {
		memcpy(b->uuid, sb.uuid, 16);
		b->lbasize = btt_lbasize_supported(sb.external_lbasize) ? sb.external_lbasize : 0;
	}
	int err = btt_open(&b->btt, &ns->io, info_off, ns->uuid, b->name, b->reason,
			   sizeof(b->reason));
	if (!err) {
		b->open = true;
		b->lbasize = b->btt.lbasize;
		btt_register(b);
	} else if (read && btt_sb_identify(&sb, ns->uuid, &w) && info2_intact(&ns->io, info_off, &sb)) {
		snprintf(b->reason + strlen(b->reason), sizeof(b->reason) - strlen(b->reason),
			 "; info2 is intact: check-namespace --repair restores it");
	}
	btt_print(b);
}

int nd_btt_detach(struct nd_namespace_io *ns)
{
	struct nd_btt *b = nd_btt_of(ns);

	if (!b)
		return 0;
	if (b->enabled && pmem_detach(&b->pmem))
		return -EBUSY;	/* its line says who holds it */
	if (b->open)
		btt_close(&b->btt);
	b->enabled = b->open = false;
	nd_namespace_release(ns, b);
	return 0;
}

/* Where a new BTT's first info block goes: 0 (2.0) under a v1.2 label, else 4 KiB (1.1). */
static u64 new_btt_offset(const struct nd_namespace_io *ns)
{
	return ns->labelled && nd_label_region_v1_2(ns->region) ? BTT_V2_OFFSET : BTT_V1_OFFSET;
}

int nd_btt_prepare(struct nd_namespace_io *ns, u32 lbasize)
{
	struct btt_arena_geom g;
	u64 off = new_btt_offset(ns);
	u32 nr;

	if (!btt_lbasize_supported(lbasize)) {
		pr_err("%s: sector size %u: expected 512, 520, 528, 4096, 4104, 4160 or 4224; nothing changed\n",
		       ns->name, lbasize);
		return -EINVAL;
	}
	/* One arena's worth is enough to know it fits: arenas are laid out alike. */
	if (ns->size < off + BTT_ARENA_MIN ||
	    btt_lay_out(MIN(ns->size - off, BTT_ARENA_MAX), lbasize, &g, 1, &nr)) {
		pr_err("%s: namespace too small for a BTT (%llu bytes; 16 MiB%s at least); nothing changed\n",
		       ns->name, ns->size, off ? " + 4 KiB" : "");
		return -ENOSPC;
	}
	return 0;
}

int nd_btt_create(struct nd_namespace_io *ns, u32 lbasize)
{
	u64 off = new_btt_offset(ns);
	u8 uuid[16];

	uuid_gen(uuid, random_u64);
	int err = nd_namespace_map(ns);
	if (!err)
		err = btt_format(&ns->io, off, lbasize, uuid, ns->uuid);
	if (err) {
		pr_err("%s: cannot write the BTT (error %d)\n", ns->name, err);
		return err;
	}
	nd_btt_probe(ns, off);
	struct nd_btt *b = nd_btt_of(ns);
	return b && b->enabled ? 0 : -EIO;
}

int nd_btt_check_namespace(struct nd_namespace_io *ns, bool repair)
{
	int err = nd_namespace_map(ns);

	if (err)
		return err;
	/* ndctl takes the namespace offline first, and enables it again after. */
	err = nd_namespace_detach(ns);
	if (err)
		return err;
	err = btt_check(&ns->io, ns->uuid, ns->name, repair);
	nd_namespace_probe(ns);
	return err;
}
