/*
 * libFuzzer harness: the NBD protocol engine (net/nbd_proto.c and its
 * phases, nbd_handshake.c and nbd_transmission.c) over a fake transport,
 * as a hostile client would drive it.
 *
 * Input byte 0: bit 0 makes the first export read-only, bits 1-2 its
 * sector size (512 << n), bit 3 hands READ data out by reference (zero
 * copy; "sending" it checks the range), bits 4-7 seed how the rest is cut
 * into pieces and how much output the "socket" takes per turn; of those,
 * bit 4 gives "a" write_bytes, bit 5 a bad range (reads over it fail,
 * writes covering it in part too, whole ones heal it) and bit 6 lets its
 * first_bad know of it (else reads find it by failing). The rest is the
 * Byte 1: bits 0-1 what TLS the server offers (off, on, require, on),
 * bit 2 an export policy (may_open: "a" only for the TLS identity
 * "alice", the long-named "c" for any TLS client, "b" for anyone), bit 3
 * work_in_steps (the harness calls nbd_conn_work, a few steps per turn,
 * while nbd_conn_busy), bit 4 a LIST of LIST_MANY more entries with a
 * name longer than NBD_NAME_MAX. The rest is the client's byte stream;
 * when the engine has acknowledged a STARTTLS, the harness sends the
 * plaintext output and plays the TLS handshake with the next stream byte:
 * bit 7 a failure (the connection is closed), else its low bits the
 * length of an identity taken from the bytes after it (longer than
 * NBD_IDENTITY_MAX closes). Exports "a" (1 MiB), "b" (3 MiB: a
 * WRITE_ZEROES of it takes several slices) and "c" (the long name, "b"'s
 * bytes) in host memory.
 *
 * Invariants: the device callbacks only see aligned, in-range requests and
 * no write reaches a read-only export; the output buffer never holds more
 * than NBD_OUTBUF; no byte of the bad range is handed out by reference;
 * once closed nothing more is consumed; nothing is consumed while a
 * STARTTLS waits for the handshake or a WRITE_ZEROES is being done, and a
 * STARTTLS is acknowledged only when TLS is offered; an export chosen is
 * one may_open allows, and with TLS required only after TLS is up; and the
 * engine never stalls — with its output drained and its work done, it has
 * either closed or is waiting for bytes it does not have yet (nothing
 * taken in is left unanswered).
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
#define DEV_B (3 * DEV)
#define LIST_MANY 40

static u8 mem_a[DEV], mem_b[DEV_B];
static u8 *const mem[3] = { mem_a, mem_b, mem_b };	/* "c" shows "b"'s bytes */
static struct nbd_export exps[3];
static char long_name[NBD_NAME_MAX + 100];
static bool list_many;
#define BAD_OFF 0x80000u
static u32 bad_len; /* "a"'s bad range: [BAD_OFF, BAD_OFF + bad_len) */

static bool meets_bad(const struct nbd_export *e, u64 off, u64 len)
{
	return e == &exps[0] && bad_len && off < BAD_OFF + bad_len && BAD_OFF < off + len;
}

/* A store over [off, off + len): -5 if it covers the bad range in part; a whole one heals it. */
static int store_bad(const struct nbd_export *e, u64 off, u64 len)
{
	if (!meets_bad(e, off, len))
		return 0;
	if (off > BAD_OFF || off + len < BAD_OFF + bad_len)
		return -5;
	bad_len = 0;
	return 0;
}

static bool dev_first_bad(void *ctx, u64 off, u64 len, u64 *bad)
{
	if (!meets_bad(ctx, off, len))
		return false;
	*bad = off > BAD_OFF ? off : BAD_OFF;
	CHECK(*bad < off + len);
	return true;
}

static bool dev_ref_clean(void *ctx, u64 off, u64 len)
{
	return !meets_bad(ctx, off, len);
}

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
	if (meets_bad(e, off, len))
		return -5;
	memcpy(buf, mem[e - exps] + off, len);
	return 0;
}

static int dev_write(void *ctx, u64 off, const void *buf, u32 len)
{
	struct nbd_export *e = ctx;

	check_range(e, off, len);
	CHECK(!e->ro);
	if (store_bad(e, off, len))
		return -5;
	memcpy(mem[e - exps] + off, buf, len);
	return 0;
}

/* write_bytes: any alignment, but inside the export and never on a read-only one. */
static int dev_write_bytes(void *ctx, u64 off, const void *buf, u32 len)
{
	struct nbd_export *e = ctx;

	CHECK(len > 0 && off + len >= off && off + len <= e->size);
	CHECK(!e->ro);
	if (store_bad(e, off, len))
		return -5;
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
	for (int i = 0; i < 3; i++)
		if (!strcmp(exps[i].name, name))
			return &exps[i];
	return NULL;
}

/* "a", "b", "c", then (list_many) "c" LIST_MANY times more. */
static const struct nbd_export *nth(void *arg, unsigned int i)
{
	(void)arg;
	if (i < 3)
		return &exps[i];
	return list_many && i < 3 + LIST_MANY ? &exps[2] : NULL;
}

/* "a" for the TLS identity "alice" only, "c" for any TLS client, "b" for anyone. */
static bool policy(void *arg, const struct nbd_export *e, const char *identity)
{
	(void)arg;
	if (e == &exps[0])
		return identity && !strcmp(identity, "alice");
	if (e == &exps[2])
		return identity != NULL;
	return true;
}

