/*
 * A namespace whose info blocks cannot be read (a bad sector in its first
 * 8 KiB, media_error.h): what it is cannot be known, so the probe claims
 * it disabled here with the reason, never as fsdax, devdax or sector and
 * never as a raw disk, whose writes could destroy what is there. The way
 * back rewrites the area (create-namespace -f -e, destroy-namespace -f:
 * whole sectors written heal them), or enable-namespace probes it again.
 */
#include <stdio.h>
#include <string.h>

#include "badblocks.h"
#include "nd_label.h"
#include "nd_pfn.h"
#include "nd_util.h"
#include "printk.h"

struct bad_head {
	u64 sector; /* the first bad one, namespace-relative */
	char reason[192];
};

static struct bad_head bad_heads[ND_MAX_NAMESPACES];

/* ndctl's fields of a namespace without a device: a label's mode, else unknown. */
static void bad_head_json(const struct nd_namespace_io *ns, struct nd_json *j)
{
	const struct bad_head *h = ns->claim;
	char uuid[UUID_STR_LEN + 1];

	nd_json_str(j, "mode", ns->labelled ? nd_claim_class_mode(ns->claim_class) : "unknown");
	nd_json_u64(j, "size", ns->size);
	if (ns->labelled) {
		uuid_to_str(ns->uuid, uuid);
		nd_json_str(j, "uuid", uuid);
	}
	nd_json_u64(j, "sector_size", ns->sector_size);
	nd_json_str(j, "state", "disabled");
	nd_json_str(j, "reason", h->reason);
}

/* As bad_head_json: no device, the label's mode if it has one. */
static void bad_head_view(const struct nd_namespace_io *ns, struct nd_ns_view *v)
{
	v->mode = ns->labelled ? nd_claim_class_mode(ns->claim_class) : "unknown";
}

static const struct nd_claim_ops bad_head_ops = { "media", bad_head_json, NULL, bad_head_view };

void nd_bad_head_claim(struct nd_namespace_io *ns, u64 sector)
{
	struct bad_head *h = &bad_heads[nd_namespace_index(ns)];

	h->sector = sector;
	snprintf(
		h->reason, sizeof(h->reason),
		"media error at sector %llu of its info blocks: create-namespace -f -e %s or destroy-namespace -f %s rewrites them",
		sector, ns->name, ns->name);
	nd_namespace_claim(ns, h, &bad_head_ops, false);
	pr_err("nd_pmem %s: media error at sector %llu of its info blocks (the first 8 KiB): not probed, disabled (not raw); create-namespace -f -e or destroy-namespace -f rewrites them, enable-namespace probes again\n",
	       ns->name, sector);
}

bool nd_bad_head_of(const struct nd_namespace_io *ns)
{
	return ns->claim == &bad_heads[nd_namespace_index(ns)];
}

void nd_bad_head_release(struct nd_namespace_io *ns)
{
	if (nd_bad_head_of(ns))
		nd_namespace_release(ns, ns->claim);
}
