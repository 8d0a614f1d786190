/*
 * The NBD engine's transmission phase (FACTS-2 §4.2): requests READ,
 * WRITE (FUA), DISC, FLUSH and WRITE_ZEROES (FUA, NO_HOLE), checked
 * against the export and answered with simple replies, or for READ with
 * structured reply chunks once the client asked for them (doc/proto.md,
 * "Structured reply chunk message"). READ data is copied into the output
 * buffer as it drains, or handed out by reference; WRITE data is gathered
 * into NBD_WBUF pieces or written straight from the input (write_bytes).
 *
 * Bad sectors: a READ over one the export knows of is refused before any
 * data (EIO; structured: ERROR_OFFSET at its first byte); a read that fails
 * once the reply has begun ends the data chunk in zeros and an
 * ERROR_OFFSET chunk (structured), or closes (simple: doc/proto.md says a
 * server that sent a success header must). By-reference data is checked
 * before it leaves, and turns copied rather than lend a bad sector. A
 * WRITE heals the bad sectors it covers whole, even when they arrive split
 * across pieces (write_split). A WRITE_ZEROES is done a slice per step
 * (nbd_zero_step), its range and state in the connection.
 */
#include <string.h>

#include "nbd.h"
#include "nbd_proto_priv.h"

#define REQUEST_MAGIC 0x25609513u
#define SIMPLE_REPLY_MAGIC 0x67446698u
#define STRUCTURED_REPLY_MAGIC 0x668e33efu

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
#define REPLY_TYPE_ERROR_OFFSET 0x8002
#define BAD_SECTOR_MSG "bad sector"
/* The last chunk of a READ: NONE, or ERROR_OFFSET (error, message, offset). */
#define TAIL_ROOM (CHUNK_HDR_LEN + 4 + 2 + sizeof(BAD_SECTOR_MSG) - 1 + 8)

/* Bad sectors are 512 bytes on every device; a write heals those it covers whole. */
#define MEDIA_SECTOR 512u

#define SIMPLE_REPLY_LEN 16

static void reply(struct nbd_conn *c, u32 err)
{
	nbd_put_be(c, SIMPLE_REPLY_MAGIC, 4);
	nbd_put_be(c, err, 4);
	nbd_put_be(c, c->cookie, 8);
	if (err)
		c->stats.errors++;
}

static void chunk_header(struct nbd_conn *c, u16 flags, u16 type, u32 len)
{
	nbd_put_be(c, STRUCTURED_REPLY_MAGIC, 4);
	nbd_put_be(c, flags, 2);
	nbd_put_be(c, type, 2);
	nbd_put_be(c, c->cookie, 8);
	nbd_put_be(c, len, 4);
}

/*
 * A READ's reply before its data: simple, or (structured replies
 * negotiated) one OFFSET_DATA chunk for all of it, final only when the
 * data cannot fail any more (by reference from an export whose bytes
 * cannot turn bad), else followed by a last chunk once the last byte is
 * out (r_tail): NONE, or the error that cut it short.
 */
static void read_reply_header(struct nbd_conn *c, u64 off, u32 len, bool by_ref)
{
	bool final = by_ref && !c->exp->ref_clean;

	if (!c->structured) {
		reply(c, 0);
		return;
	}
	chunk_header(c, final ? REPLY_FLAG_DONE : 0, REPLY_TYPE_OFFSET_DATA, 8 + len);
	nbd_put_be(c, off, 8);
	c->r_tail = !final;
	c->r_err = 0;
}

/* An ERROR_OFFSET chunk (final): err at byte `off` of the export, a bad sector. */
static void error_offset_chunk(struct nbd_conn *c, u32 err, u64 off)
{
	u16 n = sizeof(BAD_SECTOR_MSG) - 1;

	chunk_header(c, REPLY_FLAG_DONE, REPLY_TYPE_ERROR_OFFSET, 14u + n);
	nbd_put_be(c, err, 4);
	nbd_put_be(c, n, 2);
	nbd_put(c, BAD_SECTOR_MSG, n);
	nbd_put_be(c, off, 8);
	c->stats.errors++;
}

