/*
 * Label-less namespaces (Linux's nd_namespace_io): each region gets one
 * covering it whole, namespaceN.0 with block device pmemN, where N is the
 * region's number. A device (pfn now, btt later) claims a namespace to own
 * it; a claimed namespace is no longer a raw block device.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvdimm.h"

#define ND_SECTOR_SIZE 512	/* what Linux gives a label-less namespace */

void nd_namespace_io_init(struct nd_region *region)
{
	struct nd_namespace_io *ns = &region->ns;

	memset(ns, 0, sizeof(*ns));
	snprintf(ns->name, sizeof(ns->name), "namespace%d.0", region->id);
	snprintf(ns->blockdev, sizeof(ns->blockdev), "pmem%d", region->id);
	ns->region = region;
	ns->start = region->start;
	ns->size = region->size;
	ns->sector_size = ND_SECTOR_SIZE;
}

struct nd_namespace_io *nd_namespace_next(struct nd_namespace_io *prev)
{
	u32 next = prev ? (u32)prev->region->id + 1 : 0;
	struct nd_region *r = nd_region_get(next);

	return r ? &r->ns : NULL;
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
