/*
 * Labelled namespaces (Linux's nd_namespace_pmem; drivers/nvdimm/
 * namespace_devs.c scan_labels, create_namespace_pmem, label.c
 * __pmem_label_update): a region whose DIMMs all have a valid label area is
 * divided into one namespace per uuid whose labels fit it, in region-offset
 * order (namespaceN.0, .1, ...); labels that do not fit get one line each
 * and are left alone, and their space is not taken for a new namespace (no
 * create in that region). A region without any valid index stays
 * label-less (one namespace over it all). nd.labels=off ignores labels.
 *
 * An interleave set of N DIMMs (UEFI 2.7 §13.19, FACTS-4 §5): a namespace
 * is one label per DIMM, all with its uuid, nlabel N, the DIMM's position
 * in the set (region-offset order), the set's cookie (FACTS-2 §3.2, by
 * each DIMM's index version), the same DPA offset in each DIMM's part and
 * the same rawsize; it lies at N x that offset in the region, N x rawsize
 * long. Missing or inconsistent on one DIMM: refused with one line naming
 * the DIMM, not exposed, its space kept. A set where some DIMMs have a
 * valid index and others not is closed (no namespace at all, one line),
 * never opened raw over what the labelled DIMMs describe.
 *
 * Updates are crash-safe per DIMM (FACTS-2 §3.3, UEFI 2.7 §13.19): a new
 * label goes into a slot free in the current index, then the whole next
 * index (next sequence number, updated free bitmap) into the *other* index
 * block. The current index is never written, so a stop at any point leaves
 * either the old current index (old set) or a complete newer one (new set);
 * a torn index block fails its checksum and the old one stays current.
 *
 * Across the DIMMs of a set, the label at position 0 is the commit point:
 * create writes positions N-1 down to 1, then 0; destroy frees position 0
 * first, then 1..N-1; a class change rewrites N-1..1, then 0, and readers
 * take the class and sector size from position 0's label (as Linux does).
 * After a stop at any point each DIMM holds its old or its new index, so a
 * reader finds the old namespace on every DIMM, the new one on every DIMM,
 * or labels of it on some DIMMs but never at position 0 without all the
 * others: that set is refused (one line, "position 0's is missing: an
 * interrupted create or destroy"), never exposed, its space kept until
 * init-labels -f. A class change cut short leaves the old class in force.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_label.h"
#include "nd_util.h"
#include "nvdimm.h"
#include "params.h"
#include "printk.h"

#define ND_LABEL_MAP_MAX 16384	/* free bitmap bytes: 128 Ki slots */

static int labels_off;	/* nd.labels=: 0 on, 1 off */

KERNEL_PARAM_CHOICE("nd.labels", labels_off, -1,
		    "read namespaces from DIMM label areas (on, default) or ignore them (off)", "on", "off");

bool nd_labels_enabled(void)
{
	return !labels_off;
}

void nd_labels_set_enabled(bool on)
{
	labels_off = !on;
}

/* ---- free space ---- */

void nd_region_available(const struct nd_region *r, u64 *avail, u64 *max_extent)
{
	u64 end = ALIGN_DOWN(r->size, r->align), cur = 0;

	*avail = *max_extent = 0;
	if (!r->labelled)
		return;	/* a label-less namespace takes it all (or the region is closed) */
	if (r->nr_foreign)
		return;	/* labels it cannot use hold space it does not know */
	for (;;) {
		/* The namespace starting lowest at or after cur. */
		const struct nd_namespace_io *next = NULL;
		for_each_nd_namespace(ns)
			if (ns->region == r && ns->start - r->start >= cur &&
			    (!next || ns->start < next->start))
				next = ns;
		u64 stop = next ? MIN(next->start - r->start, end) : end;
		u64 a = ALIGN_UP(cur, r->align), b = ALIGN_DOWN(stop, r->align);
		if (b > a) {
			*avail += b - a;
			*max_extent = MAX(*max_extent, b - a);
		}
		if (!next)
			return;
		cur = next->start - r->start + next->size;
	}
}

