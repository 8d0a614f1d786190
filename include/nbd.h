/*
 * The NBD server's protocol engine (fixed newstyle; FACTS-2 §4, the NBD
 * project's doc/proto.md): a per-connection state machine that knows
 * nothing of TCP or pmem. Bytes from the client go in through
 * nbd_conn_input(); what the server sends comes out of a bounded buffer
 * (nbd_conn_output / nbd_conn_sent), refilled by the engine as it drains
 * (a READ of 32 MiB is produced piece by piece). Exports are reached
 * through struct nbd_export's callbacks, which the glue binds to block
 * devices. Every field on the wire is big-endian.
 *
 * What it serves: options EXPORT_NAME, ABORT, LIST, INFO and GO (with
 * NBD_INFO_EXPORT, NAME and BLOCK_SIZE), STRUCTURED_REPLY (then READ is
 * answered with an OFFSET_DATA chunk, or an ERROR chunk with a message;
 * the other commands keep simple replies, as the protocol allows),
 * STARTTLS (below), ERR_UNSUP for the rest (meta contexts); commands READ,
 * WRITE (FUA), DISC, FLUSH, WRITE_ZEROES (FUA). Bad input from the client
 * gets the protocol's error or a close, never a crash.
 *
 * Long work is done in bounded steps: a LIST reply is produced one export
 * at a time as the output drains, a WRITE_ZEROES NBD_ZERO_SLICE bytes per
 * nbd_conn_work(). No call does more than a buffer's worth of work.
 *
 * TLS (FACTS-3 §1.1, doc/proto.md "TLS support"): the engine decides, the
 * glue encrypts. c->tls says what the server offers:
 *   NBD_TLS_OFF      NOTLS: STARTTLS gets NBD_REP_ERR_POLICY (TLS is off
 *                    by the server's choice, not unknown to it), nothing
 *                    ever gets ERR_TLS_REQD. The default: the old behaviour.
 *   NBD_TLS_ON       SELECTIVETLS: STARTTLS is acknowledged; an export that
 *                    may_open refuses to a client without TLS gets
 *                    ERR_TLS_REQD on INFO/GO (it is TLS-only for it).
 *   NBD_TLS_REQUIRE  FORCEDTLS: until TLS is up every option but STARTTLS
 *                    and ABORT gets NBD_REP_ERR_TLS_REQD (its data skipped),
 *                    and EXPORT_NAME closes (it cannot fail).
 * STARTTLS with data, or once TLS is up (or being started): ERR_INVALID.
 * Otherwise the ACK is queued and the engine stops taking input right
 * after the option's bytes: nbd_conn_input() returns that count, so the
 * ClientHello that may follow in the same segment never reaches the
 * option parser. The glue then sends the buffered output in plaintext
 * (nbd_conn_starttls() says so), runs the TLS handshake on the bytes it
 * still holds, and calls nbd_conn_tls_started() with the client's PSK
 * identity (or nbd_conn_close() if the handshake failed). As the protocol
 * asks, negotiation state from before (STRUCTURED_REPLY) is forgotten.
 *
 * Export policy: struct nbd_exports' may_open decides which exports a
 * client (its TLS identity, or NULL without TLS) may see and open: LIST
 * leaves out the others, INFO/GO of one gets ERR_POLICY with a short
 * message (ERR_TLS_REQD as above), EXPORT_NAME of one closes.
 *
 * Bad sectors (an export's first_bad, ref_clean): a READ over one gets EIO
 * and none of its data (structured: an ERROR_OFFSET chunk naming the first
 * bad byte); one found only while its data is being sent ends the data
 * chunk in zeros and an ERROR_OFFSET chunk (structured), or closes the
 * connection (simple replies: the header went out saying success). Other
 * requests and connections go on.
 */
#ifndef PMEMK_NBD_H
#define PMEMK_NBD_H

#include "types.h"

