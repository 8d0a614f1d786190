/*
 * Shell commands and the pmem.create= parameter for namespaces and block
 * devices, in ndctl's words: create-namespace, destroy-namespace,
 * read-infoblock; and sector I/O for tests and operators: write, read, cmp,
 * dax.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_pfn.h"
#include "nd_util.h"
#include "params.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"

static int parse_align(const char *s, u64 *align)
{
	const char *end;

	if (parse_size(s, align, &end) || *end || !nd_pfn_align_supported(*align)) {
		kprintf("align '%s': expected 4K, 2M or 1G\n", s);
		return -EINVAL;
	}
	return 0;
}

static int parse_mode(const char *m, const char *map, struct nd_pfn_request *req)
{
	if (!strcmp(m, "raw")) {
		req->mode = PFN_MODE_NONE;
		return 0;
	}
	if (strcmp(m, "fsdax") && strcmp(m, "memory")) {
		kprintf("mode '%s': expected fsdax or raw (devdax and sector are not supported)\n", m);
		return -EINVAL;
	}
	if (!map || !strcmp(map, "dev")) {
		req->mode = PFN_MODE_PMEM;
	} else if (!strcmp(map, "mem")) {
		req->mode = PFN_MODE_RAM;
	} else {
		kprintf("map '%s': expected mem or dev\n", map);
		return -EINVAL;
	}
	return 0;
}

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
		else if (!strcmp(a, "-a") || !strcmp(a, "--align")) {
			if (parse_align(v, &req.align))
				return -EINVAL;
		} else {
			kprintf("create-namespace: unknown option %s\n", a);
			return -EINVAL;
		}
		i++;
	}
	struct nd_namespace_io *ns = find_ns(ns_name);
	if (!ns || parse_mode(mode, map, &req))
		return -EINVAL;
	int err = nd_namespace_reconfigure(ns, &req);
	if (err)
		return err;
	nd_list(ND_LIST_NAMESPACES, ns->region->name, NULL);
	return 0;
}
SHELL_COMMAND("create-namespace", cmd_create_namespace,
	      "create-namespace -e NS -m fsdax|raw [-M mem|dev] [-a 4K|2M|1G] -f",
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
SHELL_COMMAND("destroy-namespace", cmd_destroy_namespace, "destroy-namespace -f NS",
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
	err = nd_pfn_validate(&sb, &g, &l, &why);
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
SHELL_COMMAND("read-infoblock", cmd_read_infoblock, "read-infoblock NS",
	      "print a namespace's info block as JSON, validated (never writes)");

/* Fill patterns: pattern=0xNN (every byte) or seq=N (8-byte words that encode their offset). */
struct io_pattern {
	bool seq;
	u64 value;
};

static int parse_pattern(const char *arg, struct io_pattern *p)
{
	char *end;

	if (!strncmp(arg, "pattern=", 8)) {
		p->seq = false;
		p->value = strtoull(arg + 8, &end, 0);
		if (end == arg + 8 || *end || p->value > 0xFF)
			goto bad;
		return 0;
	}
	if (!strncmp(arg, "seq=", 4)) {
		p->seq = true;
		p->value = strtoull(arg + 4, &end, 0);
		if (end == arg + 4 || *end)
			goto bad;
		return 0;
	}
bad:
	kprintf("'%s': expected pattern=0xNN or seq=N\n", arg);
	return -EINVAL;
}

static u64 seq_word(u64 seed, u64 off)
{
	return (off * 0x9E3779B97F4A7C15ULL) ^ seed;
}

static void fill(const struct io_pattern *p, u8 *buf, u64 off, u64 len)
{
	if (!p->seq) {
		memset(buf, (int)p->value, len);
		return;
	}
	for (u64 i = 0; i < len; i += 8) {
		u64 w = seq_word(p->value, off + i);
		memcpy(buf + i, &w, 8);
	}
}

#define IO_CHUNK (1 * MiB)

