/*
 * tls-cipher, the in-guest baseline of the TLS benchmark (tools/bench-tls):
 * what the CPU alone pays to seal NBD data in TLS records, the work a
 * server's READ adds per byte under TLS. BYTES of RAM are sealed in full
 * 16 KiB records (one mbedTLS record each, as the server sends them) with
 * each AEAD the server's suites use: ChaCha20-Poly1305 (its first suite) and
 * AES-128-GCM from mbedTLS's tables (no AES instructions: the kernel's code
 * keeps off the XMM registers). One untimed record first; one line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <mbedtls/chachapoly.h>
#include <mbedtls/gcm.h>

#include "arch.h"
#include "printk.h"
#include "shell.h"

#define TLS_CIPHER_RECORD (16u << 10)

/* ns to seal size bytes record by record with ChaCha20-Poly1305; 0 on failure. */
static u64 seal_chachapoly(u8 *buf, u64 size)
{
	static const u8 key[32] = { 1 }, aad[13] = { 0x17, 3, 3 };
	u8 nonce[12] = { 0 }, tag[16];
	mbedtls_chachapoly_context ctx;
	u64 t0 = 0;
	int err;

	mbedtls_chachapoly_init(&ctx);
	err = mbedtls_chachapoly_setkey(&ctx, key);
	for (u64 off = 0; off <= size && !err; off += TLS_CIPHER_RECORD) {
		if (off == TLS_CIPHER_RECORD)	/* the first record was the untimed one */
			t0 = arch_cycles();
		nonce[11] = (u8)(off >> 14);
		err = mbedtls_chachapoly_encrypt_and_tag(&ctx, TLS_CIPHER_RECORD, nonce, aad, sizeof(aad),
							 buf, buf, tag);
	}
	u64 ns = arch_cycles_to_ns(arch_cycles() - t0);
	mbedtls_chachapoly_free(&ctx);
	return err ? 0 : ns ? ns : 1;
}

/* The same with AES-128-GCM. */
static u64 seal_gcm(u8 *buf, u64 size)
{
	static const u8 key[16] = { 1 }, aad[13] = { 0x17, 3, 3 };
	u8 iv[12] = { 0 }, tag[16];
	mbedtls_gcm_context ctx;
	u64 t0 = 0;
	int err;

	mbedtls_gcm_init(&ctx);
	err = mbedtls_gcm_setkey(&ctx, MBEDTLS_CIPHER_ID_AES, key, 128);
	for (u64 off = 0; off <= size && !err; off += TLS_CIPHER_RECORD) {
		if (off == TLS_CIPHER_RECORD)
			t0 = arch_cycles();
		iv[11] = (u8)(off >> 14);
		err = mbedtls_gcm_crypt_and_tag(&ctx, MBEDTLS_GCM_ENCRYPT, TLS_CIPHER_RECORD, iv, sizeof(iv),
						aad, sizeof(aad), buf, buf, sizeof(tag), tag);
	}
	u64 ns = arch_cycles_to_ns(arch_cycles() - t0);
	mbedtls_gcm_free(&ctx);
	return err ? 0 : ns ? ns : 1;
}

static u64 kib_per_s(u64 size, u64 ns)
{
	return ns ? size * 1000000000ull / ns / 1024 : 0;
}

static int cmd_tls_cipher(int argc, char **argv)
{
	u64 size;

	if (shell_arg_size(argv[0], "bytes", shell_arg(argc, argv, 1), TLS_CIPHER_RECORD, 1ull << 30, &size) ||
	    shell_args_max(argc, argv, 2))
		return -EINVAL;
	size &= ~(u64)(TLS_CIPHER_RECORD - 1);
	u8 *buf = malloc(TLS_CIPHER_RECORD);
	if (!buf) {
		kprintf("tls-cipher: no memory for a record\n");
		return -ENOMEM;
	}
	memset(buf, 0x5a, TLS_CIPHER_RECORD);
	u64 chacha = seal_chachapoly(buf, size), gcm = seal_gcm(buf, size);
	free(buf);
	if (!chacha || !gcm) {
		kprintf("tls-cipher: mbedTLS refused to seal a record\n");
		return -EIO;
	}
	kprintf("tls-cipher: %llu bytes in %u-byte records: ChaCha20-Poly1305 %llu KiB/s, "
		"AES-128-GCM (tables) %llu KiB/s\n", size, TLS_CIPHER_RECORD, kib_per_s(size, chacha),
		kib_per_s(size, gcm));
	return 0;
}
SHELL_COMMAND(
	SHELL_BENCH, "tls-cipher", cmd_tls_cipher, "tls-cipher BYTES",
	"benchmark baseline: seal BYTES in 16 KiB TLS records with ChaCha20-Poly1305 and AES-128-GCM");