#define NBD_PORT 10809
#define NBD_MAX_PAYLOAD (32u << 20)	/* largest READ/WRITE served (BLOCK_SIZE max) */
#define NBD_NAME_MAX 4096		/* longest export name sent (doc/proto.md: strings) */
/* Longest option data read (an INFO/GO of the longest name fits); longer ones are skipped. */
#define NBD_OPT_MAX (NBD_NAME_MAX + 64)
#define NBD_OUTBUF (64u << 10)		/* bytes the engine buffers for sending */
#define NBD_WBUF (64u << 10)		/* WRITE data gathered before it goes to the device */
#define NBD_ZERO_SLICE (1u << 20)	/* bytes of a WRITE_ZEROES zeroed per nbd_conn_work() */
#define NBD_IDENTITY_MAX 63		/* longest TLS identity a connection keeps */

/* Transmission flags (FACTS-2 §4.1). */
#define NBD_FLAG_HAS_FLAGS (1u << 0)
#define NBD_FLAG_READ_ONLY (1u << 1)
#define NBD_FLAG_SEND_FLUSH (1u << 2)
#define NBD_FLAG_SEND_FUA (1u << 3)
#define NBD_FLAG_SEND_WRITE_ZEROES (1u << 6)
#define NBD_FLAG_CAN_MULTI_CONN (1u << 8)

/* Errors in simple replies (FACTS-2 §4.2). */
#define NBD_EPERM 1
#define NBD_EIO 5
#define NBD_ENOMEM 12
#define NBD_EINVAL 22
#define NBD_ENOSPC 28
#define NBD_EOVERFLOW 75

struct nbd_export {
	const char *name;
	u64 size;		/* bytes */
	u32 block;		/* smallest request granularity (the sector size), a power of two */
	bool ro;
	void *ctx;
	/* 0 or a negative errno; off and len are multiples of block, inside size. */
	int (*read)(void *ctx, u64 off, void *buf, u32 len);
	/* Durable when it returns 0. */
	int (*write)(void *ctx, u64 off, const void *buf, u32 len);
	/* Make every completed write durable. */
	int (*flush)(void *ctx);
	/*
	 * READ data may be handed out by reference (nbd_conn_output_ref) when
	 * the connection has zero_copy: the device's bytes lie at fixed
	 * addresses. False (a BTT's, whose sectors move): always copied.
	 */
	bool by_ref;
	/*
	 * Optional (NULL: WRITE data is gathered in NBD_WBUF pieces for
	 * write()): copy len bytes of a checked WRITE to byte offset off, any
	 * alignment, as they arrive, with the durable copy but no wait:
	 * flush() makes them durable before the reply. WRITE data then goes
	 * from the transport's buffers to the device in one copy.
	 */
	int (*write_bytes)(void *ctx, u64 off, const void *buf, u32 len);
	/*
	 * Optional: called before READ data at [off, off + len) is handed out
	 * by reference, for a device whose struct pages may still be
	 * initialised in the background (memmap_ready_range): a zero-copy
	 * reference is a user of those pages.
	 */
	void (*pages_ready)(void *ctx, u64 off, u64 len);
	/*
	 * Optional: does [off, off + len) hold a bad sector the device knows
	 * of (a read of it fails)? True and *bad, its first byte inside the
	 * range. Asked before every READ is answered (so cheap when nothing is
	 * bad) and after a read failed, to say where. NULL: reads find out by
	 * failing.
	 */
	bool (*first_bad)(void *ctx, u64 off, u64 len, u64 *bad);
	/*
	 * Optional, with by_ref: may [off, off + len) be handed out by
	 * reference now (no bad sector)? Asked before each piece of READ data
	 * leaves by reference; false: the rest of that READ is read through
	 * read(), copied. NULL: by-reference data cannot fail.
	 */
	bool (*ref_clean)(void *ctx, u64 off, u64 len);
};

