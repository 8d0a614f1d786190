/*
 * What the NBD engine's host tests share (test_nbd_*.c): exports over fake
 * devices in host memory, and a client over a fake transport (bytes in,
 * the output buffer drained into a capture). Linked into each of those
 * tests (UNIT_LINK_* in the Makefile).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"

struct fake_dev devs[2];

/* Does [off, off + len) meet d's bad range? */
static bool meets_bad(const struct fake_dev *d, u64 off, u64 len)
{
	return d->bad_len && off < d->bad_off + d->bad_len && d->bad_off < off + len;
}

static int dev_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct fake_dev *d = ctx;

	assert_true(off + len <= d->exp.size);
	assert_int_equal((off | len) % d->exp.block, 0);
	d->reads++;
	if (d->fail_reads || meets_bad(d, off, len))
		return -5;
	memcpy(buf, d->mem + off, len);
	return 0;
}

bool dev_first_bad(void *ctx, u64 off, u64 len, u64 *bad)
{
	struct fake_dev *d = ctx;

	if (!meets_bad(d, off, len))
		return false;
	*bad = MAX(off, d->bad_off);
	return true;
}

bool dev_ref_clean(void *ctx, u64 off, u64 len)
{
	return !meets_bad(ctx, off, len);
}

static int dev_write(void *ctx, u64 off, const void *buf, u32 len)
{
	struct fake_dev *d = ctx;

	assert_false(d->exp.ro);
	assert_true(off + len <= d->exp.size);
	assert_int_equal((off | len) % d->exp.block, 0);
	if (d->fail_writes_at && off <= d->fail_writes_at && d->fail_writes_at < off + len)
		return -5;
	memcpy(d->mem + off, buf, len);
	d->writes++;
	return 0;
}

/* write_bytes: any alignment, inside the export; no durability until dev_flush. */
int dev_write_bytes(void *ctx, u64 off, const void *buf, u32 len)
{
	struct fake_dev *d = ctx;

	assert_false(d->exp.ro);
	assert_true(len > 0 && off + len <= d->exp.size);
	if (d->fail_byte_writes)
		return -5;
	if (meets_bad(d, off, len)) {
		/* As the media: a store covering the bad range in part fails, a whole one heals it. */
		if (off > d->bad_off || off + len < d->bad_off + d->bad_len)
			return -5;
		d->bad_len = 0;
	}
	memcpy(d->mem + off, buf, len);
	d->byte_writes++;
	return 0;
}

static int dev_flush(void *ctx)
{
	((struct fake_dev *)ctx)->flushes++;
	return 0;
}

static const struct nbd_export *ex_lookup(void *arg, const char *name)
{
	(void)arg;
	for (unsigned int i = 0; i < 2; i++)
		if (!strcmp(devs[i].exp.name, name))
			return &devs[i].exp;
	return NULL;
}

static const struct nbd_export *ex_nth(void *arg, unsigned int i)
{
	(void)arg;
	return i < 2 ? &devs[i].exp : NULL;
}

static const struct nbd_exports exports = { .lookup = ex_lookup, .nth = ex_nth };

/* What the server sent, all of it. */
u8 *got;
size_t got_len, got_pos;
struct nbd_conn conn;

static size_t got_cap;
size_t drain_limit;
const u8 *(*drain_ref)(u64 off, u32 n);

/* By-reference data of a fake device, whose pages_ready must have come first. */
static const u8 *fake_ref(u64 off, u32 n)
{
	const struct fake_dev *d = conn.exp->ctx;

	for (u64 pg = off / 4096; pg <= (off + n - 1) / 4096; pg++)
		assert_int_equal(d->ready[pg], 1);
	return d->mem + off;
}

void drain(void)
{
	const u8 *p;
	u32 n;
	size_t taken = 0;

	for (;;) {
		u64 roff;
		n = nbd_conn_output(&conn, &p);
		if (!n && (n = nbd_conn_output_ref(&conn, &roff))) {
			/* "Sent" from the device. */
			p = (drain_ref ? drain_ref : fake_ref)(roff, n);
		} else {
			roff = ~0ULL;
			/* A by-reference READ turned copied: its bytes are buffered now. */
			if (!n && nbd_conn_output(&conn, &p))
				continue;
		}
		if (!n || (drain_limit && taken >= drain_limit))
			break;
		if (drain_limit && n > drain_limit - taken)
			n = (u32)(drain_limit - taken);
		taken += n;
		/* Take it in two pieces: the engine must cope with partial sends. */
		u32 take = n > 1 ? n / 2 + 1 : n;
		if (got_len + take > got_cap) {
			got_cap = 2 * (got_len + take);
			got = realloc(got, got_cap);
		}
		memcpy(got + got_len, p, take);
		got_len += take;
		if (roff != ~0ULL)
			nbd_conn_ref_sent(&conn, take);
		else
			nbd_conn_sent(&conn, take);
	}
}

