/*
 * TLS 1.2 server sessions with an X.509 certificate (include/tls_server.h,
 * tls_session_new_cert): the credential, a PEM chain and an unencrypted
 * private key parsed once and checked against each other (struct
 * tls_cert), its one-line summary for the log, and the certificate suites
 * in the server's order. The session itself is net/tls_session.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mbedtls/oid.h>
#include <mbedtls/pk.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/x509_crt.h>

#include "tls_priv.h"

#define RSA_BITS_MIN 2048
#define RSA_BITS_MAX 4096

struct tls_cert {
	mbedtls_x509_crt chain;		/* the server's certificate, then intermediates */
	mbedtls_pk_context key;
};

/* Forward secret only; ChaCha20 first (include/tls_server.h says why). */
static const int cert_suites[] = {
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	0
};

/* text[0..len) contains needle (text need not be NUL-terminated). */
static bool contains(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(text + i, needle, n))
			return true;
	return false;
}

/* A NUL-terminated copy of p[0..len) (mbedTLS's PEM readers want one); NULL: no memory. */
static unsigned char *terminated_copy(const char *p, size_t len)
{
	unsigned char *c = malloc(len + 1);

	if (c) {
		memcpy(c, p, len);
		c[len] = '\0';
	}
	return c;
}

/* Parse every certificate of the PEM chain: 0, or -EINVAL / -ENOMEM with why. */
static int parse_chain(struct tls_cert *c, const char *pem, size_t len, char *why, size_t why_len)
{
	unsigned char *buf;
	int ret;

	if (!contains(pem, len, "-----BEGIN CERTIFICATE-----")) {
		snprintf(why, why_len, "the certificate is not PEM (no BEGIN CERTIFICATE line)");
		return -EINVAL;
	}
	buf = terminated_copy(pem, len);
	if (!buf) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	ret = mbedtls_x509_crt_parse(&c->chain, buf, len + 1);
	free(buf);
	if (ret > 0)
		snprintf(why, why_len, "%d certificate%s of the chain do%s not parse", ret,
			 ret == 1 ? "" : "s", ret == 1 ? "es" : "");
	else if (ret < 0)
		snprintf(why, why_len, "the certificate does not parse (mbedTLS -0x%04x)",
			 (unsigned int)-ret);
	return ret ? -EINVAL : 0;
}

/* The parser's refusal of a key as one line. */
static void key_parse_why(int ret, char *why, size_t why_len)
{
	if (ret == MBEDTLS_ERR_PK_UNKNOWN_PK_ALG)
		snprintf(why, why_len, "unsupported key type (EC P-256 or RSA only)");
	else if (ret == MBEDTLS_ERR_PK_UNKNOWN_NAMED_CURVE || ret == MBEDTLS_ERR_ECP_FEATURE_UNAVAILABLE)
		snprintf(why, why_len, "unsupported key type (EC keys on P-256 only)");
	else
		snprintf(why, why_len, "the private key does not parse (mbedTLS -0x%04x)",
			 (unsigned int)-ret);
}

/* Parse the PEM key, wiping the copy made for it: 0, or -EINVAL / -ENOMEM with why. */
static int parse_key(struct tls_cert *c, const char *pem, size_t len, char *why, size_t why_len)
{
	unsigned char *buf;
	int ret;

	if (contains(pem, len, "ENCRYPTED PRIVATE KEY") || contains(pem, len, "Proc-Type: 4,ENCRYPTED")) {
		snprintf(why, why_len, "the private key is encrypted (unencrypted keys only)");
		return -EINVAL;
	}
	if (!contains(pem, len, "-----BEGIN ") || !contains(pem, len, "PRIVATE KEY-----")) {
		snprintf(why, why_len, "the private key is not PEM (no BEGIN ... PRIVATE KEY line)");
		return -EINVAL;
	}
	buf = terminated_copy(pem, len);
	if (!buf) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	ret = mbedtls_pk_parse_key(&c->key, buf, len + 1, NULL, 0);
	mbedtls_platform_zeroize(buf, len + 1);
	free(buf);
	if (ret)
		key_parse_why(ret, why, why_len);
	return ret ? -EINVAL : 0;
}

