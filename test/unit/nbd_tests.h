/*
 * What the NBD engine's host tests share (test_nbd_handshake.c,
 * test_nbd_io.c, test_nbd_structured.c, test_nbd_media.c; defined in
 * nbd_tests.c): two exports over fake devices in host memory, and a fake
 * client whose transport feeds the engine and captures all it sends.
 */
#ifndef PMEMK_TEST_NBD_TESTS_H
#define PMEMK_TEST_NBD_TESTS_H

#include <stddef.h>

#include "nbd.h"
#include "types.h"

#define DEV_SIZE (64u << 20)

struct fake_dev {
	struct nbd_export exp;
	u8 *mem;
	unsigned int flushes, writes, byte_writes, reads;
	bool fail_reads, fail_byte_writes;
	u64 fail_writes_at;	/* write() of a range holding this offset fails (0: none) */
	/*
	 * Reads that meet [bad_off, bad_off + bad_len) fail (bad_len 0: none),
	 * and so do write_bytes covering it in part; one covering it whole heals it.
	 */
	u64 bad_off, bad_len;
	/* pages_ready said so: 4 KiB pages handed out by reference. */
	u8 ready[DEV_SIZE / 4096];
};

/*
 * After nbd_test_setup: devs[0] "pmem0" (writable, READ data by
 * reference), devs[1] "pmem1m" (read-only, copied), both 64 MiB of a
 * pattern in 512-byte blocks, without write_bytes.
 */
extern struct fake_dev devs[2];

/* write_bytes: any alignment, inside the export; no durability until the flush. */
int dev_write_bytes(void *ctx, u64 off, const void *buf, u32 len);
/* first_bad: the bad range's first byte in [off, off + len). */
bool dev_first_bad(void *ctx, u64 off, u64 len, u64 *bad);
/* ref_clean: no byte of the bad range in [off, off + len). */
bool dev_ref_clean(void *ctx, u64 off, u64 len);

/* The connection under test, and what the server sent (got_pos: read so far by take()). */
extern struct nbd_conn conn;
extern u8 *got;
extern size_t got_len, got_pos;
extern size_t drain_limit;	/* 0: take everything; else at most this much per drain() */
/* Where drain() finds by-reference data (NULL: the fake device's, its pages_ready checked). */
extern const u8 *(*drain_ref)(u64 off, u32 n);

/*
 * Send what the engine has for the client (buffered or by reference),
 * each piece in two sends, into got.
 */
void drain(void);
/* Feed everything, step bytes at a time, draining whenever the engine stops. */
void feed_step(const void *data, size_t len, size_t step);
/* Feed everything at once, then drain. */
void feed(const void *data, size_t len);

/* Big-endian fields of n bytes. */
void be(u8 *p, u64 v, unsigned int n);
u64 rd_be(const u8 *p, unsigned int n);

/* The next n bytes the server sent; fails the test when it sent fewer. */
const u8 *take(size_t n);

/* ---- the client's side of the handshake ---- */

void client_flags(u32 f);
/* An option's header, then its len bytes of data. */
void send_opt(u32 opt, const void *data, u32 len);
/* An option reply: checks magic and option, returns the type; *len and *data set. */
u32 opt_reply(u32 opt, u32 *len, const u8 **data);
/* An INFO or GO option's data for name into b, asking for the nreq infos in reqs. */
void go_body(u8 *b, u32 *len, const char *name, u16 nreq, const u16 *reqs);
/* Check the greeting, send flags FIXED_NEWSTYLE | NO_ZEROES and GO name; check its replies. */
void greeting_and_go(const char *name);

/* ---- transmission ---- */

/* A request header into b[28]. */
void put_req(u8 *b, u16 type, u16 flags, u64 cookie, u64 off, u32 len);
void send_req(u16 type, u16 flags, u64 cookie, u64 off, u32 len);
/* A simple reply: checks magic and cookie, returns the error. */
u32 simple_reply(u64 cookie);
/* Greeting, STRUCTURED_REPLY acknowledged, GO name (its replies skipped up to the ACK). */
void structured_go(const char *name);
/* A structured reply chunk's header: checks magic and cookie; returns its length. */
u32 chunk(u64 cookie, u16 *flags, u16 *type);
/* The OFFSET_DATA chunk of READ `cookie` at off (not final): checks it, returns its data. */
const u8 *data_chunk(u64 cookie, u64 off, u32 len);
/* The final NONE chunk of READ `cookie`. */
void none_chunk(u64 cookie);
/* A final ERROR_OFFSET chunk with error err at off, message "bad sector". */
void error_offset(u64 cookie, u32 err, u64 off);

/* cmocka setup and teardown: fresh devices, nothing captured, a new connection greeted. */
int nbd_test_setup(void **state);
int nbd_test_teardown(void **state);
/* Nothing captured, a new connection to `ex` greeted (the setup's second half). */
void nbd_test_start(const struct nbd_exports *ex);

#endif
