/*
 * `list`: what `ndctl list` prints, with its field names and its shapes
 * (ndctl/json.c, ndctl/list.c): one category is a bare array, several are
 * an object of arrays, namespaces nest in their regions with -R, mappings
 * appear with -D, -B groups everything by bus. Pretty printed the way
 * json-c does it for ndctl, so output can be diffed against Linux's.
 */
#include <errno.h>
#include <string.h>

#include "media_error.h"
#include "nd_label.h"
#include "nd_smart.h"
#include "nd_util.h"
#include "nvdimm.h"
#include "printk.h"
#include "shell.h"

struct list_opts {
	unsigned int what;	/* ND_LIST_* */
	const char *region;	/* filter: "regionN" or "N"; NULL: all */
	const char *dimm;	/* filter: "nmemN" or "N" */
	const struct nd_bus *bus;	/* with -B: the bus being printed */
};

/* ndctl's filters accept the device name or its number. */
static bool name_matches(const char *filter, const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return !filter || strcmp(filter, name) == 0 ||
	       (strncmp(name, prefix, n) == 0 && strcmp(filter, name + n) == 0);
}

static bool dimm_wanted(const struct nvdimm *d, const struct list_opts *o)
{
	return (!o->bus || d->bus == o->bus) && name_matches(o->dimm, d->name, "nmem");
}

static bool region_wanted(const struct nd_region *r, const struct list_opts *o)
{
	if ((o->bus && r->bus != o->bus) || !name_matches(o->region, r->name, "region"))
		return false;
	if (!o->dimm)
		return true;
	for (u32 i = 0; i < r->nr_mappings; i++)
		if (dimm_wanted(r->mapping[i].nvdimm, o))
			return true;
	return false;
}

/*
 * ndctl's dimm flags: one key per flag that is set (nd_dimm_flag_names);
 * with -H the firmware's SMART payload, read now, as ndctl reads it.
 */
static void dimm_json(struct nd_json *j, const struct nvdimm *d, const struct list_opts *o)
{
	nd_json_open(j, NULL, '{');
	nd_json_str(j, "dev", d->name);
	if (d->has_dcr)
		nd_json_str(j, "id", d->unique_id);
	nd_json_u64(j, "handle", d->handle);
	nd_json_u64(j, "phys_id", d->phys_id);
	for (size_t i = 0; i < ARRAY_SIZE(nd_dimm_flag_names); i++)
		if ((d->flags & nd_dimm_flag_names[i].flag) && nd_dimm_flag_names[i].json)
			nd_json_bool(j, nd_dimm_flag_names[i].json, true);
	if ((o->what & ND_LIST_HEALTH) && d->smart_ops) {
		struct nd_smart s;

		d->smart_ops->read((struct nvdimm *)d, &s);
		nd_smart_json(j, &s);
	}
	nd_json_close(j, '}');
}

void nd_node_json(struct nd_json *j, int numa_node, int target_node)
{
	if (numa_node >= 0)
		nd_json_int(j, "numa_node", numa_node);
	if (target_node >= 0)
		nd_json_int(j, "target_node", target_node);
}

/* A labelled namespace's label uuid, beside the uuid of the device claiming it. */
void nd_namespace_raw_uuid_json(const struct nd_namespace_io *ns, struct nd_json *j)
{
	char uuid[UUID_STR_LEN + 1];

	if (!ns->labelled)
		return;
	uuid_to_str(ns->uuid, uuid);
	nd_json_str(j, "raw_uuid", uuid);
}

/*
 * ndctl's badblock_count and (with -M) badblocks over physical [start,
 * start + size) of r: offsets and lengths in 512-byte sectors from
 * `start`, with the DIMM when the region has one (an interleaved region's
 * would need the firmware's address translation: left out, as ndctl does
 * without it).
 */