/* The lowest free aligned extent of at least `size` bytes: its region offset, or -ENOSPC. */
static int find_extent(const struct nd_region *r, u64 size, u64 *off)
{
	u64 end = ALIGN_DOWN(r->size, r->align);

	for (u64 a = 0; a + size <= end;) {
		u64 bump = 0;
		for_each_nd_namespace(ns) {
			u64 s = ns->start - r->start, e = s + ns->size;
			if (ns->region == r && a < e && s < a + size)
				bump = MAX(bump, ALIGN_UP(e, r->align));
		}
		if (!bump) {
			*off = a;
			return 0;
		}
		a = bump;
	}
	return -ENOSPC;
}

/* ---- writing labels ---- */

/* Write [off, off+len) of d's label area copy to the DIMM. */
static int lsa_push(struct nvdimm *d, u32 off, u32 len)
{
	if (!d->label_ops || !d->label_ops->write) {
		pr_err("%s: its labels cannot be written (no label write method)\n", d->name);
		return -EOPNOTSUPP;
	}
	return d->label_ops->write(d, off, d->lsa + off, len);
}

/*
 * One crash-safe update: `add` (may be NULL) into a free slot (*slot_out),
 * `del_slot` (-1: none) freed, then the next index into the other block.
 */
static int labels_commit(struct nvdimm *d, struct nd_label *add, int del_slot)
{
	static struct nd_lsa lsa;
	static u8 map[ND_LABEL_MAP_MAX], old_index[ND_LABEL_MAP_MAX + 256];
	u32 mapbytes;
	int other, err;

	if (nd_lsa_parse(&lsa, d->lsa, d->lsa_size)) {
		pr_err("%s: no valid label index (init-labels first)\n", d->name);
		return -ENXIO;
	}
	mapbytes = DIV_ROUND_UP(lsa.nslot, 8);
	if (mapbytes > sizeof(map) || lsa.index_size > sizeof(old_index)) {
		pr_err("%s: label area of %u slots is larger than pmemk handles\n", d->name,
		       lsa.nslot);
		return -E2BIG;
	}
	memcpy(map, d->lsa + (u32)lsa.current * lsa.index_size + ND_LABEL_INDEX_HDR, mapbytes);
	if (add) {
		u32 s = 0;
		while (s < lsa.nslot && !nd_label_slot_free(map, s))
			s++;
		if (s == lsa.nslot) {
			pr_err("%s: all %u label slots are in use\n", d->name, lsa.nslot);
			return -ENOSPC;
		}
		add->slot = s;
		nd_label_encode(&lsa, d->lsa, add);
		/* Step 1: the label, in a slot no valid index uses: invisible until step 2. */
		err = lsa_push(d, 2 * lsa.index_size + s * lsa.label_size, lsa.label_size);
		if (err)
			return err;
		map[s / 8] &= (u8)~(1u << (s % 8));
	}
	if (del_slot >= 0)
		map[del_slot / 8] |= (u8)(1u << (del_slot % 8));
	/* Step 2: the next index into the other block; the current one stays as it is. */
	other = 1 - lsa.current;
	memcpy(old_index, d->lsa + (u32)other * lsa.index_size, lsa.index_size);
	nd_lsa_write_index(&lsa, d->lsa, other, nd_label_next_seq(lsa.index[lsa.current].seq),
			   map);
	err = lsa_push(d, (u32)other * lsa.index_size, lsa.index_size);
	if (err)	/* keep the copy what the DIMM most likely holds: the old current */
		memcpy(d->lsa + (u32)other * lsa.index_size, old_index, lsa.index_size);
	return err;
}

