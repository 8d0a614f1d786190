/* The media path (nsio.h): bounds, the read-only check, the copy, the flush, the count. */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "direct_map.h"
#include "media_error.h"
#include "nsio.h"
#include "nvdimm.h"
#include "persist.h"

int nsio_init(struct nsio *io, u64 phys, u64 size, struct nd_region *region)
{
	if (!size || phys + size < phys)
		return -EINVAL;
	int err = direct_map_add(phys, size);
	if (err)
		return err;
	*io = (struct nsio){
		.base = phys_to_virt(phys),
		.phys = phys,
		.size = size,
		.region = region,
		.ro = region && region->ro,
		.cpu_cache = region && region->persistence == ND_PERSIST_CACHE,
	};
	return 0;
}

/* [off, off + len) lies inside the media (no wrap). */
static bool inside(const struct nsio *io, u64 off, u64 len)
{
	return off <= io->size && len <= io->size - off;
}

int nsio_view(const struct nsio *io, u64 off, u64 len, struct nsio *view)
{
	if (!inside(io, off, len))
		return -ERANGE;
	*view = *io;
	view->base = io->base + off;
	view->phys = io->phys ? io->phys + off : 0;
	view->size = len;
	return 0;
}

int nsio_alias(const struct nsio *io, u64 off, u64 len, void *kaddr, bool ro, struct nsio *view)
{
	int err = nsio_view(io, off, len, view);

	if (err)
		return err;
	view->base = kaddr;
	view->ro = view->ro || ro;
	return 0;
}

/* Byte `off` of io as an offset into its region (io->region set, io->phys too). */
static u64 region_off(const struct nsio *io, u64 off)
{
	return io->phys + off - io->region->start;
}

/* Can a read of [off, off + len) meet a bad sector? Media of no region has none. */
static bool suspect(const struct nsio *io)
{
	return io->region && io->phys && media_errors_suspect(io->region);
}

/*
 * The first bad byte of [off, off + len) (listed or poisoned), rounded
 * down to its sector: true and *bad (an offset into io), *poisoned.
 */
static bool first_bad(const struct nsio *io, u64 off, u64 len, u64 *bad, bool *poisoned)
{
	u64 roff = region_off(io, off), first;
	u64 s0 = roff >> BADBLOCK_SHIFT, s1 = (roff + len - 1) >> BADBLOCK_SHIFT;

	if (!len || !media_errors_first(io->region, s0, s1 - s0 + 1, &first, poisoned))
		return false;
	u64 at = first << BADBLOCK_SHIFT; /* region offset */
	*bad = (at > roff ? at - roff : 0) + off;
	return true;
}

/*
 * Before a read of a range that may hold bad sectors: 0 when none is
 * there. A listed one fails the read before a byte is read; a poisoned
 * one fails it by a real machine check when a copy reaches it (the
 * injector's), which lists it: the bytes before it are copied into buf.
 */
static int read_check(const struct nsio *io, u64 off, void *buf, u64 len)
{
	u64 bad;
	bool poisoned;

	if (!first_bad(io, off, len, &bad, &poisoned))
		return 0;
	if (poisoned) {
		u64 good = bad - off;
		if (arch_copy_mc(buf, io->base + off, good) == 0)
			arch_copy_mc_inject((u8 *)buf + good, io->base + bad, len - good,
					    io->phys + bad);
		media_errors_drain();
	}
	return -EIO;
}

/* A machine-check-safe copy came back short: the machine check queued what it met. */
static int read_failed(void)
{
	media_errors_drain();
	return -EIO;
}

int nsio_read(const struct nsio *io, u64 off, void *buf, u64 len)
{
	if (!inside(io, off, len))
		return -ERANGE;
	if (suspect(io) && read_check(io, off, buf, len))
		return -EIO;
	return arch_copy_mc(buf, io->base + off, len) ? read_failed() : 0;
}

int nsio_load32(const struct nsio *io, u64 off, u32 *val)
{
	if (!inside(io, off, sizeof(*val)))
		return -ERANGE;
	if (off % sizeof(*val))
		return -EINVAL;
	if (suspect(io) && read_check(io, off, val, sizeof(*val)))
		return -EIO;
	return arch_load32_mc(io->base + off, val) ? read_failed() : 0;
}

