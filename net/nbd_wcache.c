/*
 * nbd.test-cache=: a volatile write-back cache in front of an export
 * (include/nbd_wcache.h says why a pmem server has one only for crash
 * tests). WRITE data is appended to a buffer with its range; everything
 * held is written back, in arrival order, at FLUSH and FUA (flush()), when
 * a read, a bad-sector question or a write that does not fit meets it, and
 * when an export is removed. Portable: the host tests drive it through the
 * engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nbd_wcache.h"

static bool overlaps(const struct nbd_wcache *wc, u64 off, u64 len)
{
	for (u32 i = 0; i < wc->n; i++)
		if (wc->w[i].off < off + len && off < wc->w[i].off + wc->w[i].len)
			return true;
	return false;
}

/* Write back everything held, in order; the first error is kept for flush(). */
static void write_back(struct nbd_wcache *wc)
{
	for (u32 i = 0; i < wc->n; i++) {
		const struct nbd_wcache_write *w = &wc->w[i];
		int err = wc->dev.write(wc->dev.ctx, w->off, wc->buf + w->at, w->len);
		if (err && !wc->err)
			wc->err = err;
		wc->written_back++;
	}
	wc->n = 0;
	wc->used = 0;
}

static void write_back_if_met(struct nbd_wcache *wc, u64 off, u64 len)
{
	if (overlaps(wc, off, len))
		write_back(wc);
}

static int wc_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct nbd_wcache *wc = ctx;

	write_back_if_met(wc, off, len);
	return wc->dev.read(wc->dev.ctx, off, buf, len);
}

static int wc_write(void *ctx, u64 off, const void *buf, u32 len)
{
	struct nbd_wcache *wc = ctx;

	if (len > NBD_WCACHE_BYTES - wc->used || wc->n == NBD_WCACHE_WRITES)
		write_back(wc);
	if (len > NBD_WCACHE_BYTES)
		return wc->dev.write(wc->dev.ctx, off, buf, len);
	wc->w[wc->n++] = (struct nbd_wcache_write){ .off = off, .len = len, .at = wc->used };
	memcpy(wc->buf + wc->used, buf, len);
	wc->used += len;
	wc->held++;
	return 0;
}

static int wc_flush(void *ctx)
{
	struct nbd_wcache *wc = ctx;

	if (wc->mode == NBD_WCACHE_IGNORE_FLUSH) {
		wc->flushes_ignored++;
		return 0;
	}
	write_back(wc);
	int err = wc->err ? wc->err : wc->dev.flush(wc->dev.ctx);
	wc->err = 0;
	return err;
}

/* A held write covering a bad sector heals it once written back: ask after that. */
static bool wc_first_bad(void *ctx, u64 off, u64 len, u64 *bad)
{
	struct nbd_wcache *wc = ctx;

	write_back_if_met(wc, off, len);
	return wc->dev.first_bad(wc->dev.ctx, off, len, bad);
}

int nbd_wcache_wrap(struct nbd_wcache *wc, struct nbd_export *exp, enum nbd_wcache_mode mode)
{
	*wc = (struct nbd_wcache){ .dev = *exp, .mode = mode };
	wc->buf = malloc(NBD_WCACHE_BYTES);
	wc->w = malloc(NBD_WCACHE_WRITES * sizeof(*wc->w));
	if (!wc->buf || !wc->w) {
		free(wc->buf);
		free(wc->w);
		*wc = (struct nbd_wcache){ 0 };
		return -ENOMEM;
	}
	exp->ctx = wc;
	exp->read = wc_read;
	exp->write = wc_write;
	exp->flush = wc_flush;
	exp->by_ref = false;
	exp->write_bytes = NULL;
	exp->pages_ready = NULL;
	exp->first_bad = wc->dev.first_bad ? wc_first_bad : NULL;
	exp->ref_clean = NULL;
	return 0;
}

int nbd_wcache_unwrap(struct nbd_wcache *wc)
{
	write_back(wc);
	int err = wc->err ? wc->err : wc->dev.flush(wc->dev.ctx);
	free(wc->buf);
	free(wc->w);
	*wc = (struct nbd_wcache){ 0 };
	return err;
}

void nbd_wcache_drop(struct nbd_wcache *wc)
{
	wc->n = 0;
	wc->used = 0;
}
