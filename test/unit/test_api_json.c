/* Host tests: the HTTP API's request bodies and JSON strings (net/api_json.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "api_json.h"
#include "http_request.h"

static struct api_ns_create ns;
static char why[256];
static char spec[API_EXPORT_SPEC_MAX + 1];

static int create(const char *body)
{
	why[0] = '\0';
	return api_json_ns_create(body, strlen(body), &ns, why, sizeof(why));
}

static int export(const char *body)
{
	why[0] = '\0';
	return api_json_export(body, strlen(body), spec, sizeof(spec), why, sizeof(why));
}

static void assert_create_refused(const char *body, const char *reason)
{
	if (create(body) != -EINVAL || strcmp(why, reason))
		fail_msg("%s: got '%s', want '%s'", body, why, reason);
	assert_string_equal(ns.region, "");
	assert_int_equal(ns.size, 0);
}

static void assert_export_refused(const char *body, const char *reason)
{
	if (export(body) != -EINVAL || strcmp(why, reason))
		fail_msg("%s: got '%s', want '%s'", body, why, reason);
	assert_string_equal(spec, "");
}

static void json_create_new_namespace(void **state)
{
	(void)state;
	assert_int_equal(create(" {\"mode\":\"fsdax\",\"map\":\"dev\",\"size\":\"1G\",\"align\":\"2M\","
				"\n\t\"name\":\"db\",\"region\":\"region0\"}\r\n"),
			 0);
	assert_string_equal(ns.region, "region0");
	assert_string_equal(ns.ns, "");
	assert_string_equal(ns.name, "db");
	assert_int_equal(ns.size, 1ull << 30);
	assert_int_equal(ns.req.mode, PFN_MODE_PMEM);
	assert_false(ns.req.devdax);
	assert_int_equal(ns.req.align, 2ull << 20);
	assert_false(ns.req.force);
	/* numbers for size and align; the defaults (fsdax, dev, 2M) */
	assert_int_equal(create("{\"region\":\"0\",\"size\":16777216,\"align\":4096}"), 0);
	assert_int_equal(ns.size, 16ull << 20);
	assert_int_equal(ns.req.align, 4096);
	assert_int_equal(ns.req.mode, PFN_MODE_PMEM);
	assert_int_equal(create("{\"region\":\"region1\"}"), 0);
	assert_int_equal(ns.size, 0);
	assert_int_equal(ns.req.align, 2ull << 20);
}

static void json_create_reconfigure_and_modes(void **state)
{
	(void)state;
	assert_int_equal(create("{\"namespace\":\"namespace0.0\",\"mode\":\"devdax\",\"map\":\"mem\","
				"\"force\":true}"),
			 0);
	assert_string_equal(ns.ns, "namespace0.0");
	assert_true(ns.req.devdax);
	assert_int_equal(ns.req.mode, PFN_MODE_RAM);
	assert_true(ns.req.force);
	assert_int_equal(create("{\"namespace\":\"namespace0.0\",\"mode\":\"sector\","
				"\"sector_size\":4096}"),
			 0);
	assert_true(ns.req.sector);
	assert_int_equal(ns.req.lbasize, 4096);
	assert_int_equal(create("{\"namespace\":\"namespace0.0\",\"mode\":\"raw\",\"force\":false}"), 0);
	assert_int_equal(ns.req.mode, PFN_MODE_NONE);
	assert_false(ns.req.sector);
}

/* The console's own lines, from the console's own parsers. */
static void json_create_refused_as_the_console_refuses(void **state)
{
	(void)state;
	assert_create_refused("{\"region\":\"0\",\"mode\":\"bogus\"}",
			      "mode 'bogus': expected fsdax, devdax, sector or raw");
	assert_create_refused("{\"region\":\"0\",\"map\":\"disk\"}", "map 'disk': expected mem or dev");
	assert_create_refused("{\"region\":\"0\",\"mode\":\"sector\",\"map\":\"mem\"}",
			      "map 'mem': sector mode has no -M");
	assert_create_refused("{\"region\":\"0\",\"align\":\"3M\"}", "align '3M': expected 4K, 2M or 1G");
	assert_create_refused("{\"region\":\"0\",\"size\":\"16Mx\"}",
			      "size '16Mx': not a size (a number, then K, M, G, T, P or E)");
	assert_create_refused("{\"region\":\"0\",\"size\":0}", "size '0': must be at least 1");
	assert_create_refused("{\"region\":\"0\",\"size\":\"99999999999999999999\"}",
			      "size '99999999999999999999': too large");
	assert_create_refused("{\"namespace\":\"namespace0.0\",\"sector_size\":512}",
			      "-l is for -m sector (other modes use the namespace's 512)");
	assert_create_refused("{\"namespace\":\"namespace0.0\",\"mode\":\"sector\",\"sector_size\":0}",
			      "sector size '0': not in 1..4294967295");
	assert_create_refused("{\"namespace\":\"namespace0.0\",\"mode\":\"sector\","
			      "\"sector_size\":4294967296}",
			      "sector size '4294967296': not in 1..4294967295");
	assert_create_refused("{\"mode\":\"fsdax\"}",
			      "give -e NS (reconfigure) or -r REGION [-s SIZE] [-n NAME] (new)");
	assert_create_refused("{\"namespace\":\"namespace0.0\",\"size\":\"16M\"}",
			      "give -e NS (reconfigure) or -r REGION [-s SIZE] [-n NAME] (new)");
	assert_create_refused("{\"namespace\":\"namespace0.0\",\"region\":\"0\"}",
			      "give -e NS (reconfigure) or -r REGION [-s SIZE] [-n NAME] (new)");
}

