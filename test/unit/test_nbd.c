/*
 * Host tests: the NBD protocol engine (net/nbd_proto.c) driven as a client
 * would, over a fake transport (bytes in, the output buffer drained into a
 * capture) and exports in host memory. The handshake and options real
 * clients send (FACTS-2 §4.3), every request type, and bad input: bad
 * magic, unknown flags and options, option lengths that lie or are too
 * long, requests past the end, wrapping, over 32 MiB, on a read-only
 * export, unaligned, and a session cut into pieces at every byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"

#define DEV_SIZE (64u << 20)

struct fake_dev {
	struct nbd_export exp;
	u8 *mem;
	unsigned int flushes, writes, byte_writes;
	bool fail_reads, fail_byte_writes;
	u8 ready[DEV_SIZE / 4096];	/* pages_ready said so: 4 KiB pages handed out by reference */
};

static struct fake_dev devs[2];

static int dev_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct fake_dev *d = ctx;

	assert_true(off + len <= d->exp.size);
	assert_int_equal((off | len) % d->exp.block, 0);
	if (d->fail_reads)
		return -5;
	memcpy(buf, d->mem + off, len);
	return 0;
}

static int dev_write(void *ctx, u64 off, const void *buf, u32 len)
{
	struct fake_dev *d = ctx;

	assert_false(d->exp.ro);
	assert_true(off + len <= d->exp.size);
	assert_int_equal((off | len) % d->exp.block, 0);
	memcpy(d->mem + off, buf, len);
	d->writes++;
	return 0;
}

