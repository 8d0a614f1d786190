/*
 * ndctl's verbs on namespaces, beside the devices they drive (pfn_dev.c,
 * btt_dev.c): create-namespace (-e: reconfigure one; -r: a new labelled one),
 * destroy-namespace, disable-namespace, enable-namespace, read-infoblock,
 * check-namespace; and init-labels on a DIMM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_btt.h"
#include "nd_label.h"
#include "nd_pfn.h"
#include "nd_util.h"
#include "params.h"
#include "printk.h"
#include "shell.h"

static struct nd_namespace_io *find_ns(const char *name)
{
	struct nd_namespace_io *ns = name ? nd_namespace_find(name) : NULL;

	if (!ns)
		kprintf("%s: no such namespace (see 'list -N')\n", name ? name : "(none)");
	return ns;
}

static int cmd_create_namespace(int argc, char **argv)
{
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB };
	const char *ns_name = NULL, *mode = "fsdax", *map = NULL, *region = NULL, *name = NULL;
	u64 size = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
			req.force = true;
			continue;
		}
		if (!v) {
			kprintf("create-namespace: %s needs a value\n", a);
			return -EINVAL;
		}
		if (!strcmp(a, "-e") || !strcmp(a, "--reconfig"))
			ns_name = v;
		else if (!strcmp(a, "-r") || !strcmp(a, "--region"))
			region = v;
		else if (!strcmp(a, "-n") || !strcmp(a, "--name"))
			name = v;
		else if (!strcmp(a, "-s") || !strcmp(a, "--size")) {
			const char *end;
			if (parse_size(v, &size, &end) || *end || !size) {
				kprintf("create-namespace: bad size '%s'\n", v);
				return -EINVAL;
			}
		}
		else if (!strcmp(a, "-m") || !strcmp(a, "--mode"))
			mode = v;
		else if (!strcmp(a, "-M") || !strcmp(a, "--map"))
			map = v;
		else if (!strcmp(a, "-l") || !strcmp(a, "--sector-size")) {
			char *end;
			unsigned long n = strtoul(v, &end, 0);
			if (*end || !n || n > 0xFFFFFFFFUL) {
				kprintf("create-namespace: bad sector size '%s'\n", v);
				return -EINVAL;
			}
			req.lbasize = (u32)n;
		} else if (!strcmp(a, "-a") || !strcmp(a, "--align")) {
			if (nd_pfn_parse_align(v, &req.align))
				return -EINVAL;
		} else {
			kprintf("create-namespace: unknown option %s\n", a);
			return -EINVAL;
		}
		i++;
	}
	if (nd_pfn_parse_mode(mode, map, &req))
		return -EINVAL;
	if (req.lbasize && !req.sector) {
		kprintf("create-namespace: -l is for -m sector (other modes use the namespace's 512)\n");
		return -EINVAL;
	}
	if (!region == !ns_name || (!region && (size || name))) {
		kprintf("create-namespace: give -e NS (reconfigure) or -r REGION [-s SIZE] [-n NAME] (new)\n");
		return -EINVAL;
	}
	struct nd_namespace_io *ns;
	if (region) {
		/* ndctl takes the region's name or its number. */
		char named[24];
		snprintf(named, sizeof(named), "region%s", region);
		struct nd_region *r = nd_region_find(region) ? nd_region_find(region) : nd_region_find(named);
		if (!r) {
			kprintf("%s: no such region (see 'list -R')\n", region);
			return -EINVAL;
		}
		int err = nd_namespace_create_labelled(r, size, name, &req, &ns);
		if (err)
			return err;
		nd_list(ND_LIST_NAMESPACES, r->name, NULL);
		return 0;
	}
	ns = find_ns(ns_name);
	if (!ns)
		return -EINVAL;
	int err = nd_namespace_reconfigure(ns, &req);
	if (err)
		return err;
	nd_list(ND_LIST_NAMESPACES, ns->region->name, NULL);
	return 0;
}
SHELL_COMMAND(
	SHELL_NVDIMM, "create-namespace", cmd_create_namespace,
	"create-namespace -e NS|-r REGION [-s SIZE] [-n NAME] -m fsdax|devdax|sector|raw [-M mem|dev] [-a 4K|2M|1G] [-l 512|4096] [-f]",
	"-e: reconfigure a namespace (writes or zeroes its info block, needs -f); -r: a new labelled namespace");

static int cmd_destroy_namespace(int argc, char **argv)
{
	const char *ns_name = NULL;
	bool force = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))
			force = true;
		else
			ns_name = argv[i];
	}
	struct nd_namespace_io *ns = find_ns(ns_name);
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
	struct nd_namespace_io *ns = find_ns(argc == 2 ? argv[1] : NULL);

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
	struct nd_namespace_io *ns = find_ns(argc == 2 ? argv[1] : NULL);

	if (!ns)
		return -EINVAL;
	nd_namespace_enable(ns);
	kprintf("enabled 1 namespace\n");
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "enable-namespace", cmd_enable_namespace, "enable-namespace NS",
	      "probe a disabled namespace again");

/* The region DIMM d's labels describe, or NULL. */
static struct nd_region *label_region_of(const struct nvdimm *d)
{
	for (u32 i = 0; i < nd_region_count(); i++)
		if (nd_region_label_dimm(nd_region_get(i)) == d)
			return nd_region_get(i);
	return NULL;
}

static int cmd_init_labels(int argc, char **argv)
{
	const char *name = NULL, *ver = "1.2";
	bool force = false;
	static struct nd_lsa lsa;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))
			force = true;
		else if ((!strcmp(argv[i], "-V") || !strcmp(argv[i], "--label-version")) && i + 1 < argc)
			ver = argv[++i];
		else
			name = argv[i];
	}
	struct nvdimm *d = name ? nvdimm_find(name) : NULL;
	if (!d || (strcmp(ver, "1.1") && strcmp(ver, "1.2"))) {
		kprintf("usage: init-labels nmemX [-f] [-V 1.1|1.2]%s%s\n", name && !d ? ": no DIMM " : "",
			name && !d ? name : "");
		return -EINVAL;
	}
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
	u32 label_size = strcmp(ver, "1.1") ? 256 : 128;
	int err = r ? nd_region_relabel(r, label_size) : nd_label_init(d, label_size);
	if (!err)
		kprintf("initialized 1 nmem\n");
	return err;
}
SHELL_COMMAND(SHELL_NVDIMM, "init-labels", cmd_init_labels, "init-labels nmemX [-f] [-V 1.1|1.2]",
	      "write empty label index blocks (v1.2: 256-byte labels) to a DIMM; its raw namespaces go");

static int cmd_read_infoblock(int argc, char **argv)
{
	static struct nd_pfn_sb sb;
	struct nd_namespace_io *ns = find_ns(argc > 1 ? argv[argc - 1] : NULL);
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
	const char *ns_name = NULL;
	bool repair = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repair") || !strcmp(argv[i], "-r"))
			repair = true;
		else
			ns_name = argv[i];
	}
	struct nd_namespace_io *ns = find_ns(ns_name);
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