/* The key is one the suites can use, and the certificate's: 0, or -EINVAL with why. */
static int check_key(struct tls_cert *c, char *why, size_t why_len)
{
	size_t bits = mbedtls_pk_get_bitlen(&c->key);

	if (mbedtls_pk_get_type(&c->key) == MBEDTLS_PK_ECKEY) {
		if (mbedtls_pk_ec(c->key)->grp.id != MBEDTLS_ECP_DP_SECP256R1) {
			snprintf(why, why_len, "unsupported key type (EC keys on P-256 only)");
			return -EINVAL;
		}
	} else if (mbedtls_pk_get_type(&c->key) == MBEDTLS_PK_RSA) {
		if (bits < RSA_BITS_MIN || bits > RSA_BITS_MAX) {
			snprintf(why, why_len, "unsupported key type (RSA of %zu bits; %d to %d only)",
				 bits, RSA_BITS_MIN, RSA_BITS_MAX);
			return -EINVAL;
		}
	} else {
		snprintf(why, why_len, "unsupported key type (EC P-256 or RSA only)");
		return -EINVAL;
	}
	if (mbedtls_pk_check_pair(&c->chain.pk, &c->key)) {
		snprintf(why, why_len, "the private key does not match the certificate");
		return -EINVAL;
	}
	return 0;
}

int tls_cert_parse(const char *crt_pem, size_t crt_len, const char *key_pem, size_t key_len,
		   struct tls_cert **out, char *why, size_t why_len)
{
	struct tls_cert *c = calloc(1, sizeof(*c));
	int err;

	*out = NULL;
	why[0] = '\0';
	if (!c) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	mbedtls_x509_crt_init(&c->chain);
	mbedtls_pk_init(&c->key);
	err = parse_chain(c, crt_pem, crt_len, why, why_len);
	if (!err)
		err = parse_key(c, key_pem, key_len, why, why_len);
	if (!err)
		err = check_key(c, why, why_len);
	if (err) {
		tls_cert_free(c);
		return err;
	}
	*out = c;
	return 0;
}

/* "CN=" and the subject's common name, printable ASCII only; else the whole subject. */
static void subject_name(const mbedtls_x509_crt *crt, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "CN=");

	for (const mbedtls_x509_name *dn = &crt->subject; dn; dn = dn->next) {
		if (!dn->oid.p || MBEDTLS_OID_CMP(MBEDTLS_OID_AT_CN, &dn->oid))
			continue;
		for (size_t i = 0; i < dn->val.len && n + 1 < len; i++) {
			u8 ch = dn->val.p[i];

			buf[n++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		}
		buf[n] = '\0';
		return;
	}
	if (mbedtls_x509_dn_gets(buf, len, &crt->subject) < 0)
		snprintf(buf, len, "?");
}

void tls_cert_summary(const struct tls_cert *c, char *buf, size_t len)
{
	const mbedtls_x509_time *to = &c->chain.valid_to;
	char name[128], kind[32];

	subject_name(&c->chain, name, sizeof(name));
	if (mbedtls_pk_get_type(&c->key) == MBEDTLS_PK_ECKEY)
		snprintf(kind, sizeof(kind), "EC P-256");
	else
		snprintf(kind, sizeof(kind), "RSA %zu", mbedtls_pk_get_bitlen(&c->key));
	snprintf(buf, len, "%s (%s), valid until %04d-%02d-%02d", name, kind, to->year, to->mon,
		 to->day);
}

void tls_cert_free(struct tls_cert *c)
{
	if (!c)
		return;
	mbedtls_x509_crt_free(&c->chain);
	mbedtls_pk_free(&c->key);
	mbedtls_platform_zeroize(c, sizeof(*c));
	free(c);
}

struct tls_session *tls_session_new_cert(struct tls_cert *cert)
{
	struct tls_session *t = tls_session_alloc(cert_suites);

	if (!t)
		return NULL;
	if (mbedtls_ssl_conf_own_cert(&t->conf, &cert->chain, &cert->key)) {
		tls_session_free(t);
		return NULL;
	}
	return tls_session_start(t) ? NULL : t;
}
