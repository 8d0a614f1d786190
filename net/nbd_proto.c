/*
 * The NBD protocol engine (include/nbd.h): fixed newstyle handshake,
 * option haggling and transmission with simple replies, or structured
 * replies for READ once the client asked for them (FACTS-2 §4.1, §4.2). Portable and host-tested (test_nbd); the glue to TCP is
 * net/nbd_server.c.
 *
 * Input is consumed one unit at a time (a header, an option's data, a
 * piece of WRITE payload) and a unit that produces output is handled only
 * when the output buffer has room for its whole reply, so the engine never
 * needs more than NBD_OUTBUF; READ data is produced as the buffer drains.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nbd.h"

#define NBDMAGIC 0x4e42444d41474943ULL
#define IHAVEOPT 0x49484156454F5054ULL
#define OPT_REPLY_MAGIC 0x0003e889045565a9ULL
#define REQUEST_MAGIC 0x25609513u
#define SIMPLE_REPLY_MAGIC 0x67446698u
#define STRUCTURED_REPLY_MAGIC 0x668e33efu

#define FLAG_FIXED_NEWSTYLE 1u
#define FLAG_NO_ZEROES 2u

#define OPT_EXPORT_NAME 1
#define OPT_ABORT 2
#define OPT_LIST 3
#define OPT_INFO 6
#define OPT_GO 7
#define OPT_STRUCTURED_REPLY 8

#define REP_ACK 1
#define REP_SERVER 2
#define REP_INFO 3
#define REP_ERR_UNSUP (0x80000000u | 1)
#define REP_ERR_INVALID (0x80000000u | 3)
#define REP_ERR_UNKNOWN (0x80000000u | 6)
#define REP_ERR_TOO_BIG (0x80000000u | 9)

#define INFO_EXPORT 0
#define INFO_NAME 1
#define INFO_BLOCK_SIZE 3

#define CMD_READ 0
#define CMD_WRITE 1
#define CMD_DISC 2
#define CMD_FLUSH 3
#define CMD_WRITE_ZEROES 6
#define CMD_FLAG_FUA 1u
#define CMD_FLAG_NO_HOLE 2u

/* Structured reply chunks (doc/proto.md, "Structured reply chunk message"). */
#define CHUNK_HDR_LEN 20
#define REPLY_FLAG_DONE 1u
#define REPLY_TYPE_NONE 0
#define REPLY_TYPE_OFFSET_DATA 1
#define REPLY_TYPE_ERROR 0x8001

#define OPT_HDR_LEN 16
#define REQ_HDR_LEN 28
#define ROOM_FOR_A_REPLY 8192	/* the largest option reply (LIST of many exports) fits */

/* Input phases inside a state. */
enum {
	PH_HEADER,
	PH_OPT_DATA,
};

