/*
 * Reading labelled regions (see nvdimm/namespace_label.c's file comment for
 * the rules and the crash-safety argument): each DIMM's parsed label area,
 * the labels refused one by one, then one namespace per uuid whose labels
 * on every DIMM of the set agree (Linux's scan_labels and
 * create_namespace_pmem; UEFI 2.7 §13.19), or one line saying why not.
 */
#include <stdio.h>
#include <string.h>

#include "nd_label.h"
#include "nd_util.h"
#include "nvdimm.h"
#include "printk.h"

/* Parsed label areas of the region being read or written, by mapping index. */
static struct nd_lsa set_lsa[ND_MAX_MAPPINGS];

bool nd_region_label_positions(const struct nd_region *r, u32 by_pos[])
{
	u32 seen = 0;

	for (u32 i = 0; i < r->nr_mappings; i++) {
		int p = r->mapping[i].position;
		if (p < 0 || (u32)p >= r->nr_mappings || (seen >> p & 1))
			return false;
		seen |= 1u << p;
		by_pos[p] = i;
	}
	return r->nr_mappings > 0;
}

/* Every DIMM of r has a label area. */
static bool region_has_areas(const struct nd_region *r)
{
	for (u32 i = 0; i < r->nr_mappings; i++)
		if (!r->mapping[i].nvdimm || !r->mapping[i].nvdimm->lsa)
			return false;
	return r->nr_mappings > 0;
}

struct nvdimm *nd_region_label_dimm(const struct nd_region *r)
{
	return region_has_areas(r) ? r->mapping[0].nvdimm : NULL;
}

/*
 * The cookie labels of r carry, v1.1 or v1.2 form (FACTS-2 §3.2, Linux's
 * acpi_nfit_init_interleave_set): one record per DIMM in region-offset
 * order, which is position order (nfit_register.c set_positions).
 */
static u64 region_cookie(const struct nd_region *r, bool v1_2)
{
	struct nd_cookie_rec rec[ND_MAX_MAPPINGS];

	memset(rec, 0, sizeof(rec));
	for (u32 i = 0; i < r->nr_mappings && i < ND_MAX_MAPPINGS; i++) {
		const struct nd_mapping *m = &r->mapping[i];
		const struct nvdimm *d = m->nvdimm;
		u32 p = (u32)m->position < r->nr_mappings ? (u32)m->position : i;

		rec[p] = (struct nd_cookie_rec){ m->region_offset, d->serial, d->vendor_id,
						 d->manufacturing_date, d->manufacturing_location };
	}
	return nd_label_cookie(rec, r->nr_mappings, v1_2);
}

u64 nd_region_label_cookie(const struct nd_region *r, const struct nd_lsa *lsa)
{
	return region_cookie(r, lsa->index[lsa->current].minor >= 2);
}

/*
 * Why label l of mapping mi cannot be its part of a namespace of r (given
 * the labels of that DIMM accepted so far), or NULL. Per label: the set-wide
 * checks (the same uuid on every DIMM) follow in assemble_set().
 */
static const char *label_misfit(const struct nd_region *r, u32 mi, const struct nd_lsa *lsa,
				const struct nd_label *l, const bool *fit)
{
	static char why[96];
	const struct nd_mapping *m = &r->mapping[mi];

	if (l->flags & ND_LABEL_FLAG_LOCAL)
		return "LOCAL flag: a label for block-window mode";
	if (l->nlabel != r->nr_mappings) {
		snprintf(why, sizeof(why), "nlabel %u, but %s is an interleave set of %u DIMM%s",
			 l->nlabel, r->name, r->nr_mappings, r->nr_mappings == 1 ? "" : "s");
		return why;
	}
	if (l->position != (u32)m->position) {
		snprintf(why, sizeof(why), "position %u, but %s is at position %d of the set",
			 l->position, m->nvdimm->name, m->position);
		return why;
	}
	if (l->isetcookie != nd_region_label_cookie(r, lsa))
		return "interleave-set cookie is not the region's";
	if (lsa->label_size >= 256 && !uuid_is_null(l->type_guid) &&
	    memcmp(l->type_guid, nd_label_pmem_type_guid, 16))
		return "type GUID is not persistent memory";
	if (nd_label_claim_class(l->abstraction_guid) == ND_CLAIM_UNKNOWN)
		return "unknown abstraction GUID";
	if (l->dpa < m->start || l->dpa + l->rawsize > m->start + m->size)
		return "DPA range outside the DIMM's part of the region";
	for (u32 i = 0; i < lsa->nr_live; i++) {
		const struct nd_label *o = &lsa->live[i];
		if (o == l)
			break;
		if (!fit[i])
			continue;
		if (!memcmp(o->uuid, l->uuid, 16))
			return "uuid of another label";
		if (l->dpa < o->dpa + o->rawsize && o->dpa < l->dpa + l->rawsize)
			return "DPA range overlaps another label's";
	}
	return NULL;
}