u64 nsio_clean_len(const struct nsio *io, u64 off, u64 len)
{
	u64 bad;
	bool poisoned;

	if (!inside(io, off, len))
		return 0;
	if (!suspect(io) || !first_bad(io, off, len, &bad, &poisoned))
		return len;
	return bad - off;
}

bool nsio_first_bad(const struct nsio *io, u64 off, u64 len, u64 *bad)
{
	bool poisoned;

	return inside(io, off, len) && suspect(io) && first_bad(io, off, len, bad, &poisoned);
}

/* Whether a store of len bytes at off may go ahead: 0, -EROFS or -ERANGE. */
static int store_check(const struct nsio *io, u64 off, u64 len)
{
	if (io->ro)
		return -EROFS;
	if (!inside(io, off, len))
		return -ERANGE;
	/* Bad sectors it covers whole are healed first; one it covers in part fails it. */
	return suspect(io) ? media_errors_write(io->region, region_off(io, off), len) : 0;
}

/* The copy: plain stores where the caches persist, else ones that leave them. */
static void copy_in(const struct nsio *io, u64 off, const void *buf, u64 len)
{
	if (io->cpu_cache)
		memcpy(io->base + off, buf, len);
	else
		arch_memcpy_flushcache(io->base + off, buf, len);
}

int nsio_write_unflushed(const struct nsio *io, u64 off, const void *buf, u64 len,
			 enum pmem_writer who)
{
	int err = store_check(io, off, len);

	if (err)
		return err;
	copy_in(io, off, buf, len);
	pmem_written_add(who, len);
	return 0;
}

int nsio_write(const struct nsio *io, u64 off, const void *buf, u64 len, enum pmem_writer who)
{
	int err = nsio_write_unflushed(io, off, buf, len, who);

	if (!err)
		nsio_flush(io);
	return err;
}

int nsio_zero(const struct nsio *io, u64 off, u64 len, enum pmem_writer who)
{
	static const u8 zero[16 * KiB];
	int err = store_check(io, off, len);

	if (err)
		return err;
	for (u64 done = 0; done < len; done += sizeof(zero)) {
		u64 n = MIN(sizeof(zero), len - done);
		if (io->cpu_cache)
			memset(io->base + off + done, 0, n);
		else
			arch_memcpy_flushcache(io->base + off + done, zero, n);
	}
	nsio_flush(io);
	pmem_written_add(who, len);
	return 0;
}

/*
 * One naturally aligned store of `size` (4 or 8) bytes, which the CPU
 * makes atomically; then out of the caches and the flush.
 */
static int store_word(const struct nsio *io, u64 off, u64 val, u32 size, enum pmem_writer who)
{
	int err = off % size ? -EINVAL : store_check(io, off, size);

	if (err)
		return err;
	if (size == sizeof(u32))
		*(volatile u32 *)(io->base + off) = (u32)val;
	else
		*(volatile u64 *)(io->base + off) = val;
	if (!io->cpu_cache)
		arch_flush_cache(io->base + off, size);
	nsio_flush(io);
	pmem_written_add(who, size);
	return 0;
}

int nsio_store32(const struct nsio *io, u64 off, u32 val, enum pmem_writer who)
{
	return store_word(io, off, val, sizeof(u32), who);
}

int nsio_store64(const struct nsio *io, u64 off, u64 val, enum pmem_writer who)
{
	return store_word(io, off, val, sizeof(u64), who);
}

void nsio_flush(const struct nsio *io)
{
	struct nd_region *r = io->region;

	/* Completed stores reach the memory controller first... */
	arch_wmb_pmem();
	/* ...then one hint write per DIMM drains its write-pending queue... */
	for (u32 i = 0; r && i < r->nr_mappings; i++) {
		const struct nvdimm *d = r->mapping[i].nvdimm;
		if (!d || !d->nr_flush_hints)
			continue;
		*(volatile u64 *)phys_to_virt(d->flush_hint[0]) = 1;
		__atomic_fetch_add(&r->flush_hint_writes, 1, __ATOMIC_RELAXED);
	}
	/* ...and the hint writes complete before anyone is told it is durable. */
	if (r)
		arch_wmb_pmem();
}

void *nsio_kaddr(const struct nsio *io, u64 off)
{
	return off < io->size ? io->base + off : NULL;
}
