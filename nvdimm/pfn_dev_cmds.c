/*
 * ndctl's verbs on namespaces, beside the devices they drive (pfn_dev.c,
 * btt_dev.c): create-namespace (-e: reconfigure one; -r: a new labelled one),
 * destroy-namespace, disable-namespace, enable-namespace, read-infoblock,
 * check-namespace; and init-labels on a DIMM.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_btt.h"
#include "nd_label.h"
#include "nd_pfn.h"
#include "nd_util.h"
#include "printk.h"
#include "shell.h"

static struct nd_namespace_io *find_ns(const char *name)
{
	struct nd_namespace_io *ns = name ? nd_namespace_find(name) : NULL;

	if (!ns)
		kprintf("%s: no such namespace (see 'list -N')\n", name ? name : "(none)");
	return ns;
}

/* create-namespace's options, as given. */
struct create_args {
	struct nd_pfn_request req;
	const char *ns_name, *mode, *map, *region, *name;
	u64 size;
};

/* Option argv[*i] and its value (*i moves onto it): 0, else one line and the usage. */
static int create_option(int argc, char **argv, int *i, struct create_args *o)
{
	const char *a = argv[*i], *v;
	const char **s = shell_arg_flag(a, "-e", "--reconfig") ? &o->ns_name :
			 shell_arg_flag(a, "-r", "--region")   ? &o->region :
			 shell_arg_flag(a, "-n", "--name")     ? &o->name :
			 shell_arg_flag(a, "-m", "--mode")     ? &o->mode :
			 shell_arg_flag(a, "-M", "--map")      ? &o->map :
								 NULL;
	bool size = shell_arg_flag(a, "-s", "--size");
	bool lba = shell_arg_flag(a, "-l", "--sector-size");
	bool align = shell_arg_flag(a, "-a", "--align");

	if (!s && !size && !lba && !align)
		return shell_arg_unexpected(argv[0], a);
	v = shell_arg_value(argc, argv, i);
	if (!v)
		return -EINVAL;
	if (s)
		*s = v;
	if (size)
		return shell_arg_size(argv[0], "size", v, 1, ~0ull, &o->size);
	if (lba)
		return shell_arg_u32(argv[0], "sector size", v, 1, ~0u, &o->req.lbasize);
	/* ndctl's spellings, shared with pmem.create= (one line if refused). */
	int err = align ? nd_pfn_parse_align(v, &o->req.align) : 0;
	if (err == -EINVAL)
		shell_usage(argv[0]);
	return err ? -EINVAL : 0;
}

/* All of create-namespace's arguments, checked together: 0, else one line and the usage. */
static int create_args(int argc, char **argv, struct create_args *o)
{
	for (int i = 1; i < argc; i++) {
		if (shell_arg_flag(argv[i], "-f", "--force"))
			o->req.force = true;
		else if (create_option(argc, argv, &i, o))
			return -EINVAL;
	}
	if (nd_pfn_parse_mode(o->mode, o->map, &o->req))
		return shell_usage(argv[0]);
	const char *why = nd_create_args_why(o->region, o->ns_name, o->size || o->name, &o->req);
	return why ? shell_arg_error(argv[0], "%s", why) : 0;
}

static int cmd_create_namespace(int argc, char **argv)
{
	struct create_args o = { .req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB },
				 .mode = "fsdax" };
	struct nd_namespace_io *ns;
	int err = create_args(argc, argv, &o);

	if (err)
		return err;
	if (o.region) {
		/* ndctl takes the region's name or its number. */
		char named[24];
		snprintf(named, sizeof(named), "region%s", o.region);
		struct nd_region *r = nd_region_find(o.region) ? nd_region_find(o.region) :
								 nd_region_find(named);
		if (!r) {
			kprintf("%s: no such region (see 'list -R')\n", o.region);
			return -EINVAL;
		}
		err = nd_namespace_create_labelled(r, o.size, o.name, &o.req, &ns);
		if (err)
			return err;
		nd_list(ND_LIST_NAMESPACES, r->name, NULL);
		return 0;
	}
	ns = find_ns(o.ns_name);
	if (!ns)
		return -EINVAL;
	err = nd_namespace_reconfigure(ns, &o.req);
	if (err)
		return err;
	nd_list(ND_LIST_NAMESPACES, ns->region->name, NULL);
	return 0;
}
SHELL_COMMAND(
	SHELL_NVDIMM, "create-namespace", cmd_create_namespace,
	"create-namespace -e NS|-r REGION [-s SIZE] [-n NAME] -m fsdax|devdax|sector|raw [-M mem|dev] [-a 4K|2M|1G] [-l 512|4096] [-f]",
	"-e: reconfigure a namespace (writes or zeroes its info block, needs -f); -r: a new labelled namespace");

