/*
 * Labelled namespaces (Linux's nd_namespace_pmem; drivers/nvdimm/
 * namespace_devs.c scan_labels, label.c __pmem_label_update): a region whose
 * DIMM has a valid label area is divided into one namespace per live label
 * that fits it, in DPA order (namespaceN.0, .1, ...); labels that do not fit
 * get one line each and are left alone, and their space is not taken for a
 * new namespace (no create in that region). A region without a valid index
 * stays label-less (one namespace over it all). nd.labels=off ignores labels.
 *
 * Labels across an interleave set (nlabel > 1, several DIMMs) are not read
 * yet: a region of several DIMMs any of which has a valid index is closed
 * (no namespace at all, one line), never opened raw: a raw namespace over
 * it would write through the namespaces another system made there.
 *
 * Updates are crash-safe (FACTS-2 §3.3, UEFI 2.7 §13.19): a new label goes
 * into a slot free in the current index, then the whole next index (next
 * sequence number, updated free bitmap) into the *other* index block. The
 * current index is never written, so a stop at any point leaves either the
 * old current index (old set) or a complete newer one (new set); a torn
 * index block fails its checksum and the old one stays current.
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

/* The DIMM whose labels describe r: a region of one DIMM with a label area. */
struct nvdimm *nd_region_label_dimm(const struct nd_region *r)
{
	if (r->nr_mappings != 1 || !r->mapping[0].nvdimm || !r->mapping[0].nvdimm->lsa)
		return NULL;
	return r->mapping[0].nvdimm;
}

/* The cookie labels of r carry: v1.1 or v1.2 form (FACTS-2 §3.2). */
static u64 region_cookie(const struct nd_region *r, bool v1_2)
{
	const struct nd_mapping *m = &r->mapping[0];
	const struct nvdimm *d = m->nvdimm;
	struct nd_cookie_rec rec = { m->region_offset, d->serial, d->vendor_id,
				     d->manufacturing_date, d->manufacturing_location };

	return nd_label_cookie(&rec, 1, v1_2);
}

/* Why label l cannot be a namespace of r (given those accepted so far), or NULL. */
static const char *label_misfit(const struct nd_region *r, const struct nd_lsa *lsa,
				const struct nd_label *l, const struct nd_label *ok, u32 nok)
{
	const struct nd_mapping *m = &r->mapping[0];

	if (l->flags & ND_LABEL_FLAG_LOCAL)
		return "LOCAL flag: a label for block-window mode";
	if (l->nlabel != 1 || l->position != 0)
		return "part of an interleave set of several DIMMs (not supported)";
	if (l->isetcookie != r->iset_id)
		return "interleave-set cookie is not the region's";
	if (lsa->label_size >= 256 && !uuid_is_null(l->type_guid) &&
	    memcmp(l->type_guid, nd_label_pmem_type_guid, 16))
		return "type GUID is not persistent memory";
	if (nd_label_claim_class(l->abstraction_guid) == ND_CLAIM_UNKNOWN)
		return "unknown abstraction GUID";
	if (l->dpa < m->start || l->dpa + l->rawsize > m->start + m->size)
		return "DPA range outside the DIMM's part of the region";
	for (u32 i = 0; i < nok; i++) {
		if (!memcmp(ok[i].uuid, l->uuid, 16))
			return "uuid of another label";
		if (l->dpa < ok[i].dpa + ok[i].rawsize && ok[i].dpa < l->dpa + l->rawsize)
			return "DPA range overlaps another label's";
	}
	return NULL;
}

static void sort_by_dpa(struct nd_label *l, u32 n)
{
	for (u32 i = 1; i < n; i++)
		for (u32 k = i; k > 0 && l[k].dpa < l[k - 1].dpa; k--) {
			struct nd_label t = l[k];
			l[k] = l[k - 1];
			l[k - 1] = t;
		}
}

/* Make ns (added at the label's range) the label's namespace; one line. */
static void ns_set_label(struct nd_namespace_io *ns, const struct nd_label *l)
{
	struct nd_region *r = ns->region;
	const struct nd_mapping *m = &r->mapping[0];
	enum nd_claim_class cls = nd_label_claim_class(l->abstraction_guid);
	char uuid[UUID_STR_LEN + 1];

	ns->labelled = true;
	memcpy(ns->uuid, l->uuid, 16);
	snprintf(ns->alt_name, sizeof(ns->alt_name), "%s", l->name);
	ns->dpa = l->dpa;
	ns->claim_class = cls;
	ns->label_slot = l->slot;
	if (cls == ND_CLAIM_NONE && l->lbasize == 4096)
		ns->sector_size = 4096;
	uuid_to_str(l->uuid, uuid);
	pr_info("nd_label %s: %s from %s label slot %u: uuid %s%s%s%s, %llu MiB at dpa %#llx, %s\n",
		r->name, ns->name, m->nvdimm->name, l->slot, uuid, l->name[0] ? ", name '" : "",
		l->name, l->name[0] ? "'" : "", (l->rawsize >> 20), l->dpa,
		nd_claim_class_mode(cls));
}