/* The exports a connection may ask for (the glue's table). */
struct nbd_exports {
	const struct nbd_export *(*lookup)(void *arg, const char *name);
	const struct nbd_export *(*nth)(void *arg, unsigned int i);	/* NULL past the last */
	void *arg;
	/*
	 * Optional (NULL: every export to every client): may the client with
	 * this TLS identity (NULL: a client without TLS) see and open e?
	 * Asked for each export a LIST shows and before INFO, GO and
	 * EXPORT_NAME answer.
	 */
	bool (*may_open)(void *arg, const struct nbd_export *e, const char *identity);
};

/* What the server offers of TLS (set c->tls after nbd_conn_init; see the top). */
enum nbd_tls {
	NBD_TLS_OFF,
	NBD_TLS_ON,
	NBD_TLS_REQUIRE,
};

enum nbd_state {
	NBD_S_CLIENT_FLAGS,	/* handshake sent, waiting for the client's flags */
	NBD_S_OPTIONS,		/* option haggling */
	NBD_S_TRANSMISSION,	/* requests */
	NBD_S_CLOSED,		/* send what is buffered, then close */
};

struct nbd_stats {
	u64 reads, writes, flushes, zeroes, errors; /* errors: requests answered with one */
	u64 fua;		/* WRITEs and WRITE_ZEROES with FUA */
	u32 max_len;		/* the longest READ or WRITE asked for (bytes) */
	u64 bytes_read, bytes_written;
	u64 bytes_by_ref;	/* READ data handed out by reference (zero copy), part of bytes_read */
	u64 bytes_direct;	/* WRITE data copied straight from the input (write_bytes), part of bytes_written */
};

struct nbd_conn {
	enum nbd_state state;
	const struct nbd_exports *exports;
	const struct nbd_export *exp;	/* chosen by EXPORT_NAME or GO */
	bool no_zeroes;			/* the client agreed to NO_ZEROES */
	bool structured;		/* STRUCTURED_REPLY was acknowledged */
	const char *close_reason;	/* why the engine closed (NULL: client's DISC/ABORT) */
	/* Input being gathered: a header, an option's data. */
	u8 in[NBD_OPT_MAX + 32];
	u32 in_len, in_need;
	/* An option or write payload being skipped, a write being taken in. */
	u64 skip;
	u8 phase;			/* options: header or data next */
	u32 opt, opt_len;		/* the option whose data is being read */
	u64 w_off, w_left;		/* WRITE: where the next byte goes, bytes still to come */
	u64 cookie;
	u16 cmd_flags;
	int w_err;			/* first error of the WRITE (NBD_E*) */
	bool w_direct;			/* some of it went through write_bytes: flush before the reply */
	u8 *wbuf; /* gathered WRITE data; with write_bytes, a sector being carried */
	u32 wbuf_len;
	/* A READ reply being produced: copied into the buffer, or handed out by reference. */
	u64 r_off, r_left;
	bool r_tail; /* structured: the final chunk (NONE or the error) is still to come */
	u32 r_err; /* structured: a read failed; the rest is zeros, then this error */
	u64 r_bad; /* ... at this offset: the first byte not sent as data */
	u32 r_skip; /* bytes of the block at r_off sent already (by reference) */
	bool zero_copy;			/* set by the caller after init: READ data by reference (exports with by_ref) */
	u64 z_off, z_left;
	/* TLS: what is offered (set by the caller after init), and where it stands. */
	enum nbd_tls tls;
	bool tls_pending;		/* STARTTLS acknowledged: no input until nbd_conn_tls_started */
	bool tls_up;			/* the transport is TLS (nbd_conn_tls_started) */
	char identity[NBD_IDENTITY_MAX + 1];	/* the client's TLS identity; "" before */
	/* A LIST reply being produced: the next export to look at. */
	bool listing;
	u32 list_next;
	/* A WRITE_ZEROES being done, NBD_ZERO_SLICE per nbd_conn_work: where, how much, first error. */
	bool zeroing;
	u64 zero_off, zero_left;
	u32 zero_err;
	/*
	 * Set by the caller after init: it calls nbd_conn_work() while
	 * nbd_conn_busy(). False (the glue of before): a WRITE_ZEROES is
	 * zeroed whole in the call that takes it in.
	 */
	bool work_in_steps;
	/* Output. */
	u8 *out;
	u32 out_head, out_len;
	struct nbd_stats stats;
};

