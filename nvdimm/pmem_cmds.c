/*
 * Sector I/O for tests and operators, beside the block driver it drives
 * (pmem.c): write and cmp a pattern, read (a hex dump), dax (direct_access).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "nd_util.h"
#include "pgtable.h"
#include "pmem.h"
#include "printk.h"
#include "shell.h"

int nd_io_pattern_parse(const char *cmd, const char *arg, struct io_pattern *p)
{
	u64 v;

	if (!arg)
		return shell_arg_error(cmd, "missing pattern");
	if (!strncmp(arg, "pattern=", 8) && !shell_parse_u64(arg + 8, &v) && v <= 0xFF) {
		*p = (struct io_pattern){ .seq = false, .value = v };
		return 0;
	}
	if (!strncmp(arg, "seq=", 4) && !shell_parse_u64(arg + 4, &v)) {
		*p = (struct io_pattern){ .seq = true, .value = v };
		return 0;
	}
	return shell_arg_error(cmd, "pattern '%s': expected pattern=0xNN or seq=N", arg);
}

void nd_io_pattern_fill(const struct io_pattern *p, u8 *buf, u64 off, u64 len)
{
	if (!p->seq) {
		memset(buf, (int)p->value, len);
		return;
	}
	/* __builtin_: under -ffreestanding a plain memcpy is a call per word. */
	for (u64 i = 0; i < len; i += 8) {
		u64 w = nd_seq_word(p->value, off + i);
		__builtin_memcpy(buf + i, &w, 8);
	}
}

#define IO_CHUNK (1 * MiB)

/* DEV SECTOR COUNT (argv[1..3]) as given: 0, else one line and the usage. */
static int io_args(int argc, char **argv, u64 *sector, u64 *count)
{
	if (shell_arg_name(argv[0], "device", shell_arg(argc, argv, 1)) ||
	    shell_arg_u64(argv[0], "sector", shell_arg(argc, argv, 2), 0, ~0ull, sector) ||
	    shell_arg_u64(argv[0], "count", shell_arg(argc, argv, 3), 1, ~0ull, count))
		return -EINVAL;
	return 0;
}

/*
 * The device argv[1], held (PMEM_HOLD_IO: a destroy on another CPU says
 * busy until the command's pmem_release(h)), and the byte range of sector
 * and count (checked again by pmem_rw); NULL after one line.
 */
static struct pmem_device *io_get(char **argv, u64 sector, u64 count, u64 *off, u64 *len,
				  struct pmem_hold *h)
{
	char who[PMEM_HOLDER_LEN];