/* Feed everything, step bytes at a time, draining whenever the engine stops. */
void feed_step(const void *data, size_t len, size_t step)
{
	const u8 *d = data;
	size_t off = 0;

	while (off < len) {
		size_t n = MIN(step, len - off);
		size_t used = nbd_conn_input(&conn, d + off, n);
		off += used;
		drain();
		if (!used && conn.state == NBD_S_CLOSED)
			break;
	}
	drain();
}

void feed(const void *data, size_t len)
{
	feed_step(data, len, len ? len : 1);
}

void be(u8 *p, u64 v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (u8)(v >> (8 * (n - 1 - i)));
}

u64 rd_be(const u8 *p, unsigned int n)
{
	u64 v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The next n bytes the server sent. */
const u8 *take(size_t n)
{
	if (got_pos + n > got_len)
		fail_msg("server sent %zu bytes, wanted %zu more after %zu", got_len, n, got_pos);
	const u8 *p = got + got_pos;
	got_pos += n;
	return p;
}

void client_flags(u32 f)
{
	u8 b[4];

	be(b, f, 4);
	feed(b, 4);
}

void send_opt(u32 opt, const void *data, u32 len)
{
	u8 b[16];

	be(b, 0x49484156454F5054ULL, 8);
	be(b + 8, opt, 4);
	be(b + 12, len, 4);
	feed(b, 16);
	if (len)
		feed(data, len);
}

/* An option reply: checks magic and option, returns the type; *len and *data set. */
u32 opt_reply(u32 opt, u32 *len, const u8 **data)
{
	const u8 *h = take(20);

	assert_int_equal(rd_be(h, 8), 0x0003e889045565a9ULL);
	assert_int_equal(rd_be(h + 8, 4), opt);
	*len = (u32)rd_be(h + 16, 4);
	*data = take(*len);
	return (u32)rd_be(h + 12, 4);
}

/* A request header into b[28]. */
void put_req(u8 *b, u16 type, u16 flags, u64 cookie, u64 off, u32 len)
{
	be(b, 0x25609513, 4);
	be(b + 4, flags, 2);
	be(b + 6, type, 2);
	be(b + 8, cookie, 8);
	be(b + 16, off, 8);
	be(b + 24, len, 4);
}

void send_req(u16 type, u16 flags, u64 cookie, u64 off, u32 len)
{
	u8 b[28];

	put_req(b, type, flags, cookie, off, len);
	feed(b, 28);
}

/* A simple reply: checks magic and cookie, returns the error. */
u32 simple_reply(u64 cookie)
{
	const u8 *h = take(16);

	assert_int_equal(rd_be(h, 4), 0x67446698);
	assert_int_equal(rd_be(h + 8, 8), cookie);
	return (u32)rd_be(h + 4, 4);
}

void go_body(u8 *b, u32 *len, const char *name, u16 nreq, const u16 *reqs)
{
	u32 n = (u32)strlen(name);

	be(b, n, 4);
	memcpy(b + 4, name, n);
	be(b + 4 + n, nreq, 2);
	for (u16 i = 0; i < nreq; i++)
		be(b + 6 + n + 2 * i, reqs[i], 2);
	*len = 6 + n + 2u * nreq;
}

static void dev_pages_ready(void *ctx, u64 off, u64 len)
{
	struct fake_dev *d = ctx;

	assert_true(len && off + len <= DEV_SIZE);
	for (u64 p = off / 4096; p <= (off + len - 1) / 4096; p++)
		d->ready[p] = 1;
}

int nbd_test_setup(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		free(devs[i].mem);
		devs[i] = (struct fake_dev){ .mem = malloc(DEV_SIZE) };
		for (u32 k = 0; k < DEV_SIZE / 8; k++)
			((u64 *)devs[i].mem)[k] = k * 0x9E3779B97F4A7C15ULL + i;
		devs[i].exp = (struct nbd_export){ .name = i ? "pmem1m" : "pmem0",
						   .size = DEV_SIZE,
						   .block = 512,
						   .ro = i == 1,
						   .ctx = &devs[i],
						   .read = dev_read,
						   .write = dev_write,
						   .flush = dev_flush,
						   .by_ref = i == 0,
						   .pages_ready = dev_pages_ready };
	}
	nbd_test_start(&exports);
	return 0;
}