static u64 get_be(const u8 *p, unsigned int n)
{
	u64 v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Make the pending output start at out[0]; return the free room after it. */
static u32 out_room(struct nbd_conn *c)
{
	if (c->out_head) {
		memmove(c->out, c->out + c->out_head, c->out_len);
		c->out_head = 0;
	}
	return NBD_OUTBUF - c->out_len;
}

static void put(struct nbd_conn *c, const void *p, u32 n)
{
	out_room(c);
	memcpy(c->out + c->out_len, p, n);	/* callers checked the room */
	c->out_len += n;
}

static void put_be(struct nbd_conn *c, u64 v, unsigned int n)
{
	u8 b[8];

	for (unsigned int i = 0; i < n; i++)
		b[i] = (u8)(v >> (8 * (n - 1 - i)));
	put(c, b, n);
}

static void close_conn(struct nbd_conn *c, const char *why)
{
	c->state = NBD_S_CLOSED;
	c->close_reason = why;
	c->r_left = 0;
	c->r_tail = false;
	c->z_left = 0;
	c->w_left = 0;
	c->skip = 0;
}

static void expect(struct nbd_conn *c, u32 n)
{
	c->in_len = 0;
	c->in_need = n;
}

static u16 tflags(const struct nbd_export *e)
{
	u16 f = NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH | NBD_FLAG_SEND_FUA |
		NBD_FLAG_SEND_WRITE_ZEROES | NBD_FLAG_CAN_MULTI_CONN;

	return e->ro ? f | NBD_FLAG_READ_ONLY : f;
}

int nbd_conn_init(struct nbd_conn *c, const struct nbd_exports *exports)
{
	memset(c, 0, sizeof(*c));
	c->exports = exports;
	c->out = malloc(NBD_OUTBUF);
	c->wbuf = malloc(NBD_WBUF);
	if (!c->out || !c->wbuf) {
		nbd_conn_free(c);
		return -ENOMEM;
	}
	put_be(c, NBDMAGIC, 8);
	put_be(c, IHAVEOPT, 8);
	put_be(c, FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES, 2);
	c->state = NBD_S_CLIENT_FLAGS;
	expect(c, 4);
	return 0;
}

void nbd_conn_free(struct nbd_conn *c)
{
	free(c->out);
	free(c->wbuf);
	c->out = NULL;
	c->wbuf = NULL;
}

/* ---- options ---- */

static void opt_reply(struct nbd_conn *c, u32 type, const void *data, u32 len)
{
	put_be(c, OPT_REPLY_MAGIC, 8);
	put_be(c, c->opt, 4);
	put_be(c, type, 4);
	put_be(c, len, 4);
	if (len)
		put(c, data, len);
}

/*
 * The export of a name of n bytes from the client (in c->in, which has
 * room for a terminator after any option's data), or NULL (a NUL inside:
 * no export has that name).
 */
static const struct nbd_export *lookup(struct nbd_conn *c, u8 *name, u32 n)
{
	if (memchr(name, 0, n))
		return NULL;
	u8 saved = name[n];
	name[n] = '\0';
	const struct nbd_export *e = c->exports->lookup(c->exports->arg, (const char *)name);
	name[n] = saved;
	return e;
}

static void opt_export_name(struct nbd_conn *c, u32 len)
{
	const struct nbd_export *e = lookup(c, c->in, len);
	static const u8 zeroes[124];

	if (!e) {
		close_conn(c, "EXPORT_NAME of an unknown export");	/* the protocol's answer */
		return;
	}
	c->exp = e;
	put_be(c, e->size, 8);
	put_be(c, tflags(e), 2);
	if (!c->no_zeroes)
		put(c, zeroes, sizeof(zeroes));
	c->state = NBD_S_TRANSMISSION;
}

static void opt_list(struct nbd_conn *c, u32 len)
{
	const struct nbd_export *e;
	u8 buf[4 + 256];

	if (len) {
		opt_reply(c, REP_ERR_INVALID, NULL, 0);
		return;
	}
	for (unsigned int i = 0; (e = c->exports->nth(c->exports->arg, i)) && i < 64; i++) {
		u32 n = (u32)strnlen(e->name, 256);
		buf[0] = (u8)(n >> 24);
		buf[1] = (u8)(n >> 16);
		buf[2] = (u8)(n >> 8);
		buf[3] = (u8)n;
		memcpy(buf + 4, e->name, n);
		opt_reply(c, REP_SERVER, buf, 4 + n);
	}
	opt_reply(c, REP_ACK, NULL, 0);
}

static void info_reply(struct nbd_conn *c, const struct nbd_export *e, bool want_name)
{
	u8 b[14];
	u32 pref = e->block > 4096 ? e->block : 4096;

	b[0] = 0;
	b[1] = INFO_EXPORT;
	for (int i = 0; i < 8; i++)
		b[2 + i] = (u8)(e->size >> (56 - 8 * i));
	b[10] = (u8)(tflags(e) >> 8);
	b[11] = (u8)tflags(e);
	opt_reply(c, REP_INFO, b, 12);
	/* Always: the server's constraints are not the defaults (doc/proto.md, block size constraints). */
	u32 v[3] = { e->block, pref, NBD_MAX_PAYLOAD };
	b[0] = 0;
	b[1] = INFO_BLOCK_SIZE;
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 4; i++)
			b[2 + 4 * k + i] = (u8)(v[k] >> (24 - 8 * i));
	opt_reply(c, REP_INFO, b, 14);
	if (want_name) {
		u8 nb[2 + 256];
		u32 n = (u32)strnlen(e->name, 256);
		nb[0] = 0;
		nb[1] = INFO_NAME;
		memcpy(nb + 2, e->name, n);
		opt_reply(c, REP_INFO, nb, 2 + n);
	}
}