/* Checks before a new namespace of `size` in r; 0 when it may be made (else printed). */
static int create_allowed(const struct nd_region *r, u64 size)
{
	if (r->closed) {
		pr_err("%s: disabled: %s\n", r->name, r->closed);
		return -ENXIO;
	}
	if (!nd_region_label_dimm(r) || !r->labelled) {
		pr_err("%s: not a labelled region (init-labels on its DIMMs first)\n", r->name);
		return -ENXIO;
	}
	if (r->nr_foreign) {
		pr_err("%s: holds %u label%s pmemk cannot use: their space may not be free (init-labels -f starts over)\n",
		       r->name, r->nr_foreign, r->nr_foreign == 1 ? "" : "s");
		return -EBUSY;
	}
	if (r->ro) {
		pr_err("%s: region is read-only\n", r->name);
		return -EROFS;
	}
	/* Each DIMM's share a whole number of pages (4 KiB interleave lines). */
	if (!size || !IS_ALIGNED(size, r->align) || !IS_ALIGNED(size, r->nr_mappings * PAGE_SIZE)) {
		pr_err("%s: size %#llx is not a multiple of the region align %#llx\n", r->name,
		       size, r->align);
		return -EINVAL;
	}
	return 0;
}

/* Free the labels of slot[] on the DIMMs at positions [from, to) (undo); false when one stays. */
static bool free_labels(struct nd_region *r, const u32 *by_pos, u32 from, u32 to, const u32 *slot)
{
	bool all = true;

	for (u32 p = from; p < to; p++) {
		u32 mi = by_pos[p];
		if (labels_commit(r->mapping[mi].nvdimm, NULL, (int)slot[mi]))
			all = false;
	}
	return all;
}

/*
 * Across an interleave set every DIMM gets its own label (position p,
 * nlabel N, the set's cookie, dpa = its part's start + offset / N, rawsize
 * size / N), each written by one crash-safe commit on that DIMM, positions
 * N-1 down to 0: the label at position 0 is the namespace's commit point
 * (see the file comment). A commit that fails frees the labels already
 * written.
 */
int nd_label_namespace_create(struct nd_region *r, u64 size, const char *name,
			      enum nd_claim_class cls, u32 lbasize, u8 uuid[16],
			      struct nd_namespace_io **out)
{
	static struct nd_lsa lsa;
	u32 by_pos[ND_MAX_MAPPINGS], slot[ND_MAX_MAPPINGS], n = r->nr_mappings;
	struct nd_label l, l0;
	u64 off;
	int err = create_allowed(r, size);

	if (err)
		return err;
	if (!nd_region_label_positions(r, by_pos))
		return -ENXIO;
	if (find_extent(r, size, &off)) {
		u64 avail, max;
		nd_region_available(r, &avail, &max);
		pr_err("%s: no free extent of %llu MiB (largest %llu MiB)\n", r->name, size >> 20,
		       max >> 20);
		return -ENOSPC;
	}
	/* The table entry first: a full table must not leave a label without a namespace. */
	struct nd_namespace_io *ns = nd_namespace_add(r, nd_namespace_free_id(r), r->start + off, size);
	if (!ns)
		return -ENOSPC;
	memset(slot, 0, sizeof(slot));
	for (u32 p = n; p-- > 0;) {
		u32 mi = by_pos[p];
		struct nvdimm *d = r->mapping[mi].nvdimm;

		nd_lsa_parse(&lsa, d->lsa, d->lsa_size);
		memset(&l, 0, sizeof(l));
		memcpy(l.uuid, uuid, 16);
		snprintf(l.name, sizeof(l.name), "%s", name ? name : "");
		l.nlabel = (u16)n;
		l.position = (u16)p;
		l.isetcookie = nd_region_label_cookie(r, &lsa);
		l.lbasize = lbasize;
		l.dpa = r->mapping[mi].start + off / n;
		l.rawsize = size / n;
		if (lsa.label_size >= 256) {
			memcpy(l.type_guid, nd_label_pmem_type_guid, 16);
			nd_label_claim_guid(cls, l.abstraction_guid);
		}
		err = labels_commit(d, &l, -1);
		if (err) {
			if (!free_labels(r, by_pos, p + 1, n, slot)) {
				r->nr_foreign++;
				pr_err("%s: the labels of the unfinished namespace stay on some DIMMs (no position 0: refused at the next boot, their space kept)\n",
				       r->name);
			}
			nd_namespace_remove(ns);
			return err;
		}
		slot[mi] = l.slot;
		if (p == 0)
			l0 = l;
	}
	nd_namespace_set_label(ns, &l0, slot, by_pos[0]);
	*out = ns;
	return 0;
}