void nbd_test_start(const struct nbd_exports *ex)
{
	free(got);
	got = NULL;
	got_len = got_pos = got_cap = 0;
	drain_limit = 0;
	drain_ref = NULL;
	assert_int_equal(nbd_conn_init(&conn, ex), 0);
	drain();
}

int nbd_test_teardown(void **state)
{
	(void)state;
	nbd_conn_free(&conn);
	return 0;
}

void greeting_and_go(const char *name)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;
	u16 reqs[] = { 3 };

	assert_int_equal(rd_be(take(8), 8), 0x4e42444d41474943ULL);
	assert_int_equal(rd_be(take(8), 8), 0x49484156454F5054ULL);
	assert_int_equal(rd_be(take(2), 2), 3);	/* FIXED_NEWSTYLE | NO_ZEROES */
	client_flags(3);
	go_body(b, &len, name, 1, reqs);
	send_opt(7, b, len);
	assert_int_equal(opt_reply(7, &rlen, &d), 3);
	assert_int_equal(rlen, 12);
	assert_int_equal(rd_be(d, 2), 0);
	assert_int_equal(rd_be(d + 2, 8), DEV_SIZE);
	assert_int_equal(opt_reply(7, &rlen, &d), 3);
	assert_int_equal(rlen, 14);
	assert_int_equal(rd_be(d, 2), 3);
	assert_int_equal(rd_be(d + 2, 4), 512);
	assert_int_equal(rd_be(d + 6, 4), 4096);
	assert_int_equal(rd_be(d + 10, 4), 32u << 20);
	assert_int_equal(opt_reply(7, &rlen, &d), 1);	/* ACK */
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

/* A structured reply chunk's header: checks magic and cookie; returns its length. */
u32 chunk(u64 cookie, u16 *flags, u16 *type)
{
	const u8 *h = take(20);

	assert_int_equal(rd_be(h, 4), 0x668e33ef);
	assert_int_equal(rd_be(h + 8, 8), cookie);
	*flags = (u16)rd_be(h + 4, 2);
	*type = (u16)rd_be(h + 6, 2);
	return (u32)rd_be(h + 16, 4);
}

/* Greeting, STRUCTURED_REPLY acknowledged, GO name (its replies skipped up to the ACK). */
void structured_go(const char *name)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;

	take(18);
	client_flags(3);
	send_opt(8, NULL, 0);
	assert_int_equal(opt_reply(8, &rlen, &d), 1); /* ACK */
	assert_true(conn.structured);
	go_body(b, &len, name, 0, NULL);
	send_opt(7, b, len);
	while (opt_reply(7, &rlen, &d) == 3)
		;
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

/* The OFFSET_DATA chunk of READ `cookie` at off (not final): checks it, returns its data. */
const u8 *data_chunk(u64 cookie, u64 off, u32 len)
{
	u16 flags, type;

	assert_int_equal(chunk(cookie, &flags, &type), 8 + len);
	assert_int_equal(flags, 0);
	assert_int_equal(type, 1);
	assert_int_equal(rd_be(take(8), 8), off);
	return take(len);
}

/* The final NONE chunk of READ `cookie`. */
void none_chunk(u64 cookie)
{
	u16 flags, type;

	assert_int_equal(chunk(cookie, &flags, &type), 0);
	assert_int_equal(flags, 1);
	assert_int_equal(type, 0);
}

void error_offset(u64 cookie, u32 err, u64 off)
{
	u16 flags, type;
	u32 len = chunk(cookie, &flags, &type);
	const u8 *p = take(len);

	assert_int_equal(flags, 1); /* final */
	assert_int_equal(type, 0x8002); /* ERROR_OFFSET */
	assert_int_equal(rd_be(p, 4), err);
	u16 msg = (u16)rd_be(p + 4, 2);
	assert_int_equal(len, 14u + msg);
	assert_memory_equal(p + 6, "bad sector", msg);
	assert_int_equal(rd_be(p + 6 + msg, 8), off);
}
