/*
 * Device-dax (Linux's device_dax, ndctl mode "devdax"): a namespace with an
 * NVDIMM_DAX_INFO block is handed out whole as daxN.0, in pages of the
 * block's align (4 KiB, 2 MiB or 1 GiB). The device itself is a struct
 * nd_pfn with pers ND_PERS_DEVDAX (nvdimm/pfn_dev.c: the same info block
 * layout and bring-up as fsdax, FACTS-2 §2.1): compound pages of its align,
 * their vmemmap deduplicated for map=mem (FACTS-2 §2.2), and a block view of
 * its data under the same name daxN.0 (sector 0 = the first data byte), so
 * it can be read, written and exported like any block device.
 *
 * This header adds what only devdax has: mappings of a range of the device
 * into the kernel's address space with leaves of the device's align — 1 GiB
 * PUD leaves for align 1G, 2 MiB PMD leaves for 2M, 4 KiB PTEs for 4K, as
 * Linux's devdax faults them in for a user mapping — in a window of their own
 * (DAX_MAP_BASE, memlayout.h). A mapping holds the device as
 * pmem_direct_access's struct pmem_dax does: the device cannot be torn down
 * or reconfigured while one is held. Stores through a mapping take the
 * media path (nsio.h) over the mapping's addresses.
 */
#ifndef PMEMK_ND_DAX_H
#define PMEMK_ND_DAX_H

#include "arch.h"
#include "nd_pfn.h"
#include "pfn_t.h"

struct dax_mapping {
	struct nd_pfn *dax;		/* the device */
	u64 offset;			/* device byte offset of the first byte mapped */
	u64 len;
	void *kaddr;			/* kernel address of that byte */
	pfn_t pfn;			/* its pfn: PFN_DEV | PFN_MAP */
	enum pg_level leaf;		/* the leaves that map it */
	struct pmem_hold hold;		/* PMEM_HOLD_MAP on the device, until dax_unmap */
	struct nsio io;			/* its media, through this mapping */
	int slot;			/* window slot; -1 when not mapped */
};

/* The enabled devdax device named daxN.0, or NULL. */
struct nd_pfn *nd_dax_find(const char *name);

/*
 * Map [offset, offset + len) of `dax` (both multiples of its align, inside
 * the device, len at most 256 GiB) and hold the device (PMEM_HOLD_MAP,
 * named `who`). -EINVAL for a range
 * not aligned or empty, -ERANGE past the end, -EIO for one that holds a
 * bad sector (listed or poisoned: media_error.h), -ENXIO for a device that is
 * not an enabled devdax device or is going away, -ENOSPC when the 64 slots
 * are taken, -ENOMEM without page-table pages. Nothing is held on error.
 * Leaves: the align's size, capped by what the CPU maps (a 1 GiB device on a
 * CPU without pdpe1gb gets 2 MiB leaves); read-write, read-only on a
 * read-only region.
 */
__must_check int dax_map(struct nd_pfn *dax, u64 offset, u64 len, const char *who, struct dax_mapping *m);

/* Unmap and drop the hold (the device may then go). */
void dax_unmap(struct dax_mapping *m);

/* One line on what the device's struct pages cost (RAM, page tables, pmem), at bring-up. */
void nd_dax_print_memmap(const struct nd_pfn *dax);

/* Forget every mapping slot (host tests; nothing is unmapped). */
void dax_map_reset(void);

#endif
