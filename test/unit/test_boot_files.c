/* Host tests: the kernel's table of named boot files (lib/boot_files.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "arch.h"
#include "boot_files.h"
#include "host.h"

#define FILE_PA 0x100000ULL
#define SECRET "alice:00112233445566778899aabbccddeeff\n"

static struct boot_info bi;

static void give(const char *name, u64 pa, u64 size)
{
	struct boot_file *f = &bi.files[bi.nr_files++];

	memset(f, 0, sizeof(*f));
	strncpy(f->name, name, sizeof(f->name));
	f->addr = pa;
	f->size = size;
}

static void setup_one(void)
{
	memset(&bi, 0, sizeof(bi));
	host_console_reset();
	memcpy(phys_to_virt(FILE_PA), SECRET, strlen(SECRET));
	give("nbd.psk", FILE_PA, strlen(SECRET));
}

static void boot_files_found_and_printed_without_content(void **state)
{
	(void)state;
	setup_one();
	boot_files_init(&bi);
	const struct boot_file *f = boot_file_find("nbd.psk");
	assert_non_null(f);
	assert_int_equal(f->size, strlen(SECRET));
	assert_memory_equal(f->data, SECRET, strlen(SECRET));
	assert_true(host_console_has("boot: file nbd.psk (39 bytes)"));
	assert_false(host_console_has("alice"));
	assert_null(boot_file_find("api.crt"));
}

static void boot_file_wipe_zeroes_and_forgets(void **state)
{
	(void)state;
	const u8 zero[sizeof(SECRET)] = { 0 };

	setup_one();
	give("api.crt", FILE_PA + 0x1000, 0);
	boot_files_init(&bi);
	boot_file_wipe("nbd.psk");
	assert_memory_equal(phys_to_virt(FILE_PA), zero, strlen(SECRET));
	assert_null(boot_file_find("nbd.psk"));
	assert_non_null(boot_file_find("api.crt"));	/* the others stay */
	boot_file_wipe("nbd.psk");			/* twice: nothing left to do */
	boot_file_wipe("never-given");
}

static void boot_files_bad_entries_dropped(void **state)
{
	(void)state;
	setup_one();
	give("nbd.psk", FILE_PA + 0x2000, 4);		/* a second one */
	give("bad name", FILE_PA + 0x3000, 4);
	give("far", 4 * GiB - 2, 4);			/* crosses 4 GiB */
	bi.files[bi.nr_files].addr = FILE_PA;		/* no NUL in the name */
	memset(bi.files[bi.nr_files++].name, 'x', BOOT_FILE_NAME_MAX);
	boot_files_init(&bi);
	assert_int_equal(boot_file_find("nbd.psk")->addr, FILE_PA);
	assert_true(host_console_has("boot: file nbd.psk given twice; the first one is kept"));
	assert_true(host_console_has("boot: a boot file has no usable name; ignored"));
	assert_true(host_console_has("boot: file far lies outside [0, 4 GiB); ignored"));
	assert_null(boot_file_find("far"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(boot_files_found_and_printed_without_content),
		cmocka_unit_test(boot_file_wipe_zeroes_and_forgets),
		cmocka_unit_test(boot_files_bad_entries_dropped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