/* write_bytes: any alignment, inside the export; no durability until dev_flush. */
static int dev_write_bytes(void *ctx, u64 off, const void *buf, u32 len)
{
	struct fake_dev *d = ctx;

	assert_false(d->exp.ro);
	assert_true(len > 0 && off + len <= d->exp.size);
	if (d->fail_byte_writes)
		return -5;
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

static const struct nbd_exports exports = { ex_lookup, ex_nth, NULL };

/* What the server sent, all of it. */
static u8 *got;
static size_t got_len, got_pos;
static struct nbd_conn conn;

static size_t got_cap;
static size_t drain_limit;	/* 0: take everything; else at most this much per drain() */

static void drain(void)
{
	const u8 *p;
	u32 n;
	size_t taken = 0;

	for (;;) {
		u64 roff;
		n = nbd_conn_output(&conn, &p);
		if (!n && (n = nbd_conn_output_ref(&conn, &roff))) {
			const struct fake_dev *d = conn.exp->ctx;
			p = d->mem + roff;	/* "sent" from the device */
			/* A reference is a user of the pages: pages_ready came first. */
			for (u64 pg = roff / 4096; pg <= (roff + n - 1) / 4096; pg++)
				assert_int_equal(d->ready[pg], 1);
		} else
			roff = ~0ULL;
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
static void feed_step(const void *data, size_t len, size_t step)
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

static void feed(const void *data, size_t len)
{
	feed_step(data, len, len ? len : 1);
}

static void be(u8 *p, u64 v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (u8)(v >> (8 * (n - 1 - i)));
}

static u64 rd_be(const u8 *p, unsigned int n)
{
	u64 v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The next n bytes the server sent. */
static const u8 *take(size_t n)
{
	if (got_pos + n > got_len)
		fail_msg("server sent %zu bytes, wanted %zu more after %zu", got_len, n, got_pos);
	const u8 *p = got + got_pos;
	got_pos += n;
	return p;
}

static void client_flags(u32 f)
{
	u8 b[4];

	be(b, f, 4);
	feed(b, 4);
}

static void send_opt(u32 opt, const void *data, u32 len)
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
static u32 opt_reply(u32 opt, u32 *len, const u8 **data)
{
	const u8 *h = take(20);

	assert_int_equal(rd_be(h, 8), 0x0003e889045565a9ULL);
	assert_int_equal(rd_be(h + 8, 4), opt);
	*len = (u32)rd_be(h + 16, 4);
	*data = take(*len);
	return (u32)rd_be(h + 12, 4);
}

/* A request header into b[28]. */
static void put_req(u8 *b, u16 type, u16 flags, u64 cookie, u64 off, u32 len)
{
	be(b, 0x25609513, 4);
	be(b + 4, flags, 2);
	be(b + 6, type, 2);
	be(b + 8, cookie, 8);
	be(b + 16, off, 8);
	be(b + 24, len, 4);
}

static void send_req(u16 type, u16 flags, u64 cookie, u64 off, u32 len)
{
	u8 b[28];

	put_req(b, type, flags, cookie, off, len);
	feed(b, 28);
}

/* A simple reply: checks magic and cookie, returns the error. */
static u32 simple_reply(u64 cookie)
{
	const u8 *h = take(16);

	assert_int_equal(rd_be(h, 4), 0x67446698);
	assert_int_equal(rd_be(h + 8, 8), cookie);
	return (u32)rd_be(h + 4, 4);
}

static void go_body(u8 *b, u32 *len, const char *name, u16 nreq, const u16 *reqs)
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

static int setup(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		free(devs[i].mem);
		devs[i] = (struct fake_dev){ .mem = malloc(DEV_SIZE) };
		for (u32 k = 0; k < DEV_SIZE / 8; k++)
			((u64 *)devs[i].mem)[k] = k * 0x9E3779B97F4A7C15ULL + i;
		devs[i].exp = (struct nbd_export){ i ? "pmem1m" : "pmem0", DEV_SIZE, 512, i == 1,
						   &devs[i], dev_read, dev_write, dev_flush, i == 0, NULL,
						   dev_pages_ready };
	}
	free(got);
	got = NULL;
	got_len = got_pos = got_cap = 0;
	drain_limit = 0;
	assert_int_equal(nbd_conn_init(&conn, &exports), 0);
	drain();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nbd_conn_free(&conn);
	return 0;
}

static void greeting_and_go(const char *name)
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

static void nbd_go_then_read_write_flush_disc(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	/* READ 0+8192, as nbdinfo does. */
	send_req(0, 0, 0x1111, 0, 8192);
	assert_int_equal(simple_reply(0x1111), 0);
	assert_memory_equal(take(8192), devs[0].mem, 8192);
	/* WRITE with FUA, as qemu-io does. */
	u8 data[4096];
	memset(data, 0xA5, sizeof(data));
	send_req(1, 1, 0x2222, 1 << 20, sizeof(data));
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(0x2222), 0);
	assert_memory_equal(devs[0].mem + (1 << 20), data, sizeof(data));
	assert_int_equal(devs[0].flushes, 1);
	send_req(3, 0, 0x3333, 0, 0);
	assert_int_equal(simple_reply(0x3333), 0);
	assert_int_equal(devs[0].flushes, 2);
	send_req(2, 0, 0x4444, 0, 0);
	assert_true(nbd_conn_done(&conn));
	assert_null(conn.close_reason);
	assert_int_equal(got_pos, got_len);	/* nothing after the DISC */
}

static void nbd_info_flags_for_read_only_export(void **state)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;
	u16 reqs[] = { 1 };

	(void)state;
	take(18);
	client_flags(1);
	go_body(b, &len, "pmem1m", 1, reqs);
	send_opt(6, b, len);	/* INFO: stays in options */
	assert_int_equal(opt_reply(6, &rlen, &d), 3);
	/* HAS_FLAGS, READ_ONLY, FLUSH, FUA, WRITE_ZEROES, CAN_MULTI_CONN */
	assert_int_equal(rd_be(d + 10, 2), 0x14F);
	assert_int_equal(opt_reply(6, &rlen, &d), 3);	/* BLOCK_SIZE, always */
	assert_int_equal(opt_reply(6, &rlen, &d), 3);	/* NAME, asked for */
	assert_int_equal(rlen, 2 + 6);
	assert_memory_equal(d + 2, "pmem1m", 6);
	assert_int_equal(opt_reply(6, &rlen, &d), 1);
	assert_int_equal(conn.state, NBD_S_OPTIONS);
}

static void nbd_unsupported_options_get_err_unsup_and_parsing_goes_on(void **state)
{
	u32 rlen;
	const u8 *d;

	(void)state;
	take(18);
	client_flags(3);
	send_opt(8, "x", 1);	/* STRUCTURED_REPLY takes no data */
	assert_int_equal(opt_reply(8, &rlen, &d), 0x80000003);
	assert_false(conn.structured);
	send_opt(5, NULL, 0);	/* STARTTLS */
	assert_int_equal(opt_reply(5, &rlen, &d), 0x80000001);
	u8 meta[32] = { 0 };
	send_opt(10, meta, sizeof(meta));	/* SET_META_CONTEXT */
	assert_int_equal(opt_reply(10, &rlen, &d), 0x80000001);
	send_opt(0x7777, "junk", 4);
	assert_int_equal(opt_reply(0x7777, &rlen, &d), 0x80000001);
	/* Still haggling: LIST works. */
	send_opt(3, NULL, 0);
	assert_int_equal(opt_reply(3, &rlen, &d), 2);
	assert_int_equal(rd_be(d, 4), 5);
	assert_memory_equal(d + 4, "pmem0", 5);
	assert_int_equal(opt_reply(3, &rlen, &d), 2);
	assert_memory_equal(d + 4, "pmem1m", 6);
	assert_int_equal(opt_reply(3, &rlen, &d), 1);
	send_opt(3, "x", 1);	/* LIST takes no data */
	assert_int_equal(opt_reply(3, &rlen, &d), 0x80000003);
	send_opt(2, NULL, 0);	/* ABORT */
	assert_int_equal(opt_reply(2, &rlen, &d), 1);
	assert_true(nbd_conn_done(&conn));
}

static void nbd_go_with_lying_lengths_or_unknown_export(void **state)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;

	(void)state;
	take(18);
	client_flags(1);
	go_body(b, &len, "nope", 0, NULL);
	send_opt(7, b, len);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000006);	/* ERR_UNKNOWN */
	go_body(b, &len, "pmem0", 0, NULL);
	be(b, 200, 4);	/* name length past the option's data */
	send_opt(7, b, len);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000003);
	go_body(b, &len, "pmem0", 0, NULL);
	be(b + 9, 5, 2);	/* five requests announced, none there */
	send_opt(7, b, len);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000003);
	send_opt(7, b, 3);	/* shorter than any GO */
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000003);
	memcpy(b, "\0\0\0\6pmem0\0\0\0", 12);	/* a NUL inside the name */
	send_opt(7, b, 12);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000006);
	assert_int_equal(conn.state, NBD_S_OPTIONS);
}

