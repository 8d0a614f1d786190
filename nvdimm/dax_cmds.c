/*
 * Device-dax shell commands (nd_dax.h): dax-map, dax-write, dax-cmp,
 * dax-unmap (daxctl has no verbs for a kernel mapping, so the names are
 * ours), and daxctl list.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "badblocks.h"
#include "nd_dax.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"

/* Shell: mappings held between commands, by number. */
static struct dax_mapping shell_maps[8];
static bool shell_used[ARRAY_SIZE(shell_maps)];

static const char *leaf_name(enum pg_level l)
{
	return l == PG_LEVEL_1G ? "1 GiB" : l == PG_LEVEL_2M ? "2 MiB" : "4 KiB";
}

/*
 * A request over mapping bytes [off, off + len) of m failed with -EIO: the
 * line names the device sector (512 bytes, as the device's block view and
 * list -M count them) of its first bad byte; for a write, of the bad
 * sector it covers only in part (the first or the last: whole ones heal).
 */
static int dax_io_error(const char *cmd, const struct dax_mapping *m, u64 off, u64 len, bool write)
{
	u64 bad = off;

	if (!write ||
	    !((off & ((1u << BADBLOCK_SHIFT) - 1)) && nsio_first_bad(&m->io, off, 1, &bad)))
		nsio_first_bad(&m->io, write ? off + len - 1 : off, write ? 1 : len, &bad);
	kprintf("%s %s: I/O error at sector %llu (mapping offset %#llx)\n", cmd, m->dax->name,
		(m->offset + bad) >> BADBLOCK_SHIFT, bad);
	return -EIO;
}

static int cmd_dax_map(int argc, char **argv)
{
	struct nd_pfn *dax;
	u64 off, len;
	unsigned int i;

	if (shell_arg_name(argv[0], "device", shell_arg(argc, argv, 1)) ||
	    shell_arg_u64(argv[0], "offset", shell_arg(argc, argv, 2), 0, ~0ull, &off) ||
	    shell_arg_u64(argv[0], "length", shell_arg(argc, argv, 3), 0, ~0ull, &len) ||
	    shell_args_max(argc, argv, 4))
		return -EINVAL;
	dax = nd_dax_find(argv[1]);
	if (!dax) {
		kprintf("%s: no such devdax device (see 'list -N')\n", argv[1]);
		return -ENODEV;
	}
	for (i = 0; i < ARRAY_SIZE(shell_maps) && shell_used[i]; i++)
		;
	if (i == ARRAY_SIZE(shell_maps)) {
		kprintf("dax-map: all %zu shell mappings are in use (dax-unmap one)\n",
			ARRAY_SIZE(shell_maps));
		return -ENOSPC;
	}
	struct dax_mapping *m = &shell_maps[i];
	char who[PMEM_HOLDER_LEN];

	snprintf(who, sizeof(who), "dax-map mapping %u; dax-unmap %u", i, i);
	int err = dax_map(dax, off, len, who, m);
	u64 bad = off;
	if (err == -EIO && nsio_first_bad(&dax->pmem.io, off, len, &bad)) {
		kprintf("dax-map %s: I/O error at sector %llu: a mapping would lend it (error %d)\n",
			dax->name, bad >> BADBLOCK_SHIFT, err);
		return err;
	}
	if (err) {
		kprintf("dax-map %s: %s (error %d)\n", dax->name,
			err == -EINVAL ? "offset and length must be multiples of the device's align" :
			err == -ERANGE ? "past the end of the device" :
			err == -ENOSPC ? "no window slot left" : "cannot map",
			err);
		return err;
	}
	shell_used[i] = true;
	/* A user of the pages it maps (Linux's devdax fault sets up each struct page). */
	pmem_pages_ready(&m->hold, off, len);
	/* What the page tables say, not what was asked for. */
	u64 pa, flags;
	enum pg_level level;
	bool mapped = pgtable_walk(&kernel_pgtable, (u64)m->kaddr, &pa, &flags, &level);
	kprintf("dax-map %s: mapping %u: offset %#llx length %#llx at %p, pfn %#llx%s, "
		"%s pages (page tables: %s leaf -> %#llx)\n",
		dax->name, i, off, len, m->kaddr, pfn_t_to_pfn(m->pfn),
		(m->pfn.val & PFN_MAP) ? " PFN_DEV|PFN_MAP" : " PFN_DEV", leaf_name(m->leaf),
		mapped ? leaf_name(level) : "no", mapped ? pa : 0);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-map", cmd_dax_map, "dax-map DAX OFFSET LENGTH",
	      "map a devdax range with pages of its align, pinning the device");

/* Mapping number arg (NULL: missing) of command cmd; NULL after one line. */
static struct dax_mapping *shell_map(const char *cmd, const char *arg)
{
	u64 i;

	if (shell_arg_u64(cmd, "mapping", arg, 0, ~0ull, &i))
		return NULL;
	if (i >= ARRAY_SIZE(shell_maps) || !shell_used[i]) {
		kprintf("'%s': no such dax mapping (dax-map prints its number)\n", arg);
		return NULL;
	}
	return &shell_maps[i];
}

static int cmd_dax_unmap(int argc, char **argv)
{
	struct dax_mapping *m = shell_map(argv[0], shell_arg(argc, argv, 1));

	if (!m || shell_args_max(argc, argv, 2))
		return -EINVAL;
	kprintf("dax-unmap %s: mapping %s unmapped\n", m->dax->name, argv[1]);
	dax_unmap(m);
	shell_used[m - shell_maps] = false;
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-unmap", cmd_dax_unmap, "dax-unmap N",
	      "unmap a dax-map mapping and unpin its device");