	snprintf(who, sizeof(who), "%s on CPU %u", argv[0], arch_cpu_id());
	if (pmem_hold_name(argv[1], PMEM_HOLD_IO, who, h)) {
		kprintf("%s: no such block device\n", argv[1]);
		return NULL;
	}
	struct pmem_device *dev = h->dev;
	if (sector > ~0ull / dev->sector_size || count > ~0ull / dev->sector_size) {
		shell_arg_error(argv[0], "sector '%s' or count '%s': beyond 2^64 bytes", argv[2],
				argv[3]);
		pmem_release(h);
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
	/* Whole sectors per chunk: a BTT's may be 520 or 4160 bytes. */
	u64 chunk = IO_CHUNK - IO_CHUNK % dev->sector_size;

	for (u64 done = 0; done < len && !err; done += chunk) {
		u64 n = MIN(chunk, len - done);
		if (dir == PMEM_WRITE) {
			nd_io_pattern_fill(p, buf, off + done, n);
			err = pmem_rw(dev, off + done, buf, n, PMEM_WRITE);
			continue;
		}
		err = pmem_rw(dev, off + done, buf, n, PMEM_READ);
		nd_io_pattern_fill(p, want, off + done, n);
		/* memcmp first: a loop per byte makes cmp crawl under TCG. */
		if (err || !memcmp(buf, want, n))
			continue;
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

/* The failed request [off, off + len): -EIO names the first bad sector in it. */
static int report_io_error(const char *cmd, struct pmem_device *dev, int err, u64 off, u64 len)
{
	u64 bad;

	if (err == -EIO && pmem_first_bad(dev, off, len, &bad)) {
		kprintf("%s %s: I/O error at sector %llu\n", cmd, dev->name, bad / dev->sector_size);
		return err;
	}
	kprintf("%s %s: %s (error %d)\n", cmd, dev->name,
		err == -ERANGE ? "request past the end of the device" :
		err == -EINVAL ? "request not sector aligned" :
		err == -EROFS ? "read-only" : err == -EIO ? "I/O error" : "failed", err);
	return err;
}

static int do_write(struct pmem_device *dev, const struct io_pattern *p, u64 off, u64 len)
{
	int err = io_loop(dev, off, len, p, PMEM_WRITE, NULL);

	if (err)
		return report_io_error("write", dev, err, off, len);
	kprintf("write %s: %llu bytes at %#llx\n", dev->name, len, off);
	return 0;
}

/* DEV SECTOR COUNT PATTERN: fn runs with the device held. */
static int io_held(int argc, char **argv,
		   int (*fn)(struct pmem_device *dev, const struct io_pattern *p, u64 off, u64 len))
{
	struct io_pattern p;
	struct pmem_hold h;
	u64 sector, count, off, len;

	if (io_args(argc, argv, &sector, &count) ||
	    nd_io_pattern_parse(argv[0], shell_arg(argc, argv, 4), &p) ||
	    shell_args_max(argc, argv, 5))
		return -EINVAL;
	struct pmem_device *dev = io_get(argv, sector, count, &off, &len, &h);
	if (!dev)
		return -EINVAL;
	int err = fn(dev, &p, off, len);
	pmem_release(&h);
	return err;
}

static int cmd_write(int argc, char **argv)
{
	return io_held(argc, argv, do_write);
}
SHELL_COMMAND_CONCURRENT(SHELL_BLOCK, "write", cmd_write, "write DEV SECTOR COUNT pattern=0xNN|seq=N",
	      "write sectors with a pattern (durable on return)");

static int do_cmp(struct pmem_device *dev, const struct io_pattern *p, u64 off, u64 len)
{
	u64 bad = 0;
	int err = io_loop(dev, off, len, p, PMEM_READ, &bad);

	if (err == -EILSEQ) {
		kprintf("cmp %s: mismatch at byte %#llx (sector %llu)\n", dev->name, bad,
			(bad / dev->sector_size));
		return err;
	}
	if (err)
		return report_io_error("cmp", dev, err, off, len);
	kprintf("cmp %s: %llu bytes at %#llx match\n", dev->name, len, off);
	return 0;
}

static int cmd_cmp(int argc, char **argv)
{
	return io_held(argc, argv, do_cmp);
}
SHELL_COMMAND_CONCURRENT(SHELL_BLOCK, "cmp", cmd_cmp, "cmp DEV SECTOR COUNT pattern=0xNN|seq=N",
	      "check sectors against a pattern");

#define READ_BUF (8 * KiB)	/* one sector, up to a BTT's 4224 bytes */

static int do_read(struct pmem_device *dev, u8 *buf, u64 off, u64 len)
{
	if (dev->sector_size > READ_BUF)
		return report_io_error("read", dev, -EINVAL, off, len);
	len = MIN(len, 8 * (u64)dev->sector_size);	/* a dump, not a copy */
	for (u64 done = 0; done < len; done += dev->sector_size) {
		int err = pmem_rw(dev, off + done, buf, dev->sector_size, PMEM_READ);
		if (err)
			return report_io_error("read", dev, err, off + done, dev->sector_size);
		for (u64 i = 0; i < dev->sector_size; i += 16) {
			kprintf("%08llx:", (off + done + i));
			for (u64 k = i; k < i + 16 && k < dev->sector_size; k++)
				kprintf(" %02x", buf[k]);
			kprintf("\n");
		}
	}
	return 0;
}

static int cmd_read(int argc, char **argv)
{
	u64 sector, count, off, len;
	struct pmem_hold h;

	if (io_args(argc, argv, &sector, &count) || shell_args_max(argc, argv, 4))
		return -EINVAL;
	struct pmem_device *dev = io_get(argv, sector, count, &off, &len, &h);
	u8 *buf = dev ? malloc(READ_BUF) : NULL;	/* per call: read runs on any CPU */
	int err = !dev ? -EINVAL : !buf ? -ENOMEM : do_read(dev, buf, off, len);

	free(buf);
	pmem_release(&h);
	return err;
}
SHELL_COMMAND_CONCURRENT(SHELL_BLOCK, "read", cmd_read, "read DEV SECTOR COUNT", "hex dump of up to 8 sectors");

/*
 * Wait until another CPU's command holds DEV (its I/O has begun): lets a
 * test destroy a namespace in the middle of a write on another CPU rather
 * than before it starts.
 */
static int cmd_wait_busy(int argc, char **argv)
{
	if (!shell_only_name(argc, argv, "device"))
		return -EINVAL;
	while (!pmem_holds(argv[1]))
		arch_cpu_relax();
	kprintf("wait-busy %s: held by %u\n", argv[1], pmem_holds(argv[1]));
	return 0;
}
SHELL_COMMAND_CONCURRENT(SHELL_BLOCK, "wait-busy", cmd_wait_busy, "wait-busy DEV",
			 "wait until a command on another CPU holds DEV for I/O (on-cpu)");

/* Addresses `dax ... hold` keeps lent out, until `dax put`. */
#define DAX_HELD_MAX 16
static struct pmem_dax dax_held[DAX_HELD_MAX];

static int dax_put_all(void)
{
	int n = 0;

	for (int i = 0; i < DAX_HELD_MAX; i++) {
		if (!dax_held[i].kaddr)
			continue;
		pmem_dax_put(&dax_held[i]);
		n++;
	}
	kprintf("dax: %d held address%s given back\n", n, n == 1 ? "" : "es");
	return 0;
}

static struct pmem_dax *dax_slot(void)
{
	for (int i = 0; i < DAX_HELD_MAX; i++)
		if (!dax_held[i].kaddr)
			return &dax_held[i];
	return NULL;
}

static void dax_print(const struct pmem_device *dev, u64 sector, const struct pmem_dax *d, s64 avail)
{
	struct page *page = pfn_t_to_page(d->pfn);
	u64 pa, flags;
	enum pg_level level;

	kprintf("dax %s: sector %llu at pfn %#llx%s%s, %lld bytes mappable, struct page %s",
		dev->name, sector, pfn_t_to_pfn(d->pfn), d->pfn.val & PFN_DEV ? " dev" : "",
		d->pfn.val & PFN_MAP ? " map" : "", avail,
		!page ? "none" : is_zone_device_page(page) ? "ZONE_DEVICE" : "ZONE_NORMAL");
	/* Where the struct page itself is stored: RAM (map=mem) or this namespace (map=dev). */
	if (page && pgtable_walk(&kernel_pgtable, (u64)page, &pa, &flags, &level)) {
		bool on_dev = dev->ns && pa >= dev->ns->start && pa < dev->ns->start + dev->ns->size;
		kprintf(" stored at %#llx (%s)", pa, on_dev ? "on the device" : "in RAM");
	}
	kprintf("\n");
}

static int cmd_dax(int argc, char **argv)
{
	static const char *const hold_word[] = { "hold", NULL };
	struct pmem_dax d, *held = NULL;
	u64 sector, count, off, len;

	if (argc >= 2 && !strcmp(argv[1], "put"))
		return shell_args_max(argc, argv, 2) ? -EINVAL : dax_put_all();
	if (io_args(argc, argv, &sector, &count) ||
	    (argc > 4 && shell_arg_keyword(argv[0], "option", argv[4], hold_word) < 0) ||
	    shell_args_max(argc, argv, 5))
		return -EINVAL;
	bool hold = argc == 5;
	struct pmem_hold h;
	struct pmem_device *dev = io_get(argv, sector, count, &off, &len, &h);
	if (!dev)
		return -EINVAL;
	/*
	 * dax runs under the device model lock (not concurrent), so nothing
	 * detaches meanwhile; the address holds the device by itself
	 * (PMEM_HOLD_DAX), until 'dax put' when kept with `hold`.
	 */
	pmem_release(&h);
	if (hold && !(held = dax_slot())) {
		kprintf("dax: %d addresses held already; 'dax put' first\n", DAX_HELD_MAX);
		return -ENOSPC;
	}
	s64 avail = pmem_direct_access(dev, off / dev->sector_size,
				       hold ? "dax ... hold; dax put" : "dax", &d);
	if (avail < 0)
		return report_io_error("dax", dev, (int)avail, off, dev->sector_size);
	dax_print(dev, off / dev->sector_size, &d, avail);
	if (held) {
		*held = d;	/* the device stays until 'dax put' */
		kprintf("dax %s: address held until 'dax put'\n", dev->name);
	} else {
		pmem_dax_put(&d);
	}
	return 0;
}
SHELL_COMMAND(SHELL_BLOCK, "dax", cmd_dax, "dax DEV SECTOR 1 [hold] | dax put",
	      "direct_access: pfn, flags, mappable length; hold keeps the device pinned");
