/*
 * TLS 1.2 PSK server sessions (include/tls_psk.h) over mbedTLS 2.28: each
 * session's configuration and key lookup, the memory BIOs between its
 * ciphertext buffers and mbedTLS, and the calls that drive the handshake and
 * the records. Pure: the caller moves the ciphertext to and from TCP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/ssl.h>

#include "tls_priv.h"
#include "tls_psk.h"

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

struct tls_psk {
	mbedtls_ssl_context ssl;
	mbedtls_ssl_config conf;
	struct tls_psk_keys keys;
	struct tls_buf in, out;
	int err;		/* once failed: what tls_psk_read returns */
	bool ready;		/* the handshake is over */
	bool closing;		/* close_notify queued: no more writes */
	bool close_pending;	/* ... but it did not fit yet */
	char identity[TLS_PSK_ID_MAX + 1];
	char why[64 + TLS_PSK_ID_MAX];
	u8 in_data[TLS_IN_SIZE];
	u8 out_data[TLS_OUT_SIZE];
};

/* The server's suite order (include/tls_psk.h): forward-secret ones first. */
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
static const mbedtls_ecp_group_id curves[] = {
	MBEDTLS_ECP_DP_CURVE25519, MBEDTLS_ECP_DP_SECP256R1, MBEDTLS_ECP_DP_NONE
};

static size_t buf_used(const struct tls_buf *b)
{
	return b->tail - b->head;
}

/*
 * Room at the tail; when want bytes do not fit there, what is queued moves to
 * the front first (so tls_psk_out's pointer holds until the next write).
 */
static size_t buf_room(struct tls_buf *b, size_t want)
{
	size_t used = buf_used(b);

	if (b->head && b->size - b->tail < want) {
		memmove(b->data, b->data + b->head, used);
		b->head = 0;
		b->tail = used;
	}
	return b->size - b->tail;
}

static size_t buf_append(struct tls_buf *b, const u8 *p, size_t n)
{
	size_t room = buf_room(b, n);

	if (n > room)
		n = room;
	memcpy(b->data + b->tail, p, n);
	b->tail += n;
	return n;
}

static void buf_drop(struct tls_buf *b, size_t n)
{
	if (n > buf_used(b))
		n = buf_used(b);
	b->head += n;
	if (b->head == b->tail)
		b->head = b->tail = 0;
}

/* mbedTLS's send BIO: into the out buffer; a partial write only in the handshake. */
static int bio_send(void *ctx, const unsigned char *p, size_t n)
{
	struct tls_psk *t = ctx;
	size_t done = buf_append(&t->out, p, n);

	return done ? (int)done : MBEDTLS_ERR_SSL_WANT_WRITE;
}

/* mbedTLS's receive BIO: from the in buffer; WANT_READ when it is empty. */
static int bio_recv(void *ctx, unsigned char *p, size_t n)
{
	struct tls_psk *t = ctx;
	size_t have = buf_used(&t->in);

	if (!have)
		return MBEDTLS_ERR_SSL_WANT_READ;
	if (n > have)
		n = have;
	memcpy(p, t->in.data + t->in.head, n);
	buf_drop(&t->in, n);
	return (int)n;
}

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
	struct tls_psk *t = arg;
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

static const char *alert_name(unsigned int alert)
{
	switch (alert) {
	case MBEDTLS_SSL_ALERT_MSG_UNEXPECTED_MESSAGE: return "unexpected_message";
	case MBEDTLS_SSL_ALERT_MSG_BAD_RECORD_MAC: return "bad_record_mac";
	case MBEDTLS_SSL_ALERT_MSG_HANDSHAKE_FAILURE: return "handshake_failure";
	case MBEDTLS_SSL_ALERT_MSG_ILLEGAL_PARAMETER: return "illegal_parameter";
	case MBEDTLS_SSL_ALERT_MSG_DECODE_ERROR: return "decode_error";
	case MBEDTLS_SSL_ALERT_MSG_DECRYPT_ERROR: return "decrypt_error";
	case MBEDTLS_SSL_ALERT_MSG_PROTOCOL_VERSION: return "protocol_version";
	case MBEDTLS_SSL_ALERT_MSG_INSUFFICIENT_SECURITY: return "insufficient_security";
	case MBEDTLS_SSL_ALERT_MSG_INTERNAL_ERROR: return "internal_error";
	case MBEDTLS_SSL_ALERT_MSG_UNKNOWN_PSK_IDENTITY: return "unknown_psk_identity";
	default: return "unnamed";
	}
}