/*
 * Each DIMM's label rewritten (one commit: a copy into a free slot, the old
 * slot freed), positions N-1 down to 0. Readers take the class and sector
 * size from position 0's label (as Linux does), so a stop half-way leaves
 * the old class in force, and the next call finishes the others.
 */
int nd_label_namespace_set_class(struct nd_namespace_io *ns, enum nd_claim_class cls, u32 lbasize)
{
	struct nd_region *r = ns->region;
	static struct nd_lsa lsa;
	u32 by_pos[ND_MAX_MAPPINGS];
	struct nd_label l;
	int err;

	if (!nd_region_label_dimm(r) || !ns->labelled || !nd_region_label_positions(r, by_pos))
		return -ENXIO;
	if (!nd_label_region_v1_2(r))
		cls = ND_CLAIM_NONE;	/* v1.1 labels have no abstraction GUID */
	for (u32 p = r->nr_mappings; p-- > 0;) {
		u32 mi = by_pos[p], old = ns->label_slot[mi];
		struct nvdimm *d = r->mapping[mi].nvdimm;

		if (nd_lsa_parse(&lsa, d->lsa, d->lsa_size))
			return -ENXIO;
		nd_label_decode(&l, d->lsa, 2 * lsa.index_size + old * lsa.label_size, lsa.label_size);
		if (lsa.label_size < 256)
			memset(l.abstraction_guid, 0, 16);
		if (nd_label_claim_class(l.abstraction_guid) == (lsa.label_size < 256 ? ND_CLAIM_NONE : cls) &&
		    l.lbasize == lbasize)
			continue;
		if (lsa.label_size >= 256)
			nd_label_claim_guid(cls, l.abstraction_guid);
		l.lbasize = lbasize;
		err = labels_commit(d, &l, (int)old);
		if (err)
			return err;
		ns->label_slot[mi] = l.slot;
	}
	ns->claim_class = cls;
	return 0;
}

bool nd_label_region_v1_2(const struct nd_region *r)
{
	struct nvdimm *d = nd_region_label_dimm(r);
	static struct nd_lsa lsa;

	return d && !nd_lsa_parse(&lsa, d->lsa, d->lsa_size) && lsa.label_size >= 256;
}

/*
 * Each DIMM's label freed, position 0 first (the commit point: once it is
 * gone no reader finds the namespace; labels left on the others by a stop
 * are refused and their space kept until init-labels -f).
 */
int nd_label_namespace_delete(struct nd_namespace_io *ns)
{
	struct nd_region *r = ns->region;
	u32 by_pos[ND_MAX_MAPPINGS];
	int err;

	if (!nd_region_label_dimm(r) || !ns->labelled || !nd_region_label_positions(r, by_pos))
		return -ENXIO;
	err = labels_commit(r->mapping[by_pos[0]].nvdimm, NULL, (int)ns->label_slot[by_pos[0]]);
	if (err)
		return err;
	if (!free_labels(r, by_pos, 1, r->nr_mappings, ns->label_slot)) {
		r->nr_foreign++;
		pr_err("%s: %s is gone, but its labels stay on some DIMMs (refused at the next boot, their space kept)\n",
		       r->name, ns->name);
	}
	nd_namespace_remove(ns);
	return 0;
}

int nd_label_init(struct nvdimm *d, u32 label_size)
{
	static u8 area[2 * (ND_LABEL_MAP_MAX + 2 * ND_LABEL_INDEX_ALIGN)];
	u32 isize = nd_lsa_index_size(d->lsa_size, label_size);
	int err;

	if (2 * isize > sizeof(area)) {
		pr_err("%s: label area of %u bytes is larger than pmemk handles\n", d->name,
		       d->lsa_size);
		return -E2BIG;
	}
	err = nd_lsa_init(area, d->lsa_size, label_size);
	if (err) {
		pr_err("%s: a label area of %u bytes cannot hold labels of %u bytes\n", d->name,
		       d->lsa_size, label_size);
		return err;
	}
	/* Only the two index blocks change; old labels become free slots. */
	memcpy(d->lsa, area, 2 * isize);
	return lsa_push(d, 0, 2 * isize);
}