/* INFO and GO: u32 name length, name, u16 n, n u16 information requests. */
static void opt_info_go(struct nbd_conn *c, u32 len)
{
	if (len < 6) {
		opt_reply(c, REP_ERR_INVALID, NULL, 0);
		return;
	}
	u64 nlen = get_be(c->in, 4);
	if (nlen > len - 6) {
		opt_reply(c, REP_ERR_INVALID, NULL, 0);
		return;
	}
	u32 nreq = (u32)get_be(c->in + 4 + nlen, 2);
	if (4 + nlen + 2 + 2ULL * nreq != len) {
		opt_reply(c, REP_ERR_INVALID, NULL, 0);
		return;
	}
	const struct nbd_export *e = lookup(c, c->in + 4, (u32)nlen);
	if (!e) {
		opt_reply(c, REP_ERR_UNKNOWN, NULL, 0);
		return;
	}
	bool want_name = false;
	for (u32 i = 0; i < nreq; i++)
		if (get_be(c->in + 4 + nlen + 2 + 2 * i, 2) == INFO_NAME)
			want_name = true;
	info_reply(c, e, want_name);
	opt_reply(c, REP_ACK, NULL, 0);
	if (c->opt == OPT_GO) {
		c->exp = e;
		c->state = NBD_S_TRANSMISSION;
	}
}

/* A whole option (header parsed, len bytes of data in c->in). */
static void option(struct nbd_conn *c, u32 len)
{
	switch (c->opt) {
	case OPT_EXPORT_NAME:
		opt_export_name(c, len);
		break;
	case OPT_ABORT:
		opt_reply(c, REP_ACK, NULL, 0);
		close_conn(c, NULL);
		break;
	case OPT_LIST:
		opt_list(c, len);
		break;
	case OPT_INFO:
	case OPT_GO:
		opt_info_go(c, len);
		break;
	case OPT_STRUCTURED_REPLY:	/* takes no data */
		if (!len)
			c->structured = true;
		opt_reply(c, len ? REP_ERR_INVALID : REP_ACK, NULL, 0);
		break;
	default:	/* STARTTLS, meta contexts, unknown: parsing goes on */
		opt_reply(c, REP_ERR_UNSUP, NULL, 0);
		break;
	}
	if (c->state == NBD_S_OPTIONS)
		expect(c, OPT_HDR_LEN);
	else if (c->state == NBD_S_TRANSMISSION)
		expect(c, REQ_HDR_LEN);
}

static void option_header(struct nbd_conn *c)
{
	if (get_be(c->in, 8) != IHAVEOPT) {
		close_conn(c, "bad option magic");
		return;
	}
	c->opt = (u32)get_be(c->in + 8, 4);
	u32 len = (u32)get_be(c->in + 12, 4);
	if (len > NBD_OPT_MAX) {
		if (c->opt == OPT_EXPORT_NAME) {
			close_conn(c, "EXPORT_NAME longer than any export's name");
			return;
		}
		c->skip = len;	/* then ERR_TOO_BIG */
		expect(c, OPT_HDR_LEN);
		return;
	}
	c->in_len = 0;
	c->in_need = len;
	c->opt_len = len;
	c->phase = PH_OPT_DATA;
	if (!len) {
		c->phase = PH_HEADER;
		option(c, 0);
	}
}

/* ---- transmission ---- */

static void reply(struct nbd_conn *c, u32 err)
{
	put_be(c, SIMPLE_REPLY_MAGIC, 4);
	put_be(c, err, 4);
	put_be(c, c->cookie, 8);
	if (err)
		c->stats.errors++;
}

static void chunk_header(struct nbd_conn *c, u16 flags, u16 type, u32 len)
{
	put_be(c, STRUCTURED_REPLY_MAGIC, 4);
	put_be(c, flags, 2);
	put_be(c, type, 2);
	put_be(c, c->cookie, 8);
	put_be(c, len, 4);
}

