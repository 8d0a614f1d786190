/*
 * nbd-memcpy, the in-guest baseline of the network benchmark
 * (tools/bench-net): what the CPU alone does with an export's bytes, 64 KiB
 * at a time as a copying server would, through the device's media path
 * (nsio.h). Read: from the pmem into one RAM buffer. Write: the durable
 * copy (one flush at the end) of bytes just read from the same place back
 * into it, so the device's data stays as it was (refused on a read-only
 * device); only the write copies are timed. An untimed read pass first: a
 * fresh sparse backing file costs the host a page fault per first touch.
 *
 * Then the price of machine-check-safe reads (issue 29) for the NBD READ
 * path, in rounds: a pass as the server's copied READ reads (pmem_rw: the
 * bad-block check, then the machine-check-safe copy) and a pass of a plain
 * memcpy from the pmem's kernel address (what it was before), the order
 * alternating; the median of the rounds' ratios. And the check a zero-copy
 * READ makes before lending pmem (nsio_clean_len), per request: the
 * median of as many passes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "pmem.h"
#include "printk.h"
#include "shell.h"

#define NBD_MEMCPY_CHUNK (64u << 10)
#define NBD_MEMCPY_ROUNDS 7

/* One timed pass over [0, size) in chunks: the server's read, or a plain memcpy; ns, 0 on error. */
static u64 read_pass(struct pmem_device *dev, u8 *buf, u64 size, bool plain)
{
	u64 t0 = arch_cycles();

	for (u64 off = 0; off < size; off += NBD_MEMCPY_CHUNK) {
		const u8 *src = plain ? nsio_kaddr(&dev->io, off) : NULL;
		if (plain && src)
			memcpy(buf, src, NBD_MEMCPY_CHUNK);
		else if (plain || pmem_rw(dev, off, buf, NBD_MEMCPY_CHUNK, PMEM_READ))
			return 0;
	}
	u64 ns = arch_cycles_to_ns(arch_cycles() - t0);
	return ns ? ns : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The rounds: checked and plain reads, then the zero-copy check alone; one line. */
static int read_price(struct pmem_device *dev, u8 *buf, u64 size)
{
	u64 ratio[NBD_MEMCPY_ROUNDS], checked = 0, plain = 0;

	for (u32 r = 0; r < NBD_MEMCPY_ROUNDS; r++) {
		u64 t[2];
		for (u32 k = 0; k < 2; k++) {
			bool p = (r + k) % 2;
			t[p] = read_pass(dev, buf, size, p);
			if (!t[p])
				return -EIO;
		}
		checked += t[0];
		plain += t[1];
		ratio[r] = t[1] * 1000 / t[0]; /* rate checked / rate plain, in thousandths */
	}
	qsort(ratio, NBD_MEMCPY_ROUNDS, sizeof(ratio[0]), cmp_u64);
	/* The check alone, a pass per round too: the median pass (the first runs cold). */
	u64 chunks = size / NBD_MEMCPY_CHUNK, check_ns[NBD_MEMCPY_ROUNDS];
	for (u32 r = 0; r < NBD_MEMCPY_ROUNDS; r++) {
		u64 t0 = arch_cycles(), clean = 0;
		for (u64 off = 0; off < size; off += NBD_MEMCPY_CHUNK)
			clean += nsio_clean_len(&dev->io, off, NBD_MEMCPY_CHUNK);
		check_ns[r] = arch_cycles_to_ns(arch_cycles() - t0);
		if (clean != size)
			return -EIO;
	}
	qsort(check_ns, NBD_MEMCPY_ROUNDS, sizeof(check_ns[0]), cmp_u64);
	u64 bytes = size * NBD_MEMCPY_ROUNDS;
	kprintf("nbd-memcpy: %s: READ's copy (pmem_rw) %llu KiB/s, plain memcpy %llu KiB/s: %llu.%03llu of plain (median of %u rounds, %llu.%03llu-%llu.%03llu); zero-copy check %llu ns per %u KiB request\n",
		dev->name, bytes * 1000000000ull / checked / 1024,
		bytes * 1000000000ull / plain / 1024, ratio[NBD_MEMCPY_ROUNDS / 2] / 1000,
		ratio[NBD_MEMCPY_ROUNDS / 2] % 1000, NBD_MEMCPY_ROUNDS, ratio[0] / 1000,
		ratio[0] % 1000, ratio[NBD_MEMCPY_ROUNDS - 1] / 1000,
		ratio[NBD_MEMCPY_ROUNDS - 1] % 1000,
		chunks ? check_ns[NBD_MEMCPY_ROUNDS / 2] / chunks : 0, NBD_MEMCPY_CHUNK >> 10);
	return 0;
}

static int cmd_nbd_memcpy(int argc, char **argv)
{
	u64 size;

	if (shell_arg_name(argv[0], "device", shell_arg(argc, argv, 1)) ||
	    shell_arg_size(argv[0], "bytes", shell_arg(argc, argv, 2), 1, ~0ull, &size) ||
	    shell_args_max(argc, argv, 3))
		return -EINVAL;
	struct pmem_device *dev = pmem_find(argv[1]);
	if (!dev || dev->rw) {
		kprintf("nbd-memcpy: %s: no block device with direct access\n", argv[1]);
		return -ENODEV;
	}
	const u32 chunk = NBD_MEMCPY_CHUNK;
	size = MIN(size, dev->size) & ~(u64)(chunk - 1);
	u8 *buf = malloc(chunk);
	if (!buf || !size) {
		free(buf);
		kprintf("nbd-memcpy: %s: nothing to copy\n", argv[1]);
		return -ENOMEM;
	}
	const struct nsio *io = &dev->io;
	int err = 0;
	for (u64 off = 0; off < size && !err; off += chunk) /* untimed: the host's first touch */
		err = nsio_read(io, off, buf, chunk);
	u64 t0 = arch_cycles();
	for (u64 off = 0; off < size && !err; off += chunk)
		err = nsio_read(io, off, buf, chunk);
	u64 rd = arch_cycles_to_ns(arch_cycles() - t0), wc = 0;
	for (u64 off = 0; off < size && !err; off += chunk) {
		err = nsio_read(io, off, buf, chunk);
		u64 c = arch_cycles();
		if (!err)
			err = nsio_write_unflushed(io, off, buf, chunk, PMEM_WR_OTHER);
		wc += arch_cycles() - c;
	}
	u64 c = arch_cycles();
	nsio_flush(io);
	wc += arch_cycles() - c;
	u64 wr = arch_cycles_to_ns(wc);
	if (err) {
		free(buf);
		kprintf("nbd-memcpy: %s: %s (error %d)\n", argv[1],
			err == -EROFS ? "read-only" : "cannot copy", err);
		return err;
	}
	kprintf("nbd-memcpy: %s: %llu bytes: read %llu KiB/s, write %llu KiB/s\n", argv[1], size,
		rd ? size * 1000000000ull / rd / 1024 : 0,
		wr ? size * 1000000000ull / wr / 1024 : 0);
	err = read_price(dev, buf, size);
	free(buf);
	if (err)
		kprintf("nbd-memcpy: %s: a bad sector in the first %llu bytes (error %d)\n",
			argv[1], size, err);
	return err;
}
SHELL_COMMAND(
	SHELL_BENCH, "nbd-memcpy", cmd_nbd_memcpy, "nbd-memcpy DEV BYTES",
	"benchmark baseline: memcpy DEV's first BYTES into RAM, and the durable copy back; READ's checked copy against a plain one");
