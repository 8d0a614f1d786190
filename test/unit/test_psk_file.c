/* Host tests: psktool's key file format from untrusted bytes (lib/psk_file.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "psk_file.h"

#define KEY32 "4d617eeb7f85d6952d84dcf242effcfe4de5583723774a54c60dfd9031c57689"
#define KEY64 KEY32 KEY32

static struct psk_entry e[8];
static unsigned int n;
static char why[512];

static int parse(const char *text, unsigned int max)
{
	memset(e, 0xA5, sizeof(e));
	return psk_file_parse(text, strlen(text), e, max, &n, why, sizeof(why));
}

/* What psktool -u alice -p F; psktool -u bob -p F writes, byte for byte. */
static void psk_psktool_output_parses(void **state)
{
	(void)state;
	assert_int_equal(parse("alice:" KEY32 "\nbob:3b2b555657a3072c1656df569303791996bd7e534ed3023460ce8f7553ce1923\n", 8), 0);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].identity, "alice");
	assert_int_equal(e[0].key_len, 32);
	assert_int_equal(e[0].key[0], 0x4d);
	assert_int_equal(e[0].key[31], 0x89);
	assert_string_equal(e[1].identity, "bob");
	assert_int_equal(e[1].key[0], 0x3b);
	assert_string_equal(why, "");
	assert_int_equal(e[0].identity[63], 0);	/* padded: a constant-time compare may read all */
}

static void psk_crlf_blank_comments_last_line_tolerated(void **state)
{
	(void)state;
	assert_int_equal(parse("# keys for the lab\r\n\r\n   \nalice:" KEY32 "\r\n\nbob:AB", 8), 0);
	assert_int_equal(n, 2);
	assert_int_equal(e[1].key_len, 1);
	assert_int_equal(e[1].key[0], 0xab);
}

static void psk_bad_lines_skipped_by_number_without_content(void **state)
{
	(void)state;
	const char *text =
		"alice:" KEY32 "\n"		/* 1 ok */
		KEY32 "\n"			/* 2 no ':' (a key on its own) */
		":" KEY32 "\n"			/* 3 empty identity */
		"carol:\n"			/* 4 empty key */
		"dave:" KEY32 "zz\n"		/* 5 not hex */
		"erin:abc\n"			/* 6 odd */
		"frank:" KEY64 "00\n"		/* 7 65 bytes */
		"gr\tace:00\n"			/* 8 control character */
		"alice:00\n"			/* 9 again */
		"heidi:" KEY32 " \n"		/* 10 trailing blank */
		"ivan:" KEY64 "\n";		/* 11 ok: 64 bytes */

	assert_int_equal(parse(text, 8), 9);
	assert_int_equal(n, 2);
	assert_string_equal(e[1].identity, "ivan");
	assert_int_equal(e[1].key_len, 64);
	assert_string_equal(why,
			    "line 2: no ':' between identity and key\n"
			    "line 3: identity is empty\n"
			    "line 4: key is empty\n"
			    "line 5: key is not hex\n"
			    "line 6: key has an odd number of hex digits\n"
			    "line 7: key is longer than 64 bytes\n"
			    "line 8: identity has a control character\n"
			    "line 9: identity given again; the first one counts\n"
			    "line 10: key is not hex\n");
	assert_null(strstr(why, "4d617e"));
	assert_int_equal(e[0].key[0], 0x4d);	/* the first alice stays */
}

static void psk_identity_limits(void **state)
{
	(void)state;
	char text[256];

	memset(text, 'i', 63);
	strcpy(text + 63, ":00\n");
	memset(text + 67, 'j', 64);
	strcpy(text + 131, ":00\n");
	assert_int_equal(parse(text, 8), 1);
	assert_int_equal(n, 1);
	assert_int_equal(strlen(e[0].identity), 63);
	assert_string_equal(why, "line 2: identity is longer than 63 bytes\n");
	/* Bytes above 0x7f and ':' in the key part are what they are. */
	assert_int_equal(parse("\xc3\xa9t\xc3\xa9:00\nx:00:11\n", 8), 1);
	assert_string_equal(e[0].identity, "\xc3\xa9t\xc3\xa9");
	assert_string_equal(why, "line 2: key is not hex\n");
}

static void psk_table_full_and_nothing_written_past_n(void **state)
{
	(void)state;
	assert_int_equal(parse("a:01\nb:02\nc:03\n", 2), 1);
	assert_int_equal(n, 2);
	assert_string_equal(why, "line 3: more identities than the table holds\n");
	assert_int_equal((u8)e[2].identity[0], 0xA5);
	assert_int_equal(parse("a:01\n", 0), 1);
	assert_int_equal(n, 0);
	assert_int_equal((u8)e[0].identity[0], 0xA5);
}

static void psk_nul_bytes_and_empty_input(void **state)
{
	(void)state;
	const char text[] = "al\0ce:00\nbob:0\0\n";

	assert_int_equal(psk_file_parse(text, sizeof(text) - 1, e, 8, &n, why, sizeof(why)), 2);
	assert_int_equal(n, 0);
	assert_int_equal(psk_file_parse("", 0, e, 8, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(psk_file_parse(NULL, 0, e, 8, &n, why, sizeof(why)), 0);
	assert_int_equal(psk_file_parse("a:00", 4, NULL, 8, &n, why, sizeof(why)), -EINVAL);
	assert_int_equal(psk_file_parse("a:00", 4, e, 8, &n, why, 0), -EINVAL);
}

/* Reasons that do not fit are left out whole; the count still counts them. */
static void psk_reasons_bounded(void **state)
{
	(void)state;
	char small[50];

	assert_int_equal(psk_file_parse("x\ny\nz\n", 6, e, 8, &n, small, sizeof(small)), 3);
	assert_string_equal(small, "line 1: no ':' between identity and key\n");
	assert_int_equal(psk_file_parse("x\n", 2, e, 8, &n, small, 10), 1);
	assert_string_equal(small, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(psk_psktool_output_parses),
		cmocka_unit_test(psk_crlf_blank_comments_last_line_tolerated),
		cmocka_unit_test(psk_bad_lines_skipped_by_number_without_content),
		cmocka_unit_test(psk_identity_limits),
		cmocka_unit_test(psk_table_full_and_nothing_written_past_n),
		cmocka_unit_test(psk_nul_bytes_and_empty_input),
		cmocka_unit_test(psk_reasons_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