static void nbd_option_too_long_is_skipped(void **state)
{
	u32 rlen;
	const u8 *d;

	(void)state;
	take(18);
	client_flags(1);
	u8 *big = calloc(1, 100000);
	send_opt(7, big, 100000);
	free(big);
	assert_int_equal(opt_reply(7, &rlen, &d), 0x80000009);	/* ERR_TOO_BIG */
	send_opt(3, NULL, 0);
	assert_int_equal(opt_reply(3, &rlen, &d), 2);
}

static void nbd_export_name_for_old_clients(void **state)
{
	(void)state;
	take(18);
	client_flags(1);	/* no NO_ZEROES: 124 zero bytes follow */
	send_opt(1, "pmem0", 5);
	assert_int_equal(rd_be(take(8), 8), DEV_SIZE);
	assert_int_equal(rd_be(take(2), 2), 0x14D);
	const u8 *z = take(124);
	for (int i = 0; i < 124; i++)
		assert_int_equal(z[i], 0);
	assert_int_equal(got_pos, got_len);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

static void nbd_export_name_unknown_closes(void **state)
{
	(void)state;
	take(18);
	client_flags(3);
	send_opt(1, "nope", 4);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "EXPORT_NAME of an unknown export");
	assert_int_equal(got_pos, got_len);
}