/*
 * Start a connection: buffers from malloc (-ENOMEM) and the server's
 * greeting queued. exports must outlive the connection.
 */
int nbd_conn_init(struct nbd_conn *c, const struct nbd_exports *exports);
void nbd_conn_free(struct nbd_conn *c);

/*
 * Feed bytes from the client. Returns how many were consumed: fewer than
 * len when the engine waits for its output to drain (call again with the
 * rest after nbd_conn_sent). Nothing is consumed once the state is CLOSED.
 */
size_t nbd_conn_input(struct nbd_conn *c, const u8 *data, size_t len);

/* The bytes waiting to be sent (contiguous), or 0. */
u32 nbd_conn_output(struct nbd_conn *c, const u8 **data);
/*
 * n of them were sent; the engine refills the buffer (READ data) and acts
 * on input it took in earlier but had no room to answer, if it can now.
 */
void nbd_conn_sent(struct nbd_conn *c, u32 n);

/*
 * With zero_copy: READ data the caller sends straight from the export (at
 * byte *off, up to the returned length; 0: none now). It comes after the
 * buffered output, so it is offered only once nbd_conn_output() is empty.
 * A range the export no longer calls clean (ref_clean) is never offered:
 * the rest of that READ is then copied into the buffer, so after a 0 the
 * caller looks at nbd_conn_output() again.
 */
u32 nbd_conn_output_ref(struct nbd_conn *c, u64 *off);
/* n bytes of it were handed to the transport (which must keep the device alive until sent). */
void nbd_conn_ref_sent(struct nbd_conn *c, u32 n);

/* True when the connection should be closed now (closed and everything sent). */
bool nbd_conn_done(const struct nbd_conn *c);

/*
 * Close for a reason of the glue's (why: one phrase, kept by pointer, e.g.
 * "TLS handshake failed"): nothing more is taken in; what is buffered is
 * still offered (nbd_conn_done once it is sent).
 */
void nbd_conn_close(struct nbd_conn *c, const char *why);

/*
 * True once a STARTTLS was acknowledged and until nbd_conn_tls_started():
 * the glue sends what nbd_conn_output() holds in plaintext (the ACK is the
 * last of it), then starts TLS on the same socket with every byte the
 * engine did not consume. The engine consumes nothing meanwhile.
 */
bool nbd_conn_starttls(const struct nbd_conn *c);

/*
 * The TLS handshake succeeded (call it with the plaintext output sent):
 * from now on the glue feeds decrypted bytes and encrypts the output.
 * identity: the client's PSK identity (NULL: none), copied; one longer
 * than NBD_IDENTITY_MAX closes the connection. Called out of turn (no
 * STARTTLS acknowledged, or output not yet sent): the connection closes.
 */
void nbd_conn_tls_started(struct nbd_conn *c, const char *identity);

/*
 * Long work pending (a WRITE_ZEROES being done, with work_in_steps): the
 * glue calls nbd_conn_work() on every poll pass while this is true (and
 * may call it at once after input too). No input is consumed meanwhile,
 * so requests stay in order.
 */
bool nbd_conn_busy(const struct nbd_conn *c);

/*
 * Do one step of the pending long work: NBD_ZERO_SLICE bytes of a
 * WRITE_ZEROES, whose reply is queued after its last slice (after a flush
 * with FUA). Returns true while more remains (or the reply waits for
 * room in the output). Cheap and false when there is none.
 */
bool nbd_conn_work(struct nbd_conn *c);

#endif
