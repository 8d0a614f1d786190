/*
 * pmem block devices: the table of registered devices, the holds that keep
 * a device there while it is used, bounds-checked sector I/O through the
 * device's media path, and DAX.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memremap.h"
#include "pmem.h"
#include "printk.h"
#include "spinlock.h"

static struct pmem_device *devices[PMEM_MAX_DEVICES];
/*
 * The table and every device's holds (LOCK_RANK_PMEM): a holder finds and
 * holds a device under it; detach checks the holds and unregisters under
 * it, so a device is never unregistered while held.
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

/* Under pmem_lock: dev's slot, or -1 when it is not registered. */
static int pmem_index(const struct pmem_device *dev)
{
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (devices[i] == dev)
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

/* Make a filled-in device visible to pmem_find and pmem_hold. */
static int pmem_register(struct pmem_device *dev)
{
	spin_lock(&pmem_lock);
	int slot = pmem_slot();
	if (slot >= 0)
		devices[slot] = dev;
	spin_unlock(&pmem_lock);
	return slot < 0 ? -ENOSPC : 0;
}

/* What every device starts with: its name, namespace and sectors. */
static void pmem_init(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
		      u64 size, u32 sector_size)
{
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->ns = ns;
	dev->size = size;
	dev->sector_size = sector_size;
	dev->ro = ns && ns->region->ro;
}

int pmem_attach(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
		const struct pmem_span *span)
{
	u32 sector = ns ? ns->sector_size : 512;
	struct nsio io;

	/* The sector size is a power of two, so pmem_check needs no division. */
	if (!span->size || !IS_ALIGNED(span->off | span->size, PAGE_SIZE) || !sector ||
	    (sector & (sector - 1)))
		return -EINVAL;
	int err = nsio_view(span->media, span->off, span->size, &io);
	if (err)
		return err;
	if (!pmem_has_slot())
		return -ENOSPC;
	pmem_init(dev, ns, name, span->size, sector);
	dev->io = io;
	dev->ro = io.ro;
	dev->phys = io.phys;
	dev->pfn_flags = span->pfn_flags;
	dev->memmap_end = pa_addr(span->memmap_end);
	dev->pgmap = span->pgmap;
	return pmem_register(dev);
}

int pmem_attach_indirect(struct pmem_device *dev, struct nd_namespace_io *ns, const char *name,
			 u64 size, u32 sector_size, pmem_rw_fn rw)
{
	if (!size || !sector_size || size % sector_size || !rw)
		return -EINVAL;
	pmem_init(dev, ns, name, size, sector_size);
	dev->rw = rw;
	if (ns)
		dev->io.region = ns->region;	/* pmem_durable's flush; no bytes of its own */
	return pmem_register(dev);
}

/* ---- holds ---- */

/* Under pmem_lock: the first kind held, or PMEM_HOLD_KINDS when none is. */
static enum pmem_hold_kind first_held(const struct pmem_device *dev)
{
	u32 k = 0;

	while (k < PMEM_HOLD_KINDS && !dev->holds[k])
		k++;
	return (enum pmem_hold_kind)k;
}

/* "exported to 2 clients", "1 direct-access address lent", ...: what `n` holds of `kind` are. */
static void hold_phrase(enum pmem_hold_kind kind, u32 n, char *buf, size_t len)
{
	const char *s = n == 1 ? "" : "s";

	switch (kind) {
	case PMEM_HOLD_CLIENT:
		snprintf(buf, len, "exported to %u client%s", n, s);
		break;
	case PMEM_HOLD_EXPORT:
		snprintf(buf, len, "exported");
		break;
	case PMEM_HOLD_MAP:
		snprintf(buf, len, "%u mapping%s of its pages", n, s);
		break;
	case PMEM_HOLD_DAX:
		snprintf(buf, len, "%u direct-access address%s lent", n, n == 1 ? "" : "es");
		break;
	default:
		snprintf(buf, len, "in use by %u command%s", n, s);
		break;
	}
}

/*
 * The one check: 0 when nothing holds the device; else -EBUSY, and *line
 * names the first holder (under pmem_lock; printed once it is dropped).
 */
static int hold_check(const struct pmem_device *dev, char *line, size_t len)
{
	enum pmem_hold_kind k = first_held(dev);
	u64 pins = dev->pgmap ? __atomic_load_n(&dev->pgmap->pins, __ATOMIC_RELAXED) : 0;
	char what[48];

	if (k == PMEM_HOLD_KINDS && !pins)
		return 0;
	if (k == PMEM_HOLD_KINDS) {
		/* Pins taken around the holds (kmap_pfn): a hold pins, and unpins before it goes. */
		snprintf(line, len, "%s: busy: %llu pages pinned", dev->name, pins);
		return -EBUSY;
	}
	hold_phrase(k, dev->holds[k], what, sizeof(what));
	snprintf(line, len, "%s: busy: %s (%s)", dev->name, what, dev->holder[k]);
	return -EBUSY;
}

int pmem_detach(struct pmem_device *dev)
{
	char line[24 + 48 + PMEM_HOLDER_LEN + 16];

	spin_lock(&pmem_lock);
	int slot = pmem_index(dev);
	int err = slot < 0 ? 0 : hold_check(dev, line, sizeof(line));
	if (slot >= 0 && !err)
		devices[slot] = NULL;
	spin_unlock(&pmem_lock);
	if (err)
		pr_err("%s\n", line);
	return err;
}

void pmem_detach_wait(struct pmem_device *dev)
{
	for (;;) {
		spin_lock(&pmem_lock);
		int slot = pmem_index(dev);
		bool held = slot >= 0 && first_held(dev) != PMEM_HOLD_KINDS;
		if (slot >= 0 && !held)
			devices[slot] = NULL;
		spin_unlock(&pmem_lock);
		if (!held)
			return;
		arch_cpu_relax();
	}
}

/* Under pmem_lock: count the hold on a registered device. */
static int hold_locked(struct pmem_device *dev, enum pmem_hold_kind kind, const char *who)
{
	if (!dev || pmem_index(dev) < 0)
		return -ENXIO;
	size_t n = strnlen(who, PMEM_HOLDER_LEN - 1);

	dev->holds[kind]++;
	memcpy(dev->holder[kind], who, n);	/* a copy: the holder's string may go first */
	dev->holder[kind][n] = '\0';
	return 0;
}

/* Under pmem_lock: give one back (the holder's name goes with the last). */
static void release_locked(struct pmem_device *dev, enum pmem_hold_kind kind)
{
	if (dev->holds[kind] && !--dev->holds[kind])
		dev->holder[kind][0] = '\0';
}

/* A held device with struct pages pins them; undo the hold if they are going. */
static int hold_pages(struct pmem_hold *h)
{
	struct pmem_device *dev = h->dev;

	if (!dev->pgmap || !pgmap_get(dev->pgmap))
		return 0;
	spin_lock(&pmem_lock);
	release_locked(dev, h->kind);
	spin_unlock(&pmem_lock);
	memset(h, 0, sizeof(*h));
	return -ENXIO;
}

int pmem_hold(struct pmem_device *dev, enum pmem_hold_kind kind, const char *who,
	      struct pmem_hold *h)
{
	memset(h, 0, sizeof(*h));
	spin_lock(&pmem_lock);
	int err = hold_locked(dev, kind, who);
	spin_unlock(&pmem_lock);
	if (err)
		return err;
	*h = (struct pmem_hold){ .dev = dev, .kind = kind };
	return hold_pages(h);
}

static struct pmem_device *pmem_find_locked(const char *name)
{
	for (int i = 0; i < PMEM_MAX_DEVICES; i++)
		if (devices[i] && strcmp(devices[i]->name, name) == 0)
			return devices[i];
	return NULL;
}

int pmem_hold_name(const char *name, enum pmem_hold_kind kind, const char *who,
		   struct pmem_hold *h)
{
	memset(h, 0, sizeof(*h));
	spin_lock(&pmem_lock);
	struct pmem_device *dev = pmem_find_locked(name);
	int err = dev ? hold_locked(dev, kind, who) : -ENODEV;
	spin_unlock(&pmem_lock);
	if (err)
		return err;
	*h = (struct pmem_hold){ .dev = dev, .kind = kind };
	return hold_pages(h);
}

void pmem_release(struct pmem_hold *h)
{
	if (!h->dev)
		return;
	/* Unpinned first: a device's pins never outnumber its holds but for other users'. */
	if (h->dev->pgmap)
		pgmap_unpin(h->dev->pgmap);
	spin_lock(&pmem_lock);
	release_locked(h->dev, h->kind);
	spin_unlock(&pmem_lock);
	memset(h, 0, sizeof(*h));
}

u32 pmem_holds(const char *name)
{
	u32 n = 0;

	spin_lock(&pmem_lock);
	struct pmem_device *dev = pmem_find_locked(name);
	for (int k = 0; dev && k < PMEM_HOLD_KINDS; k++)
		n += dev->holds[k];
	spin_unlock(&pmem_lock);
	return n;
}

struct pmem_device *pmem_find(const char *name)
{
	spin_lock(&pmem_lock);
	struct pmem_device *dev = pmem_find_locked(name);
	spin_unlock(&pmem_lock);
	return dev;
}

/* ---- I/O ---- */

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
	if (dir == PMEM_READ)
		return nsio_read(&dev->io, off, buf, len);
	return nsio_write(&dev->io, off, buf, len, PMEM_WR_BLOCK);
}

