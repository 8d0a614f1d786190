/* Host tests: the EFI loader's pure parts: load options decoding, kernel ELF checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../boot/efi/loader.h"

static char out[BOOT_CMDLINE_MAX];
static bool trunc_;

static u32 ucs2(const char *s, u8 *buf)
{
	u32 n = 0;

	for (; *s; s++) {
		buf[n++] = (u8)*s;
		buf[n++] = 0;
	}
	buf[n++] = 0;
	buf[n++] = 0;
	return n;
}

static void efi_shell_options_drop_image_path(void **state)
{
	(void)state;
	u8 buf[256];
	u32 n = ucs2("fs0:\\pmemk.efi memmap=garbage ktest=x", buf);

	assert_int_equal(load_options_decode(buf, n, out, sizeof(out), &trunc_), LOAD_OPTIONS_UCS2);
	assert_string_equal(out, "memmap=garbage ktest=x");
	assert_false(trunc_);
}

static void efi_ipxe_image_only_uses_default(void **state)
{
	(void)state;
	u8 buf[64];
	u32 n = ucs2("BOOTX64.EFI", buf);

	assert_int_equal(load_options_decode(buf, n, out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_IMAGE_ONLY);
}

static void efi_8bit_boot_entry_text_accepted(void **state)
{
	(void)state;
	const char *s = "pmem.create=namespace0.0:fsdax:dev";

	assert_int_equal(load_options_decode(s, (u32)strlen(s), out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_ASCII);
	assert_string_equal(out, s);
}

static void efi_binary_options_ignored(void **state)
{
	(void)state;
	/* EDK2's own boot options carry a 16-byte GUID: not text. */
	const u8 guid[16] = { 0x4e, 0xac, 0x08, 0x81, 0x11, 0x9f, 0x59, 0x4d,
			      0x85, 0x0e, 0xe2, 0x1a, 0x52, 0x2c, 0x59, 0xb2 };

	assert_int_equal(load_options_decode(guid, sizeof(guid), out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_BINARY);
	assert_string_equal(out, "");
}

static void efi_empty_and_nul_options_use_default(void **state)
{
	(void)state;
	const u8 zeros[8] = { 0 };

	assert_int_equal(load_options_decode(NULL, 0, out, sizeof(out), &trunc_), LOAD_OPTIONS_NONE);
	assert_int_equal(load_options_decode(zeros, sizeof(zeros), out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_NONE);
}

static void efi_long_options_truncated(void **state)
{
	(void)state;
	static char big[3000];

	memset(big, 'a', sizeof(big) - 1);
	assert_int_equal(load_options_decode(big, sizeof(big) - 1, out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_ASCII);
	assert_true(trunc_);
	assert_int_equal(strlen(out), sizeof(out) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(efi_shell_options_drop_image_path),
		cmocka_unit_test(efi_ipxe_image_only_uses_default),
		cmocka_unit_test(efi_8bit_boot_entry_text_accepted),
		cmocka_unit_test(efi_binary_options_ignored),
		cmocka_unit_test(efi_empty_and_nul_options_use_default),
		cmocka_unit_test(efi_long_options_truncated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
