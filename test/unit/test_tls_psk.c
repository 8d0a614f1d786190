/*
 * Host tests: TLS 1.2 PSK server sessions (net/tls_psk.c, net/tls_entropy.c)
 * against an mbedTLS client in the same process, the ciphertext carried
 * through memory in random pieces of 1..3000 bytes: the DRBG's entropy check,
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
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/ssl.h>

#include "host.h"
#include "tls_psk.h"

/* ASan's count of live heap bytes (compiler-rt's sanitizer/allocator_interface.h). */
size_t __sanitizer_get_current_allocated_bytes(void);

/* A byte queue that grows: one direction of the fake TCP connection. */
struct pipe {
	u8 *data;
	size_t head, tail, cap;
};

/* The client, and the server session at the other end of the pipes. */
struct link {
	mbedtls_ssl_context ssl;
	mbedtls_ssl_config conf;
	struct pipe to_server, to_client;
	struct tls_psk *srv;
	u8 *srv_rx;		/* plaintext the server read */
	size_t srv_rx_len, srv_rx_cap;
	size_t read_max;	/* the server reads at most this much per call */
	int srv_ret;		/* tls_psk_read's failure, 0 while none */
	unsigned int seed;
};

static mbedtls_entropy_context client_entropy;
static mbedtls_ctr_drbg_context client_drbg;

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

static void pipe_put(struct pipe *p, const u8 *b, size_t n)
{
	if (p->tail + n > p->cap) {
		p->cap = (p->tail + n) * 2;
		p->data = realloc(p->data, p->cap);
		assert_non_null(p->data);
	}
	memcpy(p->data + p->tail, b, n);
	p->tail += n;
}

static size_t pipe_used(const struct pipe *p)
{
	return p->tail - p->head;
}

static void pipe_drop(struct pipe *p, size_t n)
{
	p->head += n;
	if (p->head == p->tail)
		p->head = p->tail = 0;
}

static int client_send(void *ctx, const unsigned char *b, size_t n)
{
	pipe_put(&((struct link *)ctx)->to_server, b, n);
	return (int)n;
}

static int client_recv(void *ctx, unsigned char *b, size_t n)
{
	struct pipe *p = &((struct link *)ctx)->to_client;

	if (!pipe_used(p))
		return MBEDTLS_ERR_SSL_WANT_READ;
	if (n > pipe_used(p))
		n = pipe_used(p);
	memcpy(b, p->data + p->head, n);
	pipe_drop(p, n);
	return (int)n;
}

/* A link whose client presents id and key, offering suites (NULL: all it has). */
static void link_open(struct link *l, const char *id, size_t id_len, const u8 *key,
		      const int *suites, bool plain_psk_ok)
{
	memset(l, 0, sizeof(*l));
	l->seed = 1234;
	l->read_max = 16384;
	mbedtls_ssl_config_init(&l->conf);
	mbedtls_ssl_init(&l->ssl);
	assert_int_equal(mbedtls_ssl_config_defaults(&l->conf, MBEDTLS_SSL_IS_CLIENT,
						     MBEDTLS_SSL_TRANSPORT_STREAM,
						     MBEDTLS_SSL_PRESET_DEFAULT), 0);
	mbedtls_ssl_conf_rng(&l->conf, mbedtls_ctr_drbg_random, &client_drbg);
	assert_int_equal(mbedtls_ssl_conf_psk(&l->conf, key, 32, (const u8 *)id, id_len), 0);
	if (suites)
		mbedtls_ssl_conf_ciphersuites(&l->conf, suites);
	assert_int_equal(mbedtls_ssl_setup(&l->ssl, &l->conf), 0);
	mbedtls_ssl_set_bio(&l->ssl, l, client_send, client_recv, NULL);
	l->srv = tls_psk_new(&keys, plain_psk_ok);
	assert_non_null(l->srv);
}

static void link_close(struct link *l)
{
	tls_psk_free(l->srv);
	mbedtls_ssl_free(&l->ssl);
	mbedtls_ssl_config_free(&l->conf);
	free(l->to_server.data);
	free(l->to_client.data);
	free(l->srv_rx);
}

static size_t piece(struct link *l, size_t max, size_t avail)
{
	size_t n = 1 + (size_t)rand_r(&l->seed) % max;

	return n < avail ? n : avail;
}

