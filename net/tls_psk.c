/*
 * TLS 1.2 server sessions with pre-shared keys (include/tls_server.h,
 * tls_session_new_psk): the PSK suites in the server's order and the
 * callback that finds a client's key by its identity. The session itself is
 * net/tls_session.c's.
 */
#include <stdio.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/ssl.h>

#include "tls_priv.h"

/* The server's suite order (include/tls_server.h): forward-secret ones first. */
#define TLS_SUITES_FORWARD_SECRET \
	MBEDTLS_TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256, \
	MBEDTLS_TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256, \
	MBEDTLS_TLS_DHE_PSK_WITH_CHACHA20_POLY1305_SHA256, \
	MBEDTLS_TLS_DHE_PSK_WITH_AES_128_GCM_SHA256, \
	MBEDTLS_TLS_DHE_PSK_WITH_AES_128_CBC_SHA256
static const int suites_forward_secret[] = { TLS_SUITES_FORWARD_SECRET, 0 };
static const int suites_all[] = {
	TLS_SUITES_FORWARD_SECRET,
	MBEDTLS_TLS_PSK_WITH_CHACHA20_POLY1305_SHA256,
	MBEDTLS_TLS_PSK_WITH_AES_128_GCM_SHA256,
	MBEDTLS_TLS_PSK_WITH_AES_128_CBC_SHA256,
	0
};

/* A client's identity as it may be printed: printable ASCII, else '?'. */
static void copy_identity(char *dst, const u8 *id, size_t len)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = id[i] >= 0x20 && id[i] < 0x7f ? (char)id[i] : '?';
	dst[len] = '\0';
}

/* mbedTLS's PSK callback: the caller's lookup, the key handed to the handshake. */
static int psk_lookup(void *arg, mbedtls_ssl_context *ssl, const unsigned char *id, size_t id_len)
{
	struct tls_session *t = arg;
	u8 key[TLS_PSK_KEY_MAX];
	size_t key_len = sizeof(key);
	int ret = -1;

	if (id_len > TLS_PSK_ID_MAX) {
		snprintf(t->why, sizeof(t->why), "identity too long (%zu bytes, at most %d)", id_len,
			 TLS_PSK_ID_MAX);
		return -1;
	}
	copy_identity(t->identity, id, id_len);
	if (t->keys.lookup(t->keys.arg, id, id_len, key, &key_len) != 0 || !key_len ||
	    key_len > sizeof(key))
		snprintf(t->why, sizeof(t->why), "unknown identity %s", t->identity);
	else
		ret = mbedtls_ssl_set_hs_psk(ssl, key, key_len);
	mbedtls_platform_zeroize(key, sizeof(key));
	return ret;
}

struct tls_session *tls_session_new_psk(const struct tls_psk_keys *keys, bool plain_psk_ok)
{
	struct tls_session *t = tls_session_alloc(plain_psk_ok ? suites_all : suites_forward_secret);

	if (!t)
		return NULL;
	t->keys = *keys;
	mbedtls_ssl_conf_psk_cb(&t->conf, psk_lookup, t);
	return tls_session_start(t) ? NULL : t;
}
