/*
 * TLS 1.2 server sessions (include/tls_server.h) over mbedTLS 2.28, whatever
 * their credential: the configuration's common part, the memory BIOs between
 * a session's ciphertext buffers and mbedTLS, the calls that drive the
 * handshake and the records, and failures as an errno and one line. Pure:
 * the caller moves the ciphertext to and from TCP. The credentials'
 * constructors are net/tls_psk.c and net/tls_cert.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/ssl.h>

#include "tls_priv.h"

static const mbedtls_ecp_group_id curves[] = {
	MBEDTLS_ECP_DP_CURVE25519, MBEDTLS_ECP_DP_SECP256R1, MBEDTLS_ECP_DP_NONE
};

static size_t buf_used(const struct tls_buf *b)
{
	return b->tail - b->head;
}

/*
 * Room at the tail; when want bytes do not fit there, what is queued moves to
 * the front first (so tls_session_out's pointer holds until the next write).
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
	struct tls_session *t = ctx;
	size_t done = buf_append(&t->out, p, n);

	return done ? (int)done : MBEDTLS_ERR_SSL_WANT_WRITE;
}

/* mbedTLS's receive BIO: from the in buffer; WANT_READ when it is empty. */
static int bio_recv(void *ctx, unsigned char *p, size_t n)
{
	struct tls_session *t = ctx;
	size_t have = buf_used(&t->in);

	if (!have)
		return MBEDTLS_ERR_SSL_WANT_READ;
	if (n > have)
		n = have;
	memcpy(p, t->in.data + t->in.head, n);
	buf_drop(&t->in, n);
	return (int)n;
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
	case MBEDTLS_SSL_ALERT_MSG_BAD_CERT: return "bad_certificate";
	case MBEDTLS_SSL_ALERT_MSG_UNSUPPORTED_CERT: return "unsupported_certificate";
	case MBEDTLS_SSL_ALERT_MSG_CERT_EXPIRED: return "certificate_expired";
	case MBEDTLS_SSL_ALERT_MSG_CERT_UNKNOWN: return "certificate_unknown";
	case MBEDTLS_SSL_ALERT_MSG_UNKNOWN_CA: return "unknown_ca";
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
	{ MBEDTLS_ERR_SSL_NO_USABLE_CIPHERSUITE, -EPROTO,
	  "no cipher suite in common for the server's key type" },
	{ MBEDTLS_ERR_SSL_BAD_HS_CLIENT_KEY_EXCHANGE, -EPROTO, "malformed ClientKeyExchange" },
	{ MBEDTLS_ERR_SSL_BAD_HS_CLIENT_KEY_EXCHANGE_RP, -EPROTO, "bad key share in ClientKeyExchange" },
	{ MBEDTLS_ERR_SSL_BAD_HS_FINISHED, -EACCES, "bad Finished (wrong key?)" },
	{ MBEDTLS_ERR_SSL_UNEXPECTED_MESSAGE, -EPROTO, "unexpected handshake message" },
	{ MBEDTLS_ERR_SSL_UNEXPECTED_RECORD, -EPROTO, "unexpected record" },
};

/* The session is over: remember why (a lookup's line stays) and return the errno. */
static int session_fail(struct tls_session *t, int ret)
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

/* The configuration's common part: server, TLS 1.2, suites in the caller's order. */
static int session_configure(struct tls_session *t, const int *suites)
{
	mbedtls_ssl_config *c = &t->conf;
	int ret = mbedtls_ssl_config_defaults(c, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
					      MBEDTLS_SSL_PRESET_DEFAULT);

	if (ret)
		return ret;
	mbedtls_ssl_conf_min_version(c, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	mbedtls_ssl_conf_max_version(c, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	mbedtls_ssl_conf_ciphersuites(c, suites);
	mbedtls_ssl_conf_curves(c, curves);
	mbedtls_ssl_conf_rng(c, tls_rng, NULL);
	return 0;
}

struct tls_session *tls_session_alloc(const int *suites)
{
	struct tls_session *t;

	if (!tls_rng_seeded())
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->in = (struct tls_buf){ .size = TLS_IN_SIZE, .data = t->in_data };
	t->out = (struct tls_buf){ .size = TLS_OUT_SIZE, .data = t->out_data };
	mbedtls_ssl_config_init(&t->conf);
	mbedtls_ssl_init(&t->ssl);
	if (session_configure(t, suites)) {
		tls_session_free(t);
		return NULL;
	}
	return t;
}

int tls_session_start(struct tls_session *t)
{
	if (mbedtls_ssl_setup(&t->ssl, &t->conf)) {
		tls_session_free(t);
		return -1;
	}
	mbedtls_ssl_set_bio(&t->ssl, t, bio_send, bio_recv, NULL);
	return 0;
}

void tls_session_free(struct tls_session *t)
{
	if (!t)
		return;
	mbedtls_ssl_free(&t->ssl);
	mbedtls_ssl_config_free(&t->conf);
	mbedtls_platform_zeroize(t, sizeof(*t));
	free(t);
}

size_t tls_session_put(struct tls_session *t, const u8 *cipher, size_t n)
{
	return buf_append(&t->in, cipher, n);
}

/* Run the handshake as far as the ciphertext in hand goes: 0, or the failure. */
static int session_handshake(struct tls_session *t)
{
	int ret = mbedtls_ssl_handshake(&t->ssl);

	if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE)
		return 0;
	if (ret)
		return session_fail(t, ret);
	t->ready = true;
	return 0;
}

int tls_session_read(struct tls_session *t, u8 *buf, size_t n)
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

size_t tls_session_write(struct tls_session *t, const u8 *p, size_t n)
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

size_t tls_session_out(struct tls_session *t, const u8 **cipher)
{
	*cipher = t->out.data + t->out.head;
	return buf_used(&t->out);
}

/* Send close_notify: retried from tls_session_sent while it does not fit. */
static void session_close_notify(struct tls_session *t)
{
	int ret = mbedtls_ssl_close_notify(&t->ssl);

	t->close_pending = ret == MBEDTLS_ERR_SSL_WANT_WRITE;
	if (ret && !t->close_pending)
		session_fail(t, ret);
}

void tls_session_sent(struct tls_session *t, size_t n)
{
	buf_drop(&t->out, n);
	if (t->close_pending && !t->err)
		session_close_notify(t);
}

bool tls_session_ready(const struct tls_session *t)
{
	return t->ready && !t->err;
}

const char *tls_session_identity(const struct tls_session *t)
{
	return t->identity;
}

const char *tls_session_suite(const struct tls_session *t)
{
	return t->ready ? mbedtls_ssl_get_ciphersuite(&t->ssl) : "";
}

const char *tls_session_why(const struct tls_session *t)
{
	return t->why;
}

void tls_session_close_notify(struct tls_session *t)
{
	if (t->closing)
		return;
	t->closing = true;
	if (t->ready && !t->err)
		session_close_notify(t);
}
