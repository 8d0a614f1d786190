/* pmem block devices: bounds-checked sector I/O with the persistence-safe copy, and DAX. */
#include <errno.h>
#include <string.h>

#include "direct_map.h"
#include "memremap.h"
#include "persist.h"
#include "pmem.h"
#include "printk.h"
#include "spinlock.h"

static struct pmem_device *devices[PMEM_MAX_DEVICES];
/*
 * The table, each device's users and dax_refs (LOCK_RANK_PMEM): I/O on any
 * CPU finds and holds a device under it; detach checks and unregisters
 * under it, so a device is never unregistered while held.
 */
static struct spinlock pmem_lock = SPINLOCK_INIT("pmem", LOCK_RANK_PMEM);

void pmem_reset(void)
{
	memset(devices, 0, sizeof(devices));
}

/* Under pmem_lock. */
static int pmem_slot(void)
{
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (!devices[i])
			return i;
	return -1;
}

/* A free slot now (the model lock keeps it free: only attach fills one). */
static bool pmem_has_slot(void)
{
	spin_lock(&pmem_lock);
	int slot = pmem_slot();
	spin_unlock(&pmem_lock);
	return slot >= 0;
}

/* Make a filled-in device visible to pmem_find and pmem_get. */
static int pmem_register(struct pmem_device *dev)
{
	spin_lock(&pmem_lock);
	int slot = pmem_slot();
	if (slot >= 0)
		devices[slot] = dev;
	spin_unlock(&pmem_lock);
	return slot < 0 ? -ENOSPC : 0;
}

int pmem_attach(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
		const struct pmem_span *span)
{
	u64 phys = pa_addr(span->start), size = span->size;
	u32 sector = ns ? ns->sector_size : 512;

	/* The sector size is a power of two, so pmem_check needs no division. */
	if (!size || !IS_ALIGNED(phys | size, PAGE_SIZE) || !sector || (sector & (sector - 1)))
		return -EINVAL;
	if (!pmem_has_slot())
		return -ENOSPC;
	int err = direct_map_add(phys, size);
	if (err)
		return err;
	memset(dev, 0, sizeof(*dev));
	strncpy(dev->name, name, sizeof(dev->name) - 1);
	dev->ns = ns;
	dev->phys = phys;
	dev->size = size;
	dev->sector_size = sector;
	dev->pfn_flags = span->pfn_flags;
	dev->memmap_end = pa_addr(span->memmap_end);
	dev->cpu_cache_persistent = ns && ns->region->persistence == ND_PERSIST_CACHE;
	dev->ro = ns && ns->region->ro;
	dev->virt = phys_to_virt(phys);
	return pmem_register(dev);
}

int pmem_attach_indirect(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
			 u64 size, u32 sector_size, pmem_rw_fn rw)
{
	if (!size || !sector_size || size % sector_size || !rw)
		return -EINVAL;
	memset(dev, 0, sizeof(*dev));
	strncpy(dev->name, name, sizeof(dev->name) - 1);
	dev->ns = ns;
	dev->size = size;
	dev->sector_size = sector_size;
	dev->cpu_cache_persistent = ns && ns->region->persistence == ND_PERSIST_CACHE;
	dev->ro = ns && ns->region->ro;
	dev->rw = rw;
	return pmem_register(dev);
}

int pmem_detach(struct pmem_device *dev)
{
	int err = 0;

	spin_lock(&pmem_lock);
	for (int i = 0; i < PMEM_MAX_DEVICES; i++) {
		if (devices[i] != dev)
			continue;
		if (dev->users || dev->dax_refs)
			err = -EBUSY;
		else
			devices[i] = NULL;
	}
	spin_unlock(&pmem_lock);
	return err;
}

void pmem_detach_wait(struct pmem_device *dev)
{
	while (pmem_detach(dev))
		arch_cpu_relax();
}

