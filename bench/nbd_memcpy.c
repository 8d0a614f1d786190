/*
 * nbd-memcpy, the in-guest baseline of the network benchmark
 * (tools/bench-net): what the CPU alone does with an export's bytes, 64 KiB
 * at a time as a copying server would, through the device's media path
 * (nsio.h). Read: from the pmem into one RAM buffer. Write: the durable
 * copy (one flush at the end) of bytes just read from the same place back
 * into it, so the device's data stays as it was (refused on a read-only
 * device); only the write copies are timed. An untimed read pass first: a
 * fresh sparse backing file costs the host a page fault per first touch.
 */
#include <errno.h>
#include <stdlib.h>

#include "arch.h"
#include "pmem.h"
#include "printk.h"
#include "shell.h"

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
	const u32 chunk = 64u << 10;
	size = MIN(size, dev->size) & ~(u64)(chunk - 1);
	u8 *buf = malloc(chunk);
	if (!buf || !size) {
		free(buf);
		kprintf("nbd-memcpy: %s: nothing to copy\n", argv[1]);
		return -ENOMEM;
	}
	const struct nsio *io = &dev->io;
	int err = 0;
	for (u64 off = 0; off < size && !err; off += chunk)	/* untimed: the host's first touch */
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
	free(buf);
	kprintf("nbd-memcpy: %s: %llu bytes: read %llu KiB/s, write %llu KiB/s\n", argv[1], size,
		rd ? size * 1000000000ull / rd / 1024 : 0, wr ? size * 1000000000ull / wr / 1024 : 0);
	return 0;
}
SHELL_COMMAND(SHELL_BENCH, "nbd-memcpy", cmd_nbd_memcpy, "nbd-memcpy DEV BYTES",
	      "benchmark baseline: memcpy DEV's first BYTES into RAM, and the durable copy back");
