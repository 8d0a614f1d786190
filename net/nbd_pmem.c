/*
 * An NBD export's view of its block device (struct nbd_export's callbacks
 * over a held pmem device): reads and writes through pmem_rw,
 * pmem_write_bytes and pmem_durable, READ data by reference where the
 * device's bytes stay put, and the device's bad sectors, so that a READ
 * over one gets EIO and no bad sector is ever lent by reference
 * (pmem_read_ref_clean). Portable: the host tests serve real devices
 * through it; the table of exports is nbd_exports.c's.
 */
#include "nbd_priv.h"

static struct pmem_device *dev_of(void *ctx)
{
	return ((struct srv_export *)ctx)->dev;
}

static int exp_read(void *ctx, u64 off, void *buf, u32 len)
{
	return pmem_rw(dev_of(ctx), off, buf, len, PMEM_READ);
}

static int exp_write(void *ctx, u64 off, const void *buf, u32 len)
{
	return pmem_rw(dev_of(ctx), off, (void *)buf, len, PMEM_WRITE);
}

/* WRITE data as it arrives, straight from lwIP's buffers: durable at the engine's flush. */
static int exp_write_bytes(void *ctx, u64 off, const void *buf, u32 len)
{
	return pmem_write_bytes(dev_of(ctx), off, buf, len);
}

/* A zero-copy READ's pages: their struct pages are stored first if still deferred. */
static void exp_pages_ready(void *ctx, u64 off, u64 len)
{
	pmem_pages_ready(&((struct srv_export *)ctx)->hold, off, len);
}

static int exp_flush(void *ctx)
{
	pmem_durable(dev_of(ctx));
	return 0;
}

/* The region's list (and the injector's poison): a lock-free "no" when nothing is bad. */
static bool exp_first_bad(void *ctx, u64 off, u64 len, u64 *bad)
{
	return pmem_first_bad(dev_of(ctx), off, len, bad);
}

static bool exp_ref_clean(void *ctx, u64 off, u64 len)
{
	return pmem_read_ref_clean(&((struct srv_export *)ctx)->hold, off, len);
}

void nbd_pmem_export(struct srv_export *e, bool ro)
{
	struct pmem_device *dev = e->dev;

	e->exp = (struct nbd_export){
		.name = e->name,
		.size = dev->size,
		.block = dev->sector_size,
		.ro = ro || dev->ro,
		.ctx = e,
		.read = exp_read,
		.write = exp_write,
		.flush = exp_flush,
		.by_ref = e->base != NULL,
		/* A BTT's writes go through it whole sectors at a time: gathered. */
		.write_bytes = dev->rw ? NULL : exp_write_bytes,
		.pages_ready = dev->pgmap ? exp_pages_ready : NULL,
		/*
		 * A BTT's sectors are found only by reading them one by one:
		 * too dear before every READ, so its reads find out by failing.
		 */
		.first_bad = dev->rw ? NULL : exp_first_bad,
		.ref_clean = e->base ? exp_ref_clean : NULL,
	};
}