static struct pmem_device *pmem_find_locked(const char *name)
{
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (devices[i] && strcmp(devices[i]->name, name) == 0)
			return devices[i];
	return NULL;
}

struct pmem_device *pmem_find(const char *name)
{
	spin_lock(&pmem_lock);
	struct pmem_device *dev = pmem_find_locked(name);
	spin_unlock(&pmem_lock);
	return dev;
}

struct pmem_device *pmem_get(const char *name)
{
	spin_lock(&pmem_lock);
	struct pmem_device *dev = pmem_find_locked(name);
	if (dev)
		dev->users++;
	spin_unlock(&pmem_lock);
	return dev;
}

u64 pmem_users(const char *name)
{
	spin_lock(&pmem_lock);
	struct pmem_device *dev = pmem_find_locked(name);
	u64 users = dev ? dev->users : 0;
	spin_unlock(&pmem_lock);
	return users;
}

void pmem_put(struct pmem_device *dev)
{
	if (!dev)
		return;
	spin_lock(&pmem_lock);
	dev->users--;
	spin_unlock(&pmem_lock);
}

struct pmem_device *pmem_next(struct pmem_device *prev)
{
	struct pmem_device *next = NULL;
	int i = 0;

	spin_lock(&pmem_lock);
	if (prev) {
		while (i < PMEM_MAX_DEVICES && devices[i] != prev)
			i++;
		i++;
	}
	for (; i < PMEM_MAX_DEVICES && !next; i++)
		next = devices[i];
	spin_unlock(&pmem_lock);
	return next;
}

/* One bounds check covers every request: aligned, inside, no wrap. */
static int pmem_check(const struct pmem_device *dev, u64 off, u64 len)
{
	u32 ss = dev->sector_size;

	/* Powers of two by mask; a BTT's 520 or 4160 by division. */
	if (!len || ((ss & (ss - 1)) ? (off % ss || len % ss) : ((off | len) & (ss - 1))))
		return -EINVAL;
	if (off > dev->size || len > dev->size - off)
		return -ERANGE;
	return 0;
}

int pmem_rw(struct pmem_device *dev, u64 off, void *buf, u64 len, enum pmem_dir dir)
{
	int err = pmem_check(dev, off, len);

	if (err)
		return err;
	if (dir == PMEM_WRITE && dev->ro)
		return -EROFS;
	/* The BTT engine locks for itself (a lane per CPU, map locks): requests run side by side. */
	if (dev->rw)
		return dev->rw(dev, off, buf, len, dir);
	if (dir == PMEM_READ) {
		memcpy(buf, dev->virt + off, len);
		return 0;
	}
	/* eADR: the caches are in the persistence domain; only order the stores. */
	if (dev->cpu_cache_persistent)
		memcpy(dev->virt + off, buf, len);
	else
		arch_memcpy_flushcache(dev->virt + off, buf, len);
	/* Durable on return: the fence, and the DIMMs' write-pending queues drained. */
	pmem_durable(dev);
	pmem_written_add(PMEM_WR_BLOCK, len);
	return 0;
}

int pmem_write_bytes(struct pmem_device *dev, u64 off, const void *buf, u64 len)
{
	if (dev->rw || !dev->virt)
		return -EOPNOTSUPP;
	if (dev->ro)
		return -EROFS;
	if (!len || off > dev->size || len > dev->size - off)
		return -ERANGE;
	if (dev->cpu_cache_persistent)
		memcpy(dev->virt + off, buf, len);
	else
		arch_memcpy_flushcache(dev->virt + off, buf, len);
	pmem_written_add(PMEM_WR_BLOCK, len);
	return 0;
}

void pmem_durable(struct pmem_device *dev)
{
	if (dev->ns)
		nd_region_flush(dev->ns->region);
	else
		arch_wmb_pmem();
}

