/*
 * A volatile write-back cache in front of an NBD export, for crash tests
 * only (nbd.test-cache=, net/nbd_wcache.c). pmem needs none: a WRITE is in
 * the media when it is acknowledged. But a server may acknowledge a WRITE
 * before it is durable (doc/proto.md: only FLUSH, and FUA on the request,
 * promise durability), and a crash test that could not tell a server that
 * keeps that promise from one that does not proves nothing. This cache
 * holds acknowledged WRITE data in RAM and writes it back in order at FLUSH,
 * at FUA, before a read that meets it, and when it is full: a
 * server that honours FLUSH and FUA and no more. Its mutation,
 * ignore_flush, writes back only when full or met: acknowledged FLUSHes
 * and FUA writes are then lost in a crash, which the crash test must see.
 *
 * One cache per export, shared by all its connections (CAN_MULTI_CONN: a
 * FLUSH on one covers the writes acknowledged on any). Single-threaded: the
 * network loop is its only caller.
 */
#ifndef PMEMK_NBD_WCACHE_H
#define PMEMK_NBD_WCACHE_H

#include "nbd.h"
#include "types.h"

enum nbd_wcache_mode {
	NBD_WCACHE_OFF,
	NBD_WCACHE_WRITEBACK,		/* write back at FLUSH and FUA */
	NBD_WCACHE_IGNORE_FLUSH,	/* the mutation: FLUSH and FUA write nothing back */
};

#define NBD_WCACHE_BYTES (4u << 20)
#define NBD_WCACHE_WRITES 1024u

struct nbd_wcache_write {
	u64 off;
	u32 len;
	u32 at;		/* its data in buf */
};

struct nbd_wcache {
	struct nbd_export dev;		/* the device's own view, written back to */
	enum nbd_wcache_mode mode;
	u8 *buf;			/* NBD_WCACHE_BYTES */
	u32 used;			/* bytes of buf */
	struct nbd_wcache_write *w;	/* NBD_WCACHE_WRITES, in arrival order */
	u32 n;
	int err;			/* a write-back that failed: the next flush says so */
	u64 held, written_back, flushes_ignored;	/* writes; for nbd-list */
};

/*
 * Put a cache in front of *exp (mode not OFF): *exp's callbacks move to
 * wc->dev and *exp gets the cache's (ctx wc; READ data copied, WRITE data
 * gathered). 0, or -ENOMEM with *exp unchanged.
 */
int nbd_wcache_wrap(struct nbd_wcache *wc, struct nbd_export *exp, enum nbd_wcache_mode mode);
/* Write back what is held (an export going away), free the cache: 0 or the error. */
int nbd_wcache_unwrap(struct nbd_wcache *wc);
/* What a crash does: forget what is held, unwritten. For tests. */
void nbd_wcache_drop(struct nbd_wcache *wc);

#endif
