/*
 * TLS 1.2 server sessions over mbedTLS 2.28, with one of two credentials:
 * pre-shared keys (RFC 4279, RFC 5489), for NBD's STARTTLS (docs/FACTS-3
 * §1), or an X.509 certificate and its private key, for the HTTPS API
 * (issue 32). Pure: no sockets and no lwIP. The caller moves ciphertext
 * between TCP and a session's buffers, and plaintext in and out of it:
 *
 *   TCP data in   -> tls_session_put, then tls_session_read until it returns 0
 *   plaintext out -> tls_session_write (one record at most per call)
 *   after either  -> tls_session_out / tls_session_sent: hand the ciphertext to TCP
 *
 * tls_session_read drives the handshake too: after a put, the server's flight
 * may be waiting in tls_session_out even when no plaintext came. The
 * handshake's flights always fit the out buffer (a certificate chain of up to
 * about 30 KiB); application data never overflows it: tls_session_write takes
 * nothing (0) until a whole record fits.
 *
 * One session mechanism, two constructors (net/tls_session.c; net/tls_psk.c,
 * net/tls_cert.c): a credential changes the suites and how the server proves
 * itself, nothing of how bytes move.
 *
 * PSK suites, the server's order: ECDHE-PSK-CHACHA20-POLY1305 (what GnuTLS
 * clients, libnbd and QEMU, negotiate), ECDHE-PSK-AES128-CBC-SHA256,
 * DHE-PSK-CHACHA20-POLY1305, DHE-PSK-AES128-GCM-SHA256,
 * DHE-PSK-AES128-CBC-SHA256; then, only with plain_psk_ok (no forward
 * secrecy), PSK-CHACHA20-POLY1305, PSK-AES128-GCM-SHA256,
 * PSK-AES128-CBC-SHA256. Keys of 1..64 bytes.
 *
 * Certificate suites, forward secret only, the server's order (those of the
 * key's type count): ECDHE-ECDSA then ECDHE-RSA, each with
 * CHACHA20-POLY1305-SHA256, AES128-GCM-SHA256, AES256-GCM-SHA384. ChaCha20
 * first: AES here is software with lookup tables (no AES-NI in the kernel,
 * net/tls/mbedtls_config.h), slower and not constant-time.
 *
 * Curves for ECDHE: X25519, then P-256.
 *
 * Memory, from malloc (test_tls_psk and test_tls_cert measure it): about
 * 85 KiB a session, whatever the credential (on the host: PSK 87,426 bytes
 * new, 85,602 once the handshake is over; certificate, EC or RSA, 85,626
 * once it is over): this layer's ciphertext buffers, 16.3 KiB in and 32.5 KiB
 * out, mbedTLS's two record buffers of ~16.7 KiB each, its context,
 * configuration, keys and, until the handshake ends, the handshake's state.
 * A certificate (struct tls_cert: ~3.3 KiB for a P-256 chain of two or one
 * RSA-2048 certificate) is parsed once and shared by every session.
 *
 * Not thread-safe: one caller at a time for every session (the DRBG is
 * shared); in the kernel that is lwIP's thread, the boot CPU.
 */
#ifndef PMEMK_TLS_SERVER_H
#define PMEMK_TLS_SERVER_H

#include "types.h"

/* Longest PSK identity accepted (RFC 4279 allows 2^16-1; psktool's are names). */
#define TLS_PSK_ID_MAX 128
/* Longest key (MBEDTLS_PSK_MAX_LEN in net/tls/mbedtls_config.h). */
#define TLS_PSK_KEY_MAX 64

/*
 * Once, before any session: seed the DRBG from the CPU's entropy (RDSEED, else
 * RDRAND). 0; -ENODEV when the CPU has neither (the caller prints the line);
 * -EIO when seeding failed. Again after success: 0, nothing done.
 */
int tls_server_init(void);
/* The entropy source tls_server_init chose: "rdseed", "rdrand", or NULL before it. */
const char *tls_server_entropy(void);

struct tls_session;

/* Where a PSK server finds a client's key. */
struct tls_psk_keys {
	/*
	 * Fill key (at most *key_len bytes, TLS_PSK_KEY_MAX) for this identity
	 * and set *key_len: 0, or -ENOENT when the identity is unknown. Never
	 * logs (the session's why line says what happened).
	 */
	int (*lookup)(void *arg, const u8 *id, size_t id_len, u8 *key, size_t *key_len);
	void *arg;
};