static void json_strict_types_keys_and_strings(void **state)
{
	(void)state;
	assert_create_refused("{\"region\":\"0\",\"colour\":\"red\"}", "unknown key 'colour'");
	assert_create_refused("{\"region\":\"0\",\"a-very-long-key-indeed\":1}", "unknown key");
	assert_create_refused("{\"region\":\"0\",\"region\":\"1\"}", "'region' given twice");
	assert_create_refused("{\"region\":0}", "'region' must be a string");
	assert_create_refused("{\"region\":\"0\",\"force\":1}", "'force' must be true or false");
	assert_create_refused("{\"region\":\"0\",\"force\":\"true\"}", "'force' must be true or false");
	assert_create_refused("{\"region\":\"0\",\"force\":tru}", "'force' must be true or false");
	assert_create_refused("{\"region\":\"0\",\"size\":-1}", "'size' must be a plain number");
	assert_create_refused("{\"region\":\"0\",\"size\":1.5}", "'size' must be a plain number");
	assert_create_refused("{\"region\":\"0\",\"size\":1e9}", "'size' must be a plain number");
	assert_create_refused("{\"region\":\"0\",\"size\":0100}", "'size' must be a plain number");
	assert_create_refused("{\"region\":\"0\",\"size\":{}}", "'size' must be a string or a number");
	assert_create_refused("{\"region\":\"0\",\"size\":[1]}", "'size' must be a string or a number");
	assert_create_refused("{\"region\":\"0\",\"size\":null}", "'size' must be a plain number");
	assert_create_refused("{\"region\":\"re\\\"gion\"}", "'region' holds an escape or a control character");
	assert_create_refused("{\"region\":\"re\tgion\"}", "'region' holds an escape or a control character");
	assert_create_refused("{\"region\":\"region0123456789012345678\"}",
			      "'region' is longer than 23 characters");
	char body[256];
	snprintf(body, sizeof(body), "{\"region\":\"0\",\"name\":\"%064d\"}", 0);
	assert_int_equal(create(body), 0);
	snprintf(body, sizeof(body), "{\"region\":\"0\",\"name\":\"%065d\"}", 0);
	assert_create_refused(body, "'name' is longer than 64 characters");
}