static void badblocks_json(struct nd_json *j, struct nd_region *r, u64 start, u64 size,
			   bool count_only, bool media_errors)
{
	struct bb_extent e[BADBLOCKS_MAX];
	u64 sectors;
	u32 n = badblocks_range(&r->bb, (start - r->start) >> BADBLOCK_SHIFT,
				size >> BADBLOCK_SHIFT, e, BADBLOCKS_MAX, &sectors);

	if (!sectors)
		return;
	nd_json_u64(j, "badblock_count", sectors);
	if (!media_errors || count_only)
		return;
	nd_json_open(j, "badblocks", '[');
	for (u32 i = 0; i < n && i < BADBLOCKS_MAX; i++) {
		nd_json_open(j, NULL, '{');
		nd_json_u64(j, "offset", e[i].sector);
		nd_json_u64(j, "length", e[i].len);
		if (r->nr_mappings == 1) {
			nd_json_open(j, "dimms", '[');
			nd_json_str(j, NULL, r->mapping[0].nvdimm->name);
			nd_json_close(j, ']');
		}
		nd_json_close(j, '}');
	}
	nd_json_close(j, ']');
}

static void namespace_badblocks_json(struct nd_json *j, const struct nd_namespace_io *ns,
				     bool media_errors)
{
	u64 start = ns->start, size = ns->size;
	bool count_only = false;

	if (ns->claim_ops && ns->claim_ops->media_span)
		ns->claim_ops->media_span(ns, &start, &size, &count_only);
	badblocks_json(j, ns->region, start, size, count_only, media_errors);
}

static void namespace_json(struct nd_json *j, const struct nd_namespace_io *ns,
			   bool media_errors)
{
	char uuid[UUID_STR_LEN + 1];

	nd_json_open(j, NULL, '{');
	nd_json_str(j, "dev", ns->name);
	if (ns->claim_ops && ns->claim_ops->list_json) {
		ns->claim_ops->list_json(ns, j);
	} else {
		nd_json_str(j, "mode", "raw");
		nd_json_u64(j, "size", ns->size);
		if (ns->labelled) {
			uuid_to_str(ns->uuid, uuid);
			nd_json_str(j, "uuid", uuid);
		}
		nd_json_u64(j, "sector_size", ns->sector_size);
		if (ns->disabled)
			nd_json_str(j, "state", "disabled");
		else
			nd_json_str(j, "blockdev", ns->blockdev);
		nd_node_json(j, ns->region->numa_node, ns->region->target_node);
	}
	if (ns->alt_name[0])
		nd_json_str(j, "name", ns->alt_name);
	namespace_badblocks_json(j, ns, media_errors);
	nd_json_close(j, '}');
}

/* The region's namespaces in Y order. */
static void region_namespaces_json(struct nd_json *j, const struct nd_region *r,
				   const struct list_opts *o)
{
	for (u32 i = 0; nd_region_namespace(r, i); i++)
		namespace_json(j, nd_region_namespace(r, i), o->what & ND_LIST_MEDIA_ERRORS);
}

static void mappings_json(struct nd_json *j, const struct nd_region *r,
			  const struct list_opts *o)
{
	bool open = false;

	for (u32 i = 0; i < r->nr_mappings; i++) {
		const struct nd_mapping *m = &r->mapping[i];
		if (!dimm_wanted(m->nvdimm, o))
			continue;
		if (!open)
			nd_json_open(j, "mappings", '[');
		open = true;
		nd_json_open(j, NULL, '{');
		nd_json_str(j, "dimm", m->nvdimm->name);
		nd_json_u64(j, "offset", m->start);
		nd_json_u64(j, "length", m->size);
		nd_json_int(j, "position", m->position);
		nd_json_close(j, '}');
	}
	if (open)
		nd_json_close(j, ']');
}