/*
 * A PSK server session waiting for a ClientHello; NULL when out of memory or
 * before tls_server_init. keys is copied. plain_psk_ok adds the PSK-* suites
 * (not forward secret) after the ECDHE-PSK and DHE-PSK ones.
 */
struct tls_session *tls_session_new_psk(const struct tls_psk_keys *keys, bool plain_psk_ok);

/* A certificate chain and its private key, parsed once (net/tls_cert.c). */
struct tls_cert;

/*
 * Parse a PEM certificate chain (the server's certificate first, then any
 * intermediates) and a PEM private key, unencrypted: PKCS#8 "PRIVATE KEY",
 * SEC1 "EC PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY", as openssl writes them;
 * EC on P-256 or RSA of 2048..4096 bits. The inputs need no NUL and are not
 * changed; the key's copies this makes are wiped (the caller wipes its own).
 * 0 and *out; -EINVAL with why set (one line, no key byte): not PEM, no
 * certificate, an encrypted key, an unsupported key type, the key does not
 * match the certificate; -ENOMEM. Needs no tls_server_init.
 */
int tls_cert_parse(const char *crt_pem, size_t crt_len, const char *key_pem, size_t key_len,
		   struct tls_cert **out, char *why, size_t why_len);
/*
 * One line for the log: "CN=NAME (EC P-256), valid until 2027-12-06" (the
 * subject's common name, else its whole name; the key's type; notAfter).
 */
void tls_cert_summary(const struct tls_cert *c, char *buf, size_t len);
/* Free a certificate (NULL: nothing), wiping its key; no session may use it after. */
void tls_cert_free(struct tls_cert *c);
/*
 * A certificate server session waiting for a ClientHello; NULL when out of
 * memory or before tls_server_init. cert must outlive the session; not
 * const: an RSA key's blinding values change with each signature.
 */
struct tls_session *tls_session_new_cert(struct tls_cert *cert);

/* Free a session (NULL: nothing), wiping its keys and buffers first. */
void tls_session_free(struct tls_session *t);

/* Ciphertext from the peer, copied in: the bytes taken (fewer when the in buffer is full). */
size_t tls_session_put(struct tls_session *t, const u8 *cipher, size_t n);
/*
 * Drive the handshake, then decrypt: > 0 plaintext bytes in buf, 0 nothing
 * yet (more ciphertext needed, or n is 0), < 0 the session is over and the
 * connection must close: -EACCES the peer failed to authenticate (unknown
 * identity, wrong key), -ECONNRESET the peer sent a fatal alert (a client
 * that does not trust the certificate says bad_certificate or unknown_ca),
 * -EPIPE the peer sent close_notify, -ENOMEM, -EPROTO anything else.
 * tls_session_why says why in one line; every later call returns the same
 * value. Call again until it returns 0: one record may fill several calls.
 */
int tls_session_read(struct tls_session *t, u8 *buf, size_t n);
/*
 * Encrypt plaintext for the peer: the bytes taken, at most one record of
 * 16 KiB, always a whole record; 0 when the handshake is not over, when the
 * out buffer has no room for the record (send, then call again), after
 * tls_session_close_notify, or on failure (tls_session_read then returns it).
 */
size_t tls_session_write(struct tls_session *t, const u8 *p, size_t n);
/* Ciphertext waiting to go to TCP: its length, *cipher pointing at it (contiguous). */
size_t tls_session_out(struct tls_session *t, const u8 **cipher);
/* n bytes of tls_session_out's were handed to TCP: drop them. */
void tls_session_sent(struct tls_session *t, size_t n);

/* The handshake is over: application data may flow. */
bool tls_session_ready(const struct tls_session *t);
/*
 * The PSK identity the client presented ("" before its ClientKeyExchange,
 * and always for a certificate session): NUL-terminated, bytes outside
 * printable ASCII shown as '?'. For logs; the lookup saw the raw bytes.
 */
const char *tls_session_identity(const struct tls_session *t);
/* The negotiated suite, e.g. "TLS-ECDHE-PSK-WITH-CHACHA20-POLY1305-SHA256"; "" before. */
const char *tls_session_suite(const struct tls_session *t);
/* Why the session failed, one line ("unknown identity alice"); "" while it has not. */
const char *tls_session_why(const struct tls_session *t);
/* Queue a close_notify alert (once the handshake is over); no writes after it. */
void tls_session_close_notify(struct tls_session *t);

#endif