/* One namespace of r as its labels describe it (Linux's nd_namespace_pmem). */
struct label_set {
	const struct nd_label *l0;	/* the label at position 0: uuid, name, class, lbasize */
	u32 slot[ND_MAX_MAPPINGS];	/* by mapping index */
	u64 off, size;			/* in the region */
};

static struct label_set sets[ND_LABEL_MAX_LIVE];
static bool fit[ND_MAX_MAPPINGS][ND_LABEL_MAX_LIVE], used[ND_MAX_MAPPINGS][ND_LABEL_MAX_LIVE];

/*
 * The fit label of `uuid` on mapping mi (every label of it marked used), or
 * NULL; *misfit when one of it was refused (label_misfit keeps one fit label
 * per uuid and DIMM).
 */
static const struct nd_label *label_of(u32 mi, const u8 *uuid, bool *misfit)
{
	const struct nd_label *found = NULL;

	for (u32 k = 0; k < set_lsa[mi].nr_live; k++) {
		if (memcmp(set_lsa[mi].live[k].uuid, uuid, 16))
			continue;
		used[mi][k] = true;
		if (!fit[mi][k]) {
			*misfit = true;	/* refused with its own line already */
			continue;
		}
		found = &set_lsa[mi].live[k];
	}
	return found;
}

/*
 * The namespace of `uuid` across r's DIMMs (Linux's create_namespace_pmem:
 * one label per DIMM at its position, nlabel N, the set's cookie): every
 * DIMM holds a fit label of it with the same DPA offset in its part and the
 * same rawsize; the namespace lies at N x that offset in the region, N x
 * rawsize long (4 KiB lines go round the DIMMs). Returns NULL and prints
 * one line naming the DIMM and why, or is quiet when a label of it was
 * already refused with its own line.
 */
static const char *assemble_set(const struct nd_region *r, const u32 *by_pos, const u8 *uuid,
				struct label_set *s, u32 *bad_mi)
{
	static char why[160];
	u32 n = r->nr_mappings, present = 0;
	bool misfit = false;

	for (u32 p = 0; p < n; p++) {
		u32 mi = by_pos[p];
		const struct nd_label *l = label_of(mi, uuid, &misfit);

		if (!l) {
			*bad_mi = *bad_mi < n ? *bad_mi : mi;
			continue;
		}
		present++;
		s->slot[mi] = l->slot;
		if (p == 0) {
			s->l0 = l;
			continue;
		}
		if (!s->l0)
			continue;
		if (l->dpa - r->mapping[mi].start != s->l0->dpa - r->mapping[by_pos[0]].start ||
		    l->rawsize != s->l0->rawsize) {
			*bad_mi = mi;
			snprintf(why, sizeof(why),
				 "has a label (dpa %#llx, rawsize %#llx) unlike position 0's (dpa %#llx, rawsize %#llx)",
				 l->dpa, l->rawsize, s->l0->dpa, s->l0->rawsize);
			return why;
		}
	}
	if (misfit && present < n)
		return "";	/* said by its refused label's line */
	if (present < n) {
		snprintf(why, sizeof(why), "holds no label of it (%u of %u DIMMs do%s)", present, n,
			 s->l0 ? "" : "; position 0's is missing: an interrupted create or destroy");
		return why;
	}
	s->off = (s->l0->dpa - r->mapping[by_pos[0]].start) * n;
	s->size = s->l0->rawsize * n;
	return NULL;
}

