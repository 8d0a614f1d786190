/* Host tests: the HTTP API's bearer tokens from the boot file api.tokens (lib/api_tokens.c). */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "api_tokens.h"

#define ADMIN_TOK "Zm9vYmFyLWJhei1xdXV4LTE5ODQ="
#define READ_TOK "monitoring.3f9c2a71e5b8d604"

static struct api_tokens t;
static char why[1024];

static int parse(const char *text)
{
	return api_tokens_parse(text, strlen(text), &t, why, sizeof(why));
}

static enum api_role lookup(const char *tok)
{
	return api_tokens_lookup(&t, tok, strlen(tok));
}

static void tokens_file_parses(void **state)
{
	(void)state;
	assert_int_equal(parse("# ops team\n" ADMIN_TOK " admin\r\n\n  \t\n\t" READ_TOK "\t read  \n"
			       "   # indented comment\n"
			       "abcdefghijklmnop read"),
			 0);
	assert_string_equal(why, "");
	assert_int_equal(t.n, 3);
	assert_int_equal(lookup(ADMIN_TOK), API_ROLE_ADMIN);
	assert_int_equal(lookup(READ_TOK), API_ROLE_READ);
	assert_int_equal(lookup("abcdefghijklmnop"), API_ROLE_READ);
	assert_string_equal(api_role_name(API_ROLE_ADMIN), "admin");
	assert_string_equal(api_role_name(API_ROLE_READ), "read");
	assert_string_equal(api_role_name(API_ROLE_NONE), "none");
}

/* Each bad line: its number and why, never a byte of it. */
static void tokens_bad_lines_skipped_by_number_without_content(void **state)
{
	(void)state;
	assert_int_equal(parse("Sh0rtT0ken admin\n"			/* 1 */
			       "TooL0ngTokenTooL0ngToken\n"		/* 2 */
			       "Secret!Secret!Secret! admin\n"		/* 3 */
			       "SecretSecretSecret root\n"		/* 4 */
			       "SecretSecretSecret admin extra\n"	/* 5 */
			       "SecretSecretSecret admin\n"		/* 6: used */
			       "SecretSecretSecret read\n"		/* 7 */
			       "Secret\x01Secret\x01Secret admin\n"	/* 8 */
			       "SecretSecretSecret ADMIN\n"),		/* 9 */
			 8);
	assert_string_equal(why, "line 1: token is shorter than 16 characters\n"
				 "line 2: expected TOKEN ROLE\n"
				 "line 3: token has a character other than A-Z a-z 0-9 . _ ~ + / = -\n"
				 "line 4: role is not read or admin\n"
				 "line 5: expected TOKEN ROLE\n"
				 "line 7: token given again; the first one counts\n"
				 "line 8: token has a character other than A-Z a-z 0-9 . _ ~ + / = -\n"
				 "line 9: role is not read or admin\n");
	assert_null(strstr(why, "Secret"));
	assert_null(strstr(why, "Sh0rt"));
	assert_int_equal(t.n, 1);
	assert_int_equal(lookup("SecretSecretSecret"), API_ROLE_ADMIN);
}

/* 16 and 128 characters are tokens; 15 and 129 are not. */
static void tokens_length_bounds(void **state)
{
	char line[300], tok[200];

	(void)state;
	for (size_t n = API_TOKEN_MIN - 1; n <= API_TOKEN_MAX + 1; n++) {
		memset(tok, 'a', n);
		tok[n] = '\0';
		tok[n - 1] = 'z';
		snprintf(line, sizeof(line), "%s read\n", tok);
		bool ok = n >= API_TOKEN_MIN && n <= API_TOKEN_MAX;
		assert_int_equal(parse(line), ok ? 0 : 1);
		assert_int_equal(t.n, ok ? 1 : 0);
		assert_int_equal(lookup(tok), ok ? API_ROLE_READ : API_ROLE_NONE);
	}
}

/* Tokens that differ in their last byte, or by one byte of length, are different tokens. */
static void tokens_lookup_exact(void **state)
{
	(void)state;
	assert_int_equal(parse("0123456789abcdefA admin\n0123456789abcdefB read\n"), 0);
	assert_int_equal(lookup("0123456789abcdefA"), API_ROLE_ADMIN);
	assert_int_equal(lookup("0123456789abcdefB"), API_ROLE_READ);
	assert_int_equal(lookup("0123456789abcdefC"), API_ROLE_NONE);
	assert_int_equal(lookup("0123456789abcdef"), API_ROLE_NONE);
	assert_int_equal(lookup("0123456789abcdefAA"), API_ROLE_NONE);
	assert_int_equal(lookup("1123456789abcdefA"), API_ROLE_NONE);
	assert_int_equal(lookup(""), API_ROLE_NONE);
	/* a NUL inside counts as a difference, not an end */
	assert_int_equal(api_tokens_lookup(&t, "0123456789abcdefA\0", 18), API_ROLE_NONE);
	assert_int_equal(api_tokens_lookup(&t, "0123456789abcdef\0\0", 17), API_ROLE_NONE);
}

