/*
 * The pmem block device (Linux's drivers/nvdimm/pmem.c in miniature): a
 * namespace's bytes as sectors, raw (pmemN) or behind a pfn device (pmemNm,
 * data starting at the info block's dataoff). Every request is
 * bounds-checked and goes through the device's media path (nsio.h: a
 * write is durable when it returns); direct_access() hands out kernel
 * addresses and pfns for DAX; and every user of a device holds it
 * (pmem_hold), so it is never torn down under one.
 */
#ifndef PMEMK_PMEM_H
#define PMEMK_PMEM_H

#include "nsio.h"
#include "nvdimm.h"
#include "pfn_t.h"
#include "spinlock.h"
#include "types.h"

#define PMEM_MAX_DEVICES ND_MAX_NAMESPACES

enum pmem_dir {
	PMEM_READ,
	PMEM_WRITE,
};

/*
 * Who holds a device (pmem_hold), by kind. While any hold of any kind is
 * out the device cannot be detached (destroy-namespace, reconfigure,
 * check-namespace, disable-namespace refuse with one line naming the
 * holder), whatever the device is: raw, pfn, devdax or BTT. The order is
 * the order in which a refusal names them.
 */
enum pmem_hold_kind {
	PMEM_HOLD_CLIENT,	/* a client connected to an export of it */
	PMEM_HOLD_EXPORT,	/* served to the network */
	PMEM_HOLD_MAP,		/* a mapping of its pages (devdax) */
	PMEM_HOLD_DAX,		/* a direct-access address lent out (pmem_direct_access) */
	PMEM_HOLD_IO,		/* I/O in progress (a command on some CPU) */
	PMEM_HOLD_KINDS,
};

/* How a holder names itself in a refusal ("nbd client 10.0.2.2:40000"). */
#define PMEM_HOLDER_LEN 48

struct pmem_device;
struct dev_pagemap;
/*
 * A block device whose sectors are not a linear range of the namespace
 * (the BTT's pmemNs) serves every checked request here: `off` and `len`
 * are whole sectors inside the device, writes only on a writable one.
 */
typedef int (*pmem_rw_fn)(struct pmem_device *dev, u64 off, void *buf, u64 len, enum pmem_dir dir);

struct pmem_device {
	char name[24];			/* pmemN or pmemNm */
	struct nd_namespace_io *ns;
	u64 phys;			/* physical address of sector 0 */
	u64 size;			/* bytes */
	u32 sector_size;		/* logical block: 512 (a BTT's: its lbasize) */
	u64 pfn_flags;			/* PFN_DEV, plus PFN_MAP when struct pages exist */
	u64 memmap_end;			/* physical end (exclusive) of the struct-page coverage */
	struct dev_pagemap *pgmap;	/* PFN_MAP: the page map every hold pins */
	bool ro;
	struct nsio io;			/* its sectors' media (unused with rw) */
	pmem_rw_fn rw;			/* indirect devices (BTT): serves the I/O; no DAX */
	/* Under the device lock (pmem.c): holds by kind, and the latest holder of each. */
	u32 holds[PMEM_HOLD_KINDS];
	char holder[PMEM_HOLD_KINDS][PMEM_HOLDER_LEN];
};

/* Where a block device's sectors are, and what its pfns may promise. */
struct pmem_span {
	const struct nsio *media;	/* the namespace's media (or a test's RAM) */
	u64 off;			/* where sector 0 is in it */
	u64 size;			/* bytes, 4 KiB aligned */
	u64 pfn_flags;			/* PFN_DEV, plus PFN_MAP when struct pages exist */
	phys_addr_t memmap_end;		/* pfn mode: end (exclusive) of the struct pages' reach; raw: 0 */
	struct dev_pagemap *pgmap;	/* pfn mode: the page map of those struct pages */
};

/*
 * Make a block device of *span for `ns` (may be NULL) and register it
 * under `name`. -ENOSPC when the table is full, -EINVAL for an empty or
 * unaligned range, -ERANGE for one outside its media.
 */
__must_check int pmem_attach(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
		const struct pmem_span *span);
/*
 * Register an indirect block device (a BTT's pmemNs) of `size` bytes in
 * sectors of `sector_size` (any size; a BTT's may be 520 or 4160) whose
 * I/O `rw` serves. Read-only when the namespace's region is. -ENOSPC when
 * the table is full, -EINVAL for an empty device or size not in sectors.
 */
__must_check int pmem_attach_indirect(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
			 u64 size, u32 sector_size, pmem_rw_fn rw);
/*
 * Unregister it: 0, also when it was not registered; while any hold is
 * out, -EBUSY after one line naming the first holder ("pmem0: busy:
 * exported to 1 client (nbd client 10.0.2.2:40000)"), and nothing changes.
 * This is the one check every teardown of a device goes through. Once it
 * returns 0 no CPU can reach the device through the table.
 */
__must_check int pmem_detach(struct pmem_device *dev);
/* pmem_detach, waiting for the holders to let go (error paths of an attach). */
void pmem_detach_wait(struct pmem_device *dev);

/*
 * A registered device by name, or NULL; not held, so only for code that
 * holds the device model lock (nd_lock), under which nothing is detached,
 * or that takes a hold on it next (pmem_hold checks it is still there).
 */
struct pmem_device *pmem_find(const char *name);