static void sort_sets(struct label_set *s, u32 n)
{
	for (u32 i = 1; i < n; i++)
		for (u32 k = i; k > 0 && s[k].off < s[k - 1].off; k--) {
			struct label_set t = s[k];
			s[k] = s[k - 1];
			s[k - 1] = t;
		}
}

void nd_namespace_set_label(struct nd_namespace_io *ns, const struct nd_label *l, const u32 *slot,
			 u32 mi0)
{
	struct nd_region *r = ns->region;
	const struct nd_mapping *m = &r->mapping[mi0];
	enum nd_claim_class cls = nd_label_claim_class(l->abstraction_guid);
	char uuid[UUID_STR_LEN + 1], more[48] = "";

	ns->labelled = true;
	memcpy(ns->uuid, l->uuid, 16);
	snprintf(ns->alt_name, sizeof(ns->alt_name), "%s", l->name);
	ns->dpa = l->dpa;
	ns->claim_class = cls;
	for (u32 i = 0; i < r->nr_mappings; i++)
		ns->label_slot[i] = slot[i];
	if (cls == ND_CLAIM_NONE && l->lbasize == 4096)
		ns->sector_size = 4096;
	uuid_to_str(l->uuid, uuid);
	if (r->nr_mappings > 1)
		snprintf(more, sizeof(more), " and %u more DIMM%s (nlabel %u)", r->nr_mappings - 1,
			 r->nr_mappings == 2 ? "" : "s", l->nlabel);
	pr_info("nd_label %s: %s from %s label slot %u%s: uuid %s%s%s%s, %llu MiB at dpa %#llx, %s\n",
		r->name, ns->name, m->nvdimm->name, slot[mi0], more, uuid, l->name[0] ? ", name '" : "",
		l->name, l->name[0] ? "'" : "", (ns->size >> 20), l->dpa, nd_claim_class_mode(cls));
}

/* Refuse r's labels that cannot be part of a namespace, one line each; mark the rest fit. */
static void check_labels(struct nd_region *r)
{
	for (u32 mi = 0; mi < r->nr_mappings; mi++) {
		const struct nd_lsa *lsa = &set_lsa[mi];
		const char *name = r->mapping[mi].nvdimm->name;

		/* A signed block that fails: torn or damaged (a blank one is not news). */
		for (int i = 0; i < 2; i++)
			if (!lsa->index[i].valid && !strcmp(lsa->index[i].sig, "NAMESPACE_INDEX"))
				pr_warn("nd_label %s: %s label index %d refused: %s (index %d used)\n",
					r->name, name, i, lsa->index[i].why, lsa->current);
		for (u32 i = 0; i < lsa->nr_refused; i++)
			pr_warn("nd_label %s: %s label slot %u refused: %s\n", r->name, name,
				lsa->refused[i].slot, lsa->refused[i].why);
		for (u32 k = 0; k < lsa->nr_live; k++) {
			const char *why = label_misfit(r, mi, lsa, &lsa->live[k], fit[mi]);

			used[mi][k] = false;
			fit[mi][k] = !why;
			if (why) {
				pr_warn("nd_label %s: %s label slot %u refused: %s\n", r->name, name,
					lsa->live[k].slot, why);
				r->nr_foreign++;
			}
		}
	}
}

