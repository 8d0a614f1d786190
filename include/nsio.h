/*
 * The one path to a namespace's media (Linux's nsio_rw_bytes): every CPU
 * read of namespace bytes and every store to them goes through a struct
 * nsio, made when a namespace is mapped. It alone chooses the copy (plain
 * stores on an eADR region, whose CPU caches are persistent; else the
 * persistence-safe copy of persist.h), refuses stores to a read-only
 * region, drains the region's flush hints, and counts what it stores in
 * PmemWritten (mm.h). Block devices, the BTT and its checker, info blocks,
 * devdax and the benchmarks each hold an nsio (or a view of one) and call
 * nothing below it.
 *
 * Durability: nsio_write, nsio_zero and the atomic stores are durable when
 * they return 0; nsio_write_unflushed is durable only after nsio_flush, for
 * a caller that stores a request in pieces and flushes once.
 */
#ifndef PMEMK_NSIO_H
#define PMEMK_NSIO_H

#include "mm.h"
#include "types.h"

struct nd_region;

struct nsio {
	u8 *base; /* kernel address of byte 0 */
	u64 phys; /* its physical address (0: a host buffer) */
	u64 size; /* bytes */
	struct nd_region *region; /* whose flush hints nsio_flush drains; NULL: a fence */
	bool ro; /* every store is refused: -EROFS */
	bool cpu_cache; /* eADR: plain stores, no cache write-back */
};

/*
 * Media over physical [phys, phys + size) of `region` (NULL: memory of no
 * region, e.g. a test's RAM): mapped in the direct map, read-only and eADR
 * as the region says. -ENOMEM when the direct map cannot grow, -EINVAL for
 * an empty or wrapping range.
 */
__must_check int nsio_init(struct nsio *io, u64 phys, u64 size, struct nd_region *region);

/*
 * [off, off + len) of `io` as media of its own (a block device's sectors,
 * a devdax mapping): byte 0 of the view is byte `off` of io; the region,
 * eADR and read-only state are io's. -ERANGE when it is not inside io.
 */
__must_check int nsio_view(const struct nsio *io, u64 off, u64 len, struct nsio *view);

/*
 * The view of [off, off + len) reached through another kernel mapping of
 * the same bytes (a devdax mapping at `kaddr`), read-only if `ro`.
 */
__must_check int nsio_alias(const struct nsio *io, u64 off, u64 len, void *kaddr, bool ro,
			    struct nsio *view);

/*
 * Copy len bytes at `off` into buf, machine-check-safe (arch_copy_mc).
 * -ERANGE outside the media; -EIO when the range holds a bad sector of the
 * region's list (checked first: nothing is read) or the copy met poison
 * (which the machine check lists); buf's bytes are then undefined.
 */
__must_check int nsio_read(const struct nsio *io, u64 off, void *buf, u64 len);

/*
 * One naturally aligned 4-byte load, made atomically (a BTT map entry).
 * -EINVAL if misaligned; else errors as nsio_read.
 */
__must_check int nsio_load32(const struct nsio *io, u64 off, u32 *val);

/*
 * How many bytes from `off` (at most len) hold no bad sector: what direct
 * access may lend (Linux's pmem_dax_direct_access stops at the first bad
 * one). 0 when `off` itself is bad or outside the media.
 */
u64 nsio_clean_len(const struct nsio *io, u64 off, u64 len);

/* The first bad byte of [off, off + len) (its sector's first): true and *bad. */
bool nsio_first_bad(const struct nsio *io, u64 off, u64 len, u64 *bad);

/*
 * Store len bytes at `off`, durable on return (the copy, then
 * nsio_flush). Bad sectors the store covers whole are healed first
 * (media_error.h). -EROFS on read-only media, -ERANGE outside it, -EIO
 * when it covers a bad sector only in part; then nothing is stored. `who`
 * is the writer PmemWritten counts it under.
 */
__must_check int nsio_write(const struct nsio *io, u64 off, const void *buf, u64 len,
			    enum pmem_writer who);

/* nsio_write without the flush: durable once nsio_flush(io) returns. */
__must_check int nsio_write_unflushed(const struct nsio *io, u64 off, const void *buf, u64 len,
				      enum pmem_writer who);

/* Zero [off, off + len), durable on return; errors as nsio_write. */
__must_check int nsio_zero(const struct nsio *io, u64 off, u64 len, enum pmem_writer who);

/*
 * One naturally aligned 4- or 8-byte store, which the CPU makes
 * atomically (a BTT map entry, half a log entry), durable on return.
 * -EINVAL if misaligned; else errors as nsio_write.
 */
__must_check int nsio_store32(const struct nsio *io, u64 off, u32 val, enum pmem_writer who);
__must_check int nsio_store64(const struct nsio *io, u64 off, u64 val, enum pmem_writer who);

/*
 * Make every completed store durable, as Linux's nvdimm_flush: a fence
 * (the stores reach the memory controller), one write to a flush hint of
 * every DIMM of the region, which drains its write-pending queue on ADR
 * platforms (ACPI 6.4 §5.2.25.8), then a fence. Without hints (QEMU), or
 * without a region, the fence is all.
 */
void nsio_flush(const struct nsio *io);

/*
 * The kernel address of byte `off` (NULL outside the media), for the two
 * users that take the bytes by reference rather than through this path:
 * direct access (pmem_direct_access lends it, and its holder's stores are
 * its own business, as with Linux's DAX) and a NIC reading zero-copy
 * READ data by DMA. The caller holds the device (pmem_hold).
 */
void *nsio_kaddr(const struct nsio *io, u64 off);

#endif