/* A READ over a bad sector, refused before any data: EIO and no payload, or ERROR_OFFSET. */
static void read_bad(struct nbd_conn *c, u64 bad)
{
	if (c->structured)
		error_offset_chunk(c, NBD_EIO, bad);
	else
		reply(c, NBD_EIO);
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
	nbd_put_be(c, err, 4);
	nbd_put_be(c, n, 2);
	nbd_put(c, msg, n);
	c->stats.errors++;
}

/* Once all of a structured READ's data is out (copied or by reference): its last chunk. */
static void read_tail(struct nbd_conn *c)
{
	if (c->r_left || c->z_left || !c->r_tail || nbd_out_room(c) < TAIL_ROOM)
		return;
	if (c->r_err)
		error_offset_chunk(c, c->r_err, c->r_bad);
	else
		chunk_header(c, REPLY_FLAG_DONE, REPLY_TYPE_NONE, 0);
	c->r_tail = false;
	c->r_err = 0;
}

/*
 * Reading the n bytes at r_off into p failed, in a READ whose reply has
 * begun. Simple replies: only a close tells (doc/proto.md: the header said
 * success). Structured: the data chunk must still be completed, so the
 * good blocks before the first bad sector are read again and the rest is
 * zeros, and an ERROR_OFFSET chunk at the first byte that is not data ends
 * the reply (r_err). Returns how many of the n bytes are data.
 */
static u32 read_failed(struct nbd_conn *c, u8 *p, u32 n)
{
	const struct nbd_export *e = c->exp;
	u64 bad;
	u32 good = 0;

	if (!c->structured) {
		c->stats.errors++;
		nbd_close(c, "device read failed in the middle of a reply");
		return 0;
	}
	if (e->first_bad && e->first_bad(e->ctx, c->r_off, n, &bad) && bad > c->r_off) {
		good = (u32)MIN((bad - c->r_off) & ~(u64)(e->block - 1), (u64)n);
		if (good && e->read(e->ctx, c->r_off, p, good))
			good = 0;
	}
	c->r_err = NBD_EIO;
	c->r_bad = c->r_off + good;
	return good;
}

/*
 * READ data into the output buffer as room allows, whole blocks at a time
 * (of the first, only what the transport has not sent by reference).
 */
void nbd_pump(struct nbd_conn *c)
{
	const struct nbd_export *e = c->exp;

	while (c->r_left && c->state != NBD_S_CLOSED) {
		u32 room = nbd_out_room(c) & ~(e->block - 1);
		if (!room)
			return;
		u32 n = (u32)MIN((u64)room, c->r_left), skip = c->r_skip;
		u8 *p = c->out + c->out_len;
		u32 good = n;
		if (c->r_err)
			good = 0; /* after a failed read: the chunk's rest is padding */
		else if (e->read(e->ctx, c->r_off, p, n))
			good = read_failed(c, p, n);
		if (c->state == NBD_S_CLOSED)
			return;
		memset(p + good, 0, n - good);
		memmove(p, p + skip, n - skip);
		c->out_len += n - skip;
		c->r_off += n;
		c->r_left -= n;
		c->r_skip = 0;
		c->stats.bytes_read += good > skip ? good - skip : 0;
	}
	read_tail(c);
}

void nbd_read_copied(struct nbd_conn *c)
{
	u32 head = (u32)(c->z_off & (c->exp->block - 1)); /* the transport sends any length */

	c->r_off = c->z_off - head;
	c->r_left = c->z_left + head;
	c->r_skip = head;
	c->z_left = 0;
	nbd_pump(c);
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

/* ---- WRITE ---- */

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
	if (!c->w_err && ((c->cmd_flags & CMD_FLAG_FUA) || c->w_direct) &&
	    c->exp->flush(c->exp->ctx))
		c->w_err = NBD_EIO;
	reply(c, (u32)c->w_err);
}

static void cmd_write(struct nbd_conn *c, u64 off, u32 len)
{
	const struct nbd_export *e = c->exp;

	c->stats.writes++;
	c->stats.fua += c->cmd_flags & CMD_FLAG_FUA;
	c->stats.max_len = MAX(c->stats.max_len, len);
	c->w_err = 0;
	if (c->cmd_flags & ~CMD_FLAG_FUA)
		c->w_err = NBD_EINVAL;
	else if (e->ro)
		c->w_err = NBD_EPERM;
	else
		c->w_err = (int)check_range(e, off, len, NBD_ENOSPC);
	if (len > (1u << 30)) {
		/* Draining more than a GiB to stay in step is not worth it. */
		nbd_close(c, "WRITE of more than 1 GiB");
		return;
	}
	c->w_off = off;
	c->w_left = len;
	c->wbuf_len = 0;
	c->w_direct = false;
	if (!len)
		write_done(c);
}

