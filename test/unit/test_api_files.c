/*
 * Host tests: the HTTPS API's boot files (net/api_files.c): api.crt, api.key
 * and api.tokens handed over as boot files (the certificates of
 * test/fixtures/tls), the lines printed (never a key or token byte), the
 * secret files wiped whatever came of them, and every way the API stays off.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api_files.h"
#include "arch.h"
#include "boot_files.h"
#include "host.h"
#include "params.h"
#include "tls_server.h"

#define FILE_PA 0x200000ULL
#define FILE_SPAN 0x10000ULL	/* each file's room in simulated memory */
#define TOKEN_A "Zm9vYmFyLWJhei1xdXV4LTE5ODQ="
#define TOKEN_B "monitoring.3f9c2a71e5b8d604"
#define TOKEN_C "monitoring.99990000aaaabbbb"

static const char tokens_good[] = "# ops\n" TOKEN_A " admin\n" TOKEN_B " read\n" TOKEN_C " read\n";

static struct boot_info bi;

/* Add a boot file called name holding len bytes of text. */
static void add(const char *name, const char *text, size_t len)
{
	struct boot_file *f = &bi.files[bi.nr_files];

	f->addr = FILE_PA + bi.nr_files * FILE_SPAN;
	assert_true(len <= FILE_SPAN);
	memcpy(phys_to_virt(f->addr), text, len);
	strcpy(f->name, name);
	f->size = len;
	bi.nr_files++;
}

/* Add a fixture of test/fixtures/tls as the boot file name. */
static void add_fixture(const char *name, const char *fixture)
{
	char path[128], buf[8192];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "test/fixtures/tls/%s", fixture);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	add(name, buf, n);
}

static int setup(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	api_files_unload();
	return 0;
}

static int load(void)
{
	host_console_reset();
	boot_files_init(&bi);
	return api_files_load();
}

/* Every byte of boot file i is zero. */
static bool wiped(unsigned int i)
{
	const u8 *p = phys_to_virt(bi.files[i].addr);

	for (u64 j = 0; j < bi.files[i].size; j++)
		if (p[j])
			return false;
	return true;
}

static void api_files_cert_and_tokens_loaded_wiped_never_printed(void **state)
{
	(void)state;
	add_fixture("api.crt", "server-ec-chain.crt");
	add_fixture("api.key", "server-ec.key");
	add("api.tokens", tokens_good, strlen(tokens_good));
	assert_int_equal(load(), 0);
	assert_true(host_console_has("api: certificate CN=pmemk-ec.test (EC P-256), valid until 21"));
	assert_true(host_console_has("api: 3 tokens (1 admin, 2 read)"));
	assert_false(host_console_has("PRIVATE"));
	assert_false(host_console_has("Zm9v"));
	assert_false(host_console_has("monitoring"));
	assert_true(wiped(1) && wiped(2));
	assert_false(wiped(0));		/* a certificate is no secret */
	assert_null(boot_file_find("api.key"));
	assert_null(boot_file_find("api.tokens"));
	assert_true(api_enabled());
	assert_non_null(api_cert());
	assert_int_equal(api_tokens_lookup(api_token_table(), TOKEN_A, strlen(TOKEN_A)),
			 API_ROLE_ADMIN);
	assert_int_equal(api_port(), 443);
	/* A second call: nothing printed, nothing changed. */
	host_console_reset();
	assert_int_equal(api_files_load(), 0);
	assert_string_equal(host_console_text(), "");
	assert_true(api_enabled());
}

static void api_files_rsa_pkcs1_and_a_bad_token_line(void **state)
{
	static const char toks[] = TOKEN_A " admin\ntiny read\n" TOKEN_B " write\n";

	(void)state;
	add_fixture("api.crt", "server-rsa.crt");
	add_fixture("api.key", "server-rsa-pkcs1.key");
	add("api.tokens", toks, strlen(toks));
	assert_int_equal(load(), 0);
	assert_true(host_console_has("api: certificate CN=pmemk-rsa.test (RSA 2048), valid until"));
	assert_true(host_console_has("api: api.tokens line 2: "));
	assert_true(host_console_has("api: api.tokens line 3: "));
	assert_true(host_console_has("api: 1 token (1 admin, 0 read)"));
	assert_false(host_console_has("tiny"));
	assert_false(host_console_has("monitoring"));
}