static void nbd_bad_magic_and_flags_close(void **state)
{
	(void)state;
	take(18);
	client_flags(1 | 8);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "unknown client flags");

	teardown(NULL);
	setup(NULL);
	take(18);
	client_flags(2);	/* NO_ZEROES without FIXED_NEWSTYLE */
	assert_string_equal(conn.close_reason, "client is not fixed newstyle");

	teardown(NULL);
	setup(NULL);
	take(18);
	client_flags(1);
	u8 b[16] = "IHAVEOPX";
	feed(b, 16);
	assert_string_equal(conn.close_reason, "bad option magic");
	/* Nothing more is taken once closed. */
	assert_int_equal(nbd_conn_input(&conn, b, 16), 0);

	teardown(NULL);
	setup(NULL);
	greeting_and_go("pmem0");
	u8 r[28] = { 0x25, 0x60, 0x95, 0x14 };
	feed(r, 28);
	assert_string_equal(conn.close_reason, "bad request magic");
}

static void nbd_bad_requests_get_their_errors_and_change_nothing(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	u8 *before = malloc(DEV_SIZE);
	memcpy(before, devs[0].mem, DEV_SIZE);

	send_req(0, 0, 1, DEV_SIZE - 512, 1024);	/* READ past the end */
	assert_int_equal(simple_reply(1), 22);
	send_req(0, 0, 2, ~0ULL - 511, 1024);		/* READ wrapping */
	assert_int_equal(simple_reply(2), 22);
	send_req(0, 0, 3, 0, (32u << 20) + 512);	/* READ over 32 MiB */
	assert_int_equal(simple_reply(3), 75);
	send_req(0, 0, 4, 100, 512);			/* unaligned */
	assert_int_equal(simple_reply(4), 22);
	send_req(0, 0, 5, 0, 0);			/* empty */
	assert_int_equal(simple_reply(5), 22);
	send_req(0, 1, 6, 0, 512);			/* FUA on a read */
	assert_int_equal(simple_reply(6), 22);

	u8 data[1024];
	memset(data, 0x5A, sizeof(data));
	send_req(1, 0, 7, DEV_SIZE - 512, 1024);	/* WRITE past the end: payload drained */
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(7), 28);
	send_req(1, 0, 8, ~0ULL - 511, 1024);		/* WRITE wrapping */
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(8), 28);
	send_req(1, 0, 9, 512, 100);			/* unaligned length */
	feed(data, 100);
	assert_int_equal(simple_reply(9), 22);
	send_req(1, 0x10, 10, 0, 512);			/* unknown flag */
	feed(data, 512);
	assert_int_equal(simple_reply(10), 22);
	send_req(6, 0, 11, DEV_SIZE, 512);		/* WRITE_ZEROES past the end */
	assert_int_equal(simple_reply(11), 28);
	send_req(4, 0, 12, 0, 512);			/* TRIM, not offered */
	assert_int_equal(simple_reply(12), 22);
	send_req(7, 0, 13, 0, 512);			/* BLOCK_STATUS, not negotiated */
	assert_int_equal(simple_reply(13), 22);
	send_req(0x99, 0, 14, 0, 512);			/* unknown command */
	assert_int_equal(simple_reply(14), 22);
	send_req(3, 0, 15, 0, 512);			/* FLUSH with a length */
	assert_int_equal(simple_reply(15), 22);

	/* A WRITE over 32 MiB: EOVERFLOW once its payload is drained, in step after. */
	u32 big = (32u << 20) + 4096;
	u8 *payload = calloc(1, big);
	send_req(1, 0, 16, 0, big);
	feed(payload, big);
	free(payload);
	assert_int_equal(simple_reply(16), 75);
	send_req(0, 0, 17, 0, 512);
	assert_int_equal(simple_reply(17), 0);
	assert_memory_equal(take(512), before, 512);

	assert_memory_equal(devs[0].mem, before, DEV_SIZE);
	assert_int_equal(devs[0].writes, 0);
	free(before);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