int pmem_write_bytes(struct pmem_device *dev, u64 off, const void *buf, u64 len)
{
	if (dev->rw)
		return -EOPNOTSUPP;
	if (dev->ro)
		return -EROFS;
	if (!len)
		return -ERANGE;
	return nsio_write_unflushed(&dev->io, off, buf, len, PMEM_WR_BLOCK);
}

bool pmem_first_bad(struct pmem_device *dev, u64 off, u64 len, u64 *bad)
{
	if (pmem_check(dev, off, len))
		return false;
	if (!dev->rw)
		return nsio_first_bad(&dev->io, off, len, bad);
	/* Through a map (the BTT): the first sector whose read fails. */
	u8 *buf = malloc(dev->sector_size);
	bool found = false;
	for (u64 at = off; buf && !found && at < off + len; at += dev->sector_size) {
		found = dev->rw(dev, at, buf, dev->sector_size, PMEM_READ) == -EIO;
		*bad = at;
	}
	free(buf);
	return found;
}

void pmem_durable(struct pmem_device *dev)
{
	nsio_flush(&dev->io);
}

const u8 *pmem_read_ref(const struct pmem_hold *h)
{
	return h->dev && !h->dev->rw ? nsio_kaddr(&h->dev->io, 0) : NULL;
}

bool pmem_read_ref_clean(const struct pmem_hold *h, u64 off, u64 len)
{
	return h->dev && !h->dev->rw && nsio_clean_len(&h->dev->io, off, len) == len;
}

