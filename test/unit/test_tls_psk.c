/*
 * Host tests: TLS 1.2 PSK server sessions (net/tls_psk.c over
 * net/tls_session.c, net/tls_entropy.c) against an mbedTLS client in the
 * same process (test/unit/tls_tests.c), the ciphertext carried through
 * memory in random pieces of 1..3000 bytes: the DRBG's entropy check,
 * the handshake and each suite, 1 MiB each way to a slow reader, a wrong key,
 * an unknown or odd identity, garbage for a ClientHello, a full out buffer,
 * close_notify both ways, and the memory a session takes.
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

#include "host.h"
#include "tls_server.h"
#include "tls_tests.h"

/* ASan's count of live heap bytes (compiler-rt's sanitizer/allocator_interface.h). */
size_t __sanitizer_get_current_allocated_bytes(void);

static const u8 alice_key[32] = { 0x0b, 0xad, 0xc0, 0xde, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
static const u8 other_key[32] = { 0x0b, 0xad, 0xc0, 0xde, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11 };
static const u8 odd_id[] = { 'b', 'o', 1, 'b', 0x80 };

/* The server's keys: alice, and the unprintable "bo\1b\x80" with the same key. */
static int lookup(void *arg, const u8 *id, size_t id_len, u8 *key, size_t *key_len)
{
	(void)arg;
	assert_true(*key_len >= sizeof(alice_key));
	if (!(id_len == 5 && !memcmp(id, "alice", 5)) &&
	    !(id_len == sizeof(odd_id) && !memcmp(id, odd_id, id_len)))
		return -ENOENT;
	memcpy(key, alice_key, sizeof(alice_key));
	*key_len = sizeof(alice_key);
	return 0;
}

static const struct tls_psk_keys keys = { .lookup = lookup };

/* A link whose client presents id and key, offering suites (NULL: all it has). */
static void link_open(struct link *l, const char *id, size_t id_len, const u8 *key,
		      const int *suites, bool plain_psk_ok)
{
	link_init(l);
	assert_int_equal(mbedtls_ssl_conf_psk(&l->conf, key, 32, (const u8 *)id, id_len), 0);
	if (suites)
		mbedtls_ssl_conf_ciphersuites(&l->conf, suites);
	link_start(l, tls_session_new_psk(&keys, plain_psk_ok));
}

static int tls_setup(void **state)
{
	(void)state;
	assert_int_equal(tls_server_init(), 0);
	return 0;
}

/* Runs first: tls_server_init's answer before any success (which it keeps). */
static void tls_init_without_rdrand_or_rdseed_is_enodev(void **state)
{
	(void)state;
	host_rdrand_present = host_rdseed_present = false;
	assert_int_equal(tls_server_init(), -ENODEV);
	assert_null(tls_server_entropy());
	assert_null(tls_session_new_psk(&keys, false));
	host_rdrand_present = true;
	assert_int_equal(tls_server_init(), 0);
	assert_string_equal(tls_server_entropy(), "rdrand");
	assert_int_equal(tls_server_init(), 0);
	tls_tests_client_seed();
}

/* A client offering everything gets the server's first choice. */
static void tls_handshake_picks_ecdhe_psk_chacha20(void **state)
{
	struct link l;

	(void)state;
	link_open(&l, "alice", 5, alice_key, NULL, true);
	assert_false(tls_session_ready(l.srv));
	assert_int_equal(tls_session_write(l.srv, (const u8 *)"x", 1), 0);
	assert_int_equal(handshake(&l), 0);
	assert_int_equal(l.srv_ret, 0);
	assert_true(tls_session_ready(l.srv));
	assert_string_equal(tls_session_identity(l.srv), "alice");
	assert_string_equal(tls_session_suite(l.srv), "TLS-ECDHE-PSK-WITH-CHACHA20-POLY1305-SHA256");
	assert_string_equal(mbedtls_ssl_get_ciphersuite(&l.ssl), tls_session_suite(l.srv));
	assert_string_equal(tls_session_why(l.srv), "");
	link_close(&l);
}

/* Handshake with a client that offers one suite (and curve); then a round trip. */
static void negotiate(int suite, bool plain_psk_ok, const mbedtls_ecp_group_id *curves)
{
	const int suites[] = { suite, 0 };
	struct link l;

	link_open(&l, "alice", 5, alice_key, suites, plain_psk_ok);
	if (curves)
		mbedtls_ssl_conf_curves(&l.conf, curves);
	assert_int_equal(handshake(&l), 0);
	assert_true(tls_session_ready(l.srv));
	assert_string_equal(tls_session_suite(l.srv), mbedtls_ssl_get_ciphersuite_name(suite));
	round_trip(&l);
	link_close(&l);
}

static void tls_each_suite_negotiates_and_carries_data(void **state)
{
	static const mbedtls_ecp_group_id p256[] = { MBEDTLS_ECP_DP_SECP256R1, MBEDTLS_ECP_DP_NONE };

	(void)state;
	negotiate(MBEDTLS_TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256, false, p256);
	negotiate(MBEDTLS_TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256, false, NULL);
	negotiate(MBEDTLS_TLS_DHE_PSK_WITH_CHACHA20_POLY1305_SHA256, false, NULL);
	negotiate(MBEDTLS_TLS_DHE_PSK_WITH_AES_128_GCM_SHA256, false, NULL);
	negotiate(MBEDTLS_TLS_DHE_PSK_WITH_AES_128_CBC_SHA256, false, NULL);
	negotiate(MBEDTLS_TLS_PSK_WITH_CHACHA20_POLY1305_SHA256, true, NULL);
	negotiate(MBEDTLS_TLS_PSK_WITH_AES_128_GCM_SHA256, true, NULL);
	negotiate(MBEDTLS_TLS_PSK_WITH_AES_128_CBC_SHA256, true, NULL);
}

/* Without plain_psk_ok a client offering only PSK-* gets nothing. */
static void tls_plain_psk_only_when_allowed(void **state)
{
	const int suites[] = { MBEDTLS_TLS_PSK_WITH_AES_128_GCM_SHA256, 0 };
	struct link l;

	(void)state;
	link_open(&l, "alice", 5, alice_key, suites, false);
	assert_int_not_equal(handshake(&l), 0);
	assert_int_equal(l.srv_ret, -EPROTO);
	assert_string_equal(tls_session_why(l.srv), "no cipher suite in common");
	assert_false(tls_session_ready(l.srv));
	link_close(&l);
}

/* 1 MiB each way at once, the server reading at most 700 bytes a call. */
static void tls_mib_each_way_to_a_slow_reader(void **state)
{
	const size_t size = 1 << 20;
	u8 *up = malloc(size), *down = malloc(size), *rx = malloc(size);
	size_t up_sent = 0, down_sent = 0, rx_len = 0;
	struct link l;

	(void)state;
	fill(up, size, 1);
	fill(down, size, 2);
	link_open(&l, "alice", 5, alice_key, NULL, false);
	assert_int_equal(handshake(&l), 0);
	l.read_max = 700;
	for (int round = 0; round < 100000 && (l.srv_rx_len < size || rx_len < size); round++) {
		if (up_sent < size) {
			int r = mbedtls_ssl_write(&l.ssl, up + up_sent, piece(&l, 20000, size - up_sent));

			assert_true(r > 0);
			up_sent += (size_t)r;
		}
		if (down_sent < size)
			down_sent += tls_session_write(l.srv, down + down_sent,
						   piece(&l, 40000, size - down_sent));
		pump(&l);
		client_read(&l, rx, &rx_len, size);
	}
	assert_int_equal(l.srv_ret, 0);
	assert_int_equal(l.srv_rx_len, size);
	assert_int_equal(rx_len, size);
	assert_memory_equal(l.srv_rx, up, size);
	assert_memory_equal(rx, down, size);
	link_close(&l);
	free(up);
	free(down);
	free(rx);
}

/* The handshake fails at the server with err and why (the client sees an alert). */
static void expect_failure(const char *id, size_t id_len, const u8 *key, int err, const char *why)
{
	struct link l;
	u8 buf[16];

	link_open(&l, id, id_len, key, NULL, false);
	assert_int_not_equal(handshake(&l), 0);
	assert_int_equal(l.srv_ret, err);
	assert_string_equal(tls_session_why(l.srv), why);
	assert_false(tls_session_ready(l.srv));
	assert_int_equal(tls_session_read(l.srv, buf, sizeof(buf)), err);	/* sticky */
	assert_int_equal(tls_session_write(l.srv, buf, sizeof(buf)), 0);
	link_close(&l);
}

static void tls_wrong_key_is_a_bad_mac(void **state)
{
	(void)state;
	expect_failure("alice", 5, other_key, -EACCES, "bad record MAC (wrong key?)");
}

static void tls_unknown_identity_is_named(void **state)
{
	(void)state;
	expect_failure("mallory", 7, alice_key, -EACCES, "unknown identity mallory");
}

static void tls_identities_long_or_unprintable(void **state)
{
	char longid[TLS_PSK_ID_MAX + 1];
	struct link l;

	(void)state;
	memset(longid, 'a', sizeof(longid));
	expect_failure(longid, sizeof(longid), alice_key, -EACCES,
		       "identity too long (129 bytes, at most 128)");
	link_open(&l, (const char *)odd_id, sizeof(odd_id), alice_key, NULL, false);
	assert_int_equal(handshake(&l), 0);
	assert_string_equal(tls_session_identity(l.srv), "bo?b?");
	link_close(&l);
}

/* Put all of p into a fresh session and read: never a crash, never plaintext. */
static int feed_garbage(const u8 *p, size_t n, bool *why_given)
{
	struct tls_session *t = tls_session_new_psk(&keys, true);
	u8 buf[64];
	int r = 0;

	assert_non_null(t);
	while (n && r == 0) {
		size_t taken = tls_session_put(t, p, n);

		p += taken;
		n -= taken;
		r = tls_session_read(t, buf, sizeof(buf));
		if (!taken)
			break;
	}
	assert_true(r <= 0);
	*why_given = tls_session_why(t)[0] != '\0';
	tls_session_free(t);
	return r;
}

/* HTTP for a ClientHello, random bytes, and real ClientHellos with one byte changed. */
static void tls_garbage_for_a_client_hello_fails(void **state)
{
	static const char http[] = "GET / HTTP/1.1\r\nHost: pmemk\r\n\r\n";
	static u8 junk[6000];
	unsigned int seed = 99;
	bool why;
	struct link l;

	(void)state;
	assert_int_equal(feed_garbage((const u8 *)http, sizeof(http) - 1, &why), -EPROTO);
	assert_true(why);
	for (int i = 0; i < 300; i++) {
		size_t n = 1 + (size_t)rand_r(&seed) % sizeof(junk);

		fill(junk, n, seed + (unsigned int)i);
		if (i & 1)	/* a handshake record header, TLS 1.0..1.3 */
			memcpy(junk, (const u8[]){ 22, 3, (u8)(i % 4) }, n < 3 ? n : 3);
		if (feed_garbage(junk, n, &why) < 0)
			assert_true(why);
	}
	for (int i = 0; i < 100; i++) {
		link_open(&l, "alice", 5, alice_key, NULL, false);
		assert_int_equal(mbedtls_ssl_handshake(&l.ssl), MBEDTLS_ERR_SSL_WANT_READ);
		l.to_server.data[rand_r(&seed) % l.to_server.tail] ^= (u8)(1 + rand_r(&seed) % 255);
		if (feed_garbage(l.to_server.data, l.to_server.tail, &why) < 0)
			assert_true(why);
		link_close(&l);
	}
}

/* Fill the out buffer without sending: writes stop at 0 and resume once it drains. */
static void tls_write_waits_for_room_then_resumes(void **state)
{
	static u8 rec[3 * 16384], rx[3 * 16384];
	size_t queued = 0, w, rx_len = 0;
	const u8 *out;
	struct link l;

	(void)state;
	fill(rec, sizeof(rec), 5);
	link_open(&l, "alice", 5, alice_key, NULL, false);
	assert_int_equal(handshake(&l), 0);
	while ((w = tls_session_write(l.srv, rec + queued, 16384)) > 0)
		queued += w;
	assert_int_equal(queued, 2 * 16384);
	assert_true(tls_session_out(l.srv, &out) > 2 * 16384);
	pipe_put(&l.to_client, out, 1000);	/* part of a record sent: still no room */
	tls_session_sent(l.srv, 1000);
	assert_int_equal(tls_session_write(l.srv, rec + queued, 16384), 0);
	pump(&l);
	assert_int_equal(tls_session_write(l.srv, rec + queued, 16384), 16384);
	pump(&l);
	client_read(&l, rx, &rx_len, sizeof(rx));
	assert_int_equal(rx_len, sizeof(rx));
	assert_memory_equal(rx, rec, sizeof(rx));
	link_close(&l);
}

/* Our close_notify reaches the client after the data queued, even when it must wait for room. */
static void tls_close_notify_after_queued_data(void **state)
{
	static u8 rec[2 * 16384 + 2000], rx[sizeof(rec)];
	size_t queued = 0, rx_len = 0;
	struct link l;

	(void)state;
	link_open(&l, "alice", 5, alice_key, NULL, false);
	assert_int_equal(handshake(&l), 0);
	/* Fill the out buffer to fewer bytes than an alert record needs. */
	for (size_t n = 16384; n; n = n > 1 ? n / 2 : 0)
		while (queued + n <= sizeof(rec) && tls_session_write(l.srv, rec + queued, n) == n)
			queued += n;
	tls_session_close_notify(l.srv);
	assert_int_equal(tls_session_write(l.srv, rec, 1), 0);
	pump(&l);
	client_read(&l, rx, &rx_len, queued);
	assert_int_equal(rx_len, queued);
	assert_int_equal(mbedtls_ssl_read(&l.ssl, rx, sizeof(rx)), MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY);
	link_close(&l);
}

/* The client's close_notify ends the server's reading with -EPIPE. */
static void tls_client_close_notify_is_epipe(void **state)
{
	struct link l;

	(void)state;
	link_open(&l, "alice", 5, alice_key, NULL, false);
	assert_int_equal(handshake(&l), 0);
	assert_int_equal(mbedtls_ssl_close_notify(&l.ssl), 0);
	pump(&l);
	assert_int_equal(l.srv_ret, -EPIPE);
	assert_string_equal(tls_session_why(l.srv), "the client closed the session (close_notify)");
	link_close(&l);
}

/* What a session holds (ASan's count of live heap bytes): new, and after the handshake. */
static void tls_session_memory(void **state)
{
	size_t m0, fresh, settled;
	struct tls_session *t;
	struct link l;

	(void)state;
	m0 = __sanitizer_get_current_allocated_bytes();
	t = tls_session_new_psk(&keys, false);
	fresh = __sanitizer_get_current_allocated_bytes() - m0;
	tls_session_free(t);
	link_open(&l, "alice", 5, alice_key, NULL, false);
	assert_int_equal(handshake(&l), 0);
	m0 = __sanitizer_get_current_allocated_bytes();
	tls_session_free(l.srv);
	l.srv = NULL;
	settled = m0 - __sanitizer_get_current_allocated_bytes();
	printf("tls: a session takes %zu bytes new, %zu after the handshake\n", fresh, settled);
	assert_true(settled < 96 * 1024);
	link_close(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tls_init_without_rdrand_or_rdseed_is_enodev),
		cmocka_unit_test_setup(tls_handshake_picks_ecdhe_psk_chacha20, tls_setup),
		cmocka_unit_test_setup(tls_each_suite_negotiates_and_carries_data, tls_setup),
		cmocka_unit_test_setup(tls_plain_psk_only_when_allowed, tls_setup),
		cmocka_unit_test_setup(tls_mib_each_way_to_a_slow_reader, tls_setup),
		cmocka_unit_test_setup(tls_wrong_key_is_a_bad_mac, tls_setup),
		cmocka_unit_test_setup(tls_unknown_identity_is_named, tls_setup),
		cmocka_unit_test_setup(tls_identities_long_or_unprintable, tls_setup),
		cmocka_unit_test_setup(tls_garbage_for_a_client_hello_fails, tls_setup),
		cmocka_unit_test_setup(tls_write_waits_for_room_then_resumes, tls_setup),
		cmocka_unit_test_setup(tls_close_notify_after_queued_data, tls_setup),
		cmocka_unit_test_setup(tls_client_close_notify_is_epipe, tls_setup),
		cmocka_unit_test_setup(tls_session_memory, tls_setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