/* Namespaces from d's labels for r. False (nothing done) when the area has no valid index. */
static bool namespaces_from_labels(struct nd_region *r, struct nvdimm *d)
{
	static struct nd_lsa lsa;
	static struct nd_label ok[ND_LABEL_MAX_LIVE];
	u32 nok = 0;

	if (nd_lsa_parse(&lsa, d->lsa, d->lsa_size)) {
		pr_info("nd_label %s: %s has no valid label index (index0: %s; index1: %s): label-less\n",
			r->name, d->name, lsa.index[0].why, lsa.index[1].why);
		return false;
	}
	r->labelled = true;
	r->iset_id = region_cookie(r, lsa.index[lsa.current].minor >= 2);
	/* A signed block that fails: torn or damaged (a blank one is not news). */
	for (int i = 0; i < 2; i++)
		if (!lsa.index[i].valid && !strcmp(lsa.index[i].sig, "NAMESPACE_INDEX"))
			pr_warn("nd_label %s: %s label index %d refused: %s (index %d used)\n",
				r->name, d->name, i, lsa.index[i].why, lsa.current);
	for (u32 i = 0; i < lsa.nr_refused; i++)
		pr_warn("nd_label %s: %s label slot %u refused: %s\n", r->name, d->name,
			lsa.refused[i].slot, lsa.refused[i].why);
	for (u32 i = 0; i < lsa.nr_live; i++) {
		const char *why = label_misfit(r, &lsa, &lsa.live[i], ok, nok);

		if (why) {
			pr_warn("nd_label %s: %s label slot %u refused: %s\n", r->name, d->name,
				lsa.live[i].slot, why);
			r->nr_foreign++;
		} else {
			ok[nok++] = lsa.live[i];
		}
	}
	if (r->nr_foreign)
		pr_warn("nd_label %s: %u label%s it cannot use: their space is kept, no namespace is created in %s\n",
			r->name, r->nr_foreign, r->nr_foreign == 1 ? "" : "s", r->name);
	sort_by_dpa(ok, nok);
	for (u32 i = 0; i < nok; i++) {
		const struct nd_mapping *m = &r->mapping[0];
		struct nd_namespace_io *ns =
			nd_namespace_add(r, (int)i, r->start + (ok[i].dpa - m->start), ok[i].rawsize);
		if (ns)
			ns_set_label(ns, &ok[i]);
	}
	pr_info("nd_label %s: %u labelled namespace%s (labels v1.%u, index %d seq %u, %u slots)\n",
		r->name, nok, nok == 1 ? "" : "s", lsa.index[lsa.current].minor, lsa.current,
		lsa.index[lsa.current].seq, lsa.nslot);
	return true;
}

/*
 * Close r, a region of several DIMMs, when any of them has a valid label
 * index: the set is labelled (Linux gives it only the namespaces its
 * labels describe, nlabel of them per namespace), and pmemk cannot read
 * labels across DIMMs yet. True when closed (one line said so).
 */
static bool close_labelled_set(struct nd_region *r)
{
	static struct nd_lsa lsa;
	u32 labelled = 0, live = 0, nlabel = 0;

	if (r->nr_mappings < 2)
		return false;
	for (u32 i = 0; i < r->nr_mappings; i++) {
		const struct nvdimm *d = r->mapping[i].nvdimm;

		if (!d || !d->lsa || nd_lsa_parse(&lsa, d->lsa, d->lsa_size))
			continue;
		labelled++;
		live += lsa.nr_live;
		for (u32 k = 0; k < lsa.nr_live; k++)
			nlabel = MAX(nlabel, (u32)lsa.live[k].nlabel);
	}
	if (!labelled)
		return false;
	r->closed = "its DIMMs hold labels of an interleave set";
	pr_warn("nd_label %s: disabled, no namespace: %u of its %u DIMMs hold labels (%u live, nlabel up to %u) of an interleave set, which pmemk cannot use yet; nothing is written to it\n",
		r->name, labelled, r->nr_mappings, live, nlabel);
	return true;
}