/*
 * A READ's reply before its data: simple, or (structured replies
 * negotiated) one OFFSET_DATA chunk for all of it, final when the data
 * cannot fail any more (by reference: it is in memory), else followed by a
 * NONE chunk once the last byte is read (r_tail).
 */
static void read_reply_header(struct nbd_conn *c, u64 off, u32 len, bool by_ref)
{
	if (!c->structured) {
		reply(c, 0);
		return;
	}
	chunk_header(c, by_ref ? REPLY_FLAG_DONE : 0, REPLY_TYPE_OFFSET_DATA, 8 + len);
	put_be(c, off, 8);
	c->r_tail = !by_ref;
}

/* A READ refused: a simple reply, or the ERROR chunk (final) with a message. */
static void read_error(struct nbd_conn *c, u32 err, const char *msg)
{
	if (!c->structured) {
		reply(c, err);
		return;
	}
	u16 n = (u16)strlen(msg);
	chunk_header(c, REPLY_FLAG_DONE, REPLY_TYPE_ERROR, 6u + n);
	put_be(c, err, 4);
	put_be(c, n, 2);
	put(c, msg, n);
	c->stats.errors++;
}

/* READ data into the output buffer as room allows, whole blocks at a time. */
static void pump(struct nbd_conn *c)
{
	const struct nbd_export *e = c->exp;

	if (!c->r_left && c->r_tail && out_room(c) >= CHUNK_HDR_LEN) {
		chunk_header(c, REPLY_FLAG_DONE, REPLY_TYPE_NONE, 0);	/* all data read */
		c->r_tail = false;
	}
	while (c->r_left && c->state != NBD_S_CLOSED) {
		u32 room = out_room(c) & ~(e->block - 1);
		if (!room)
			return;
		u32 n = (u32)MIN((u64)room, c->r_left);
		if (e->read(e->ctx, c->r_off, c->out + c->out_len, n)) {
			/* The reply's header and part of its data are out: only a close can tell. */
			close_conn(c, "device read failed in the middle of a reply");
			return;
		}
		c->out_len += n;
		c->r_off += n;
		c->r_left -= n;
		c->stats.bytes_read += n;
		if (!c->r_left && c->r_tail && out_room(c) >= CHUNK_HDR_LEN) {
			chunk_header(c, REPLY_FLAG_DONE, REPLY_TYPE_NONE, 0);
			c->r_tail = false;
		}
	}
}

/* Range checks shared by READ, WRITE and WRITE_ZEROES: 0 or the error to reply. */
static u32 check_range(const struct nbd_export *e, u64 off, u32 len, u32 past_end)
{
	if (len > NBD_MAX_PAYLOAD)
		return NBD_EOVERFLOW;
	if (off + len < off || off + len > e->size)
		return past_end;
	if ((off | len) & (e->block - 1))
		return NBD_EINVAL;
	return 0;
}

static void write_chunk(struct nbd_conn *c)
{
	if (!c->wbuf_len)
		return;
	if (!c->w_err && c->exp->write(c->exp->ctx, c->w_off, c->wbuf, c->wbuf_len))
		c->w_err = NBD_EIO;
	c->w_off += c->wbuf_len;
	c->stats.bytes_written += c->w_err ? 0 : c->wbuf_len;
	c->wbuf_len = 0;
}

static void write_done(struct nbd_conn *c)
{
	write_chunk(c);
	/* Durable when acknowledged: write_bytes left the fence to this flush. */
	if (!c->w_err && ((c->cmd_flags & CMD_FLAG_FUA) || c->w_direct) && c->exp->flush(c->exp->ctx))
		c->w_err = NBD_EIO;
	reply(c, (u32)c->w_err);
}

static void cmd_write(struct nbd_conn *c, u64 off, u32 len)
{
	const struct nbd_export *e = c->exp;

	c->stats.writes++;
	c->w_err = 0;
	if (c->cmd_flags & ~CMD_FLAG_FUA)
		c->w_err = NBD_EINVAL;
	else if (e->ro)
		c->w_err = NBD_EPERM;
	else
		c->w_err = (int)check_range(e, off, len, NBD_ENOSPC);
	if (len > (1u << 30)) {
		/* Draining more than a GiB to stay in step is not worth it. */
		close_conn(c, "WRITE of more than 1 GiB");
		return;
	}
	c->w_off = off;
	c->w_left = len;
	c->wbuf_len = 0;
	c->w_direct = false;
	if (!len)
		write_done(c);
}

