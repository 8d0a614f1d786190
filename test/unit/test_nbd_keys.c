/* Host tests: the NBD TLS key store (net/nbd_keys.c) over a boot file nbd.psk. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "arch.h"
#include "boot_files.h"
#include "host.h"
#include "nbd_keys.h"

#define FILE_PA 0x200000ULL
#define ALICE_HEX "4d617eeb7f85d6952d84dcf242effcfe4de5583723774a54c60dfd9031c57689"

static const char good[] = "alice:" ALICE_HEX "\nbob:0102\n";

/* Hand text to the kernel as the boot file nbd.psk and load it. */
static int load(const char *text)
{
	static struct boot_info bi;

	memset(&bi, 0, sizeof(bi));
	memcpy(phys_to_virt(FILE_PA), text, strlen(text));
	strcpy(bi.files[0].name, "nbd.psk");
	bi.files[0].addr = FILE_PA;
	bi.files[0].size = strlen(text);
	bi.nr_files = 1;
	host_console_reset();
	boot_files_init(&bi);
	return nbd_keys_load();
}

static void nbd_keys_loaded_wiped_and_never_printed(void **state)
{
	(void)state;
	u8 zero[sizeof(good)] = { 0 };

	assert_int_equal(load(good), 2);
	assert_int_equal(nbd_psk_count(), 2);
	assert_true(host_console_has("nbd: 2 TLS identities from nbd.psk"));
	assert_false(host_console_has("4d617e"));
	assert_memory_equal(phys_to_virt(FILE_PA), zero, strlen(good));
	assert_null(boot_file_find("nbd.psk"));
	/* A second call finds no file and keeps the table. */
	host_console_reset();
	assert_int_equal(nbd_keys_load(), 2);
	assert_string_equal(host_console_text(), "");
}

static void nbd_psk_lookup_exact_identity_only(void **state)
{
	(void)state;
	u8 key[64];
	size_t len = sizeof(key);

	load(good);
	host_console_reset();
	assert_int_equal(nbd_psk_lookup(NULL, (const u8 *)"alice", 5, key, &len), 0);
	assert_int_equal(len, 32);
	assert_int_equal(key[0], 0x4d);
	assert_int_equal(key[31], 0x89);
	len = sizeof(key);
	assert_int_equal(nbd_psk_lookup(NULL, (const u8 *)"bob", 3, key, &len), 0);
	assert_int_equal(len, 2);
	assert_int_equal(key[1], 0x02);
	/* Prefixes, extensions, a NUL inside, case, empty, too long: no match. */
	const struct { const char *id; size_t len; } misses[] = {
		{ "alic", 4 }, { "alicee", 6 }, { "alice\0", 6 }, { "bo\0", 3 },
		{ "Alice", 5 }, { "", 0 },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 67 },
	};
	for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
		len = sizeof(key);
		assert_int_equal(nbd_psk_lookup(NULL, (const u8 *)misses[i].id, misses[i].len,
						key, &len), -ENOENT);
	}
	len = 31;
	assert_int_equal(nbd_psk_lookup(NULL, (const u8 *)"alice", 5, key, &len), -ENOSPC);
	assert_int_equal(len, 31);
	assert_string_equal(host_console_text(), "");	/* lookups log nothing */
}

static void nbd_keys_bad_lines_reported_by_number(void **state)
{
	(void)state;
	u8 key[64];
	size_t len = sizeof(key);

	assert_int_equal(load("# lab\n" ALICE_HEX "\ncarol:" ALICE_HEX "zz\ndave:00\n"), 1);
	assert_true(host_console_has("nbd: nbd.psk line 2: no ':' between identity and key; skipped"));
	assert_true(host_console_has("nbd: nbd.psk line 3: key is not hex; skipped"));
	assert_true(host_console_has("nbd: 1 TLS identity from nbd.psk"));
	assert_false(host_console_has("4d617e"));
	/* The new file replaced the old table. */
	assert_int_equal(nbd_psk_lookup(NULL, (const u8 *)"alice", 5, key, &len), -ENOENT);
	assert_int_equal(nbd_psk_lookup(NULL, (const u8 *)"dave", 4, key, &len), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nbd_keys_loaded_wiped_and_never_printed),
		cmocka_unit_test(nbd_psk_lookup_exact_identity_only),
		cmocka_unit_test(nbd_keys_bad_lines_reported_by_number),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
