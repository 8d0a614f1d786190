/*
 * Shared by the TLS layer's host tests (test_tls_psk, test_tls_cert): a fake
 * TCP connection between a server session (include/tls_server.h) and an
 * mbedTLS client in the same process, the ciphertext carried through memory
 * in random pieces of 1..3000 bytes.
 */
#ifndef PMEMK_TEST_TLS_TESTS_H
#define PMEMK_TEST_TLS_TESTS_H

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ssl.h>

#include "tls_server.h"
#include "types.h"

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
	struct tls_session *srv;
	u8 *srv_rx;		/* plaintext the server read */
	size_t srv_rx_len, srv_rx_cap;
	size_t read_max;	/* the server reads at most this much per call */
	int srv_ret;		/* tls_session_read's failure, 0 while none */
	unsigned int seed;
};

/* The client's DRBG, seeded by tls_tests_client_seed. */
extern mbedtls_ctr_drbg_context tls_tests_client_drbg;
void tls_tests_client_seed(void);

/* A link's client configuration, defaults set; the caller adds its credential. */
void link_init(struct link *l);
/* Set the client up on l->conf and join it to the server session srv. */
void link_start(struct link *l, struct tls_session *srv);
void link_close(struct link *l);

void pipe_put(struct pipe *p, const u8 *b, size_t n);
size_t pipe_used(const struct pipe *p);
/* 1..max, at most avail. */
size_t piece(struct link *l, size_t max, size_t avail);
/* Carry the ciphertext both ways in pieces of 1..3000 bytes, the server reading after each. */
void pump(struct link *l);
/* Run the handshake until both ends finish or one fails: the client's result. */
int handshake(struct link *l);
/* The client reads what has come, in pieces of up to 5000 bytes. */
void client_read(struct link *l, u8 *rx, size_t *len, size_t cap);
/* "ping" to the server, "pong" back: both arrive. */
void round_trip(struct link *l);
/* n pseudo-random bytes from seed. */
void fill(u8 *p, size_t n, unsigned int seed);

#endif