static void cmd_write_zeroes(struct nbd_conn *c, u64 off, u32 len)
{
	const struct nbd_export *e = c->exp;
	u32 err;

	c->stats.zeroes++;
	if (c->cmd_flags & ~(CMD_FLAG_FUA | CMD_FLAG_NO_HOLE))
		err = NBD_EINVAL;
	else if (e->ro)
		err = NBD_EPERM;
	else if (off + len < off || off + len > e->size)
		err = NBD_ENOSPC;
	else if ((off | len) & (e->block - 1))
		err = NBD_EINVAL;
	else
		err = 0;
	if (!err) {
		u32 chunk = NBD_WBUF;
		memset(c->wbuf, 0, chunk);
		for (u64 done = 0; done < len && !err; done += chunk) {
			u32 n = (u32)MIN((u64)chunk, len - done);
			if (e->write(e->ctx, off + done, c->wbuf, n))
				err = NBD_EIO;
		}
		if (!err && (c->cmd_flags & CMD_FLAG_FUA) && e->flush(e->ctx))
			err = NBD_EIO;
	}
	reply(c, err);
}

static void cmd_read(struct nbd_conn *c, u64 off, u32 len)
{
	const struct nbd_export *e = c->exp;
	bool by_ref = c->zero_copy && e->by_ref;
	u32 err = c->cmd_flags ? NBD_EINVAL : !len ? NBD_EINVAL : check_range(e, off, len, NBD_EINVAL);

	c->stats.reads++;
	if (err) {
		read_error(c, err, c->cmd_flags ? "unknown flag" : !len ? "empty read" :
				   err == NBD_EOVERFLOW ? "longer than 32 MiB" :
				   (off | len) & (e->block - 1) ? "not aligned to the block size" :
				   "past the end of the export");
		return;
	}
	read_reply_header(c, off, len, by_ref);
	if (by_ref) {
		c->z_off = off;
		c->z_left = len;
	} else {
		c->r_off = off;
		c->r_left = len;
		pump(c);
	}
}

static void request(struct nbd_conn *c)
{
	const struct nbd_export *e = c->exp;

	if (get_be(c->in, 4) != REQUEST_MAGIC) {
		close_conn(c, "bad request magic");
		return;
	}
	c->cmd_flags = (u16)get_be(c->in + 4, 2);
	u16 type = (u16)get_be(c->in + 6, 2);
	c->cookie = get_be(c->in + 8, 8);
	u64 off = get_be(c->in + 16, 8);
	u32 len = (u32)get_be(c->in + 24, 4);

	expect(c, REQ_HDR_LEN);
	switch (type) {
	case CMD_READ:
		cmd_read(c, off, len);
		break;
	case CMD_WRITE:
		cmd_write(c, off, len);
		break;
	case CMD_DISC:
		close_conn(c, NULL);
		break;
	case CMD_FLUSH:
		c->stats.flushes++;
		if (c->cmd_flags || off || len)
			reply(c, NBD_EINVAL);
		else
			reply(c, e->flush(e->ctx) ? NBD_EIO : 0);
		break;
	case CMD_WRITE_ZEROES:
		cmd_write_zeroes(c, off, len);
		break;
	default:	/* TRIM, CACHE, BLOCK_STATUS were not offered; unknown types */
		reply(c, NBD_EINVAL);
		break;
	}
}

/* ---- input ---- */

/* A complete unit is in c->in: act on it. */
static void unit(struct nbd_conn *c)
{
	switch (c->state) {
	case NBD_S_CLIENT_FLAGS: {
		u32 f = (u32)get_be(c->in, 4);
		if (f & ~(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES)) {
			close_conn(c, "unknown client flags");
			return;
		}
		if (!(f & FLAG_FIXED_NEWSTYLE)) {
			close_conn(c, "client is not fixed newstyle");
			return;
		}
		c->no_zeroes = f & FLAG_NO_ZEROES;
		c->state = NBD_S_OPTIONS;
		c->phase = PH_HEADER;
		expect(c, OPT_HDR_LEN);
		break;
	}
	case NBD_S_OPTIONS:
		if (c->phase == PH_HEADER) {
			option_header(c);
		} else {
			c->phase = PH_HEADER;
			option(c, c->opt_len);
		}
		break;
	case NBD_S_TRANSMISSION:
		request(c);
		break;
	case NBD_S_CLOSED:
		break;
	}
}

