/*
 * The NBD engine's handshake (fixed newstyle, FACTS-2 §4.1): the greeting,
 * the client's flags, and option haggling: EXPORT_NAME, ABORT, LIST, INFO
 * and GO (with INFO_EXPORT, NAME and BLOCK_SIZE), STRUCTURED_REPLY, and
 * ERR_UNSUP for the rest; an option too long to read is skipped and
 * answered ERR_TOO_BIG. EXPORT_NAME or GO hands the connection to the
 * transmission phase (nbd_transmission.c).
 */
#include <string.h>

#include "nbd.h"
#include "nbd_proto_priv.h"

#define NBDMAGIC 0x4e42444d41474943ULL
#define IHAVEOPT 0x49484156454F5054ULL
#define OPT_REPLY_MAGIC 0x0003e889045565a9ULL

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

#define OPT_HDR_LEN 16

/* Input phases inside NBD_S_OPTIONS. */
enum {
	PH_HEADER,
	PH_OPT_DATA,
};

static u16 tflags(const struct nbd_export *e)
{
	u16 f = NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH | NBD_FLAG_SEND_FUA |
		NBD_FLAG_SEND_WRITE_ZEROES | NBD_FLAG_CAN_MULTI_CONN;

	return e->ro ? f | NBD_FLAG_READ_ONLY : f;
}

void nbd_greet(struct nbd_conn *c)
{
	nbd_put_be(c, NBDMAGIC, 8);
	nbd_put_be(c, IHAVEOPT, 8);
	nbd_put_be(c, FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES, 2);
	c->state = NBD_S_CLIENT_FLAGS;
	nbd_expect(c, 4);
}

void nbd_client_flags(struct nbd_conn *c)
{
	u32 f = (u32)nbd_get_be(c->in, 4);

	if (f & ~(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES)) {
		nbd_close(c, "unknown client flags");
		return;
	}
	if (!(f & FLAG_FIXED_NEWSTYLE)) {
		nbd_close(c, "client is not fixed newstyle");
		return;
	}
	c->no_zeroes = f & FLAG_NO_ZEROES;
	c->state = NBD_S_OPTIONS;
	c->phase = PH_HEADER;
	nbd_expect(c, OPT_HDR_LEN);
}

/* ---- options ---- */

static void opt_reply(struct nbd_conn *c, u32 type, const void *data, u32 len)
{
	nbd_put_be(c, OPT_REPLY_MAGIC, 8);
	nbd_put_be(c, c->opt, 4);
	nbd_put_be(c, type, 4);
	nbd_put_be(c, len, 4);
	if (len)
		nbd_put(c, data, len);
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
		nbd_close(c, "EXPORT_NAME of an unknown export");	/* the protocol's answer */
		return;
	}
	c->exp = e;
	nbd_put_be(c, e->size, 8);
	nbd_put_be(c, tflags(e), 2);
	if (!c->no_zeroes)
		nbd_put(c, zeroes, sizeof(zeroes));
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
	/*
	 * Always: the server's constraints are not the defaults (doc/proto.md,
	 * block size constraints).
	 */
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
	u64 nlen = nbd_get_be(c->in, 4);
	if (nlen > len - 6) {
		opt_reply(c, REP_ERR_INVALID, NULL, 0);
		return;
	}
	u32 nreq = (u32)nbd_get_be(c->in + 4 + nlen, 2);
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
		if (nbd_get_be(c->in + 4 + nlen + 2 + 2 * i, 2) == INFO_NAME)
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
		nbd_close(c, NULL);
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
		nbd_expect(c, OPT_HDR_LEN);
	else if (c->state == NBD_S_TRANSMISSION)
		nbd_expect(c, REQ_HDR_LEN);
}

static void option_header(struct nbd_conn *c)
{
	if (nbd_get_be(c->in, 8) != IHAVEOPT) {
		nbd_close(c, "bad option magic");
		return;
	}
	c->opt = (u32)nbd_get_be(c->in + 8, 4);
	u32 len = (u32)nbd_get_be(c->in + 12, 4);
	if (len > NBD_OPT_MAX) {
		if (c->opt == OPT_EXPORT_NAME) {
			nbd_close(c, "EXPORT_NAME longer than any export's name");
			return;
		}
		c->skip = len;	/* then ERR_TOO_BIG */
		nbd_expect(c, OPT_HDR_LEN);
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

void nbd_option_unit(struct nbd_conn *c)
{
	if (c->phase == PH_HEADER) {
		option_header(c);
	} else {
		c->phase = PH_HEADER;
		option(c, c->opt_len);
	}
}

size_t nbd_option_skip(struct nbd_conn *c, size_t len)
{
	u64 n = MIN(c->skip, (u64)len);

	c->skip -= n;
	if (!c->skip)	/* room: the header was taken with ROOM_FOR_A_REPLY free */
		opt_reply(c, REP_ERR_TOO_BIG, NULL, 0);
	return n;
}