/* The server reads what it can, in pieces of at most read_max. */
static void server_read(struct link *l)
{
	u8 buf[16384];
	int r;

	while (!l->srv_ret) {
		r = tls_psk_read(l->srv, buf, piece(l, l->read_max, sizeof(buf)));
		if (r < 0)
			l->srv_ret = r;
		if (r <= 0)
			return;
		if (l->srv_rx_len + (size_t)r > l->srv_rx_cap) {
			l->srv_rx_cap = (l->srv_rx_len + (size_t)r) * 2;
			l->srv_rx = realloc(l->srv_rx, l->srv_rx_cap);
		}
		memcpy(l->srv_rx + l->srv_rx_len, buf, (size_t)r);
		l->srv_rx_len += (size_t)r;
	}
}

/* Carry the ciphertext both ways in pieces of 1..3000 bytes, the server reading after each. */
static void pump(struct link *l)
{
	const u8 *out;
	size_t n;

	while (pipe_used(&l->to_server) && !l->srv_ret) {
		n = piece(l, 3000, pipe_used(&l->to_server));
		n = tls_psk_put(l->srv, l->to_server.data + l->to_server.head, n);
		pipe_drop(&l->to_server, n);
		server_read(l);
		if (!n)
			break;
	}
	server_read(l);
	while ((n = tls_psk_out(l->srv, &out))) {
		n = piece(l, 3000, n);
		pipe_put(&l->to_client, out, n);
		tls_psk_sent(l->srv, n);
	}
}

/* Run the handshake until both ends finish or one fails: the client's result. */
static int handshake(struct link *l)
{
	int ret = MBEDTLS_ERR_SSL_WANT_READ;

	for (int round = 0; round < 100 && !l->srv_ret; round++) {
		ret = mbedtls_ssl_handshake(&l->ssl);
		pump(l);
		if (ret != MBEDTLS_ERR_SSL_WANT_READ && tls_psk_ready(l->srv))
			break;
		if (ret != MBEDTLS_ERR_SSL_WANT_READ && ret)
			break;
	}
	return ret;
}

static int tls_setup(void **state)
{
	(void)state;
	assert_int_equal(tls_psk_init(), 0);
	return 0;
}

/* Runs first: tls_psk_init's answer before any success (which it keeps). */
static void tls_init_without_rdrand_or_rdseed_is_enodev(void **state)
{
	(void)state;
	host_rdrand_present = host_rdseed_present = false;
	assert_int_equal(tls_psk_init(), -ENODEV);
	assert_null(tls_psk_entropy());
	assert_null(tls_psk_new(&keys, false));
	host_rdrand_present = true;
	assert_int_equal(tls_psk_init(), 0);
	assert_string_equal(tls_psk_entropy(), "rdrand");
	assert_int_equal(tls_psk_init(), 0);
	mbedtls_entropy_init(&client_entropy);
	mbedtls_ctr_drbg_init(&client_drbg);
	assert_int_equal(mbedtls_ctr_drbg_seed(&client_drbg, mbedtls_entropy_func,
					       &client_entropy, NULL, 0), 0);
}

/* A client offering everything gets the server's first choice. */
static void tls_handshake_picks_ecdhe_psk_chacha20(void **state)
{
	struct link l;

	(void)state;
	link_open(&l, "alice", 5, alice_key, NULL, true);
	assert_false(tls_psk_ready(l.srv));
	assert_int_equal(tls_psk_write(l.srv, (const u8 *)"x", 1), 0);
	assert_int_equal(handshake(&l), 0);
	assert_int_equal(l.srv_ret, 0);
	assert_true(tls_psk_ready(l.srv));
	assert_string_equal(tls_psk_identity(l.srv), "alice");
	assert_string_equal(tls_psk_suite(l.srv), "TLS-ECDHE-PSK-WITH-CHACHA20-POLY1305-SHA256");
	assert_string_equal(mbedtls_ssl_get_ciphersuite(&l.ssl), tls_psk_suite(l.srv));
	assert_string_equal(tls_psk_why(l.srv), "");
	link_close(&l);
}

