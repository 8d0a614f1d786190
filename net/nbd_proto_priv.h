/*
 * What the NBD protocol engine's files share (net/ only): the connection
 * with its input loop and output buffer (nbd_proto.c), the handshake and
 * option haggling (nbd_handshake.c) and the transmission phase
 * (nbd_transmission.c). The wire format is doc/proto.md's (FACTS-2 §4).
 */
#ifndef PMEMK_NBD_PROTO_PRIV_H
#define PMEMK_NBD_PROTO_PRIV_H

#include "nbd.h"

#define REQ_HDR_LEN 28
/*
 * Free output a unit needs before it is handled: its whole reply fits
 * (the largest, INFO/GO with a NBD_NAME_MAX name, is 4224 bytes; a LIST
 * is produced an export at a time, each checked against the room).
 */
#define ROOM_FOR_A_REPLY 8192

/* A big-endian field of n bytes at p. */
static inline u64 nbd_get_be(const u8 *p, unsigned int n)
{
	u64 v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Gather the next unit of n bytes into c->in. */
static inline void nbd_expect(struct nbd_conn *c, u32 n)
{
	c->in_len = 0;
	c->in_need = n;
}

/* ---- nbd_proto.c: the output buffer and closing ---- */

/* Make the pending output start at out[0]; return the free room after it. */
u32 nbd_out_room(struct nbd_conn *c);
/*
 * Append n bytes, or a big-endian field of n bytes; the caller checked the
 * room. A put that does not fit (a bug) closes instead of overflowing, and
 * nothing is put once closed.
 */
void nbd_put(struct nbd_conn *c, const void *p, u32 n);
void nbd_put_be(struct nbd_conn *c, u64 v, unsigned int n);
/* Close once the output is sent (why: NULL for the client's own DISC or ABORT). */
void nbd_close(struct nbd_conn *c, const char *why);

/* ---- nbd_handshake.c ---- */

/* Queue the server's greeting; wait for the client's flags. */
void nbd_greet(struct nbd_conn *c);
/* A complete unit in c->in: the client's flags (NBD_S_CLIENT_FLAGS). */
void nbd_client_flags(struct nbd_conn *c);
/* A complete unit in c->in: an option's header or its data (NBD_S_OPTIONS). */
void nbd_option_unit(struct nbd_conn *c);
/*
 * Skip up to len bytes of an option too long to read (c->skip); once the
 * last is skipped, reply ERR_TOO_BIG. Returns the bytes consumed.
 */
size_t nbd_option_skip(struct nbd_conn *c, size_t len);
/* LIST: the next exports' replies as room allows, then the ACK (c->listing). */
void nbd_list_pump(struct nbd_conn *c);

/* ---- nbd_transmission.c ---- */

/* A complete unit in c->in: a request header (NBD_S_TRANSMISSION). */
void nbd_request(struct nbd_conn *c);
/*
 * Take up to len bytes of a WRITE's payload (c->w_left more to come);
 * the reply goes out after the last. Returns the bytes consumed.
 */
size_t nbd_write_payload(struct nbd_conn *c, const u8 *data, size_t len);
/* Copy READ data into the output buffer as room allows. */
void nbd_pump(struct nbd_conn *c);
/* The rest of a by-reference READ (z_off, z_left) is copied instead, from now on. */
void nbd_read_copied(struct nbd_conn *c);
/*
 * One slice of the WRITE_ZEROES being done (c->zeroing), then its reply
 * after the last. Returns true while more remains.
 */
bool nbd_zero_step(struct nbd_conn *c);

#endif