static const struct nbd_exports table = { .lookup = lookup, .nth = nth };
static const struct nbd_exports policy_table = { .lookup = lookup, .nth = nth, .may_open = policy };

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
			CHECK(!meets_bad(c->exp, off, n));
			ref = true;
		} else if (!n && nbd_conn_output(c, &p)) {
			continue; /* a by-reference READ over the bad range turned copied */
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

/* Nothing taken in is waiting for an answer (or the TLS handshake is). */
static bool waiting_for_input(const struct nbd_conn *c)
{
	return c->state == NBD_S_CLOSED || c->in_len < c->in_need || c->w_left || c->skip ||
	       nbd_conn_starttls(c);
}

/*
 * STARTTLS acknowledged: nothing more is consumed; the plaintext goes out,
 * then the "handshake" from the stream (see the top). Returns the stream
 * bytes it used.
 */
static size_t start_tls(struct nbd_conn *c, const u8 *data, size_t size)
{
	char id[NBD_IDENTITY_MAX + 9];

	CHECK(c->tls != NBD_TLS_OFF && !c->tls_up);
	CHECK(nbd_conn_input(c, data, size) == 0);
	drain(c, 0);
	CHECK(nbd_conn_starttls(c));
	if (!size || data[0] & 0x80) {
		nbd_conn_close(c, "TLS handshake failed");
		return size ? 1 : 0;
	}
	size_t n = data[0] % sizeof(id);
	if (n > size - 1)
		n = size - 1;
	memcpy(id, data + 1, n);
	id[n] = '\0';
	nbd_conn_tls_started(c, id);
	CHECK(c->state == NBD_S_CLOSED || (c->tls_up && !strcmp(c->identity, id)));
	return 1 + n;
}

/* While long work is pending: no input is taken; a few steps of it. */
static void work(struct nbd_conn *c, const u8 *data, size_t size, u32 steps)
{
	while (nbd_conn_busy(c) && steps--) {
		CHECK(c->work_in_steps);
		CHECK(nbd_conn_input(c, data, size) == 0);
		bool more = nbd_conn_work(c);
		CHECK(more == nbd_conn_busy(c));
		drain(c, 0);
	}
}

/* The export chosen is one the policy allows, and with TLS required, only after TLS. */
static void check_chosen(const struct nbd_conn *c)
{
	if (c->state != NBD_S_TRANSMISSION)
		return;
	CHECK(c->exp);
	if (c->exports->may_open)
		CHECK(policy(NULL, c->exp, c->tls_up ? c->identity : NULL));
	if (c->tls == NBD_TLS_REQUIRE)
		CHECK(c->tls_up);
}


static void setup_exports(u8 cfg)
{
	u32 seed = cfg >> 4;

	exps[0] = (struct nbd_export){ .name = "a",
				       .size = DEV,
				       .block = 512u << ((cfg >> 1) & 3),
				       .ro = cfg & 1,
				       .ctx = &exps[0],
				       .read = dev_read,
				       .write = dev_write,
				       .flush = dev_flush,
				       .by_ref = true,
				       .write_bytes = seed & 1 ? dev_write_bytes : NULL,
				       .pages_ready = dev_pages_ready,
				       .first_bad = seed & 4 ? dev_first_bad : NULL,
				       .ref_clean = dev_ref_clean };
	bad_len = seed & 2 ? 1536 : 0; /* three 512-byte sectors */
	/* "b" is copied even with zero_copy (a BTT's export). */
	exps[1] = (struct nbd_export){ .name = "b",
				       .size = DEV_B,
				       .block = 512,
				       .ctx = &exps[1],
				       .read = dev_read,
				       .write = dev_write,
				       .flush = dev_flush };
	memset(long_name, 'c', sizeof(long_name) - 1);
	exps[2] = exps[1];
	exps[2].name = long_name;
	exps[2].ctx = &exps[2];
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct nbd_conn c;

	if (size < 2)
		return 0;
	u8 cfg = data[0], cfg2 = data[1];
	u32 seed = cfg >> 4;
	setup_exports(cfg);
	list_many = cfg2 & 16;
	if (nbd_conn_init(&c, cfg2 & 4 ? &policy_table : &table))
		return 0;
	c.zero_copy = cfg & 8;
	c.tls = (cfg2 & 3) == 3 ? NBD_TLS_ON : (enum nbd_tls)(cfg2 & 3);
	c.work_in_steps = cfg2 & 8;
	data += 2;
	size -= 2;
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
		check_chosen(&c);
		if (c.state != NBD_S_CLOSED && nbd_conn_starttls(&c)) {
			off += start_tls(&c, data + off, size - off);
			continue;
		}
		if (c.state != NBD_S_CLOSED && nbd_conn_busy(&c)) {
			work(&c, data + off, size - off, 1 + (seed >> 4) % 3);
			continue;
		}
		if (c.state == NBD_S_CLOSED) {
			drain(&c, 0);
			CHECK(nbd_conn_done(&c));
			break;
		}
		if (!used) {
			/* Stuck only while output waits: drain it all, then it must move. */
			drain(&c, 0);
			used = nbd_conn_input(&c, data + off, piece);
			CHECK(used > 0 || c.state == NBD_S_CLOSED);
			off += used;
		}
	}
	drain(&c, 0);
	work(&c, data, 0, ~0u);
	check_chosen(&c);
	CHECK(waiting_for_input(&c));
	nbd_conn_free(&c);
	return 0;
}
