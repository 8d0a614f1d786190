/*
 * pmemk's mbedTLS 2.28 configuration (passed with
 * -DMBEDTLS_CONFIG_FILE=<mbedtls_config.h>): a bare-metal TLS 1.2 server
 * with pre-shared keys, for NBD over TLS (docs/FACTS-3 §1). Everything not
 * named here is off. The same file builds the kernel's library and the
 * host's copy for unit tests (tools/build-mbedtls.sh); the host copy adds
 * the client side (PMEMK_TLS_TEST_CLIENT) to talk to the server in tests.
 *
 * Started from the source package's configs/config-ccm-psk-tls1_2.h.
 */
#ifndef PMEMK_MBEDTLS_CONFIG_H
#define PMEMK_MBEDTLS_CONFIG_H

/* System: no OS. No time (HAVE_TIME: only for Hello randoms and session
 * caches), no files, no sockets (NET_C), no timers, no threads. Entropy comes
 * from mbedtls_hardware_poll alone (net/tls_entropy.c: RDSEED, else RDRAND). */
#define MBEDTLS_HAVE_ASM		/* bignum's multiply in general registers (bn_mul.h) */
#define MBEDTLS_NO_PLATFORM_ENTROPY
#define MBEDTLS_ENTROPY_HARDWARE_ALT
#define MBEDTLS_ENTROPY_FORCE_SHA256	/* no SHA-512 in the build */
#define MBEDTLS_ENTROPY_MAX_SOURCES 2
#define MBEDTLS_ENTROPY_C
#define MBEDTLS_CTR_DRBG_C

/*
 * Left off on purpose: MBEDTLS_AESNI_C (its inline assembly uses the XMM
 * registers, which the kernel's own code never touches: -mgeneral-regs-only;
 * it would need the FPU state saved around each call), MBEDTLS_PADLOCK_C.
 * AES runs from constant tables in .rodata.
 */
#define MBEDTLS_AES_ROM_TABLES

/* Ciphers and hashes of the suites below. */
#define MBEDTLS_AES_C
#define MBEDTLS_CIPHER_MODE_CBC
#define MBEDTLS_CIPHER_PADDING_PKCS7
#define MBEDTLS_GCM_C
#define MBEDTLS_CHACHA20_C
#define MBEDTLS_POLY1305_C
#define MBEDTLS_CHACHAPOLY_C
#define MBEDTLS_CIPHER_C
#define MBEDTLS_MD_C
#define MBEDTLS_SHA256_C

/* Key exchanges: PSK alone, and PSK with an ephemeral Diffie-Hellman (forward
 * secret): finite field (RFC 3526 2048-bit group, mbedTLS's server default)
 * and elliptic curves X25519 and P-256. */
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_DHM_C
#define MBEDTLS_ECP_C
#define MBEDTLS_ECDH_C
#define MBEDTLS_ECP_DP_CURVE25519_ENABLED
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_KEY_EXCHANGE_PSK_ENABLED
#define MBEDTLS_KEY_EXCHANGE_DHE_PSK_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_PSK_ENABLED

/*
 * TLS 1.2, server side. HTTPS with certificates (a later issue) turns on
 * here: MBEDTLS_X509_CRT_PARSE_C, MBEDTLS_X509_USE_C, MBEDTLS_PK_C,
 * MBEDTLS_PK_PARSE_C, MBEDTLS_ASN1_PARSE_C, MBEDTLS_ASN1_WRITE_C,
 * MBEDTLS_OID_C, MBEDTLS_PEM_PARSE_C + MBEDTLS_BASE64_C, MBEDTLS_ECDSA_C
 * and/or MBEDTLS_RSA_C + MBEDTLS_PKCS1_V15/V21, and the key exchanges
 * MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED / _ECDHE_RSA_ENABLED (plus
 * MBEDTLS_SHA512_C for the SHA-384 suites browsers prefer); then add those
 * suites to the server's list (net/tls_psk.c) and the source files to
 * tools/build-mbedtls.sh.
 */
#define MBEDTLS_SSL_TLS_C
#define MBEDTLS_SSL_SRV_C
#ifdef PMEMK_TLS_TEST_CLIENT
#define MBEDTLS_SSL_CLI_C		/* host unit tests: the in-process client */
#endif
#define MBEDTLS_SSL_PROTO_TLS1_2
#define MBEDTLS_SSL_ENCRYPT_THEN_MAC	/* GnuTLS asks for both */
#define MBEDTLS_SSL_EXTENDED_MASTER_SECRET
#define MBEDTLS_SSL_ALL_ALERT_MESSAGES	/* the peer learns why we close */

/* PSKs of up to 64 bytes (psktool writes 32). Records: the full 16 KiB each
 * way (GnuTLS sends no max_fragment_length). */
#define MBEDTLS_PSK_MAX_LEN 64
#define MBEDTLS_SSL_IN_CONTENT_LEN 16384
#define MBEDTLS_SSL_OUT_CONTENT_LEN 16384

#include "mbedtls/check_config.h"

#endif