/* Namespaces from the labels of r's DIMMs (all with a valid index, parsed in set_lsa). */
static void namespaces_from_labels(struct nd_region *r, const u32 *by_pos)
{
	u32 nset = 0;

	r->labelled = true;
	r->iset_id = nd_region_label_cookie(r, &set_lsa[0]);
	check_labels(r);
	for (u32 mi = 0; mi < r->nr_mappings; mi++)
		for (u32 k = 0; k < set_lsa[mi].nr_live; k++) {
			const u8 *uuid = set_lsa[mi].live[k].uuid;
			struct label_set s;
			u32 bad = ND_MAX_MAPPINGS;
			char us[UUID_STR_LEN + 1];

			if (used[mi][k] || !fit[mi][k])
				continue;
			memset(&s, 0, sizeof(s));
			const char *why = assemble_set(r, by_pos, uuid, &s, &bad);
			for (u32 i = 0; !why && i < nset; i++)
				if (s.off < sets[i].off + sets[i].size && sets[i].off < s.off + s.size) {
					why = "its range overlaps another namespace's";
					bad = by_pos[0];
				}
			uuid_to_str(uuid, us);
			if (why) {
				/* Quiet: a refused label of it said why (and counts). */
				r->nr_foreign += *why ? 1 : 0;
				if (*why)
					pr_warn("nd_label %s: namespace %s refused, not exposed: %s %s\n",
						r->name, us, r->mapping[bad < r->nr_mappings ? bad : mi].nvdimm->name,
						why);
				continue;
			}
			if (nset < ND_LABEL_MAX_LIVE)
				sets[nset++] = s;
		}
	if (r->nr_foreign)
		pr_warn("nd_label %s: %u label%s it cannot use: their space is kept, no namespace is created in %s\n",
			r->name, r->nr_foreign, r->nr_foreign == 1 ? "" : "s", r->name);
	sort_sets(sets, nset);
	for (u32 i = 0; i < nset; i++) {
		struct nd_namespace_io *ns =
			nd_namespace_add(r, (int)i, r->start + sets[i].off, sets[i].size);
		if (ns)
			nd_namespace_set_label(ns, sets[i].l0, sets[i].slot, by_pos[0]);
	}
	const struct nd_lsa *l0 = &set_lsa[0];
	pr_info("nd_label %s: %u labelled namespace%s (labels v1.%u, index %d seq %u, %u slots%s)\n",
		r->name, nset, nset == 1 ? "" : "s", l0->index[l0->current].minor, l0->current,
		l0->index[l0->current].seq, l0->nslot, r->nr_mappings > 1 ? " on the first DIMM" : "");
}

/*
 * Parse the label areas of r's DIMMs into set_lsa. Returns how many hold a
 * valid index; *missing names a DIMM without an area or a valid index.
 */
static u32 parse_areas(const struct nd_region *r, const struct nvdimm **missing)
{
	u32 indexed = 0;

	*missing = NULL;
	for (u32 i = 0; i < r->nr_mappings; i++) {
		const struct nvdimm *d = r->mapping[i].nvdimm;

		if (d && d->lsa && !nd_lsa_parse(&set_lsa[i], d->lsa, d->lsa_size))
			indexed++;
		else if (!*missing)
			*missing = d;
	}
	return indexed;
}

/*
 * Close r: some of its DIMMs hold labels and some cannot (no area, no
 * valid index), so no namespace can be known to be whole; never opened
 * raw over what the labelled DIMMs describe. One line.
 */
static void close_region(struct nd_region *r, const char *why, const struct nvdimm *d, u32 indexed)
{
	r->closed = "a DIMM of its interleave set holds no label index";
	pr_warn("nd_label %s: disabled, no namespace: %u of its %u DIMMs hold a label index, %s %s; init-labels each DIMM of the set (or nd.labels=off)\n",
		r->name, indexed, r->nr_mappings, d ? d->name : "a DIMM", why);
}

void nd_region_namespaces_init(struct nd_region *r)
{
	const struct nvdimm *missing;
	u32 by_pos[ND_MAX_MAPPINGS], indexed;

	r->labelled = false;
	r->iset_id = 0;
	r->closed = NULL;
	r->nr_foreign = 0;
	if (!nd_labels_enabled() || !r->nr_mappings) {
		nd_namespace_io_init(r);
		return;
	}
	indexed = parse_areas(r, &missing);
	if (!indexed) {
		if (r->nr_mappings == 1 && missing && missing->lsa)
			pr_info("nd_label %s: %s has no valid label index (index0: %s; index1: %s): label-less\n",
				r->name, missing->name, set_lsa[0].index[0].why, set_lsa[0].index[1].why);
		nd_namespace_io_init(r);
		return;
	}
	if (indexed < r->nr_mappings) {
		close_region(r, missing && missing->lsa ? "has no valid label index" :
			     "has no label area", missing, indexed);
		return;
	}
	if (!nd_region_label_positions(r, by_pos)) {
		r->closed = "positions in its interleave set are not 0..N-1";
		pr_warn("nd_label %s: disabled, no namespace: %s\n", r->name, r->closed);
		return;
	}
	namespaces_from_labels(r, by_pos);
}