static void region_json(struct nd_json *j, const struct nd_region *r, const struct list_opts *o)
{
	nd_json_open(j, NULL, '{');
	nd_json_str(j, "dev", r->name);
	if (r->closed)
		nd_json_str(j, "state", "disabled");	/* ndctl's word for a region without its driver */
	nd_json_u64(j, "size", r->size);
	nd_json_u64(j, "align", r->align);
	/* Label-less: the namespace_io takes everything, nothing is left to allocate. */
	u64 avail, max_extent;
	nd_region_available(r, &avail, &max_extent);
	nd_json_u64(j, "available_size", avail);
	nd_json_u64(j, "max_available_extent", max_extent);
	nd_json_str(j, "type", "pmem");
	nd_node_json(j, r->numa_node, r->target_node);
	if (r->labelled)
		nd_json_u64(j, "iset_id", r->iset_id);
	if (o->what & ND_LIST_DIMMS)
		mappings_json(j, r, o);
	badblocks_json(j, (struct nd_region *)r, r->start, r->size, false,
		       o->what & ND_LIST_MEDIA_ERRORS);
	nd_json_str(j, "persistence_domain", nd_persistence_name(r->persistence));
	if (o->what & ND_LIST_NAMESPACES) {
		if (r->nr_namespaces) {
			nd_json_open(j, "namespaces", '[');
			region_namespaces_json(j, r, o);
			nd_json_close(j, ']');
		}
	}
	nd_json_close(j, '}');
}

static u32 count_dimms(const struct list_opts *o)
{
	u32 n = 0;

	if (o->what & ND_LIST_DIMMS)
		for (u32 i = 0; i < nvdimm_count(); i++)
			n += dimm_wanted(nvdimm_get(i), o);
	return n;
}

/* Regions shown (with -R) or namespaces shown at the top (-N alone). */
static u32 count_regions(const struct list_opts *o, unsigned int flag)
{
	u32 n = 0;

	if (o->what & flag)
		for (u32 i = 0; i < nd_region_count(); i++)
			if (region_wanted(nd_region_get(i), o))
				n += flag == ND_LIST_NAMESPACES ? nd_region_get(i)->nr_namespaces : 1;
	return n;
}

static void dimms_json(struct nd_json *j, const char *key, const struct list_opts *o)
{
	nd_json_open(j, key, '[');
	for (u32 i = 0; i < nvdimm_count(); i++)
		if (dimm_wanted(nvdimm_get(i), o))
			dimm_json(j, nvdimm_get(i), o);
	nd_json_close(j, ']');
}

static void regions_json(struct nd_json *j, const char *key, const struct list_opts *o)
{
	nd_json_open(j, key, '[');
	for (u32 i = 0; i < nd_region_count(); i++)
		if (region_wanted(nd_region_get(i), o))
			region_json(j, nd_region_get(i), o);
	nd_json_close(j, ']');
}

static void namespaces_json(struct nd_json *j, const char *key, const struct list_opts *o)
{
	nd_json_open(j, key, '[');
	for (u32 i = 0; i < nd_region_count(); i++)
		if (region_wanted(nd_region_get(i), o))
			region_namespaces_json(j, nd_region_get(i), o);
	nd_json_close(j, ']');
}

/* dimms, regions, top-level namespaces: keyed when `keyed`, else a bare array. */
static void categories_json(struct nd_json *j, const struct list_opts *o, bool keyed)
{
	unsigned int ns_top = (o->what & ND_LIST_REGIONS) ? 0 : ND_LIST_NAMESPACES;

	if (count_dimms(o))
		dimms_json(j, keyed ? "dimms" : NULL, o);
	if (count_regions(o, ND_LIST_REGIONS))
		regions_json(j, keyed ? "regions" : NULL, o);
	if (count_regions(o, ns_top))
		namespaces_json(j, keyed ? "namespaces" : NULL, o);
}

static void buses_json(struct nd_json *j, struct list_opts *o)
{
	nd_json_open(j, NULL, '[');
	for (u32 i = 0; i < nd_bus_count(); i++) {
		o->bus = nd_bus_get(i);
		nd_json_open(j, NULL, '{');
		nd_json_str(j, "provider", o->bus->provider);
		nd_json_str(j, "dev", o->bus->name);
		categories_json(j, o, true);
		nd_json_close(j, '}');
	}
	nd_json_close(j, ']');
	o->bus = NULL;
}