/* mbedTLS's failures as the session reports them: errno and one line. */
static const struct {
	int ret, err;
	const char *why;
} failures[] = {
	{ MBEDTLS_ERR_SSL_INVALID_MAC, -EACCES, "bad record MAC (wrong key?)" },
	{ MBEDTLS_ERR_SSL_UNKNOWN_IDENTITY, -EACCES, "unknown identity" },
	{ MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY, -EPIPE, "the client closed the session (close_notify)" },
	{ MBEDTLS_ERR_SSL_ALLOC_FAILED, -ENOMEM, "out of memory" },
	{ MBEDTLS_ERR_SSL_BAD_HS_CLIENT_HELLO, -EPROTO, "not a TLS ClientHello" },
	{ MBEDTLS_ERR_SSL_INVALID_RECORD, -EPROTO, "malformed TLS record" },
	{ MBEDTLS_ERR_SSL_BAD_HS_PROTOCOL_VERSION, -EPROTO, "the client does not offer TLS 1.2" },
	{ MBEDTLS_ERR_SSL_NO_CIPHER_CHOSEN, -EPROTO, "no cipher suite in common" },
	{ MBEDTLS_ERR_SSL_BAD_HS_CLIENT_KEY_EXCHANGE, -EPROTO, "malformed ClientKeyExchange" },
	{ MBEDTLS_ERR_SSL_BAD_HS_CLIENT_KEY_EXCHANGE_RP, -EPROTO, "bad key share in ClientKeyExchange" },
	{ MBEDTLS_ERR_SSL_BAD_HS_FINISHED, -EACCES, "bad Finished (wrong key?)" },
	{ MBEDTLS_ERR_SSL_UNEXPECTED_MESSAGE, -EPROTO, "unexpected handshake message" },
	{ MBEDTLS_ERR_SSL_UNEXPECTED_RECORD, -EPROTO, "unexpected record" },
};

/* The session is over: remember why (a lookup's line stays) and return the errno. */
static int session_fail(struct tls_psk *t, int ret)
{
	int err = -EPROTO;
	bool named = t->why[0];

	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
		if (failures[i].ret != ret)
			continue;
		err = failures[i].err;
		if (!named)
			snprintf(t->why, sizeof(t->why), "%s", failures[i].why);
		named = true;
	}
	if (ret == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE) {
		unsigned int alert = t->ssl.in_msg[1];

		err = -ECONNRESET;
		snprintf(t->why, sizeof(t->why), "the client sent fatal alert %u (%s)", alert,
			 alert_name(alert));
	} else if (!named) {
		snprintf(t->why, sizeof(t->why), "TLS failure (mbedTLS -0x%04x)", (unsigned int)-ret);
	}
	t->err = err;
	return err;
}