/*
 * NS [FLAG]: the namespace (printed if there is none) and whether the flag
 * (its short and long spelling; NULL: the command has none) was given.
 */
static struct nd_namespace_io *ns_args(int argc, char **argv, const char *flag,
				       const char *long_flag, bool *set)
{
	const char *name = NULL;

	for (int i = 1; i < argc; i++) {
		if (flag && shell_arg_flag(argv[i], flag, long_flag)) {
			*set = true;
		} else if (name || argv[i][0] == '-') {
			shell_arg_unexpected(argv[0], argv[i]);
			return NULL;
		} else {
			name = argv[i];
		}
	}
	return shell_arg_name(argv[0], "namespace", name) ? NULL : find_ns(name);
}

static int cmd_destroy_namespace(int argc, char **argv)
{
	bool force = false;
	struct nd_namespace_io *ns = ns_args(argc, argv, "-f", "--force", &force);

	if (!ns)
		return -EINVAL;
	int err = nd_namespace_destroy(ns, force);
	if (!err)
		kprintf("destroyed 1 namespace\n");
	return err;
}
SHELL_COMMAND(SHELL_NVDIMM, "destroy-namespace", cmd_destroy_namespace, "destroy-namespace -f NS",
	      "zero a namespace's info block: a label-less one becomes raw, a labelled one loses its label");

static int cmd_disable_namespace(int argc, char **argv)
{
	struct nd_namespace_io *ns = ns_args(argc, argv, NULL, NULL, NULL);

	if (!ns)
		return -EINVAL;
	int err = nd_namespace_disable(ns);
	if (!err)
		kprintf("disabled 1 namespace\n");
	return err;
}
SHELL_COMMAND(SHELL_NVDIMM, "disable-namespace", cmd_disable_namespace, "disable-namespace NS",
	      "take a namespace's device down (nothing written) until enable-namespace");

static int cmd_enable_namespace(int argc, char **argv)
{
	struct nd_namespace_io *ns = ns_args(argc, argv, NULL, NULL, NULL);

	if (!ns)
		return -EINVAL;
	nd_namespace_enable(ns);
	kprintf("enabled 1 namespace\n");
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "enable-namespace", cmd_enable_namespace, "enable-namespace NS",
	      "probe a disabled namespace again");

/*
 * The region DIMM d's labels describe, or NULL: its one-DIMM region, or an
 * interleave set it is part of (which its labels close, see nd_label.h).
 */
static struct nd_region *label_region_of(const struct nvdimm *d)
{
	for (u32 i = 0; i < nd_region_count(); i++) {
		struct nd_region *r = nd_region_get(i);

		for (u32 m = 0; m < r->nr_mappings; m++)
			if (r->mapping[m].nvdimm == d)
				return r;
	}
	return NULL;
}

/* nmemX [-f] [-V 1.1|1.2]: the DIMM (printed if there is none), -f, the label size. */
static struct nvdimm *init_labels_args(int argc, char **argv, bool *force, u32 *label_size)
{
	static const char *const versions[] = { "1.1", "1.2", NULL };
	const char *name = NULL, *v;

	for (int i = 1; i < argc; i++) {
		if (shell_arg_flag(argv[i], "-f", "--force")) {
			*force = true;
		} else if (shell_arg_flag(argv[i], "-V", "--label-version")) {
			v = shell_arg_value(argc, argv, &i);
			int k = v ? shell_arg_keyword(argv[0], "label version", v, versions) :
				    -EINVAL;
			if (k < 0)
				return NULL;
			*label_size = k == 0 ? 128 : 256;
		} else if (name || argv[i][0] == '-') {
			shell_arg_unexpected(argv[0], argv[i]);
			return NULL;
		} else {
			name = argv[i];
		}
	}
	if (shell_arg_name(argv[0], "DIMM", name))
		return NULL;
	struct nvdimm *d = nvdimm_find(name);
	if (!d)
		kprintf("%s: no such DIMM (see 'list -D')\n", name);
	return d;
}