static void list_opts(struct list_opts *o, bool buses)
{
	struct nd_json j = { .first = true };
	unsigned int ns_top = (o->what & ND_LIST_REGIONS) ? 0 : ND_LIST_NAMESPACES;
	int kinds;

	if (buses) {
		if (nd_bus_count())
			buses_json(&j, o);
		return;
	}
	kinds = (count_dimms(o) > 0) + (count_regions(o, ND_LIST_REGIONS) > 0) +
		(count_regions(o, ns_top) > 0);
	if (kinds > 1) {
		nd_json_open(&j, NULL, '{');
		categories_json(&j, o, true);
		nd_json_close(&j, '}');
	} else if (kinds == 1) {
		categories_json(&j, o, false);
	}
}

void nd_list(unsigned int what, const char *region, const char *dimm)
{
	struct list_opts o = { .what = what, .region = region, .dimm = dimm };

	list_opts(&o, false);
}

#define LIST_USAGE "list [-B] [-D] [-R] [-N] [-H] [-M] [-v] [-r region] [-d dimm]"

/* One short flag of a cluster like -RND; -1 if unknown. */
static int short_flag(char c, unsigned int *what, bool *buses)
{
	switch (c) {
	case 'D': *what |= ND_LIST_DIMMS; return 0;
	case 'R': *what |= ND_LIST_REGIONS; return 0;
	case 'N': *what |= ND_LIST_NAMESPACES; return 0;
	case 'B': *buses = true; return 0;
	case 'M': *what |= ND_LIST_MEDIA_ERRORS; return 0;
	case 'H': *what |= ND_LIST_HEALTH; return 0;
	case 'v': case 'u': case 'i': return 0;	/* always verbose; sizes in bytes */
	default: return -1;
	}
}

static int long_flag(const char *a, unsigned int *what, bool *buses)
{
	static const struct {
		const char *name;
		char c;
	} longs[] = { { "--dimms", 'D' }, { "--regions", 'R' }, { "--namespaces", 'N' },
		      { "--buses", 'B' }, { "--verbose", 'v' },
		      { "--media-errors", 'M' }, { "--health", 'H' } };

	for (size_t i = 0; i < ARRAY_SIZE(longs); i++)
		if (strcmp(a, longs[i].name) == 0)
			return short_flag(longs[i].c, what, buses);
	return -1;
}

static int parse_args(int argc, char **argv, struct list_opts *o, bool *buses)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **filter = shell_arg_flag(a, "-r", "--region") ? &o->region :
				      shell_arg_flag(a, "-d", "--dimm")	  ? &o->dimm : NULL;
		if (filter) {
			*filter = shell_arg_value(argc, argv, &i);
			if (!*filter)
				return -EINVAL;
			continue;
		}
		if (a[0] == '-' && a[1] == '-') {
			if (long_flag(a, &o->what, buses))
				return shell_arg_unexpected(argv[0], a);
			continue;
		}
		if (a[0] != '-' || !a[1])
			return shell_arg_unexpected(argv[0], a);
		for (const char *c = a + 1; *c; c++)
			if (short_flag(*c, &o->what, buses))
				return shell_arg_unexpected(argv[0], a);
	}
	return 0;
}

/* The `list` shell command: list [-D] [-R] [-N] [-H] [-M] [-v] [-r regionN] [-d nmemN]. */
static int nd_list_cmd(int argc, char **argv)
{
	struct list_opts o = { 0 };
	bool buses = false;

	if (parse_args(argc, argv, &o, &buses))
		return -EINVAL;
	media_errors_drain();	/* what a machine check queued is shown */
	/* ndctl's default is namespaces only; ours shows everything. */
	if (!(o.what & (ND_LIST_DIMMS | ND_LIST_REGIONS | ND_LIST_NAMESPACES)))
		o.what |= ND_LIST_DIMMS | ND_LIST_REGIONS | ND_LIST_NAMESPACES;
	list_opts(&o, buses);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "list", nd_list_cmd, LIST_USAGE,
	      "nvdimm dimms (-D), regions (-R), namespaces (-N), DIMM health (-H), media errors (-M) as ndctl list JSON");