/* DEV SECTOR COUNT: resolve the device and the byte range (checked again by pmem_rw). */
static struct pmem_device *io_args(int argc, char **argv, u64 *off, u64 *len)
{
	if (argc < 4) {
		kprintf("usage: %s DEV SECTOR COUNT ...\n", argv[0]);
		return NULL;
	}
	struct pmem_device *dev = pmem_find(argv[1]);
	if (!dev) {
		kprintf("%s: no such block device\n", argv[1]);
		return NULL;
	}
	char *e1, *e2;
	u64 sector = strtoull(argv[2], &e1, 0), count = strtoull(argv[3], &e2, 0);
	if (*e1 || *e2 || !count || sector > (~0ULL / dev->sector_size) ||
	    count > (~0ULL / dev->sector_size)) {
		kprintf("%s: bad sector '%s' or count '%s'\n", argv[0], argv[2], argv[3]);
		return NULL;
	}
	*off = sector * dev->sector_size;
	*len = count * dev->sector_size;
	return dev;
}

/* Run fn over [off, off+len) in 1 MiB chunks through a bounce buffer. */
static int io_loop(struct pmem_device *dev, u64 off, u64 len, const struct io_pattern *p,
		   enum pmem_dir dir, u64 *mismatch)
{
	u8 *buf = malloc(IO_CHUNK), *want = dir == PMEM_READ ? malloc(IO_CHUNK) : NULL;
	int err = 0;

	if (!buf || (dir == PMEM_READ && !want)) {
		free(buf);
		free(want);
		return -ENOMEM;
	}
	for (u64 done = 0; done < len && !err; done += IO_CHUNK) {
		u64 n = MIN(IO_CHUNK, len - done);
		if (dir == PMEM_WRITE) {
			fill(p, buf, off + done, n);
			err = pmem_rw(dev, off + done, buf, n, PMEM_WRITE);
			continue;
		}
		err = pmem_rw(dev, off + done, buf, n, PMEM_READ);
		fill(p, want, off + done, n);
		for (u64 i = 0; !err && i < n; i++) {
			if (buf[i] != want[i]) {
				*mismatch = off + done + i;
				err = -EILSEQ;
			}
		}
	}
	free(buf);
	free(want);
	return err;
}

static int report_io_error(const char *cmd, const struct pmem_device *dev, int err)
{
	kprintf("%s %s: %s (error %d)\n", cmd, dev->name,
		err == -ERANGE ? "request past the end of the device" :
		err == -EINVAL ? "request not sector aligned" :
		err == -EROFS ? "read-only" : "failed", err);
	return err;
}

static int cmd_write(int argc, char **argv)
{
	struct io_pattern p;
	u64 off, len;
	struct pmem_device *dev = io_args(argc, argv, &off, &len);

	if (!dev || argc != 5 || parse_pattern(argv[4], &p))
		return -EINVAL;
	int err = io_loop(dev, off, len, &p, PMEM_WRITE, NULL);
	if (err)
		return report_io_error("write", dev, err);
	kprintf("write %s: %llu bytes at %#llx\n", dev->name, len, off);
	return 0;
}
SHELL_COMMAND("write", cmd_write, "write DEV SECTOR COUNT pattern=0xNN|seq=N",
	      "write sectors with a pattern (durable on return)");

static int cmd_cmp(int argc, char **argv)
{
	struct io_pattern p;
	u64 off, len, bad = 0;
	struct pmem_device *dev = io_args(argc, argv, &off, &len);

	if (!dev || argc != 5 || parse_pattern(argv[4], &p))
		return -EINVAL;
	int err = io_loop(dev, off, len, &p, PMEM_READ, &bad);
	if (err == -EILSEQ) {
		kprintf("cmp %s: mismatch at byte %#llx (sector %llu)\n", dev->name, bad,
			(bad / dev->sector_size));
		return err;
	}
	if (err)
		return report_io_error("cmp", dev, err);
	kprintf("cmp %s: %llu bytes at %#llx match\n", dev->name, len, off);
	return 0;
}
SHELL_COMMAND("cmp", cmd_cmp, "cmp DEV SECTOR COUNT pattern=0xNN|seq=N",
	      "check sectors against a pattern");

static int cmd_read(int argc, char **argv)
{
	u8 buf[512];
	u64 off, len;
	struct pmem_device *dev = io_args(argc, argv, &off, &len);

	if (!dev)
		return -EINVAL;
	len = MIN(len, 8 * (u64)dev->sector_size);	/* a dump, not a copy */
	for (u64 done = 0; done < len; done += sizeof(buf)) {
		int err = pmem_rw(dev, off + done, buf, sizeof(buf), PMEM_READ);
		if (err)
			return report_io_error("read", dev, err);
		for (u64 i = 0; i < sizeof(buf); i += 16) {
			kprintf("%08llx:", (off + done + i));
			for (int k = 0; k < 16; k++)
				kprintf(" %02x", buf[i + k]);
			kprintf("\n");
		}
	}
	return 0;
}
SHELL_COMMAND("read", cmd_read, "read DEV SECTOR COUNT", "hex dump of up to 8 sectors");

