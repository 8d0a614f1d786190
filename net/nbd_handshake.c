/*
 * The NBD engine's handshake (fixed newstyle, FACTS-2 §4.1): the greeting,
 * the client's flags, and option haggling: EXPORT_NAME, ABORT, LIST
 * (produced an export at a time as the output drains), INFO and GO (with
 * INFO_EXPORT, NAME and BLOCK_SIZE), STRUCTURED_REPLY, STARTTLS, and
 * ERR_UNSUP for the rest; an option too long to read is skipped and
 * answered ERR_TOO_BIG. EXPORT_NAME or GO hands the connection to the
 * transmission phase (nbd_transmission.c).
 *
 * TLS and export policy (include/nbd.h has the modes; FACTS-3 §1.1,
 * doc/proto.md "TLS support"): with NBD_TLS_REQUIRE and TLS not up, every
 * option but STARTTLS and ABORT gets ERR_TLS_REQD; a STARTTLS that is
 * acknowledged holds the input until nbd_conn_tls_started. The exports'
 * may_open decides what a client sees (LIST) and may open (INFO, GO,
 * EXPORT_NAME).
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
#define OPT_STARTTLS 5
#define OPT_INFO 6
#define OPT_GO 7
#define OPT_STRUCTURED_REPLY 8

#define REP_ACK 1
#define REP_SERVER 2
#define REP_INFO 3
#define REP_ERR_UNSUP (0x80000000u | 1)
#define REP_ERR_POLICY (0x80000000u | 2)
#define REP_ERR_INVALID (0x80000000u | 3)
#define REP_ERR_TLS_REQD (0x80000000u | 5)
#define REP_ERR_UNKNOWN (0x80000000u | 6)
#define REP_ERR_TOO_BIG (0x80000000u | 9)

#define INFO_EXPORT 0
#define INFO_NAME 1
#define INFO_BLOCK_SIZE 3

#define OPT_HDR_LEN 16
#define OPT_REPLY_HDR_LEN 20
#define NOT_FOR_YOU "export not open to this client"

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

/* An option reply's header; its len bytes of data follow. */
static void opt_reply_head(struct nbd_conn *c, u32 type, u32 len)
{
	nbd_put_be(c, OPT_REPLY_MAGIC, 8);
	nbd_put_be(c, c->opt, 4);
	nbd_put_be(c, type, 4);
	nbd_put_be(c, len, 4);
}

static void opt_reply(struct nbd_conn *c, u32 type, const void *data, u32 len)
{
	opt_reply_head(c, type, len);
	if (len)
		nbd_put(c, data, len);
}

/* An export's name as sent: at most NBD_NAME_MAX bytes of it. */
static u32 name_len(const struct nbd_export *e)
{
	return (u32)strnlen(e->name, NBD_NAME_MAX);
}

/* The client's TLS identity for may_open: NULL without TLS. */
static const char *identity(const struct nbd_conn *c)
{
	return c->tls_up ? c->identity : NULL;
}

static bool may_open(const struct nbd_conn *c, const struct nbd_export *e)
{
	const struct nbd_exports *x = c->exports;

	return !x->may_open || x->may_open(x->arg, e, identity(c));
}

