/*
 * Randomness for TLS: mbedTLS's hardware entropy source
 * (MBEDTLS_ENTROPY_HARDWARE_ALT: mbedtls_hardware_poll) over the CPU's
 * RDSEED, else RDRAND (include/random.h), and the CTR_DRBG (AES-256) seeded
 * from it once by tls_server_init; every session draws from it (tls_rng).
 * mbedTLS's entropy pool hashes at least 32 bytes of the source into each
 * seed (MBEDTLS_ENTROPY_MIN_HARDWARE) and the DRBG reseeds from it every
 * 10,000 requests.
 */
#include <errno.h>
#include <string.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/entropy_poll.h>
#include <mbedtls/platform_util.h>

#include "random.h"
#include "tls_priv.h"
#include "tls_server.h"

static const char *entropy_name;	/* "rdseed", "rdrand"; NULL before tls_server_init */
static bool use_rdseed;
static mbedtls_entropy_context entropy;
static mbedtls_ctr_drbg_context drbg;
static bool seeded;

/* 64 bits from the chosen instruction; RDRAND when RDSEED runs dry. */
static bool entropy_u64(u64 *v)
{
	if (use_rdseed && arch_rdseed64(v))
		return true;
	return arch_rdrand64(v);
}

int mbedtls_hardware_poll(void *data, unsigned char *output, size_t len, size_t *olen)
{
	size_t n = 0;
	u64 v;

	(void)data;
	while (n < len && entropy_u64(&v)) {
		size_t k = len - n < sizeof(v) ? len - n : sizeof(v);

		memcpy(output + n, &v, k);
		n += k;
	}
	mbedtls_platform_zeroize(&v, sizeof(v));
	*olen = n;
	return n ? 0 : MBEDTLS_ERR_ENTROPY_SOURCE_FAILED;
}

/* Which instruction works on this CPU: RDSEED first (the source itself). */
static const char *entropy_probe(void)
{
	u64 v;

	use_rdseed = arch_rdseed64(&v);
	if (use_rdseed)
		return "rdseed";
	return arch_rdrand64(&v) ? "rdrand" : NULL;
}

int tls_server_init(void)
{
	static const unsigned char personal[] = "pmemk tls-psk";

	if (seeded)
		return 0;
	entropy_name = entropy_probe();
	if (!entropy_name)
		return -ENODEV;
	mbedtls_entropy_init(&entropy);
	mbedtls_ctr_drbg_init(&drbg);
	if (mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy, personal,
				  sizeof(personal) - 1)) {
		mbedtls_ctr_drbg_free(&drbg);
		mbedtls_entropy_free(&entropy);
		return -EIO;
	}
	seeded = true;
	return 0;
}

const char *tls_server_entropy(void)
{
	return entropy_name;
}

int tls_rng(void *unused, unsigned char *out, size_t len)
{
	(void)unused;
	return mbedtls_ctr_drbg_random(&drbg, out, len);
}

bool tls_rng_seeded(void)
{
	return seeded;
}