/*
 * No early exit: in a table made by hand with one token in two slots (the
 * parser never makes one), both roles come back or'ed, whichever slots they
 * are in, the last one included: the lookup went past the first match.
 */
static void tokens_lookup_visits_every_slot(void **state)
{
	static const char tok[] = "ConstantTimeToken";
	size_t len = strlen(tok);

	(void)state;
	for (unsigned int a = 0; a < API_TOKENS_MAX; a++) {
		for (unsigned int b = a + 1; b < API_TOKENS_MAX; b++) {
			api_tokens_wipe(&t);
			memcpy(t.slot[a].token, tok, len);
			t.slot[a].len = (u8)len;
			t.slot[a].role = API_ROLE_READ;
			memcpy(t.slot[b].token, tok, len);
			t.slot[b].len = (u8)len;
			t.slot[b].role = API_ROLE_ADMIN;
			t.n = 1;	/* even slots past n are compared */
			assert_int_equal(api_tokens_lookup(&t, tok, len), API_ROLE_READ | API_ROLE_ADMIN);
		}
	}
}

static void tokens_table_full(void **state)
{
	char text[(API_TOKENS_MAX + 2) * 32];
	size_t at = 0;

	(void)state;
	for (int i = 0; i < API_TOKENS_MAX + 2; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "token-number-%04d admin\n", i);
	assert_int_equal(parse(text), 2);
	assert_int_equal(t.n, API_TOKENS_MAX);
	assert_string_equal(why, "line 17: more tokens than the table holds (16)\n"
				 "line 18: more tokens than the table holds (16)\n");
	assert_int_equal(lookup("token-number-0015"), API_ROLE_ADMIN);
	assert_int_equal(lookup("token-number-0016"), API_ROLE_NONE);
}

/* The wipe, and a parse that replaces the table, leave no token behind. */
static void tokens_wiped(void **state)
{
	(void)state;
	assert_int_equal(parse(ADMIN_TOK " admin\n"), 0);
	assert_non_null(memmem(&t, sizeof(t), ADMIN_TOK, strlen(ADMIN_TOK)));
	assert_int_equal(parse(READ_TOK " read\n"), 0);
	assert_null(memmem(&t, sizeof(t), ADMIN_TOK, strlen(ADMIN_TOK)));
	api_tokens_wipe(&t);
	assert_null(memmem(&t, sizeof(t), READ_TOK, strlen(READ_TOK)));
	assert_int_equal(t.n, 0);
	assert_int_equal(lookup(READ_TOK), API_ROLE_NONE);
}

static void tokens_bad_arguments_and_reasons_bounded(void **state)
{
	char small[40];

	(void)state;
	assert_int_equal(api_tokens_parse("", 0, NULL, why, sizeof(why)), -EINVAL);
	assert_int_equal(api_tokens_parse("", 0, &t, NULL, 1), -EINVAL);
	assert_int_equal(api_tokens_parse("", 0, &t, why, 0), -EINVAL);
	assert_int_equal(api_tokens_parse("", 0, &t, why, sizeof(why)), 0);
	assert_int_equal(api_tokens_parse("x\ny\n", 4, &t, small, sizeof(small)), 2);
	assert_string_equal(small, "line 1: expected TOKEN ROLE\n");
	assert_int_equal(api_tokens_parse("a\0bcdefghijklmnopq read\n", 24, &t, why, sizeof(why)), 1);
	assert_int_equal(t.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tokens_file_parses),
		cmocka_unit_test(tokens_bad_lines_skipped_by_number_without_content),
		cmocka_unit_test(tokens_length_bounds),
		cmocka_unit_test(tokens_lookup_exact),
		cmocka_unit_test(tokens_lookup_visits_every_slot),
		cmocka_unit_test(tokens_table_full),
		cmocka_unit_test(tokens_wiped),
		cmocka_unit_test(tokens_bad_arguments_and_reasons_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