static int cmd_init_labels(int argc, char **argv)
{
	bool force = false;
	u32 label_size = 256;	/* v1.2 */
	static struct nd_lsa lsa;
	struct nvdimm *d = init_labels_args(argc, argv, &force, &label_size);

	if (!d)
		return -EINVAL;
	if (!d->lsa) {
		kprintf("%s: no label area (or nd.labels=off)\n", d->name);
		return -ENXIO;
	}
	if (!force && nd_lsa_parse(&lsa, d->lsa, d->lsa_size) == 0) {
		kprintf("%s: error: labels already initialized (-f to overwrite)\n", d->name);
		return -EBUSY;
	}
	struct nd_region *r = label_region_of(d);
	for (u32 i = 0; r && nd_region_namespace(r, i); i++) {
		struct nd_namespace_io *ns = nd_region_namespace(r, i);
		if (ns->claim) {
			kprintf("%s: %s is active (%s): destroy it first\n", d->name, ns->name,
				ns->claim_ops ? ns->claim_ops->name : "claimed");
			return -EBUSY;
		}
	}
	int err = r ? nd_region_relabel(r, d, label_size) : nd_label_init(d, label_size);
	if (!err)
		kprintf("initialized 1 nmem\n");
	return err;
}
SHELL_COMMAND(SHELL_NVDIMM, "init-labels", cmd_init_labels, "init-labels nmemX [-f] [-V 1.1|1.2]",
	      "write empty label index blocks (v1.2: 256-byte labels) to a DIMM; its raw namespaces go");

static int cmd_read_infoblock(int argc, char **argv)
{
	static struct nd_pfn_sb sb;
	struct nd_namespace_io *ns = ns_args(argc, argv, NULL, NULL, NULL);
	struct nd_pfn_layout l;
	const char *why;
	char uuid[UUID_STR_LEN + 1], parent[UUID_STR_LEN + 1];

	if (!ns)
		return -EINVAL;
	int err = nd_pfn_read_sb(ns, &sb);
	if (err)
		return err;
	struct nd_pfn_geom g = { .start = ns->start, .size = ns->size };
	err = memcmp(sb.signature, DAX_SIG, PFN_SIG_LEN) == 0 ? nd_dax_validate(&sb, &g, &l, &why) :
								 nd_pfn_validate(&sb, &g, &l, &why);
	uuid_to_str(sb.uuid, uuid);
	uuid_to_str(sb.parent_uuid, parent);
	kprintf("[\n  {\n    \"dev\":\"%s\",\n    \"signature\":\"%.15s\",\n    \"uuid\":\"%s\",\n"
		"    \"parent_uuid\":\"%s\",\n    \"flags\":%u,\n    \"version\":\"%u.%u\",\n"
		"    \"dataoff\":%llu,\n    \"npfns\":%llu,\n    \"mode\":%u,\n    \"start_pad\":%u,\n"
		"    \"end_trunc\":%u,\n    \"align\":%u,\n    \"page_size\":%u,\n"
		"    \"page_struct_size\":%u,\n    \"checksum\":\"0x%016llx\",\n    \"valid\":%s%s%s%s\n  }\n]\n",
		ns->name, (const char *)sb.signature, uuid, parent, sb.flags, sb.version_major,
		sb.version_minor, sb.dataoff, sb.npfns, sb.mode, sb.start_pad, sb.end_trunc,
		sb.align, sb.page_size, sb.page_struct_size, sb.checksum, err ? "false" : "true",
		err ? ",\n    \"reason\":\"" : "", err ? why : "", err ? "\"" : "");
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "read-infoblock", cmd_read_infoblock, "read-infoblock NS",
	      "print a namespace's info block as JSON, validated (never writes)");

static int cmd_check_namespace(int argc, char **argv)
{
	bool repair = false;
	struct nd_namespace_io *ns = ns_args(argc, argv, "-r", "--repair", &repair);

	if (!ns)
		return -EINVAL;
	int err = nd_btt_check_namespace(ns, repair);
	if (err)
		kprintf("error checking namespaces: %s (error %d)\n",
			err == -ENXIO  ? "no BTT on the namespace" :
			err == -EROFS  ? "read-only region" :
			err == -ENOMEM ? "out of memory" :
					 "the BTT is not consistent",
			err);
	else
		kprintf("checked 1 namespace\n");
	return err;
}
SHELL_COMMAND(SHELL_NVDIMM, "check-namespace", cmd_check_namespace, "check-namespace NS [--repair]",
	      "check a sector namespace's BTT as ndctl does; --repair fixes what it can");
