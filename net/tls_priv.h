/* Shared between net/tls_entropy.c (the DRBG) and net/tls_psk.c (sessions). */
#ifndef PMEMK_NET_TLS_PRIV_H
#define PMEMK_NET_TLS_PRIV_H

#include "types.h"

/* mbedTLS's f_rng: the CTR_DRBG tls_psk_init seeded. 0, or an mbedTLS error. */
int tls_rng(void *unused, unsigned char *out, size_t len);
/* tls_psk_init succeeded. */
bool tls_rng_seeded(void);

#endif
