/*
 * Namespaces: one table for all regions. A label-less region gets one
 * covering it whole (Linux's nd_namespace_io), namespaceN.0 with block
 * device pmemN, where N is the region's number; a labelled region one per
 * label (namespace_label.c), namespaceN.Y with pmemN.Y (pmemN for Y = 0),
 * as Linux names them. A device (pfn, btt, dax) claims a namespace to own
 * it; a claimed namespace is no longer a raw block device.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvdimm.h"
#include "printk.h"

#define ND_SECTOR_SIZE 512	/* what Linux gives a raw namespace */

static struct nd_namespace_io namespaces[ND_MAX_NAMESPACES];

void nd_namespaces_reset(void)
{
	memset(namespaces, 0, sizeof(namespaces));
}

struct nd_namespace_io *nd_namespace_add(struct nd_region *region, int id, u64 start, u64 size)
{
	for (size_t i = 0; i < ARRAY_SIZE(namespaces); i++) {
		struct nd_namespace_io *ns = &namespaces[i];

		if (ns->region)
			continue;
		memset(ns, 0, sizeof(*ns));
		ns->id = id;
		snprintf(ns->name, sizeof(ns->name), "namespace%d.%d", region->id, id);
		if (id)
			snprintf(ns->blockdev, sizeof(ns->blockdev), "pmem%d.%d", region->id, id);
		else
			snprintf(ns->blockdev, sizeof(ns->blockdev), "pmem%d", region->id);
		ns->region = region;
		ns->start = start;
		ns->size = size;
		ns->sector_size = ND_SECTOR_SIZE;
		region->nr_namespaces++;
		return ns;
	}
	pr_err("nd_region %s: more than %d namespaces in all, namespace%d.%d not created\n",
	       region->name, ND_MAX_NAMESPACES, region->id, id);
	return NULL;
}

int nd_namespace_map(struct nd_namespace_io *ns)
{
	if (ns->io.size)
		return 0;
	return nsio_init(&ns->io, ns->start, ns->size, ns->region);
}

void nd_namespace_remove(struct nd_namespace_io *ns)
{
	ns->region->nr_namespaces--;
	memset(ns, 0, sizeof(*ns));
}

void nd_namespace_io_init(struct nd_region *region)
{
	nd_namespace_add(region, 0, region->start, region->size);
}

int nd_namespace_index(const struct nd_namespace_io *ns)
{
	return (int)(ns - namespaces);
}

/* The namespace after (region id, Y) = (rid, id) in that order, or NULL. */
static struct nd_namespace_io *next_after(int rid, int id)
{
	struct nd_namespace_io *best = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(namespaces); i++) {
		struct nd_namespace_io *ns = &namespaces[i];
		int r;

		if (!ns->region || ns->region->id < 0)
			continue;
		r = ns->region->id;
		if (r < rid || (r == rid && ns->id <= id))
			continue;
		if (!best || r < best->region->id || (r == best->region->id && ns->id < best->id))
			best = ns;
	}
	return best;
}

struct nd_namespace_io *nd_namespace_next(struct nd_namespace_io *prev)
{
	return prev ? next_after(prev->region->id, prev->id) : next_after(-1, 0);
}

struct nd_namespace_io *nd_region_namespace(const struct nd_region *region, u32 i)
{
	struct nd_namespace_io *ns = next_after(region->id, -1);

	for (; ns && ns->region == region; ns = nd_namespace_next(ns))
		if (i-- == 0)
			return ns;
	return NULL;
}

int nd_namespace_free_id(const struct nd_region *region)
{
	int id = 0;

	for (struct nd_namespace_io *ns = nd_region_namespace(region, 0);
	     ns && ns->region == region; ns = nd_namespace_next(ns)) {
		if (ns->id != id)
			break;
		id++;
	}
	return id;
}

struct nd_namespace_io *nd_namespace_find(const char *name)
{
	for_each_nd_namespace(ns)
		if (strcmp(ns->name, name) == 0 || strcmp(ns->blockdev, name) == 0)
			return ns;
	return NULL;
}

int nd_namespace_claim(struct nd_namespace_io *ns, void *owner,
		       const struct nd_claim_ops *ops, bool write)
{
	if (ns->claim && ns->claim != owner)
		return -EBUSY;
	if (write && ns->region->ro)
		return -EROFS;
	ns->claim = owner;
	ns->claim_ops = ops;
	return 0;
}

int nd_namespace_release(struct nd_namespace_io *ns, void *owner)
{
	if (!ns->claim || ns->claim != owner)
		return -EINVAL;
	ns->claim = NULL;
	ns->claim_ops = NULL;
	return 0;
}

void nd_namespace_view(const struct nd_namespace_io *ns, struct nd_ns_view *v)
{
	/* Unclaimed: raw, as list.c's namespace_json prints it; a claim says for itself. */
	*v = (struct nd_ns_view){ .mode = "raw", .size = ns->size };
	if (!ns->claim && !ns->disabled)
		v->device = ns->blockdev;
	if (ns->claim && ns->claim_ops && ns->claim_ops->view)
		ns->claim_ops->view(ns, v);
}
