/* pmem block devices: bounds-checked sector I/O with the persistence-safe copy, and DAX. */
#include <errno.h>
#include <string.h>

#include "direct_map.h"
#include "memremap.h"
#include "persist.h"
#include "pmem.h"
#include "printk.h"

static struct pmem_device *devices[PMEM_MAX_DEVICES];

void pmem_reset(void)
{
	memset(devices, 0, sizeof(devices));
}

int pmem_attach(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
		const struct pmem_span *span)
{
	u64 phys = pa_addr(span->start), size = span->size;
	u32 sector = ns ? ns->sector_size : 512;
	int slot = -1;

	/* The sector size is a power of two, so pmem_check needs no division. */
	if (!size || !IS_ALIGNED(phys | size, PAGE_SIZE) || !sector || (sector & (sector - 1)))
		return -EINVAL;
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (!devices[i] && slot < 0)
			slot = i;
	if (slot < 0)
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
	devices[slot] = dev;
	return 0;
}

static int pmem_slot(void)
{
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (!devices[i])
			return i;
	return -1;
}

int pmem_attach_indirect(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
			 u64 size, u32 sector_size, pmem_rw_fn rw)
{
	int slot = pmem_slot();

	if (!size || !sector_size || size % sector_size || !rw)
		return -EINVAL;
	if (slot < 0)
		return -ENOSPC;
	memset(dev, 0, sizeof(*dev));
	strncpy(dev->name, name, sizeof(dev->name) - 1);
	dev->ns = ns;
	dev->size = size;
	dev->sector_size = sector_size;
	dev->cpu_cache_persistent = ns && ns->region->persistence == ND_PERSIST_CACHE;
	dev->ro = ns && ns->region->ro;
	dev->rw = rw;
	devices[slot] = dev;
	return 0;
}

void pmem_detach(struct pmem_device *dev)
{
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (devices[i] == dev)
			devices[i] = NULL;
}

struct pmem_device *pmem_find(const char *name)
{
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (devices[i] && strcmp(devices[i]->name, name) == 0)
			return devices[i];
	return NULL;
}

struct pmem_device *pmem_next(struct pmem_device *prev)
{
	int i = 0;

	if (prev) {
		while (i < PMEM_MAX_DEVICES && devices[i] != prev)
			i++;
		i++;
	}
	for (; i < PMEM_MAX_DEVICES; i++)
		if (devices[i])
			return devices[i];
	return NULL;
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
		dev->dax_refs++;
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
	if (dax->dev && dax->dev->dax_refs)
		dax->dev->dax_refs--;
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
	dev->holds[kind]++;
	h->dev = dev;
	h->kind = kind;
	return 0;
}

void pmem_release(struct pmem_hold *h)
{
	if (!h->dev)
		return;
	if (h->dev->holds[h->kind])
		h->dev->holds[h->kind]--;
	if (h->pgmap)
		pgmap_unpin(h->pgmap);
	memset(h, 0, sizeof(*h));
}

int pmem_busy(const struct pmem_device *dev)
{
	u32 clients = dev->holds[PMEM_HOLD_CLIENT];

	if (clients) {
		pr_err("%s: busy: exported to %u client%s\n", dev->name, clients,
		       clients == 1 ? "" : "s");
		return -EBUSY;
	}
	if (dev->holds[PMEM_HOLD_EXPORT]) {
		pr_err("%s: busy: exported over NBD (nbd-unexport %s first)\n", dev->name, dev->name);
		return -EBUSY;
	}
	return 0;
}