void nd_region_namespaces_init(struct nd_region *r)
{
	struct nvdimm *d = nd_region_label_dimm(r);

	r->labelled = false;
	r->iset_id = 0;
	r->closed = NULL;
	r->nr_foreign = 0;
	if (!labels_off && close_labelled_set(r))
		return;
	if (d && !labels_off && namespaces_from_labels(r, d))
		return;
	nd_namespace_io_init(r);
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

int nd_label_namespace_create(struct nd_region *r, u64 size, const char *name,
			      enum nd_claim_class cls, u32 lbasize, u8 uuid[16],
			      struct nd_namespace_io **out)
{
	struct nvdimm *d = nd_region_label_dimm(r);
	static struct nd_lsa lsa;
	struct nd_label l;
	u64 off;
	int err;

	if (r->closed) {
		pr_err("%s: disabled: %s, which pmemk cannot use yet\n", r->name, r->closed);
		return -ENXIO;
	}
	if (!d || !r->labelled) {
		pr_err("%s: not a labelled region (init-labels on its DIMM first)\n", r->name);
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
	if (!size || !IS_ALIGNED(size, r->align)) {
		pr_err("%s: size %#llx is not a multiple of the region align %#llx\n", r->name,
		       size, r->align);
		return -EINVAL;
	}
	if (find_extent(r, size, &off)) {
		u64 avail, max;
		nd_region_available(r, &avail, &max);
		pr_err("%s: no free extent of %llu MiB (largest %llu MiB)\n", r->name, size >> 20,
		       max >> 20);
		return -ENOSPC;
	}
	nd_lsa_parse(&lsa, d->lsa, d->lsa_size);
	memset(&l, 0, sizeof(l));
	memcpy(l.uuid, uuid, 16);
	snprintf(l.name, sizeof(l.name), "%s", name ? name : "");
	l.nlabel = 1;
	l.isetcookie = r->iset_id;
	l.lbasize = lbasize;
	l.dpa = r->mapping[0].start + off;
	l.rawsize = size;
	if (lsa.label_size >= 256) {
		memcpy(l.type_guid, nd_label_pmem_type_guid, 16);
		nd_label_claim_guid(cls, l.abstraction_guid);
	}
	/* The table entry first: a full table must not leave a label without a namespace. */
	struct nd_namespace_io *ns = nd_namespace_add(r, nd_namespace_free_id(r), r->start + off, size);
	if (!ns)
		return -ENOSPC;
	err = labels_commit(d, &l, -1);
	if (err) {
		nd_namespace_remove(ns);
		return err;
	}
	ns_set_label(ns, &l);
	*out = ns;
	return 0;
}

int nd_label_namespace_set_class(struct nd_namespace_io *ns, enum nd_claim_class cls, u32 lbasize)
{
	struct nvdimm *d = nd_region_label_dimm(ns->region);
	static struct nd_lsa lsa;
	struct nd_label l;
	u32 old;
	int err;

	if (!d || !ns->labelled || nd_lsa_parse(&lsa, d->lsa, d->lsa_size))
		return -ENXIO;
	old = ns->label_slot;
	nd_label_decode(&l, d->lsa, 2 * lsa.index_size + old * lsa.label_size, lsa.label_size);
	if (lsa.label_size < 256)
		cls = ND_CLAIM_NONE;	/* v1.1 labels have no abstraction GUID */
	if (nd_label_claim_class(l.abstraction_guid) == cls && l.lbasize == lbasize)
		return 0;
	nd_label_claim_guid(cls, l.abstraction_guid);
	l.lbasize = lbasize;
	/* One commit: the updated copy into a free slot, the old slot freed. */
	err = labels_commit(d, &l, (int)old);
	if (!err) {
		ns->label_slot = l.slot;
		ns->claim_class = cls;
	}
	return err;
}

bool nd_label_region_v1_2(const struct nd_region *r)
{
	struct nvdimm *d = nd_region_label_dimm(r);
	static struct nd_lsa lsa;

	return d && !nd_lsa_parse(&lsa, d->lsa, d->lsa_size) && lsa.label_size >= 256;
}

int nd_label_namespace_delete(struct nd_namespace_io *ns)
{
	struct nvdimm *d = nd_region_label_dimm(ns->region);
	int err;

	if (!d || !ns->labelled)
		return -ENXIO;
	err = labels_commit(d, NULL, (int)ns->label_slot);
	if (!err)
		nd_namespace_remove(ns);
	return err;
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