static void nbd_write_to_read_only_export_is_eperm(void **state)
{
	(void)state;
	greeting_and_go("pmem1m");
	u8 data[512] = { 1 };
	send_req(1, 0, 1, 0, 512);
	feed(data, 512);
	assert_int_equal(simple_reply(1), 1);
	send_req(6, 0, 2, 0, 512);
	assert_int_equal(simple_reply(2), 1);
	assert_int_equal(devs[1].writes, 0);
	send_req(0, 0, 3, 0, 512);
	assert_int_equal(simple_reply(3), 0);
	take(512);
}

static void nbd_write_zeroes_and_large_read_write(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	send_req(6, 1, 1, 4096, 3 * 4096);
	assert_int_equal(simple_reply(1), 0);
	for (u32 i = 4096; i < 4 * 4096; i++)
		assert_int_equal(devs[0].mem[i], 0);
	assert_int_equal(devs[0].mem[4 * 4096], (u8)((4 * 4096 / 8) * 0x9E3779B97F4A7C15ULL));
	/* 32 MiB each way through the 64 KiB buffers. */
	u32 n = 32u << 20;
	u8 *pat = malloc(n);
	for (u32 i = 0; i < n; i++)
		pat[i] = (u8)(i ^ (i >> 11));
	send_req(1, 0, 2, 8u << 20, n);
	feed_step(pat, n, 100000);
	assert_int_equal(simple_reply(2), 0);
	assert_memory_equal(devs[0].mem + (8u << 20), pat, n);
	send_req(0, 0, 3, 8u << 20, n);
	assert_int_equal(simple_reply(3), 0);
	assert_memory_equal(take(n), pat, n);
	free(pat);
	assert_int_equal(conn.stats.bytes_read, n);
	assert_int_equal(conn.stats.bytes_written, n);
}

/* The same session fed whole and one byte at a time must produce the same bytes. */
static void nbd_session_cut_at_every_byte(void **state)
{
	u8 s[1024], b[64];
	size_t n = 0;
	u32 len;
	u16 reqs[] = { 3, 1 };

	(void)state;
	be(s, 3, 4);
	n = 4;
	be(s + n, 0x49484156454F5054ULL, 8);
	be(s + n + 8, 8, 4);
	be(s + n + 12, 0, 4);	/* STRUCTURED_REPLY */
	n += 16;
	go_body(b, &len, "pmem0", 2, reqs);
	be(s + n, 0x49484156454F5054ULL, 8);
	be(s + n + 8, 7, 4);
	be(s + n + 12, len, 4);
	memcpy(s + n + 16, b, len);
	n += 16 + len;
	u8 r[28];
	be(r, 0x25609513, 4);
	be(r + 4, 1, 2);
	be(r + 6, 1, 2);
	be(r + 8, 42, 8);
	be(r + 16, 512, 8);
	be(r + 24, 512, 4);
	memcpy(s + n, r, 28);
	n += 28;
	memset(s + n, 0xEE, 512);
	n += 512;
	be(r + 4, 0, 2);
	be(r + 6, 0, 2);	/* READ it back */
	memcpy(s + n, r, 28);
	n += 28;
	be(r + 6, 2, 2);	/* DISC */
	memcpy(s + n, r, 28);
	n += 28;

	feed(s, n);
	u8 *whole = malloc(got_len);
	size_t whole_len = got_len;
	memcpy(whole, got, got_len);
	u8 mem512[512];
	memcpy(mem512, devs[0].mem + 512, 512);
	assert_true(nbd_conn_done(&conn));
	nbd_conn_free(&conn);

	setup(NULL);
	feed_step(s, n, 1);
	assert_int_equal(got_len, whole_len);
	assert_memory_equal(got, whole, whole_len);
	assert_memory_equal(devs[0].mem + 512, mem512, 512);
	assert_int_equal(mem512[0], 0xEE);
	assert_true(nbd_conn_done(&conn));
	free(whole);
}

