/*
 * Shared by the TLS layer's files (include/tls_server.h): the DRBG
 * (net/tls_entropy.c), the session mechanism (net/tls_session.c) and its two
 * credentials, pre-shared keys (net/tls_psk.c) and a certificate
 * (net/tls_cert.c). A constructor allocates a session, configures it for its
 * credential, then starts it.
 */
#ifndef PMEMK_NET_TLS_PRIV_H
#define PMEMK_NET_TLS_PRIV_H

#include <mbedtls/ssl.h>

#include "tls_server.h"
#include "types.h"

/* mbedTLS's f_rng: the CTR_DRBG tls_server_init seeded. 0, or an mbedTLS error. */
int tls_rng(void *unused, unsigned char *out, size_t len);
/* tls_server_init succeeded. */
bool tls_rng_seeded(void);

/*
 * The largest record on the wire: its 5-byte header, 16 KiB of plaintext and
 * what the cipher adds (explicit IV, MAC or tag, CBC padding: at most 69
 * bytes for these suites). The in buffer holds one such record, the out
 * buffer two (one on its way to TCP while the next is encrypted).
 */
#define TLS_RECORD_MAX (5 + 16384 + 256)
#define TLS_IN_SIZE TLS_RECORD_MAX
#define TLS_OUT_SIZE (2 * TLS_RECORD_MAX)

/* Ciphertext queued in [head, tail) of data. */
struct tls_buf {
	size_t head, tail, size;
	u8 *data;
};

struct tls_session {
	mbedtls_ssl_context ssl;
	mbedtls_ssl_config conf;
	struct tls_psk_keys keys;	/* PSK sessions: where keys come from */
	struct tls_buf in, out;
	int err;		/* once failed: what tls_session_read returns */
	bool ready;		/* the handshake is over */
	bool closing;		/* close_notify queued: no more writes */
	bool close_pending;	/* ... but it did not fit yet */
	char identity[TLS_PSK_ID_MAX + 1];
	char why[64 + TLS_PSK_ID_MAX];
	u8 in_data[TLS_IN_SIZE];
	u8 out_data[TLS_OUT_SIZE];
};

/*
 * A zeroed session with its buffers and mbedTLS's contexts initialised, the
 * configuration's common part set (server, TLS 1.2 only, suites in the given
 * order, 0-terminated and static, curves X25519 then P-256, the DRBG); NULL
 * when out of memory, before tls_server_init, or when mbedTLS refuses.
 */
struct tls_session *tls_session_alloc(const int *suites);
/* Bind the configuration to the session and the buffers to mbedTLS: 0, or -1 (freed). */
int tls_session_start(struct tls_session *t);

#endif
