/*
 * ndctl's verbs on namespaces, beside the devices they drive (pfn_dev.c,
 * btt_dev.c): create-namespace, destroy-namespace, read-infoblock and
 * check-namespace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_btt.h"
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

static int cmd_create_namespace(int argc, char **argv)
{
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB };
	const char *ns_name = NULL, *mode = "fsdax", *map = NULL;

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
	struct nd_namespace_io *ns = find_ns(ns_name);
	if (!ns || nd_pfn_parse_mode(mode, map, &req))
		return -EINVAL;
	if (req.lbasize && !req.sector) {
		kprintf("create-namespace: -l is for -m sector (other modes use the namespace's 512)\n");
		return -EINVAL;
	}
	int err = nd_namespace_reconfigure(ns, &req);
	if (err)
		return err;
	nd_list(ND_LIST_NAMESPACES, ns->region->name, NULL);
	return 0;
}
SHELL_COMMAND(
	SHELL_NVDIMM, "create-namespace", cmd_create_namespace,
	"create-namespace -e NS -m fsdax|devdax|sector|raw [-M mem|dev] [-a 4K|2M|1G] [-l 512|4096] -f",
	"reconfigure a namespace (writes or zeroes its info block)");

static int cmd_destroy_namespace(int argc, char **argv)
{
	struct nd_pfn_request req = { .mode = PFN_MODE_NONE };
	const char *ns_name = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))
			req.force = true;
		else
			ns_name = argv[i];
	}
	struct nd_namespace_io *ns = find_ns(ns_name);
	if (!ns)
		return -EINVAL;
	int err = nd_namespace_reconfigure(ns, &req);
	if (!err)
		kprintf("destroyed 1 namespace\n");
	return err;
}
SHELL_COMMAND(SHELL_NVDIMM, "destroy-namespace", cmd_destroy_namespace, "destroy-namespace -f NS",
	      "zero a namespace's info block; it becomes raw");

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