/*
 * Regression: requests pipelined behind a large READ, with a reader slower
 * than the engine (as TCP's send buffer is): the last request header was
 * taken in while the output had no room for its reply, and nothing made the
 * engine look at it again once the room came (nbdcopy with several
 * requests in flight stalled on its last reply).
 */
static void nbd_pipelined_reads_with_a_slow_reader_all_get_replies(void **state)
{
	u8 reqs[8 * 28];

	(void)state;
	greeting_and_go("pmem0");
	for (int i = 0; i < 8; i++)
		put_req(reqs + 28 * i, 0, 0, 100 + (u64)i, (u64)i << 18, 1u << 18);
	drain_limit = 5000;
	feed(reqs, sizeof(reqs));
	drain_limit = 0;
	drain();
	for (int i = 0; i < 8; i++) {
		assert_int_equal(simple_reply(100 + (u64)i), 0);
		assert_memory_equal(take(1u << 18), devs[0].mem + ((u64)i << 18), 1u << 18);
	}
	assert_int_equal(got_pos, got_len);
}

/* The same with READ data handed out by reference (zero copy). */
static void nbd_zero_copy_reads_come_by_reference(void **state)
{
	conn.zero_copy = true;
	nbd_pipelined_reads_with_a_slow_reader_all_get_replies(state);
	assert_int_equal(conn.stats.bytes_by_ref, 8u << 18);
	assert_int_equal(conn.stats.bytes_read, 8u << 18);
	/* And a session cut at every byte, in step after a by-reference reply. */
	send_req(0, 0, 9, 4096, 4096);
	assert_int_equal(simple_reply(9), 0);
	assert_memory_equal(take(4096), devs[0].mem + 4096, 4096);
	send_req(2, 0, 10, 0, 0);
	assert_true(nbd_conn_done(&conn));
}

/* A structured reply chunk's header: checks magic and cookie; returns its length. */
static u32 chunk(u64 cookie, u16 *flags, u16 *type)
{
	const u8 *h = take(20);

	assert_int_equal(rd_be(h, 4), 0x668e33ef);
	assert_int_equal(rd_be(h + 8, 8), cookie);
	*flags = (u16)rd_be(h + 4, 2);
	*type = (u16)rd_be(h + 6, 2);
	return (u32)rd_be(h + 16, 4);
}

/* Greeting, STRUCTURED_REPLY acknowledged, GO name (its replies skipped up to the ACK). */
static void structured_go(const char *name)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;

	take(18);
	client_flags(3);
	send_opt(8, NULL, 0);
	assert_int_equal(opt_reply(8, &rlen, &d), 1);	/* ACK */
	assert_true(conn.structured);
	go_body(b, &len, name, 0, NULL);
	send_opt(7, b, len);
	while (opt_reply(7, &rlen, &d) == 3)
		;
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

/*
 * Structured replies (libnbd asks for them by default): READ data in one
 * OFFSET_DATA chunk, final at once when sent by reference, else followed
 * by a final NONE chunk; refused READs as a final ERROR chunk with a
 * message; the other commands keep simple replies.
 */
