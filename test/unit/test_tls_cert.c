/*
 * Host tests: TLS 1.2 server sessions with a certificate (net/tls_cert.c over
 * net/tls_session.c) against an mbedTLS client that verifies the chain, in
 * the same process (test/unit/tls_tests.c), with the fixtures of
 * test/fixtures/tls: EC (a chain through an intermediate) and RSA keys in
 * each of openssl's PEM forms, every suite, data both ways, a client that
 * does not trust the certificate, the credentials the parser refuses
 * (mismatched, encrypted, unsupported or garbage), and the memory it takes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include "tls_server.h"
#include "tls_tests.h"

/* ASan's count of live heap bytes (compiler-rt's sanitizer/allocator_interface.h). */
size_t __sanitizer_get_current_allocated_bytes(void);

#define FIXTURES "test/fixtures/tls/"

/* A fixture's bytes (no NUL added: the parser must not need one). */
static char *slurp(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	char *p;
	long n;

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	p = malloc((size_t)n);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* tls_cert_parse on two fixtures: its result, why in why. */
static int parse(const char *crt, const char *key, struct tls_cert **c, char *why, size_t why_len)
{
	size_t crt_len, key_len;
	char *crt_pem = slurp(crt, &crt_len), *key_pem = slurp(key, &key_len);
	int ret = tls_cert_parse(crt_pem, crt_len, key_pem, key_len, c, why, why_len);

	free(crt_pem);
	free(key_pem);
	return ret;
}

static struct tls_cert *load(const char *crt, const char *key)
{
	struct tls_cert *c;
	char why[160];

	assert_int_equal(parse(crt, key, &c, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	return c;
}

/*
 * A link whose client trusts ca (a fixture), expects the name host, and
 * offers suite (0: all it has), to a session over cert.
 */
static void link_open(struct link *l, struct tls_cert *cert, const char *ca, const char *host,
		      const int *suites, mbedtls_x509_crt *trust)
{
	size_t len;
	char *pem = slurp(ca, &len);
	char *z = realloc(pem, len + 1);

	assert_non_null(z);
	z[len] = '\0';
	mbedtls_x509_crt_init(trust);
	assert_int_equal(mbedtls_x509_crt_parse(trust, (const u8 *)z, len + 1), 0);
	free(z);
	link_init(l);
	mbedtls_ssl_conf_authmode(&l->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
	mbedtls_ssl_conf_ca_chain(&l->conf, trust, NULL);
	if (suites)
		mbedtls_ssl_conf_ciphersuites(&l->conf, suites);
	link_start(l, tls_session_new_cert(cert));
	assert_int_equal(mbedtls_ssl_set_hostname(&l->ssl, host), 0);
}

static int tls_setup(void **state)
{
	(void)state;
	assert_int_equal(tls_server_init(), 0);
	return 0;
}

static int client_setup(void **state)
{
	(void)state;
	tls_tests_client_seed();
	return 0;
}

/* A verified handshake on suite (0: the server's choice, want), then data both ways. */
static void negotiate(struct tls_cert *cert, const char *ca, const char *host, int suite,
		      const char *want)
{
	const int suites[] = { suite, 0 };
	mbedtls_x509_crt trust;
	struct link l;

	link_open(&l, cert, ca, host, suite ? suites : NULL, &trust);
	assert_int_equal(handshake(&l), 0);
	assert_int_equal(l.srv_ret, 0);
	assert_true(tls_session_ready(l.srv));
	assert_int_equal(mbedtls_ssl_get_verify_result(&l.ssl), 0);
	assert_string_equal(tls_session_suite(l.srv), want);
	assert_string_equal(mbedtls_ssl_get_ciphersuite(&l.ssl), want);
	assert_string_equal(tls_session_identity(l.srv), "");
	round_trip(&l);
	link_close(&l);
	mbedtls_x509_crt_free(&trust);
}

/* EC: the chain through the intermediate verifies; PKCS#8 and SEC1 keys both work. */
static void tls_cert_ec_chain_verifies_and_carries_data(void **state)
{
	const char *keys[] = { "server-ec.key", "server-ec-sec1.key" };
	char line[160];

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tls_cert *c = load("server-ec-chain.crt", keys[i]);

		tls_cert_summary(c, line, sizeof(line));
		assert_memory_equal(line, "CN=pmemk-ec.test (EC P-256), valid until 21", 43);
		assert_int_equal(strlen(line), 41 + 10);	/* YYYY-MM-DD, a century on */
		negotiate(c, "ca-ec.crt", "pmemk-ec.test", 0,
			  "TLS-ECDHE-ECDSA-WITH-CHACHA20-POLY1305-SHA256");
		tls_cert_free(c);
	}
}

/* RSA, self-signed as `openssl req -x509 -newkey rsa:2048` makes it: PKCS#8 and PKCS#1. */
static void tls_cert_rsa_self_signed_verifies(void **state)
{
	const char *keys[] = { "server-rsa.key", "server-rsa-pkcs1.key" };
	char line[160];

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tls_cert *c = load("server-rsa.crt", keys[i]);

		tls_cert_summary(c, line, sizeof(line));
		assert_memory_equal(line, "CN=pmemk-rsa.test (RSA 2048), valid until ", 42);
		negotiate(c, "server-rsa.crt", "pmemk-rsa.test", 0,
			  "TLS-ECDHE-RSA-WITH-CHACHA20-POLY1305-SHA256");
		tls_cert_free(c);
	}
}

static void tls_cert_each_suite_negotiates(void **state)
{
	static const int ec[] = { MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
				  MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
				  MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 };
	static const int rsa[] = { MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
				   MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
				   MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 };
	struct tls_cert *e = load("server-ec-chain.crt", "server-ec.key");
	struct tls_cert *r = load("server-rsa.crt", "server-rsa.key");

	(void)state;
	for (int i = 0; i < 3; i++) {
		negotiate(e, "ca-ec.crt", "pmemk-ec.test", ec[i], mbedtls_ssl_get_ciphersuite_name(ec[i]));
		negotiate(r, "server-rsa.crt", "pmemk-rsa.test", rsa[i],
			  mbedtls_ssl_get_ciphersuite_name(rsa[i]));
	}
	tls_cert_free(e);
	tls_cert_free(r);
}

/* The handshake fails at the server with err and a why that starts with why. */
static void expect_failure(struct tls_cert *cert, const char *ca, const char *host,
			   const int *suites, int err, const char *why)
{
	mbedtls_x509_crt trust;
	struct link l;

	link_open(&l, cert, ca, host, suites, &trust);
	assert_int_not_equal(handshake(&l), 0);
	assert_int_equal(l.srv_ret, err);
	if (strncmp(tls_session_why(l.srv), why, strlen(why)))
		fail_msg("why: %s", tls_session_why(l.srv));
	assert_false(tls_session_ready(l.srv));
	link_close(&l);
	mbedtls_x509_crt_free(&trust);
}

/* A client that trusts another root, or expects another name, hangs up with an alert. */
static void tls_cert_untrusted_or_wrong_name_is_the_clients_alert(void **state)
{
	struct tls_cert *c = load("server-ec-chain.crt", "server-ec.key");

	(void)state;
	expect_failure(c, "server-rsa.crt", "pmemk-ec.test", NULL, -ECONNRESET,
		       "the client sent fatal alert 48 (unknown_ca)");
	expect_failure(c, "ca-ec.crt", "elsewhere.test", NULL, -ECONNRESET,
		       "the client sent fatal alert");
	tls_cert_free(c);
}

/* No PSK suite on a certificate session, and no RSA suite over an EC key. */
static void tls_cert_offers_only_its_keys_suites(void **state)
{
	static const int psk[] = { MBEDTLS_TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256, 0 };
	static const int rsa[] = { MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, 0 };
	struct tls_cert *c = load("server-ec-chain.crt", "server-ec.key");

	(void)state;
	expect_failure(c, "ca-ec.crt", "pmemk-ec.test", psk, -EPROTO, "no cipher suite in common");
	expect_failure(c, "ca-ec.crt", "pmemk-ec.test", rsa, -EPROTO,
		       "no cipher suite in common for the server's key type");
	tls_cert_free(c);
}

static void expect_refused(const char *crt, const char *key, const char *why)
{
	struct tls_cert *c = (struct tls_cert *)1;
	char line[160];

	assert_int_equal(parse(crt, key, &c, line, sizeof(line)), -EINVAL);
	assert_null(c);
	assert_string_equal(line, why);
}

static void tls_cert_refuses_mismatched_encrypted_and_unsupported_keys(void **state)
{
	(void)state;
	expect_refused("server-ec.crt", "other-ec.key", "the private key does not match the certificate");
	expect_refused("server-ec.crt", "server-rsa.key",
		       "the private key does not match the certificate");
	expect_refused("server-rsa.crt", "server-ec.key",
		       "the private key does not match the certificate");
	expect_refused("server-ec.crt", "encrypted-pkcs8.key",
		       "the private key is encrypted (unencrypted keys only)");
	expect_refused("server-rsa.crt", "encrypted-pkcs1.key",
		       "the private key is encrypted (unencrypted keys only)");
	expect_refused("server-ec.crt", "p384.key", "unsupported key type (EC keys on P-256 only)");
	expect_refused("server-ec.crt", "ed25519.key", "unsupported key type (EC P-256 or RSA only)");
	expect_refused("server-ec.key", "server-ec.key",
		       "the certificate is not PEM (no BEGIN CERTIFICATE line)");
	expect_refused("server-ec.crt", "server-ec.crt",
		       "the private key is not PEM (no BEGIN ... PRIVATE KEY line)");
}

/* Garbage: text, a PEM whose base64 is damaged, a truncated chain, random bytes. */
static void tls_cert_refuses_garbage(void **state)
{
	size_t crt_len, key_len;
	char *crt = slurp("server-ec-chain.crt", &crt_len), *key = slurp("server-ec.key", &key_len);
	char *bad = malloc(crt_len), why[160];
	struct tls_cert *c;
	u8 junk[4096];

	(void)state;
	assert_int_equal(tls_cert_parse("hello", 5, key, key_len, &c, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "the certificate is not PEM (no BEGIN CERTIFICATE line)");
	memcpy(bad, crt, crt_len);
	bad[100] = '*';		/* one certificate of the two */
	assert_int_equal(tls_cert_parse(bad, crt_len, key, key_len, &c, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "1 certificate of the chain does not parse");
	bad[crt_len - 300] = '*';	/* and the other */
	assert_int_equal(tls_cert_parse(bad, crt_len, key, key_len, &c, why, sizeof(why)), -EINVAL);
	assert_memory_equal(why, "the certificate does not parse (mbedTLS -0x", 43);
	assert_int_equal(tls_cert_parse(crt, crt_len, key, key_len / 2, &c, why, sizeof(why)), -EINVAL);
	assert_memory_equal(why, "the private key does not parse (mbedTLS -0x", 43);	/* cut short */
	for (unsigned int i = 0; i < 50; i++) {
		fill(junk, sizeof(junk), i);
		memcpy(junk + i * 40, "-----BEGIN CERTIFICATE-----\n", 28);
		assert_int_equal(tls_cert_parse((char *)junk, sizeof(junk), key, key_len, &c, why,
						 sizeof(why)), -EINVAL);
		assert_null(c);
	}
	free(bad);
	free(crt);
	free(key);
}

/* What a credential and a session over it hold (ASan's count of live heap bytes). */
static void tls_cert_session_memory(void **state)
{
	const char *crt[] = { "server-ec-chain.crt", "server-rsa.crt" };
	const char *key[] = { "server-ec.key", "server-rsa.key" };
	const char *ca[] = { "ca-ec.crt", "server-rsa.crt" };
	const char *host[] = { "pmemk-ec.test", "pmemk-rsa.test" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		size_t m0 = __sanitizer_get_current_allocated_bytes(), cert, settled;
		struct tls_cert *c = load(crt[i], key[i]);
		mbedtls_x509_crt trust;
		struct link l;

		cert = __sanitizer_get_current_allocated_bytes() - m0;
		link_open(&l, c, ca[i], host[i], NULL, &trust);
		assert_int_equal(handshake(&l), 0);
		m0 = __sanitizer_get_current_allocated_bytes();
		tls_session_free(l.srv);
		l.srv = NULL;
		settled = m0 - __sanitizer_get_current_allocated_bytes();
		printf("tls: %s: the credential takes %zu bytes, a session %zu after the handshake\n",
		       crt[i], cert, settled);
		assert_true(settled < 96 * 1024);
		link_close(&l);
		mbedtls_x509_crt_free(&trust);
		tls_cert_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(tls_cert_ec_chain_verifies_and_carries_data, tls_setup),
		cmocka_unit_test_setup(tls_cert_rsa_self_signed_verifies, tls_setup),
		cmocka_unit_test_setup(tls_cert_each_suite_negotiates, tls_setup),
		cmocka_unit_test_setup(tls_cert_untrusted_or_wrong_name_is_the_clients_alert, tls_setup),
		cmocka_unit_test_setup(tls_cert_offers_only_its_keys_suites, tls_setup),
		cmocka_unit_test(tls_cert_refuses_mismatched_encrypted_and_unsupported_keys),
		cmocka_unit_test(tls_cert_refuses_garbage),
		cmocka_unit_test_setup(tls_cert_session_memory, tls_setup),
	};
	return cmocka_run_group_tests(tests, client_setup, NULL);
}