/* Handshake with a client that offers one suite (and curve); then a round trip. */
static void negotiate(int suite, bool plain_psk_ok, const mbedtls_ecp_group_id *curves)
{
	const int suites[] = { suite, 0 };
	struct link l;
	u8 buf[16];

	link_open(&l, "alice", 5, alice_key, suites, plain_psk_ok);
	if (curves)
		mbedtls_ssl_conf_curves(&l.conf, curves);
	assert_int_equal(handshake(&l), 0);
	assert_true(tls_psk_ready(l.srv));
	assert_string_equal(tls_psk_suite(l.srv), mbedtls_ssl_get_ciphersuite_name(suite));
	assert_int_equal(mbedtls_ssl_write(&l.ssl, (const u8 *)"ping", 4), 4);
	pump(&l);
	assert_int_equal(l.srv_rx_len, 4);
	assert_memory_equal(l.srv_rx, "ping", 4);
	assert_int_equal(tls_psk_write(l.srv, (const u8 *)"pong", 4), 4);
	pump(&l);
	assert_int_equal(mbedtls_ssl_read(&l.ssl, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "pong", 4);
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
	assert_string_equal(tls_psk_why(l.srv), "no cipher suite in common");
	assert_false(tls_psk_ready(l.srv));
	link_close(&l);
}

static void fill(u8 *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (u8)(rand_r(&seed) >> 7);
}

/* The client reads what has come, in pieces of up to 5000 bytes. */
static void client_read(struct link *l, u8 *rx, size_t *len, size_t cap)
{
	int r;

	while (*len < cap &&
	       (r = mbedtls_ssl_read(&l->ssl, rx + *len, piece(l, 5000, cap - *len))) > 0)
		*len += (size_t)r;
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
			down_sent += tls_psk_write(l.srv, down + down_sent,
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
	assert_string_equal(tls_psk_why(l.srv), why);
	assert_false(tls_psk_ready(l.srv));
	assert_int_equal(tls_psk_read(l.srv, buf, sizeof(buf)), err);	/* sticky */
	assert_int_equal(tls_psk_write(l.srv, buf, sizeof(buf)), 0);
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
	assert_string_equal(tls_psk_identity(l.srv), "bo?b?");
	link_close(&l);
}

/* Put all of p into a fresh session and read: never a crash, never plaintext. */
static int feed_garbage(const u8 *p, size_t n, bool *why_given)
{
	struct tls_psk *t = tls_psk_new(&keys, true);
	u8 buf[64];
	int r = 0;

	assert_non_null(t);
	while (n && r == 0) {
		size_t taken = tls_psk_put(t, p, n);

		p += taken;
		n -= taken;
		r = tls_psk_read(t, buf, sizeof(buf));
		if (!taken)
			break;
	}
	assert_true(r <= 0);
	*why_given = tls_psk_why(t)[0] != '\0';
	tls_psk_free(t);
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
	while ((w = tls_psk_write(l.srv, rec + queued, 16384)) > 0)
		queued += w;
	assert_int_equal(queued, 2 * 16384);
	assert_true(tls_psk_out(l.srv, &out) > 2 * 16384);
	pipe_put(&l.to_client, out, 1000);	/* part of a record sent: still no room */
	tls_psk_sent(l.srv, 1000);
	assert_int_equal(tls_psk_write(l.srv, rec + queued, 16384), 0);
	pump(&l);
	assert_int_equal(tls_psk_write(l.srv, rec + queued, 16384), 16384);
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
		while (queued + n <= sizeof(rec) && tls_psk_write(l.srv, rec + queued, n) == n)
			queued += n;
	tls_psk_close_notify(l.srv);
	assert_int_equal(tls_psk_write(l.srv, rec, 1), 0);
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
	assert_string_equal(tls_psk_why(l.srv), "the client closed the session (close_notify)");
	link_close(&l);
}

/* What a session holds (ASan's count of live heap bytes): new, and after the handshake. */
static void tls_session_memory(void **state)
{
	size_t m0, fresh, settled;
	struct tls_psk *t;
	struct link l;

	(void)state;
	m0 = __sanitizer_get_current_allocated_bytes();
	t = tls_psk_new(&keys, false);
	fresh = __sanitizer_get_current_allocated_bytes() - m0;
	tls_psk_free(t);
	link_open(&l, "alice", 5, alice_key, NULL, false);
	assert_int_equal(handshake(&l), 0);
	m0 = __sanitizer_get_current_allocated_bytes();
	tls_psk_free(l.srv);
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