/* With NBD_TLS_REQUIRE, until TLS is up: options other than STARTTLS and ABORT are refused. */
static bool tls_required(const struct nbd_conn *c)
{
	return c->tls == NBD_TLS_REQUIRE && !c->tls_up;
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
	if (!may_open(c, e)) {
		nbd_close(c, "EXPORT_NAME of an export not open to this client");
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
	if (len) {
		opt_reply(c, REP_ERR_INVALID, NULL, 0);
		return;
	}
	c->listing = true;
	c->list_next = 0;
	nbd_list_pump(c);
}

/*
 * One SERVER reply per export the client may open, as long as each fits
 * in the output; the ACK after the last. Each call looks at every export
 * at most once, so its work is bounded by the table, never by the client.
 */
void nbd_list_pump(struct nbd_conn *c)
{
	while (c->listing && c->state == NBD_S_OPTIONS) {
		const struct nbd_export *e = c->exports->nth(c->exports->arg, c->list_next);
		if (!e) {
			if (NBD_OUTBUF - c->out_len < OPT_REPLY_HDR_LEN)
				return;
			opt_reply(c, REP_ACK, NULL, 0);
			c->listing = false;
			return;
		}
		if (may_open(c, e)) {
			u32 n = name_len(e);
			/* Free room counted without moving the output (nbd_put does, once). */
			if (NBD_OUTBUF - c->out_len < OPT_REPLY_HDR_LEN + 4 + n)
				return;
			opt_reply_head(c, REP_SERVER, 4 + n);
			nbd_put_be(c, n, 4);
			nbd_put(c, e->name, n);
		}
		c->list_next++;
	}
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
		u32 n = name_len(e);
		opt_reply_head(c, REP_INFO, 2 + n);
		nbd_put_be(c, INFO_NAME, 2);
		nbd_put(c, e->name, n);
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
	if (!may_open(c, e)) {
		/* SELECTIVETLS: an export refused without TLS is TLS-only for this client. */
		if (c->tls != NBD_TLS_OFF && !c->tls_up)
			opt_reply(c, REP_ERR_TLS_REQD, NOT_FOR_YOU, sizeof(NOT_FOR_YOU) - 1);
		else
			opt_reply(c, REP_ERR_POLICY, NOT_FOR_YOU, sizeof(NOT_FOR_YOU) - 1);
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

/*
 * STARTTLS: refused (NOTLS: ERR_POLICY; with data or TLS up: ERR_INVALID),
 * or acknowledged, after which no input is taken until the glue has
 * started TLS (nbd_conn_tls_started).
 */
static void opt_starttls(struct nbd_conn *c, u32 len)
{
	if (c->tls == NBD_TLS_OFF) {
		opt_reply(c, REP_ERR_POLICY, NULL, 0);
	} else if (len || c->tls_up) {
		opt_reply(c, REP_ERR_INVALID, NULL, 0);
	} else {
		opt_reply(c, REP_ACK, NULL, 0);
		c->tls_pending = true;
	}
}

/* Before TLS, with NBD_TLS_REQUIRE: every option but STARTTLS and ABORT is refused. */
static void option_before_tls(struct nbd_conn *c)
{
	if (c->opt == OPT_EXPORT_NAME)
		nbd_close(c, "EXPORT_NAME before STARTTLS, TLS is required");	/* it cannot fail */
	else
		opt_reply(c, REP_ERR_TLS_REQD, NULL, 0);
}

/* An option answered (len bytes of data in c->in). */
static void option_answer(struct nbd_conn *c, u32 len)
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
	case OPT_STARTTLS:
		opt_starttls(c, len);
		break;
	default:	/* meta contexts, unknown: parsing goes on */
		opt_reply(c, REP_ERR_UNSUP, NULL, 0);
		break;
	}
}

/* A whole option (header parsed, len bytes of data in c->in). */
static void option(struct nbd_conn *c, u32 len)
{
	if (tls_required(c) && c->opt != OPT_STARTTLS && c->opt != OPT_ABORT)
		option_before_tls(c);
	else
		option_answer(c, len);
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
		opt_reply(c, tls_required(c) && c->opt != OPT_ABORT && c->opt != OPT_STARTTLS ?
				     REP_ERR_TLS_REQD : REP_ERR_TOO_BIG, NULL, 0);
	return n;
}

/* ---- TLS, started by the glue ---- */

bool nbd_conn_starttls(const struct nbd_conn *c)
{
	return c->tls_pending;
}

void nbd_conn_tls_started(struct nbd_conn *c, const char *id)
{
	if (!id)
		id = "";
	if (!c->tls_pending || c->out_len) {
		nbd_conn_close(c, "TLS started out of turn");
		return;
	}
	if (strlen(id) > NBD_IDENTITY_MAX) {
		nbd_conn_close(c, "TLS identity longer than 63 characters");
		return;
	}
	strcpy(c->identity, id);
	c->tls_pending = false;
	c->tls_up = true;
	c->structured = false;	/* doc/proto.md: nothing negotiated before STARTTLS is kept */
}