/*
 * The n bytes at data for w_off were refused by write_bytes: they cover a
 * bad sector only in part (its other bytes come in the next pieces), which
 * cannot be healed. Store what comes before that sector and carry the
 * sector's first bytes in wbuf until it is whole (write_carry): the WRITE
 * as a whole covers it and heals it, as one store of it would. False when
 * that fails too (or the piece lies in a sector whose head is stored
 * already: it was good then, so something else is wrong).
 */
static bool write_split(struct nbd_conn *c, const u8 *data, u32 n)
{
	u64 end = c->w_off + n, cut = end & ~(u64)(MEDIA_SECTOR - 1);

	if (cut < c->w_off || cut == end)
		return false;
	if (cut > c->w_off) {
		if (c->exp->write_bytes(c->exp->ctx, c->w_off, data, (u32)(cut - c->w_off)))
			return false;
		c->stats.bytes_written += cut - c->w_off;
		c->stats.bytes_direct += cut - c->w_off;
	}
	c->wbuf_len = (u32)(end - cut);
	memcpy(c->wbuf, data + (cut - c->w_off), c->wbuf_len);
	return true;
}

/* Bytes of a carried sector (write_split); stored, and so healed, once it is whole. */
static size_t write_carry(struct nbd_conn *c, const u8 *data, size_t len)
{
	u32 n = (u32)MIN(MIN((u64)len, c->w_left), (u64)(MEDIA_SECTOR - c->wbuf_len));

	memcpy(c->wbuf + c->wbuf_len, data, n);
	c->wbuf_len += n;
	c->w_off += n;
	c->w_left -= n;
	if (c->wbuf_len == MEDIA_SECTOR || !c->w_left) {
		/* Two copies for these bytes: counted as written, not as direct. */
		if (c->exp->write_bytes(c->exp->ctx, c->w_off - c->wbuf_len, c->wbuf, c->wbuf_len))
			c->w_err = NBD_EIO;
		else
			c->stats.bytes_written += c->wbuf_len;
		c->wbuf_len = 0;
	}
	return n;
}

/* Straight from the caller's buffer into the device (write_bytes): one copy. */
static size_t write_direct(struct nbd_conn *c, const u8 *data, size_t len)
{
	u32 n = (u32)MIN(c->w_left, (u64)len);

	if (c->wbuf_len)
		return write_carry(c, data, len);
	if (!c->exp->write_bytes(c->exp->ctx, c->w_off, data, n)) {
		c->stats.bytes_written += n;
		c->stats.bytes_direct += n;
	} else if (!write_split(c, data, n)) {
		c->w_err = NBD_EIO;
	}
	c->w_direct = true;
	c->w_off += n;
	c->w_left -= n;
	return n;
}

/* Into wbuf, written out whenever it fills (and drained unwritten after an error). */
static size_t write_gather(struct nbd_conn *c, const u8 *data, size_t len)
{
	u32 n = (u32)MIN(MIN(c->w_left, (u64)len), (u64)(NBD_WBUF - c->wbuf_len));

	memcpy(c->wbuf + c->wbuf_len, data, n);
	c->wbuf_len += n;
	c->w_left -= n;
	if (c->wbuf_len == NBD_WBUF && c->w_left)
		write_chunk(c);
	return n;
}

size_t nbd_write_payload(struct nbd_conn *c, const u8 *data, size_t len)
{
	size_t n;

	if (c->exp->write_bytes && !c->w_err)
		n = write_direct(c, data, len);
	else
		n = write_gather(c, data, len);
	if (!c->w_left)
		write_done(c);	/* room: taking requests needs ROOM_FOR_A_REPLY */
	return n;
}

/* ---- the other commands ---- */

