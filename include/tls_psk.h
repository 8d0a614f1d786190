/*
 * TLS 1.2 server sessions with pre-shared keys (RFC 4279, RFC 5489), over
 * mbedTLS 2.28, for NBD's STARTTLS (docs/FACTS-3 §1). Pure: no sockets and no
 * lwIP. The caller moves ciphertext between TCP and a session's buffers, and
 * plaintext in and out of it:
 *
 *   TCP data in   -> tls_psk_put, then tls_psk_read until it returns 0
 *   plaintext out -> tls_psk_write (one record at most per call)
 *   after either  -> tls_psk_out / tls_psk_sent: hand the ciphertext to TCP
 *
 * tls_psk_read drives the handshake too: after a put, the server's flight may
 * be waiting in tls_psk_out even when no plaintext came. The handshake's
 * flights always fit the out buffer; application data never overflows it:
 * tls_psk_write takes nothing (0) until a whole record fits.
 *
 * Cipher suites, the server's order: ECDHE-PSK-CHACHA20-POLY1305 (what
 * GnuTLS clients, libnbd and QEMU, negotiate), ECDHE-PSK-AES128-CBC-SHA256,
 * DHE-PSK-CHACHA20-POLY1305, DHE-PSK-AES128-GCM-SHA256,
 * DHE-PSK-AES128-CBC-SHA256; then, only with plain_psk_ok (no forward
 * secrecy), PSK-CHACHA20-POLY1305, PSK-AES128-GCM-SHA256,
 * PSK-AES128-CBC-SHA256. Curves X25519, then P-256. Keys of 1..64 bytes.
 *
 * Memory, from malloc (test_tls_psk measures it): about 85 KiB a session
 * (87,026 bytes new, 85,458 once the handshake is over, on the host):
 * this layer's ciphertext buffers, 16.3 KiB in and 32.5 KiB out, mbedTLS's
 * two record buffers of ~16.7 KiB each, its context, configuration, keys
 * and, until the handshake ends, the handshake's state.
 *
 * Not thread-safe: one caller at a time for every session (the DRBG is
 * shared); in the kernel that is lwIP's thread, the boot CPU.
 */
#ifndef PMEMK_TLS_PSK_H
#define PMEMK_TLS_PSK_H

#include "types.h"

/* Longest PSK identity accepted (RFC 4279 allows 2^16-1; psktool's are names). */
#define TLS_PSK_ID_MAX 128
/* Longest key (MBEDTLS_PSK_MAX_LEN in net/tls/mbedtls_config.h). */
#define TLS_PSK_KEY_MAX 64

/* Where the server finds a client's key. */
struct tls_psk_keys {
	/*
	 * Fill key (at most *key_len bytes, TLS_PSK_KEY_MAX) for this identity
	 * and set *key_len: 0, or -ENOENT when the identity is unknown. Never
	 * logs (the session's why line says what happened).
	 */
	int (*lookup)(void *arg, const u8 *id, size_t id_len, u8 *key, size_t *key_len);
	void *arg;
};

struct tls_psk;

/*
 * Once, before any session: seed the DRBG from the CPU's entropy (RDSEED, else
 * RDRAND). 0; -ENODEV when the CPU has neither (the caller prints the line);
 * -EIO when seeding failed. Again after success: 0, nothing done.
 */
int tls_psk_init(void);
/* The entropy source tls_psk_init chose: "rdseed", "rdrand", or NULL before it. */
const char *tls_psk_entropy(void);

/*
 * A server session waiting for a ClientHello; NULL when out of memory or
 * before tls_psk_init. keys is copied. plain_psk_ok adds the PSK-* suites
 * (not forward secret) after the ECDHE-PSK and DHE-PSK ones.
 */
struct tls_psk *tls_psk_new(const struct tls_psk_keys *keys, bool plain_psk_ok);
/* Free a session (NULL: nothing), wiping its keys and buffers first. */
void tls_psk_free(struct tls_psk *t);

/* Ciphertext from the peer, copied in: the bytes taken (fewer when the in buffer is full). */
size_t tls_psk_put(struct tls_psk *t, const u8 *cipher, size_t n);
/*
 * Drive the handshake, then decrypt: > 0 plaintext bytes in buf, 0 nothing
 * yet (more ciphertext needed, or n is 0), < 0 the session is over and the
 * connection must close: -EACCES the peer failed to authenticate (unknown
 * identity, wrong key), -ECONNRESET the peer sent a fatal alert, -EPIPE
 * the peer sent close_notify, -ENOMEM, -EPROTO anything else. tls_psk_why
 * says why in one line; every later call returns the same value. Call again
 * until it returns 0: one record may fill several calls.
 */
int tls_psk_read(struct tls_psk *t, u8 *buf, size_t n);
/*
 * Encrypt plaintext for the peer: the bytes taken, at most one record of
 * 16 KiB, always a whole record; 0 when the handshake is not over, when the
 * out buffer has no room for the record (send, then call again), after
 * tls_psk_close_notify, or on failure (tls_psk_read then returns it).
 */
size_t tls_psk_write(struct tls_psk *t, const u8 *p, size_t n);
/* Ciphertext waiting to go to TCP: its length, *cipher pointing at it (contiguous). */
size_t tls_psk_out(struct tls_psk *t, const u8 **cipher);
/* n bytes of tls_psk_out's were handed to TCP: drop them. */
void tls_psk_sent(struct tls_psk *t, size_t n);

/* The handshake is over: application data may flow. */
bool tls_psk_ready(const struct tls_psk *t);
/*
 * The identity the client presented ("" before its ClientKeyExchange):
 * NUL-terminated, bytes outside printable ASCII shown as '?'. For logs;
 * the lookup saw the raw bytes.
 */
const char *tls_psk_identity(const struct tls_psk *t);
/* The negotiated suite, e.g. "TLS-ECDHE-PSK-WITH-CHACHA20-POLY1305-SHA256"; "" before. */
const char *tls_psk_suite(const struct tls_psk *t);
/* Why the session failed, one line ("unknown identity alice"); "" while it has not. */
const char *tls_psk_why(const struct tls_psk *t);
/* Queue a close_notify alert (once the handshake is over); no writes after it. */
void tls_psk_close_notify(struct tls_psk *t);

#endif