/* N OFFSET LENGTH PATTERN: the mapping and a range inside it (multiples of 8). */
static struct dax_mapping *rw_args(int argc, char **argv, u64 *off, u64 *len,
				   struct io_pattern *p)
{
	struct dax_mapping *m = shell_map(argv[0], shell_arg(argc, argv, 1));

	if (!m || shell_arg_u64(argv[0], "offset", shell_arg(argc, argv, 2), 0, ~0ull, off) ||
	    shell_arg_u64(argv[0], "length", shell_arg(argc, argv, 3), 1, ~0ull, len) ||
	    nd_io_pattern_parse(argv[0], shell_arg(argc, argv, 4), p) ||
	    shell_args_max(argc, argv, 5))
		return NULL;
	if (!IS_ALIGNED(*off | *len, 8) || *off > m->len || *len > m->len - *off) {
		kprintf("%s: offset %s length %s: not 8-byte multiples inside the mapping\n",
			argv[0], argv[2], argv[3]);
		return NULL;
	}
	return m;
}

#define DAX_CHUNK (64 * KiB)

/* Write through the mapping: flush-cache copies, then the region's flush (durable on return). */
static int cmd_dax_write(int argc, char **argv)
{
	static u8 buf[DAX_CHUNK];
	struct io_pattern p;
	u64 off, len;
	struct dax_mapping *m = rw_args(argc, argv, &off, &len, &p);

	if (!m)
		return -EINVAL;
	int err = 0;
	u64 done = 0, n = 0;
	for (; done < len && !err; done += n) {
		/* Pieces end on sector boundaries: a bad sector the request covers whole heals. */
		n = MIN(DAX_CHUNK - ((off + done) & ((1u << BADBLOCK_SHIFT) - 1)), len - done);
		/* seq words encode the device offset: the block view reads the same pattern. */
		nd_io_pattern_fill(&p, buf, m->offset + off + done, n);
		err = nsio_write_unflushed(&m->io, off + done, buf, n, PMEM_WR_BLOCK);
	}
	if (err == -EIO) /* a sector it covers only in part is bad (whole ones it heals) */
		return dax_io_error(argv[0], m, off + done - n, n, true);
	if (err) {
		kprintf("dax-write %s: %s (error %d)\n", m->dax->name,
			err == -EROFS ? "read-only" : "cannot store", err);
		return err;
	}
	nsio_flush(&m->io);
	kprintf("dax-write %s: %llu bytes at mapping offset %#llx\n", m->dax->name, len, off);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-write", cmd_dax_write,
	      "dax-write N OFFSET LENGTH pattern=0xNN|seq=N",
	      "store a pattern through a dax-map mapping (durable on return)");

static int cmd_dax_cmp(int argc, char **argv)
{
	static u8 want[DAX_CHUNK], got[DAX_CHUNK];
	struct io_pattern p;
	u64 off, len;
	struct dax_mapping *m = rw_args(argc, argv, &off, &len, &p);

	if (!m)
		return -EINVAL;
	for (u64 done = 0; done < len; done += DAX_CHUNK) {
		u64 n = MIN(DAX_CHUNK, len - done);
		int err = nsio_read(&m->io, off + done, got, n);
		if (err == -EIO)
			return dax_io_error(argv[0], m, off + done, n, false);
		if (err) {
			kprintf("dax-cmp %s: cannot read (error %d)\n", m->dax->name, err);
			return err;
		}
		nd_io_pattern_fill(&p, want, m->offset + off + done, n);
		if (!memcmp(got, want, n))
			continue;
		for (u64 i = 0; i < n; i++) {
			if (got[i] != want[i]) {
				kprintf("dax-cmp %s: mismatch at mapping offset %#llx\n", m->dax->name,
					off + done + i);
				return -EILSEQ;
			}
		}
	}
	kprintf("dax-cmp %s: %llu bytes at mapping offset %#llx match\n", m->dax->name, len, off);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-cmp", cmd_dax_cmp, "dax-cmp N OFFSET LENGTH pattern=0xNN|seq=N",
	      "check bytes read through a dax-map mapping against a pattern");

/*
 * daxctl list: the enabled device-dax devices as daxctl 76 lists them (a
 * bare array of {chardev, size, target_node, align, mode}; the fixtures'
 * "daxctl list"), nothing when there are none.
 */
static int cmd_daxctl(int argc, char **argv)
{
	static const char *const verbs[] = { "list", NULL };
	struct nd_json j = { .first = true };
	bool any = false;

	if (shell_arg_keyword(argv[0], "verb", shell_arg(argc, argv, 1), verbs) < 0 ||
	    shell_args_max(argc, argv, 2))
		return -EINVAL;
	for_each_nd_namespace(ns) {
		struct nd_pfn *dax = nd_pfn_of(ns);
		if (!dax || dax->pers != ND_PERS_DEVDAX || !dax->enabled)
			continue;
		if (!any)
			nd_json_open(&j, NULL, '[');
		any = true;
		nd_json_open(&j, NULL, '{');
		nd_json_str(&j, "chardev", dax->name);
		nd_json_u64(&j, "size", dax->pmem.size);
		if (ns->region->target_node >= 0)
			nd_json_int(&j, "target_node", ns->region->target_node);
		nd_json_u64(&j, "align", dax->layout.align);
		nd_json_str(&j, "mode", "devdax");
		nd_json_close(&j, '}');
	}
	if (any)
		nd_json_close(&j, ']');
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "daxctl", cmd_daxctl, "daxctl list",
	      "device-dax devices as daxctl list JSON");