static void nbd_structured_replies_for_read(void **state)
{
	u16 flags, type;
	u32 len;

	(void)state;
	conn.zero_copy = true;
	structured_go("pmem0");
	send_req(0, 0, 1, 4096, 8192);	/* by reference */
	assert_int_equal(chunk(1, &flags, &type), 8 + 8192);
	assert_int_equal(flags, 1);
	assert_int_equal(type, 1);
	assert_int_equal(rd_be(take(8), 8), 4096);
	assert_memory_equal(take(8192), devs[0].mem + 4096, 8192);
	conn.zero_copy = false;	/* copied: data, then NONE with DONE */
	send_req(0, 0, 2, 1 << 20, 200 * 1024);
	assert_int_equal(chunk(2, &flags, &type), 8 + 200 * 1024);
	assert_int_equal(flags, 0);
	assert_int_equal(type, 1);
	assert_int_equal(rd_be(take(8), 8), 1 << 20);
	assert_memory_equal(take(200 * 1024), devs[0].mem + (1 << 20), 200 * 1024);
	assert_int_equal(chunk(2, &flags, &type), 0);
	assert_int_equal(flags, 1);
	assert_int_equal(type, 0);
	/* Errors: ERROR chunks, final, with the error and a message. */
	static const struct {
		u16 flags;
		u64 off;
		u32 len;
		u32 err;
		const char *msg;
	} bad[] = {
		{ 0, DEV_SIZE - 512, 1024, 22, "past the end of the export" },
		{ 0, 100, 512, 22, "not aligned to the block size" },
		{ 0, 0, 0, 22, "empty read" },
		{ 0x80, 0, 512, 22, "unknown flag" },
		{ 0, 0, (32u << 20) + 512, 75, "longer than 32 MiB" },
	};
	for (u64 i = 0; i < ARRAY_SIZE(bad); i++) {
		send_req(0, bad[i].flags, 10 + i, bad[i].off, bad[i].len);
		len = chunk(10 + i, &flags, &type);
		assert_int_equal(flags, 1);
		assert_int_equal(type, 0x8001);
		const u8 *p = take(len);
		assert_int_equal(rd_be(p, 4), bad[i].err);
		assert_int_equal(rd_be(p + 4, 2), strlen(bad[i].msg));
		assert_int_equal(len, 6 + strlen(bad[i].msg));
		assert_memory_equal(p + 6, bad[i].msg, strlen(bad[i].msg));
	}
	assert_int_equal(conn.stats.errors, ARRAY_SIZE(bad));
	u8 data[512];
	memset(data, 0x3c, sizeof(data));
	send_req(1, 1, 20, 0, sizeof(data));	/* WRITE: a simple reply */
	feed(data, sizeof(data));
	assert_int_equal(simple_reply(20), 0);
	send_req(3, 0, 21, 0, 0);		/* FLUSH too */
	assert_int_equal(simple_reply(21), 0);
	assert_int_equal(got_pos, got_len);
}

/*
 * Structured and copied, pipelined behind a slow reader: each READ's final
 * NONE chunk waits for room after the data without letting the next
 * request's reply in ahead of it.
 */
static void nbd_structured_pipelined_reads_with_a_slow_reader(void **state)
{
	u8 reqs[8 * 28];
	u16 flags, type;

	(void)state;
	structured_go("pmem0");
	for (int i = 0; i < 8; i++) {
		/* Lengths that leave the buffer a few bytes short of a chunk header. */
		put_req(reqs + 28 * i, 0, 0, 100 + (u64)i, (u64)i << 18, (1u << 18) - 512 * (u32)i);
	}
	drain_limit = 5000;
	feed(reqs, sizeof(reqs));
	drain_limit = 0;
	drain();
	for (int i = 0; i < 8; i++) {
		u32 n = (1u << 18) - 512 * (u32)i;
		assert_int_equal(chunk(100 + (u64)i, &flags, &type), 8 + n);
		assert_int_equal(type, 1);
		assert_int_equal(rd_be(take(8), 8), (u64)i << 18);
		assert_memory_equal(take(n), devs[0].mem + ((u64)i << 18), n);
		assert_int_equal(chunk(100 + (u64)i, &flags, &type), 0);
		assert_int_equal(flags, 1);
		assert_int_equal(type, 0);
	}
	assert_int_equal(got_pos, got_len);
}

/*
 * WRITE data straight from the input into the device (write_bytes): in
 * whatever pieces it comes, unaligned ones included, in one copy; one
 * flush before each reply (durable when acknowledged), FUA or not; a
 * refused WRITE's payload drained without a byte written; a failing
 * device gives EIO and the rest of the payload is drained.
 */