/*
 * The DAX lifetime rule (the seeds'): whoever holds an address holds the
 * device. In pfn mode that is a pin on the dev_pagemap (memunmap_pages then
 * waits for it); a raw device, which has no struct pages, counts its own
 * references and refuses to go while any is out.
 */
s64 pmem_direct_access(struct pmem_device *dev, u64 sector, struct pmem_dax *dax)
{
	unsigned int shift = (unsigned int)__builtin_ctz(dev->sector_size);
	u64 end = dev->phys + dev->size;

	memset(dax, 0, sizeof(*dax));
	if (dev->rw)
		return -EOPNOTSUPP;
	if (dev->memmap_end && dev->memmap_end < end)
		end = dev->memmap_end;
	/* One check: the sector starts before the device end and the memmap's. */
	if (end <= dev->phys || sector > (end - dev->phys - 1) >> shift)
		return -ERANGE;
	u64 pa = dev->phys + (sector << shift);
	pfn_t pfn = phys_to_pfn_t(pa, dev->pfn_flags);
	if (pfn.val & PFN_MAP) {
		dax->pgmap = pgmap_pin(pfn_t_to_pfn(pfn));
		if (!dax->pgmap)
			return -ENXIO;	/* going away */
	} else {
		spin_lock(&pmem_lock);
		dev->dax_refs++;
		spin_unlock(&pmem_lock);
		dax->dev = dev;
	}
	dax->kaddr = dev->virt + (sector << shift);
	dax->pfn = pfn;
	return (s64)(end - pa);
}

void pmem_dax_put(struct pmem_dax *dax)
{
	if (dax->pgmap)
		pgmap_unpin(dax->pgmap);
	if (dax->dev) {
		spin_lock(&pmem_lock);
		if (dax->dev->dax_refs)
			dax->dev->dax_refs--;
		spin_unlock(&pmem_lock);
	}
	memset(dax, 0, sizeof(*dax));
}

/*
 * The network's hold: one count per holder kind on the device (every kind
 * has one: a BTT device has no pages to pin), plus a pin on the pages of
 * a device that has struct pages, as pmem_direct_access takes.
 */
int pmem_hold(struct pmem_device *dev, enum pmem_holder kind, struct pmem_hold *h)
{
	memset(h, 0, sizeof(*h));
	if (dev->pfn_flags & PFN_MAP) {
		h->pgmap = pgmap_pin(PFN_DOWN(dev->phys));
		if (!h->pgmap)
			return -ENXIO;	/* going away */
	}
	spin_lock(&pmem_lock);
	dev->holds[kind]++;
	spin_unlock(&pmem_lock);
	h->dev = dev;
	h->kind = kind;
	return 0;
}

void pmem_release(struct pmem_hold *h)
{
	if (!h->dev)
		return;
	spin_lock(&pmem_lock);
	if (h->dev->holds[h->kind])
		h->dev->holds[h->kind]--;
	spin_unlock(&pmem_lock);
	if (h->pgmap)
		pgmap_unpin(h->pgmap);
	memset(h, 0, sizeof(*h));
}

void pmem_pages_ready(const struct pmem_hold *h, u64 off, u64 len)
{
	u64 pa = h->dev->phys + off;

	if (h->pgmap)
		memmap_ready_range(h->pgmap, PFN_DOWN(pa), PFN_UP(pa + len) - PFN_DOWN(pa));
}

int pmem_busy(const struct pmem_device *dev)
{
	spin_lock(&pmem_lock);
	u32 clients = dev->holds[PMEM_HOLD_CLIENT], exports = dev->holds[PMEM_HOLD_EXPORT];
	spin_unlock(&pmem_lock);

	if (clients) {
		pr_err("%s: busy: exported to %u client%s\n", dev->name, clients,
		       clients == 1 ? "" : "s");
		return -EBUSY;
	}
	if (exports) {
		pr_err("%s: busy: exported over NBD (nbd-unexport %s first)\n", dev->name, dev->name);
		return -EBUSY;
	}
	return 0;
}