static void json_not_an_object(void **state)
{
	(void)state;
	assert_create_refused("", "body is not a JSON object");
	assert_create_refused("  ", "body is not JSON");
	assert_create_refused("[]", "body is not a JSON object");
	assert_create_refused("\"region\"", "body is not a JSON object");
	assert_create_refused("{\"region\":\"0\"", "body is not JSON: it ends too soon");
	assert_create_refused("{\"region\":\"0\"}x", "body is not JSON");
	assert_create_refused("{\"region\":\"0\"}{}", "something before or after the JSON object");
	assert_create_refused("x{\"region\":\"0\"}", "body is not JSON");
	assert_create_refused("{\"region\":\"0\",}", "body is not JSON");
	assert_create_refused("{,\"region\":\"0\"}", "body is not JSON");
	assert_create_refused("{\"region\" \"0\"}", "body is not JSON");
	assert_create_refused("{\"region\":\"0\" \"mode\":\"raw\"}", "body is not JSON");
	assert_create_refused("{\"region\":\"0\",,\"mode\":\"raw\"}", "body is not JSON");
	assert_create_refused("{\"region\"::\"0\"}", "body is not JSON");
	assert_int_equal(api_json_ns_create("{\"region\":\"0\"}\0", 15, &ns, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "body is not a JSON object");
	char many[512] = "{\"region\":\"0\",\"size\":[";
	for (int i = 0; i < 40; i++)
		strcat(many, i ? ",1" : "1");
	strcat(many, "]}");
	assert_create_refused(many, "body has more than 32 JSON tokens");
	assert_int_equal(api_json_ns_create("{}", HTTP_BODY_MAX + 1, &ns, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "body larger than 4096 bytes");
}

static void json_export_bodies(void **state)
{
	(void)state;
	assert_int_equal(export("{\"device\":\"pmem1\"}"), 0);
	assert_string_equal(spec, "pmem1");
	assert_int_equal(export("{\"device\":\"pmem1\",\"ro\":true}"), 0);
	assert_string_equal(spec, "pmem1:ro");
	assert_int_equal(export("{\"device\":\"pmem2\",\"ro\":false,\"identities\":[\"alice\", \"bob\"]}"),
			 0);
	assert_string_equal(spec, "pmem2@alice+bob");
	assert_int_equal(export("{\"identities\":[\"carol\"],\"ro\":true,\"device\":\"pmem2\"}"), 0);
	assert_string_equal(spec, "pmem2:ro@carol");
	assert_int_equal(export("{\"device\":\"pmem2\",\"identities\":[]}"), 0);
	assert_string_equal(spec, "pmem2");
}

/* Refusals, nbd-export's own lines among them. */
static void json_export_refused(void **state)
{
	(void)state;
	assert_export_refused("{}", "'device' is missing");
	assert_export_refused("{\"device\":\"\"}", "not a device name");
	assert_export_refused("{\"device\":\"pmem1@eve\"}", "not a device name");
	assert_export_refused("{\"device\":\"pmem1:ro\"}", "not a device name");
	assert_export_refused("{\"device\":\"pmem1\",\"ro\":\"yes\"}", "'ro' must be true or false");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":\"alice\"}",
			      "'identities' must be a list of strings");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[1]}", "'identities' must be a string");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[[\"a\"]]}",
			      "'identities' must be a string");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[\"a\",]}", "body is not JSON");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[\"a\" \"b\"]}", "body is not JSON");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[\"a+b\"]}",
			      "an identity may hold only letters, digits, '.', '_' and '-'");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[\"a b\"]}",
			      "an identity may hold only letters, digits, '.', '_' and '-'");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[\"\"]}", "an empty identity");
	assert_export_refused("{\"device\":\"pmem1\",\"identities\":[\"1\",\"2\",\"3\",\"4\",\"5\","
			      "\"6\",\"7\",\"8\",\"9\"]}",
			      "more than 8 identities");
	assert_export_refused("{\"device\":\"pmem1\",\"mode\":\"ro\"}", "unknown key 'mode'");
	char body[256];
	snprintf(body, sizeof(body), "{\"device\":\"pmem1\",\"identities\":[\"%063d\"]}", 0);
	assert_int_equal(export(body), 0);
	snprintf(body, sizeof(body), "{\"device\":\"pmem1\",\"identities\":[\"%064d\"]}", 0);
	assert_export_refused(body, "'identities' is longer than 63 characters");
}

static void json_escape_strings(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(api_json_escape(out, sizeof(out), "plain name"), 10);
	assert_string_equal(out, "plain name");
	assert_int_equal(api_json_escape(out, sizeof(out), "mode 'a\"b\\c'\n\x01\x1f\x7f\xc3\xa9"), 35);
	assert_string_equal(out, "mode 'a\\\"b\\\\c'\\u000a\\u0001\\u001f\x7f\xc3\xa9");
	/* cut before an escape that would not fit whole; the whole length returned */
	assert_int_equal(api_json_escape(out, 4, "ab\"c"), 5);
	assert_string_equal(out, "ab");
	assert_int_equal(api_json_escape(out, 5, "ab\"c"), 5);
	assert_string_equal(out, "ab\\\"");
	assert_int_equal(api_json_escape(out, 1, "abc"), 3);
	assert_string_equal(out, "");
	assert_int_equal(api_json_escape(NULL, 0, "abc"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_create_new_namespace),
		cmocka_unit_test(json_create_reconfigure_and_modes),
		cmocka_unit_test(json_create_refused_as_the_console_refuses),
		cmocka_unit_test(json_strict_types_keys_and_strings),
		cmocka_unit_test(json_not_an_object),
		cmocka_unit_test(json_export_bodies),
		cmocka_unit_test(json_export_refused),
		cmocka_unit_test(json_escape_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
