/*
 * libFuzzer harness: the NBD protocol engine (net/nbd_proto.c and its
 * phases, nbd_handshake.c and nbd_transmission.c) over a fake transport,
 * as a hostile client would drive it.
 *
 * Input byte 0: bit 0 makes the first export read-only, bits 1-2 its
 * sector size (512 << n), bit 3 hands READ data out by reference (zero
 * copy; "sending" it checks the range), bits 4-7 seed how the rest is cut
 * into pieces and how much output the "socket" takes per turn. The rest is
 * the client's byte stream. Two exports of 1 MiB ("a", "b") in host memory.
 *
 * Invariants: the device callbacks only see aligned, in-range requests and
 * no write reaches a read-only export; the output buffer never holds more
 * than NBD_OUTBUF; once closed nothing more is consumed; and the engine
 * never stalls — with its output drained, it has either closed or is
 * waiting for bytes it does not have yet (nothing taken in is left
 * unanswered).
 *
 * Seeds: test/fuzz/seeds/fuzz_nbd (sessions of GO, INFO, LIST, EXPORT_NAME,
 * reads, writes, flushes, zeroes and DISC, written by test/fuzz/mkseeds_nbd.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbd.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define DEV 0x100000u

static u8 mem[2][DEV];
static struct nbd_export exps[2];

static void check_range(const struct nbd_export *e, u64 off, u32 len)
{
	CHECK(len > 0);
	CHECK(off + len >= off && off + len <= e->size);
	CHECK(off % e->block == 0 && len % e->block == 0);
	CHECK(len <= NBD_MAX_PAYLOAD);
}

static int dev_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct nbd_export *e = ctx;

	check_range(e, off, len);
	memcpy(buf, mem[e - exps] + off, len);
	return 0;
}

static int dev_write(void *ctx, u64 off, const void *buf, u32 len)
{
	struct nbd_export *e = ctx;

	check_range(e, off, len);
	CHECK(!e->ro);
	memcpy(mem[e - exps] + off, buf, len);
	return 0;
}

/* write_bytes: any alignment, but inside the export and never on a read-only one. */
static int dev_write_bytes(void *ctx, u64 off, const void *buf, u32 len)
{
	struct nbd_export *e = ctx;

	CHECK(len > 0 && off + len >= off && off + len <= e->size);
	CHECK(!e->ro);
	memcpy(mem[e - exps] + off, buf, len);
	return 0;
}

static int dev_flush(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct nbd_export *lookup(void *arg, const char *name)
{
	(void)arg;
	for (int i = 0; i < 2; i++)
		if (!strcmp(exps[i].name, name))
			return &exps[i];
	return NULL;
}

static const struct nbd_export *nth(void *arg, unsigned int i)
{
	(void)arg;
	return i < 2 ? &exps[i] : NULL;
}

static const struct nbd_exports table = { lookup, nth, NULL };

/* Take at most limit bytes of output (0: all). */
static void drain(struct nbd_conn *c, u32 limit)
{
	const u8 *p;
	u32 n, taken = 0;

	for (;;) {
		u64 off;
		bool ref = false;
		n = nbd_conn_output(c, &p);
		CHECK(n <= NBD_OUTBUF);
		if (!n && (n = nbd_conn_output_ref(c, &off))) {
			CHECK(c->zero_copy && c->exp && c->exp->by_ref);
			CHECK(off + n >= off && off + n <= c->exp->size);
			ref = true;
		}
		if (limit && n > limit - taken)
			n = limit - taken;
		if (!n)
			break;
		taken += n;
		if (ref)
			nbd_conn_ref_sent(c, n);
		else
			nbd_conn_sent(c, n);
	}
}

/* A by-reference READ's pages: inside the export, never empty. */
static void dev_pages_ready(void *ctx, u64 off, u64 len)
{
	(void)ctx;
	if (!len || off > DEV || len > DEV - off)
		__builtin_trap();
}

/* Nothing taken in is waiting for an answer. */
static bool waiting_for_input(const struct nbd_conn *c)
{
	return c->state == NBD_S_CLOSED || c->in_len < c->in_need || c->w_left || c->skip;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct nbd_conn c;

	if (size < 1)
		return 0;
	u8 cfg = data[0];
	u32 seed = cfg >> 4;
	exps[0] = (struct nbd_export){ "a", DEV, 512u << ((cfg >> 1) & 3), cfg & 1, &exps[0],
				       dev_read, dev_write, dev_flush, true,
				       seed & 1 ? dev_write_bytes : NULL, dev_pages_ready };
	/* "b" is copied even with zero_copy (a BTT's export). */
	exps[1] = (struct nbd_export){ "b", DEV, 512, false, &exps[1], dev_read, dev_write, dev_flush,
				       false, NULL, NULL };
	if (nbd_conn_init(&c, &table))
		return 0;
	c.zero_copy = cfg & 8;
	data++;
	size--;
	size_t off = 0;
	while (off < size) {
		seed = seed * 1103515245u + 12345u;
		size_t piece = 1 + (seed >> 16) % 97;
		if (piece > size - off)
			piece = size - off;
		bool was_closed = c.state == NBD_S_CLOSED;
		size_t used = nbd_conn_input(&c, data + off, piece);
		CHECK(used <= piece);
		CHECK(!was_closed || used == 0);
		off += used;
		drain(&c, (seed >> 8) & 1 ? 3000 : 0);
		if (c.state == NBD_S_CLOSED) {
			drain(&c, 0);
			CHECK(nbd_conn_done(&c));
			break;
		}
		if (!used) {
			/* Stuck only while output waits: drain it all, then it must move. */
			drain(&c, 0);
			CHECK(nbd_conn_input(&c, data + off, piece) > 0 || c.state == NBD_S_CLOSED);
		}
	}
	drain(&c, 0);
	CHECK(waiting_for_input(&c));
	nbd_conn_free(&c);
	return 0;
}