size_t nbd_conn_input(struct nbd_conn *c, const u8 *data, size_t len)
{
	size_t used = 0;

	for (;;) {
		if (c->state == NBD_S_CLOSED || c->r_left || c->r_tail || c->z_left)
			break;
		if (c->skip) {	/* an option too long to read */
			if (used == len)
				break;
			u64 n = MIN(c->skip, (u64)(len - used));
			c->skip -= n;
			used += n;
			if (!c->skip)	/* room: the header was taken with ROOM_FOR_A_REPLY free */
				opt_reply(c, REP_ERR_TOO_BIG, NULL, 0);
			continue;
		}
		if (c->w_left) {	/* WRITE payload */
			if (used == len)
				break;
			if (c->exp->write_bytes && !c->w_err) {
				/* Straight from the caller's buffer into the device: one copy. */
				u32 n = (u32)MIN(c->w_left, (u64)(len - used));
				if (c->exp->write_bytes(c->exp->ctx, c->w_off, data + used, n)) {
					c->w_err = NBD_EIO;
				} else {
					c->stats.bytes_written += n;
					c->stats.bytes_direct += n;
				}
				c->w_direct = true;
				c->w_off += n;
				c->w_left -= n;
				used += n;
				if (!c->w_left)
					write_done(c);	/* room: taking requests needs ROOM_FOR_A_REPLY */
				continue;
			}
			u32 n = (u32)MIN(MIN(c->w_left, (u64)(len - used)), (u64)(NBD_WBUF - c->wbuf_len));
			memcpy(c->wbuf + c->wbuf_len, data + used, n);
			c->wbuf_len += n;
			c->w_left -= n;
			used += n;
			if (c->wbuf_len == NBD_WBUF && c->w_left)
				write_chunk(c);
			if (!c->w_left)
				write_done(c);	/* room: taking requests needs ROOM_FOR_A_REPLY */
			continue;
		}
		if (c->in_len < c->in_need) {
			if (used == len)
				break;
			u32 n = (u32)MIN((u64)(c->in_need - c->in_len), (u64)(len - used));
			memcpy(c->in + c->in_len, data + used, n);
			c->in_len += n;
			used += n;
			continue;
		}
		if (out_room(c) < ROOM_FOR_A_REPLY)
			break;
		unit(c);
	}
	return used;
}

u32 nbd_conn_output(struct nbd_conn *c, const u8 **data)
{
	*data = c->out + c->out_head;
	return c->out_len;
}

void nbd_conn_sent(struct nbd_conn *c, u32 n)
{
	if (n > c->out_len)
		n = c->out_len;
	c->out_head += n;
	c->out_len -= n;
	if (!c->out_len)
		c->out_head = 0;
	pump(c);
	/* A unit already taken in may have waited for this room (no new input need come). */
	nbd_conn_input(c, NULL, 0);
}

u32 nbd_conn_output_ref(struct nbd_conn *c, u64 *off)
{
	if (c->out_len || !c->z_left)
		return 0;
	*off = c->z_off;
	u32 n = (u32)MIN(c->z_left, (u64)NBD_MAX_PAYLOAD);
	if (c->exp->pages_ready)
		c->exp->pages_ready(c->exp->ctx, *off, n);
	return n;
}

void nbd_conn_ref_sent(struct nbd_conn *c, u32 n)
{
	if (n > c->z_left)
		n = (u32)c->z_left;
	c->z_off += n;
	c->z_left -= n;
	c->stats.bytes_read += n;
	c->stats.bytes_by_ref += n;
	if (!c->z_left)
		nbd_conn_input(c, NULL, 0);	/* requests taken in behind this READ */
}

bool nbd_conn_done(const struct nbd_conn *c)
{
	return c->state == NBD_S_CLOSED && !c->out_len;
}
