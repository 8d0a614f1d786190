/*
 * The NBD protocol engine (include/nbd.h), its connection: the input loop
 * that cuts the client's bytes into units and hands each to its phase,
 * the output buffer, and the calls the transport drains it with. The
 * phases are nbd_handshake.c (greeting, option haggling) and
 * nbd_transmission.c (requests and their replies, simple or structured;
 * FACTS-2 §4.1, §4.2). Portable and host-tested (test_nbd_*); the glue to
 * TCP is net/nbd_server.c.
 *
 * Input is consumed one unit at a time (a header, an option's data, a
 * piece of WRITE payload) and a unit that produces output is handled only
 * when the output buffer has room for its whole reply, so the engine never
 * needs more than NBD_OUTBUF; READ data and LIST replies are produced as
 * the buffer drains. Input is held back while a reply is still being
 * produced, a WRITE_ZEROES is being done (nbd_conn_work) or TLS is being
 * started (nbd_conn_tls_started): each call does a bounded amount of work.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nbd.h"
#include "nbd_proto_priv.h"

u32 nbd_out_room(struct nbd_conn *c)
{
	if (c->out_head) {
		memmove(c->out, c->out + c->out_head, c->out_len);
		c->out_head = 0;
	}
	return NBD_OUTBUF - c->out_len;
}

void nbd_put(struct nbd_conn *c, const void *p, u32 n)
{
	if (c->state == NBD_S_CLOSED)
		return;
	if (n > nbd_out_room(c)) {	/* callers checked the room: a bug, not the client's */
		nbd_close(c, "reply larger than the output buffer");
		return;
	}
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
}

void nbd_put_be(struct nbd_conn *c, u64 v, unsigned int n)
{
	u8 b[8];

	for (unsigned int i = 0; i < n; i++)
		b[i] = (u8)(v >> (8 * (n - 1 - i)));
	nbd_put(c, b, n);
}

void nbd_close(struct nbd_conn *c, const char *why)
{
	c->state = NBD_S_CLOSED;
	c->close_reason = why;
	c->r_left = 0;
	c->r_tail = false;
	c->r_err = 0;
	c->r_skip = 0;
	c->z_left = 0;
	c->w_left = 0;
	c->skip = 0;
	c->listing = false;
	c->zeroing = false;
	c->zero_left = 0;
	c->tls_pending = false;
}

void nbd_conn_close(struct nbd_conn *c, const char *why)
{
	if (c->state != NBD_S_CLOSED)
		nbd_close(c, why);
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
	nbd_greet(c);
	return 0;
}

void nbd_conn_free(struct nbd_conn *c)
{
	free(c->out);
	free(c->wbuf);
	c->out = NULL;
	c->wbuf = NULL;
}

/* ---- input ---- */

/* Gather up to len bytes of the unit being read into c->in; returns how many. */
static size_t gather(struct nbd_conn *c, const u8 *data, size_t len)
{
	u32 n = (u32)MIN((u64)(c->in_need - c->in_len), (u64)len);

	memcpy(c->in + c->in_len, data, n);
	c->in_len += n;
	return n;
}

/* Consume up to len bytes (len > 0): an option skipped, WRITE payload or a unit's bytes. */
static size_t take_in(struct nbd_conn *c, const u8 *data, size_t len)
{
	if (c->skip)	/* an option too long to read */
		return nbd_option_skip(c, len);
	if (c->w_left)
		return nbd_write_payload(c, data, len);
	return gather(c, data, len);
}

/* A complete unit is in c->in: act on it. */
static void unit(struct nbd_conn *c)
{
	switch (c->state) {
	case NBD_S_CLIENT_FLAGS:
		nbd_client_flags(c);
		break;
	case NBD_S_OPTIONS:
		nbd_option_unit(c);
		break;
	case NBD_S_TRANSMISSION:
		nbd_request(c);
		break;
	case NBD_S_CLOSED:
		break;
	}
}

/*
 * Is input held back: a READ or LIST reply still being produced, a
 * WRITE_ZEROES being done, STARTTLS acknowledged and TLS not up yet?
 */
static bool input_held(const struct nbd_conn *c)
{
	return c->r_left || c->r_tail || c->z_left || c->listing || c->zeroing || c->tls_pending;
}

size_t nbd_conn_input(struct nbd_conn *c, const u8 *data, size_t len)
{
	size_t used = 0;

	while (c->state != NBD_S_CLOSED && !input_held(c)) {
		if (c->skip || c->w_left || c->in_len < c->in_need) {
			if (used == len)
				break;
			used += take_in(c, data + used, len - used);
			continue;
		}
		if (nbd_out_room(c) < ROOM_FOR_A_REPLY)
			break;
		unit(c);
	}
	return used;
}

/* ---- output ---- */

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
	nbd_pump(c);
	nbd_list_pump(c);
	/* A unit already taken in may have waited for this room (no new input need come). */
	nbd_conn_input(c, NULL, 0);
}

u32 nbd_conn_output_ref(struct nbd_conn *c, u64 *off)
{
	const struct nbd_export *e = c->exp;

	if (c->out_len || !c->z_left)
		return 0;
	u32 n = (u32)MIN(c->z_left, (u64)NBD_MAX_PAYLOAD);
	if (e->ref_clean && !e->ref_clean(e->ctx, c->z_off, n)) {
		/*
		 * A bad sector turned up since the READ was checked: a NIC (or the
		 * checksum) reading it could not be recovered. The rest is read
		 * through the device instead, whose failure the reply reports.
		 */
		nbd_read_copied(c);
		return 0;
	}
	*off = c->z_off;
	if (e->pages_ready)
		e->pages_ready(e->ctx, *off, n);
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
	if (!c->z_left) {
		nbd_pump(c); /* its last chunk, structured */
		nbd_conn_input(c, NULL, 0);	/* requests taken in behind this READ */
	}
}

bool nbd_conn_done(const struct nbd_conn *c)
{
	return c->state == NBD_S_CLOSED && !c->out_len;
}

/* ---- long work ---- */

bool nbd_conn_busy(const struct nbd_conn *c)
{
	return c->zeroing;
}

bool nbd_conn_work(struct nbd_conn *c)
{
	return c->zeroing && nbd_zero_step(c);
}
