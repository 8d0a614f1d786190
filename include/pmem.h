/*
 * The pmem block device (Linux's drivers/nvdimm/pmem.c in miniature): a
 * namespace's bytes as sectors, raw (pmemN) or behind a pfn device (pmemNm,
 * data starting at the info block's dataoff). Every write leaves the CPU
 * caches before it returns (persist.h), every request is bounds-checked, and
 * direct_access() hands out kernel addresses and pfns for DAX.
 */
#ifndef PMEMK_PMEM_H
#define PMEMK_PMEM_H

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
 * Who holds a device for the network (pmem_hold): an NBD export, and each
 * client connected to it. While any hold is out the device cannot be
 * detached (destroy-namespace, reconfigure, check-namespace, memremap -f
 * refuse with pmem_busy's line), whatever its kind: raw, pfn, devdax or BTT.
 */
enum pmem_holder {
	PMEM_HOLD_EXPORT,
	PMEM_HOLD_CLIENT,
	PMEM_HOLD_KINDS,
};

struct pmem_device;
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
	bool cpu_cache_persistent;	/* eADR: stores are enough, no write-back */
	u64 dax_refs;			/* raw mode: direct_access addresses lent out */
	u32 holds[PMEM_HOLD_KINDS];			/* pmem_hold()s by kind (enum pmem_holder) */
	u64 users;			/* pmem_get holders: I/O in progress on any CPU */
	bool ro;
	u8 *virt;			/* direct map address of sector 0 (NULL with rw) */
	pmem_rw_fn rw;			/* indirect devices (BTT): serves the I/O; no DAX */
};

/* Where a block device's sectors are, and what its pfns may promise. */
struct pmem_span {
	phys_addr_t start;	/* sector 0 */
	u64 size;		/* bytes, 4 KiB aligned */
	u64 pfn_flags;		/* PFN_DEV, plus PFN_MAP when struct pages exist */
	phys_addr_t memmap_end;	/* pfn mode: end (exclusive) of the struct pages' reach; raw: 0 */
};

/*
 * Make a block device of *span for `ns`: map it in the direct map and
 * register it under `name`. -ENOSPC when the table is full, -ENOMEM if the
 * direct map cannot grow, -EINVAL for an empty or unaligned range.
 */
int pmem_attach(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
		const struct pmem_span *span);
/*
 * Register an indirect block device (a BTT's pmemNs) of `size` bytes in
 * sectors of `sector_size` (any size; a BTT's may be 520 or 4160) whose
 * I/O `rw` serves. Read-only when the namespace's region is. -ENOSPC when
 * the table is full, -EINVAL for an empty device or size not in sectors.
 */
int pmem_attach_indirect(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
			 u64 size, u32 sector_size, pmem_rw_fn rw);
/*
 * Unregister it (the caller owns the direct map of its range): 0, also
 * when it was not registered; -EBUSY, and nothing changes, while it is
 * held (pmem_get) or a raw device's direct-access addresses are out. Once
 * it returns 0 no CPU can reach the device through the table.
 */
int pmem_detach(struct pmem_device *dev);
/* pmem_detach, waiting for the holders to let go (error paths of an attach). */
void pmem_detach_wait(struct pmem_device *dev);

/*
 * A registered device by name, held: pmem_detach refuses it (-EBUSY) until
 * pmem_put, so I/O on one CPU cannot lose its device to a destroy on
 * another (Linux's 32b2397c1e56 class of bug). NULL if there is none.
 */
struct pmem_device *pmem_get(const char *name);
void pmem_put(struct pmem_device *dev);
/* How many hold the device `name` now (0 also when there is none). */
u64 pmem_users(const char *name);

/*
 * A registered device by name, or NULL; not held, so only for code that
 * holds the device model lock (nd_lock), under which nothing is detached.
 */
struct pmem_device *pmem_find(const char *name);
struct pmem_device *pmem_next(struct pmem_device *prev);

/*
 * Read or write `len` bytes at byte `off`. Both must be multiples of the
 * sector size and len not 0 (-EINVAL otherwise); the request must lie inside the device
 * (-ERANGE otherwise; nothing is copied); writes to a read-only device give
 * -EROFS. A write is durable when this returns 0 (and on an indirect
 * device, atomic per sector: see btt.h).
 */
int pmem_rw(struct pmem_device *dev, u64 off, void *buf, u64 len, enum pmem_dir dir);

/*
 * Copy len bytes to byte offset off (any alignment, inside the device) with
 * the persistence-safe copy but no fence: durable only after
 * pmem_durable(dev). For callers that copy a request in pieces as it
 * arrives and make it durable once (the NBD server's WRITE). -EOPNOTSUPP
 * for an indirect device (BTT: sectors go through it whole), -EROFS,
 * -ERANGE for an empty range or one past the end.
 */
int pmem_write_bytes(struct pmem_device *dev, u64 off, const void *buf, u64 len);

/* What pmem_direct_access() lends out, held until pmem_dax_put(). */
struct pmem_dax {
	void *kaddr;			/* kernel address of the sector */
	pfn_t pfn;
	struct dev_pagemap *pgmap;	/* pfn mode: the pin held */
	struct pmem_device *dev;	/* raw mode: the device reference held */
};

/*
 * DAX: the kernel address and pfn of `sector` and how many bytes from there
 * are directly accessible (up to the device end, and in pfn mode never past
 * the struct pages). The device stays alive until pmem_dax_put(*dax): a pfn
 * device's pages are pinned (its teardown waits), a raw device is
 * referenced (its detach is refused). Negative errno for a sector past the
 * end (-ERANGE), a device going away (-ENXIO) or one without direct access
 * (-EOPNOTSUPP: a BTT, whose sectors move); then nothing is held.
 */
s64 pmem_direct_access(struct pmem_device *dev, u64 sector, struct pmem_dax *dax);
void pmem_dax_put(struct pmem_dax *dax);

struct pmem_hold {
	struct pmem_device *dev;	/* NULL: nothing held */
	enum pmem_holder kind;
	struct dev_pagemap *pgmap;	/* pfn and devdax: the pin held on the pages */
};

/*
 * Hold `dev` (any kind) until pmem_release(h): counted on the device, and
 * for a device with struct pages its dev_pagemap pinned too, so pages
 * handed to a NIC stay there. -ENXIO for a device going away; then
 * nothing is held.
 */
int pmem_hold(struct pmem_device *dev, enum pmem_holder kind, struct pmem_hold *h);
void pmem_release(struct pmem_hold *h);
/*
 * Bytes [off, off + len) of a held device are about to be used by
 * reference (zero copy): their struct pages, if their initialisation is
 * still deferred, are made ready first (memmap_ready_range).
 */
void pmem_pages_ready(const struct pmem_hold *h, u64 off, u64 len);

/*
 * 0 when nothing holds `dev`; else -EBUSY and one line: "NAME: busy:
 * exported to N clients", or with no client "NAME: busy: exported over
 * NBD (nbd-unexport NAME first)".
 */
int pmem_busy(const struct pmem_device *dev);

/*
 * Make every completed write to the device durable: its region's flush
 * (fence, flush hints, fence: nd_region_flush), or a fence alone for a
 * device without a namespace.
 */
void pmem_durable(struct pmem_device *dev);

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