/* The per-session configuration: server, TLS 1.2, PSK suites in our order. */
static int session_configure(struct tls_psk *t, bool plain_psk_ok)
{
	mbedtls_ssl_config *c = &t->conf;
	int ret = mbedtls_ssl_config_defaults(c, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
					      MBEDTLS_SSL_PRESET_DEFAULT);

	if (ret)
		return ret;
	mbedtls_ssl_conf_min_version(c, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	mbedtls_ssl_conf_max_version(c, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	mbedtls_ssl_conf_ciphersuites(c, plain_psk_ok ? suites_all : suites_forward_secret);
	mbedtls_ssl_conf_curves(c, curves);
	mbedtls_ssl_conf_rng(c, tls_rng, NULL);
	mbedtls_ssl_conf_psk_cb(c, psk_lookup, t);
	return 0;
}

struct tls_psk *tls_psk_new(const struct tls_psk_keys *keys, bool plain_psk_ok)
{
	struct tls_psk *t;

	if (!tls_rng_seeded())
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->keys = *keys;
	t->in = (struct tls_buf){ .size = TLS_IN_SIZE, .data = t->in_data };
	t->out = (struct tls_buf){ .size = TLS_OUT_SIZE, .data = t->out_data };
	mbedtls_ssl_config_init(&t->conf);
	mbedtls_ssl_init(&t->ssl);
	if (session_configure(t, plain_psk_ok) || mbedtls_ssl_setup(&t->ssl, &t->conf)) {
		tls_psk_free(t);
		return NULL;
	}
	mbedtls_ssl_set_bio(&t->ssl, t, bio_send, bio_recv, NULL);
	return t;
}

void tls_psk_free(struct tls_psk *t)
{
	if (!t)
		return;
	mbedtls_ssl_free(&t->ssl);
	mbedtls_ssl_config_free(&t->conf);
	mbedtls_platform_zeroize(t, sizeof(*t));
	free(t);
}

size_t tls_psk_put(struct tls_psk *t, const u8 *cipher, size_t n)
{
	return buf_append(&t->in, cipher, n);
}

/* Run the handshake as far as the ciphertext in hand goes: 0, or the failure. */
static int session_handshake(struct tls_psk *t)
{
	int ret = mbedtls_ssl_handshake(&t->ssl);

	if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE)
		return 0;
	if (ret)
		return session_fail(t, ret);
	t->ready = true;
	return 0;
}

int tls_psk_read(struct tls_psk *t, u8 *buf, size_t n)
{
	int ret;

	if (t->err)
		return t->err;
	if (!t->ready) {
		ret = session_handshake(t);
		if (ret || !t->ready)
			return ret;
	}
	if (!n)
		return 0;
	ret = mbedtls_ssl_read(&t->ssl, buf, n);
	if (ret > 0)
		return ret;
	if (ret == 0 || ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE)
		return 0;
	return session_fail(t, ret);
}

size_t tls_psk_write(struct tls_psk *t, const u8 *p, size_t n)
{
	int max = mbedtls_ssl_get_max_out_record_payload(&t->ssl);
	int expansion = mbedtls_ssl_get_record_expansion(&t->ssl);
	int ret;

	if (!t->ready || t->err || t->closing || !n || max <= 0 || expansion < 0)
		return 0;
	if (n > (size_t)max)
		n = (size_t)max;
	if (buf_room(&t->out, n + (size_t)expansion) < n + (size_t)expansion)
		return 0;
	ret = mbedtls_ssl_write(&t->ssl, p, n);
	if (ret > 0)
		return (size_t)ret;
	if (ret == MBEDTLS_ERR_SSL_WANT_WRITE)
		snprintf(t->why, sizeof(t->why), "a record did not fit the out buffer (a bug)");
	session_fail(t, ret);
	return 0;
}

size_t tls_psk_out(struct tls_psk *t, const u8 **cipher)
{
	*cipher = t->out.data + t->out.head;
	return buf_used(&t->out);
}

/* Send close_notify: retried from tls_psk_sent while it does not fit. */
static void session_close_notify(struct tls_psk *t)
{
	int ret = mbedtls_ssl_close_notify(&t->ssl);

	t->close_pending = ret == MBEDTLS_ERR_SSL_WANT_WRITE;
	if (ret && !t->close_pending)
		session_fail(t, ret);
}

void tls_psk_sent(struct tls_psk *t, size_t n)
{
	buf_drop(&t->out, n);
	if (t->close_pending && !t->err)
		session_close_notify(t);
}

bool tls_psk_ready(const struct tls_psk *t)
{
	return t->ready && !t->err;
}

const char *tls_psk_identity(const struct tls_psk *t)
{
	return t->identity;
}

const char *tls_psk_suite(const struct tls_psk *t)
{
	return t->ready ? mbedtls_ssl_get_ciphersuite(&t->ssl) : "";
}

const char *tls_psk_why(const struct tls_psk *t)
{
	return t->why;
}

void tls_psk_close_notify(struct tls_psk *t)
{
	if (t->closing)
		return;
	t->closing = true;
	if (t->ready && !t->err)
		session_close_notify(t);
}
