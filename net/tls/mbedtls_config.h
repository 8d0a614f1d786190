/*
 * pmemk's mbedTLS 2.28 configuration (passed with
 * -DMBEDTLS_CONFIG_FILE=<mbedtls_config.h>): a bare-metal TLS 1.2 server
 * with two credentials: pre-shared keys, for NBD over TLS (docs/FACTS-3 §1),
 * and an X.509 certificate with its key, for the HTTPS API (issue 32).
 * Everything not named here is off. The same file builds the kernel's library and the
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
#define MBEDTLS_ENTROPY_FORCE_SHA256	/* as before certificates: the DRBG's seed is unchanged */
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
#define MBEDTLS_SHA512_C		/* SHA-384: the AES-256-GCM suites; certificates signed with it */

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
 * Certificates (net/tls_cert.c): X.509 chains and private keys in PEM as
 * openssl writes them: PKCS#8 "PRIVATE KEY", SEC1 "EC PRIVATE KEY", PKCS#1
 * "RSA PRIVATE KEY". No PKCS5_C/PKCS12_C and no MD5_C: encrypted keys
 * cannot be read (tls_cert_parse refuses them by their PEM label first).
 * No HAVE_TIME_DATE: the server does not check its own certificate's dates.
 * Keys: EC on the curves enabled above (P-256; X25519 signs nothing in TLS
 * 1.2) and RSA (PKCS#1 v1.5 signatures, what TLS 1.2 uses for ECDHE-RSA).
 * Key exchanges: ECDHE with either signature, forward secret only (no
 * static RSA key transport).
 */
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C		/* ECDSA's signature encoding */
#define MBEDTLS_OID_C
#define MBEDTLS_BASE64_C
#define MBEDTLS_PEM_PARSE_C
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_X509_USE_C
#define MBEDTLS_X509_CRT_PARSE_C
#define MBEDTLS_ECDSA_C
#define MBEDTLS_RSA_C
#define MBEDTLS_PKCS1_V15
#define MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED

/* TLS 1.2, server side. */
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