/* Each way the API stays off: its line, and both secret files wiped all the same. */
static void expect_off(int err, const char *line)
{
	assert_int_equal(load(), err);
	if (!host_console_has(line))
		fail_msg("no \"%s\" in: %s", line, host_console_text());
	assert_false(api_enabled());
	assert_null(api_cert());
	assert_null(api_token_table());
	assert_null(boot_file_find("api.key"));
	assert_null(boot_file_find("api.tokens"));
	assert_false(host_console_has("PRIVATE"));
	assert_false(host_console_has("Zm9v"));
}

static void api_files_without_certificate_off_and_secrets_wiped(void **state)
{
	(void)state;
	add_fixture("api.key", "server-ec.key");
	add("api.tokens", tokens_good, strlen(tokens_good));
	expect_off(-ENOENT, "api: no certificate (boot file api.crt): the HTTPS API is off");
	assert_true(wiped(0) && wiped(1));
}

static void api_files_nothing_given_is_one_line(void **state)
{
	(void)state;
	expect_off(-ENOENT, "api: no certificate (boot file api.crt): the HTTPS API is off\n");
	assert_ptr_equal(strchr(host_console_text(), '\n') + 1,
			 host_console_text() + strlen(host_console_text()));	/* one line */
}

static void api_files_without_key_off(void **state)
{
	(void)state;
	add_fixture("api.crt", "server-ec.crt");
	add("api.tokens", tokens_good, strlen(tokens_good));
	expect_off(-ENOENT, "api: a certificate but no private key (boot file api.key): the HTTPS API is off");
	assert_true(wiped(1));
}

static void api_files_mismatched_key_off(void **state)
{
	(void)state;
	add_fixture("api.crt", "server-ec.crt");
	add_fixture("api.key", "other-ec.key");
	add("api.tokens", tokens_good, strlen(tokens_good));
	expect_off(-EINVAL, "api: api.crt with api.key refused: the private key does not match the "
			    "certificate: the HTTPS API is off");
	assert_true(wiped(1) && wiped(2));
}

static void api_files_encrypted_key_off(void **state)
{
	(void)state;
	add_fixture("api.crt", "server-ec.crt");
	add_fixture("api.key", "encrypted-pkcs8.key");
	add("api.tokens", tokens_good, strlen(tokens_good));
	expect_off(-EINVAL, "refused: the private key is encrypted (unencrypted keys only): the HTTPS API is off");
	assert_true(wiped(1));
}

static void api_files_without_tokens_off(void **state)
{
	static const char none[] = "# nobody yet\n";

	(void)state;
	add_fixture("api.crt", "server-ec.crt");
	add_fixture("api.key", "server-ec.key");
	expect_off(-ENOENT, "api: no tokens (boot file api.tokens): nobody could use it: the HTTPS API is off");
	assert_true(wiped(1));
	setup(state);
	add_fixture("api.crt", "server-ec.crt");
	add_fixture("api.key", "server-ec.key");
	add("api.tokens", none, strlen(none));
	expect_off(-EINVAL, "api: no usable token in api.tokens: the HTTPS API is off");
}

/* api.* fails closed: a mistyped name turns the API off. */
static void api_files_unknown_parameter_off(void **state)
{
	(void)state;
	host_console_reset();
	params_parse("api.prot=8443");
	add_fixture("api.crt", "server-ec.crt");
	add_fixture("api.key", "server-ec.key");
	add("api.tokens", tokens_good, strlen(tokens_good));
	expect_off(-EINVAL, "api: the command line's api.prot is unknown or was refused (api.* fails "
			    "closed): the HTTPS API is off");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(api_files_cert_and_tokens_loaded_wiped_never_printed, setup),
		cmocka_unit_test_setup(api_files_rsa_pkcs1_and_a_bad_token_line, setup),
		cmocka_unit_test_setup(api_files_without_certificate_off_and_secrets_wiped, setup),
		cmocka_unit_test_setup(api_files_nothing_given_is_one_line, setup),
		cmocka_unit_test_setup(api_files_without_key_off, setup),
		cmocka_unit_test_setup(api_files_mismatched_key_off, setup),
		cmocka_unit_test_setup(api_files_encrypted_key_off, setup),
		cmocka_unit_test_setup(api_files_without_tokens_off, setup),
		cmocka_unit_test_setup(api_files_unknown_parameter_off, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
