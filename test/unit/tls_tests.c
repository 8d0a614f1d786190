/*
 * The TLS host tests' fake TCP connection (test/unit/tls_tests.h): pipes
 * that grow, an mbedTLS client on one end and a server session on the other,
 * and the loops that carry ciphertext between them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <mbedtls/entropy.h>

#include "tls_tests.h"

static mbedtls_entropy_context client_entropy;
mbedtls_ctr_drbg_context tls_tests_client_drbg;

void tls_tests_client_seed(void)
{
	mbedtls_entropy_init(&client_entropy);
	mbedtls_ctr_drbg_init(&tls_tests_client_drbg);
	assert_int_equal(mbedtls_ctr_drbg_seed(&tls_tests_client_drbg, mbedtls_entropy_func,
					       &client_entropy, NULL, 0), 0);
}

void pipe_put(struct pipe *p, const u8 *b, size_t n)
{
	if (p->tail + n > p->cap) {
		p->cap = (p->tail + n) * 2;
		p->data = realloc(p->data, p->cap);
		assert_non_null(p->data);
	}
	memcpy(p->data + p->tail, b, n);
	p->tail += n;
}

size_t pipe_used(const struct pipe *p)
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

void link_init(struct link *l)
{
	memset(l, 0, sizeof(*l));
	l->seed = 1234;
	l->read_max = 16384;
	mbedtls_ssl_config_init(&l->conf);
	mbedtls_ssl_init(&l->ssl);
	assert_int_equal(mbedtls_ssl_config_defaults(&l->conf, MBEDTLS_SSL_IS_CLIENT,
						     MBEDTLS_SSL_TRANSPORT_STREAM,
						     MBEDTLS_SSL_PRESET_DEFAULT), 0);
	mbedtls_ssl_conf_rng(&l->conf, mbedtls_ctr_drbg_random, &tls_tests_client_drbg);
}

void link_start(struct link *l, struct tls_session *srv)
{
	assert_int_equal(mbedtls_ssl_setup(&l->ssl, &l->conf), 0);
	mbedtls_ssl_set_bio(&l->ssl, l, client_send, client_recv, NULL);
	l->srv = srv;
	assert_non_null(l->srv);
}

void link_close(struct link *l)
{
	tls_session_free(l->srv);
	mbedtls_ssl_free(&l->ssl);
	mbedtls_ssl_config_free(&l->conf);
	free(l->to_server.data);
	free(l->to_client.data);
	free(l->srv_rx);
}

size_t piece(struct link *l, size_t max, size_t avail)
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
		r = tls_session_read(l->srv, buf, piece(l, l->read_max, sizeof(buf)));
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

void pump(struct link *l)
{
	const u8 *out;
	size_t n;

	while (pipe_used(&l->to_server) && !l->srv_ret) {
		n = piece(l, 3000, pipe_used(&l->to_server));
		n = tls_session_put(l->srv, l->to_server.data + l->to_server.head, n);
		pipe_drop(&l->to_server, n);
		server_read(l);
		if (!n)
			break;
	}
	server_read(l);
	while ((n = tls_session_out(l->srv, &out))) {
		n = piece(l, 3000, n);
		pipe_put(&l->to_client, out, n);
		tls_session_sent(l->srv, n);
	}
}

int handshake(struct link *l)
{
	int ret = MBEDTLS_ERR_SSL_WANT_READ;

	for (int round = 0; round < 100 && !l->srv_ret; round++) {
		ret = mbedtls_ssl_handshake(&l->ssl);
		pump(l);
		if (ret != MBEDTLS_ERR_SSL_WANT_READ && tls_session_ready(l->srv))
			break;
		if (ret != MBEDTLS_ERR_SSL_WANT_READ && ret)
			break;
	}
	return ret;
}

void client_read(struct link *l, u8 *rx, size_t *len, size_t cap)
{
	int r;

	while (*len < cap &&
	       (r = mbedtls_ssl_read(&l->ssl, rx + *len, piece(l, 5000, cap - *len))) > 0)
		*len += (size_t)r;
}

void round_trip(struct link *l)
{
	u8 buf[16];

	assert_int_equal(mbedtls_ssl_write(&l->ssl, (const u8 *)"ping", 4), 4);
	pump(l);
	assert_int_equal(l->srv_rx_len, 4);
	assert_memory_equal(l->srv_rx, "ping", 4);
	assert_int_equal(tls_session_write(l->srv, (const u8 *)"pong", 4), 4);
	pump(l);
	assert_int_equal(mbedtls_ssl_read(&l->ssl, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "pong", 4);
}

void fill(u8 *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (u8)(rand_r(&seed) >> 7);
}