/* What a hold keeps (pmem_hold); zeroed when nothing is held. */
struct pmem_hold {
	struct pmem_device *dev;	/* NULL: nothing held */
	enum pmem_hold_kind kind;
};

/*
 * Hold `dev` until pmem_release(h): counted on the device under `kind`,
 * with `who` (copied, at most PMEM_HOLDER_LEN - 1 characters) as the name
 * a refusal gives; a device with struct pages has its page map pinned too,
 * so pages handed out (DAX, a NIC) stay there. -ENXIO, and nothing held,
 * for a device no longer registered or whose pages are going away.
 */
__must_check int pmem_hold(struct pmem_device *dev, enum pmem_hold_kind kind, const char *who,
	      struct pmem_hold *h);
/*
 * pmem_hold of the device registered as `name`, found and held at once, so
 * that a detach on another CPU cannot come in between (Linux's 32b2397c1e56
 * class of bug). -ENODEV when there is none.
 */
__must_check int pmem_hold_name(const char *name, enum pmem_hold_kind kind, const char *who,
		   struct pmem_hold *h);
void pmem_release(struct pmem_hold *h);
/* Holds of every kind on the device `name` now (0 also when there is none). */
u32 pmem_holds(const char *name);

/*
 * Read or write `len` bytes at byte `off`. Both must be multiples of the
 * sector size and len not 0 (-EINVAL otherwise); the request must lie inside the device
 * (-ERANGE otherwise; nothing is copied); writes to a read-only device give
 * -EROFS. A write is durable when this returns 0 (and on an indirect
 * device, atomic per sector: see btt.h).
 */
__must_check int pmem_rw(struct pmem_device *dev, u64 off, void *buf, u64 len, enum pmem_dir dir);

/*
 * After a request over [off, off + len) failed with -EIO: the byte offset
 * of its first bad sector (true and *bad), found in the region's list, or
 * through the BTT by reading sector by sector. False when none is found.
 */
bool pmem_first_bad(struct pmem_device *dev, u64 off, u64 len, u64 *bad);

/*
 * Copy len bytes to byte offset off (any alignment, inside the device)
 * through the media path but without its flush: durable only after
 * pmem_durable(dev). For callers that copy a request in pieces as it
 * arrives and make it durable once (the NBD server's WRITE). -EOPNOTSUPP
 * for an indirect device (BTT: sectors go through it whole), -EROFS,
 * -ERANGE for an empty range or one past the end.
 */
__must_check int pmem_write_bytes(struct pmem_device *dev, u64 off, const void *buf, u64 len);

/*
 * Make every completed write to the device durable (nsio_flush of its
 * media: fence, flush hints, fence).
 */
void pmem_durable(struct pmem_device *dev);

/*
 * Where a held device's bytes can be read by reference (a NIC's DMA of
 * zero-copy READ data), or NULL for an indirect device (BTT), whose
 * sectors move. Valid while the hold is. A range must be checked with
 * pmem_read_ref_clean() before its bytes are lent: a NIC reading poison
 * cannot be recovered.
 */
const u8 *pmem_read_ref(const struct pmem_hold *h);

/*
 * May [off, off + len) of a held device be read by reference? False when
 * it holds a bad sector (listed or poisoned): read it through pmem_rw
 * instead, whose machine-check-safe copy answers -EIO.
 */
bool pmem_read_ref_clean(const struct pmem_hold *h, u64 off, u64 len);

/* What pmem_direct_access() lends out, held until pmem_dax_put(). */
struct pmem_dax {
	void *kaddr;			/* kernel address of the sector */
	pfn_t pfn;
	struct pmem_hold hold;		/* PMEM_HOLD_DAX on the device */
};

/*
 * DAX: the kernel address and pfn of `sector` and how many bytes from there
 * are directly accessible (up to the device end, in pfn mode never past
 * the struct pages, and never over a bad sector), whose struct page is
 * made ready if its initialisation was deferred. The device stays until
 * pmem_dax_put(*dax): it is held (PMEM_HOLD_DAX, named `who`). Negative
 * errno for a sector past the end (-ERANGE), a bad one (-EIO), a device
 * going away (-ENXIO) or one without direct access (-EOPNOTSUPP: a BTT,
 * whose sectors move); then nothing is held.
 */
__must_check s64 pmem_direct_access(struct pmem_device *dev, u64 sector, const char *who,
		       struct pmem_dax *dax);
void pmem_dax_put(struct pmem_dax *dax);

/*
 * Bytes [off, off + len) of a held device are about to be used by
 * reference (zero copy): their struct pages, if their initialisation is
 * still deferred, are made ready first (memmap_ready_range).
 */
void pmem_pages_ready(const struct pmem_hold *h, u64 off, u64 len);

/* Forget every device (host tests). */
void pmem_reset(void);

/*
 * The shell's fill patterns (nvdimm/pmem_cmds.c): pattern=0xNN (every byte)
 * or seq=N (8-byte words that encode their device offset, nd_seq_word).
 */
struct io_pattern {
	bool seq;
	u64 value;
};
/* Parse command cmd's argument (NULL: missing); -EINVAL after shell_arg_error if it is neither. */
int nd_io_pattern_parse(const char *cmd, const char *arg, struct io_pattern *p);
/* buf = the pattern's bytes for device bytes [off, off + len) (multiples of 8 for seq). */
void nd_io_pattern_fill(const struct io_pattern *p, u8 *buf, u64 off, u64 len);

#endif