/* ---- DAX ---- */

/*
 * The DAX lifetime rule (the seeds'): whoever holds an address holds the
 * device, and with it the page map of a device that has struct pages.
 */
s64 pmem_direct_access(struct pmem_device *dev, u64 sector, const char *who,
		       struct pmem_dax *dax)
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
	/*
	 * Never lend a bad sector: a CPU or a NIC reading poison through the
	 * address cannot be recovered. The range stops before the first one
	 * (Linux's pmem_dax_direct_access); -EIO when it is the first.
	 */
	u64 clean = nsio_clean_len(&dev->io, sector << shift, end - pa);
	if (!clean)
		return -EIO;
	if (pmem_hold(dev, PMEM_HOLD_DAX, who, &dax->hold))
		return -ENXIO;	/* going away */
	dax->kaddr = nsio_kaddr(&dev->io, sector << shift);
	dax->pfn = phys_to_pfn_t(pa, dev->pfn_flags);
	pmem_pages_ready(&dax->hold, sector << shift, 1);	/* its user may ask for the page */
	return (s64)clean;
}

void pmem_dax_put(struct pmem_dax *dax)
{
	pmem_release(&dax->hold);
	memset(dax, 0, sizeof(*dax));
}

void pmem_pages_ready(const struct pmem_hold *h, u64 off, u64 len)
{
	u64 pa = h->dev->phys + off;

	if (h->dev->pgmap)
		memmap_ready_range(h->dev->pgmap, PFN_DOWN(pa), PFN_UP(pa + len) - PFN_DOWN(pa));
}