static void nbd_write_bytes_straight_into_the_device(void **state)
{
	static u8 data[65536 + 512];

	(void)state;
	devs[0].exp.write_bytes = dev_write_bytes;
	greeting_and_go("pmem0");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + 3);
	send_req(1, 0, 1, 3 << 20, sizeof(data));
	feed_step(data, sizeof(data), 1459);	/* TCP-sized pieces, never block aligned */
	assert_int_equal(simple_reply(1), 0);
	assert_memory_equal(devs[0].mem + (3 << 20), data, sizeof(data));
	assert_int_equal(devs[0].flushes, 1);
	assert_int_equal(devs[0].writes, 0);	/* nothing through the gathering path */
	assert_int_equal(devs[0].byte_writes, (sizeof(data) + 1458) / 1459);
	assert_int_equal(conn.stats.bytes_direct, sizeof(data));
	assert_int_equal(conn.stats.bytes_written, sizeof(data));
	u8 before[8192];
	memcpy(before, devs[0].mem + DEV_SIZE - 4096, sizeof(before) / 2);
	send_req(1, 1, 2, DEV_SIZE - 4096, 8192);	/* past the end: drained */
	feed(data, 8192);
	assert_int_equal(simple_reply(2), 28);
	assert_memory_equal(devs[0].mem + DEV_SIZE - 4096, before, 4096);
	devs[0].fail_byte_writes = true;
	send_req(1, 1, 3, 0, 4096);
	feed_step(data, 4096, 1000);
	assert_int_equal(simple_reply(3), 5);	/* EIO, and the stream still in step */
	devs[0].fail_byte_writes = false;
	send_req(0, 0, 4, 3 << 20, 512);
	assert_int_equal(simple_reply(4), 0);
	assert_memory_equal(take(512), data, 512);
	assert_int_equal(devs[0].flushes, 1);
	assert_int_equal(got_pos, got_len);
}

/* An export without fixed addresses (a BTT's) is copied even with zero_copy on. */
static void nbd_export_without_by_ref_is_copied(void **state)
{
	(void)state;
	conn.zero_copy = true;
	greeting_and_go("pmem1m");
	send_req(0, 0, 7, 8192, 65536);
	assert_int_equal(simple_reply(7), 0);
	assert_memory_equal(take(65536), devs[1].mem + 8192, 65536);
	assert_int_equal(conn.stats.bytes_read, 65536);
	assert_int_equal(conn.stats.bytes_by_ref, 0);
}

static void nbd_read_failure_mid_reply_closes(void **state)
{
	(void)state;
	greeting_and_go("pmem0");
	devs[0].fail_reads = true;
	send_req(0, 0, 1, 0, 1 << 20);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "device read failed in the middle of a reply");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nbd_go_then_read_write_flush_disc, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_info_flags_for_read_only_export, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_unsupported_options_get_err_unsup_and_parsing_goes_on,
						setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_go_with_lying_lengths_or_unknown_export, setup,
						teardown),
		cmocka_unit_test_setup_teardown(nbd_option_too_long_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_export_name_for_old_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_export_name_unknown_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_bad_magic_and_flags_close, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_bad_requests_get_their_errors_and_change_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_write_to_read_only_export_is_eperm, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_write_zeroes_and_large_read_write, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_session_cut_at_every_byte, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_pipelined_reads_with_a_slow_reader_all_get_replies,
						setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_zero_copy_reads_come_by_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_export_without_by_ref_is_copied, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_write_bytes_straight_into_the_device, setup,
						teardown),
		cmocka_unit_test_setup_teardown(nbd_structured_replies_for_read, setup, teardown),
		cmocka_unit_test_setup_teardown(nbd_structured_pipelined_reads_with_a_slow_reader, setup,
						teardown),
		cmocka_unit_test_setup_teardown(nbd_read_failure_mid_reply_closes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