static int cmd_dax(int argc, char **argv)
{
	void *kaddr;
	pfn_t pfn;
	u64 off, len;
	struct pmem_device *dev = io_args(argc < 4 ? 0 : argc, argv, &off, &len);

	if (!dev)
		return -EINVAL;
	s64 avail = pmem_direct_access(dev, off / dev->sector_size, &kaddr, &pfn);
	if (avail < 0)
		return report_io_error("dax", dev, (int)avail);
	struct page *page = pfn_t_to_page(pfn);
	kprintf("dax %s: sector %llu at pfn %#llx%s%s, %lld bytes mappable, struct page %s",
		dev->name, (off / dev->sector_size), pfn_t_to_pfn(pfn),
		pfn.val & PFN_DEV ? " dev" : "", pfn.val & PFN_MAP ? " map" : "", avail,
		!page			  ? "none" :
		is_zone_device_page(page) ? "ZONE_DEVICE" :
					    "ZONE_NORMAL");
	/* Where the struct page itself is stored: RAM (map=mem) or this namespace (map=dev). */
	u64 pa, flags;
	enum pg_level level;
	if (page && pgtable_walk(&kernel_pgtable, (u64)page, &pa, &flags, &level)) {
		bool on_dev = dev->ns && pa >= dev->ns->start && pa < dev->ns->start + dev->ns->size;
		kprintf(" stored at %#llx (%s)", pa, on_dev ? "on the device" : "in RAM");
	}
	kprintf("\n");
	return 0;
}
SHELL_COMMAND("dax", cmd_dax, "dax DEV SECTOR 1", "direct_access: pfn, flags, mappable length");

/* pmem.create=NS:MODE[:MAP[:ALIGN[:force]]][,...]: unattended configuration at boot. */
static const char *create_param;

static int pmem_create_param(const char *val)
{
	if (!val || !*val) {
		pr_err("pmem.create: needs NS:fsdax[:dev|mem[:ALIGN[:force]]]\n");
		return -EINVAL;
	}
	create_param = val;
	return 0;
}
KERNEL_PARAM("pmem.create", pmem_create_param,
	     "configure namespaces at boot: NS:fsdax|raw[:dev|mem[:4K|2M|1G[:force]]],...");

/* Already what was asked for? Then an unattended boot changes nothing. */
static bool already_configured(struct nd_namespace_io *ns, const struct nd_pfn_request *req)
{
	struct nd_pfn *pfn = nd_pfn_of(ns);

	if (req->mode == PFN_MODE_NONE)
		return !pfn;
	return pfn && pfn->enabled && pfn->layout.mode == req->mode && pfn->layout.align == req->align;
}

static void apply_create_spec(char *spec)
{
	char *f[5] = { 0 };
	int n = 0;
	struct nd_pfn_request req = { .align = 2 * MiB };

	for (char *s = spec; s && n < 5; n++) {
		f[n] = s;
		s = strchr(s, ':');
		if (s)
			*s++ = '\0';
	}
	struct nd_namespace_io *ns = f[0] ? nd_namespace_find(f[0]) : NULL;
	if (!ns || !f[1] || parse_mode(f[1], f[2], &req) || (f[3] && parse_align(f[3], &req.align)) ||
	    (f[4] && strcmp(f[4], "force"))) {
		pr_err("pmem.create=%s: expected NS:fsdax|raw[:dev|mem[:ALIGN[:force]]] for an existing namespace\n",
		       f[0] ? f[0] : "");
		return;
	}
	if (already_configured(ns, &req)) {
		pr_info("pmem.create: %s already configured\n", ns->name);
		return;
	}
	/* A raw namespace may be formatted unattended; anything else needs :force. */
	req.force = (f[4] != NULL) || (!nd_pfn_of(ns) && req.mode != PFN_MODE_NONE);
	nd_namespace_reconfigure(ns, &req);
}

void nd_apply_create_param(void)
{
	char buf[256];

	if (!create_param)
		return;
	strncpy(buf, create_param, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (char *spec = strtok(buf, ","); spec; spec = strtok(NULL, ","))
		apply_create_spec(spec);
}