/*
 * WRITE_ZEROES: checked like a WRITE but for its length (up to the export's
 * size: the protocol allows it), then zeroed NBD_ZERO_SLICE at a time by
 * nbd_zero_step (the glue's nbd_conn_work, or all at once here for a glue
 * without work_in_steps), the reply after the last slice.
 */
static void cmd_write_zeroes(struct nbd_conn *c, u64 off, u32 len)
{
	const struct nbd_export *e = c->exp;
	u32 err;

	c->stats.zeroes++;
	c->stats.fua += c->cmd_flags & CMD_FLAG_FUA;
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
	if (err) {
		reply(c, err);
		return;
	}
	c->zeroing = true;
	c->zero_off = off;
	c->zero_left = len;
	c->zero_err = 0;
	/* Zeros to write from: wbuf is free, no WRITE is taken in before this ends. */
	memset(c->wbuf, 0, NBD_WBUF);
	if (!c->work_in_steps)
		while (nbd_zero_step(c))
			;
}

/* The zeroing is over (or failed): flush for FUA, then the reply, once it fits. */
static bool zero_done(struct nbd_conn *c)
{
	const struct nbd_export *e = c->exp;

	if (nbd_out_room(c) < SIMPLE_REPLY_LEN)
		return true;
	if (!c->zero_err && (c->cmd_flags & CMD_FLAG_FUA) && e->flush(e->ctx))
		c->zero_err = NBD_EIO;
	c->zeroing = false;
	reply(c, c->zero_err);
	return false;
}

bool nbd_zero_step(struct nbd_conn *c)
{
	const struct nbd_export *e = c->exp;
	u32 slice = (u32)MIN(c->zero_left, (u64)NBD_ZERO_SLICE);

	if (!c->zeroing)
		return false;
	for (u32 done = 0; done < slice && !c->zero_err; done += NBD_WBUF) {
		u32 n = MIN(slice - done, NBD_WBUF);
		if (e->write(e->ctx, c->zero_off + done, c->wbuf, n))
			c->zero_err = NBD_EIO;
	}
	c->zero_off += slice;
	c->zero_left -= slice;
	if (c->zero_err)
		c->zero_left = 0;	/* the rest is not tried */
	return c->zero_left ? true : zero_done(c);
}

static void cmd_read(struct nbd_conn *c, u64 off, u32 len)
{
	const struct nbd_export *e = c->exp;
	bool by_ref = c->zero_copy && e->by_ref;
	u32 err = c->cmd_flags || !len ? NBD_EINVAL : check_range(e, off, len, NBD_EINVAL);

	c->stats.reads++;
	c->stats.max_len = MAX(c->stats.max_len, len);
	if (err) {
		read_error(c, err, c->cmd_flags ? "unknown flag" : !len ? "empty read" :
				   err == NBD_EOVERFLOW ? "longer than 32 MiB" :
				   (off | len) & (e->block - 1) ? "not aligned to the block size" :
				   "past the end of the export");
		return;
	}
	u64 bad;
	if (e->first_bad && e->first_bad(e->ctx, off, len, &bad)) {
		read_bad(c, bad); /* nothing of it is read, nor lent */
		return;
	}
	read_reply_header(c, off, len, by_ref);
	if (by_ref) {
		c->z_off = off;
		c->z_left = len;
	} else {
		c->r_off = off;
		c->r_left = len;
		nbd_pump(c);
	}
}

void nbd_request(struct nbd_conn *c)
{
	const struct nbd_export *e = c->exp;

	if (nbd_get_be(c->in, 4) != REQUEST_MAGIC) {
		nbd_close(c, "bad request magic");
		return;
	}
	c->cmd_flags = (u16)nbd_get_be(c->in + 4, 2);
	u16 type = (u16)nbd_get_be(c->in + 6, 2);
	c->cookie = nbd_get_be(c->in + 8, 8);
	u64 off = nbd_get_be(c->in + 16, 8);
	u32 len = (u32)nbd_get_be(c->in + 24, 4);

	nbd_expect(c, REQ_HDR_LEN);
	switch (type) {
	case CMD_READ:
		cmd_read(c, off, len);
		break;
	case CMD_WRITE:
		cmd_write(c, off, len);
		break;
	case CMD_DISC:
		nbd_close(c, NULL);
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
