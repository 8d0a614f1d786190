/*
 * Host tests: Prometheus's text format (lib/metrics.c): label values and
 * HELP texts escaped as the format says, fixed-point values, a line too
 * long left out, the registry walked by `metrics`; and the compact layout
 * of the console's JSON emitter (lib/nd_json.c) that the API's views use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "host.h"
#include "metrics.h"
#include "nd_json.h"
#include "shell.h"

/* ---- escaping ---- */

static void a_label_value_escapes_backslash_quote_and_newline(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(metric_escape(out, sizeof(out), "a\\b\"c\nd", true), 10);
	assert_string_equal(out, "a\\\\b\\\"c\\nd");
	/* Other bytes, UTF-8 included, as they are. */
	assert_int_equal(metric_escape(out, sizeof(out), "t\tx\xc3\xa9", true), 5);
	assert_string_equal(out, "t\tx\xc3\xa9");
}

static void a_help_text_leaves_quotes_alone(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(metric_escape(out, sizeof(out), "say \"hi\"\\\n", false), 12);
	assert_string_equal(out, "say \"hi\"\\\\\\n");
}

static void escaping_cuts_like_snprintf(void **state)
{
	char out[6];

	(void)state;
	/* "\\\"" is 4 bytes and only 5 fit: cut, NUL-terminated, the whole length returned. */
	assert_int_equal(metric_escape(out, sizeof(out), "ab\"\"", true), 6);
	assert_string_equal(out, "ab\\\"\\");
	assert_int_equal(metric_escape(NULL, 0, "ab", true), 2);
	assert_int_equal(metric_escape(out, 1, "ab", true), 2);
	assert_string_equal(out, "");
}

/* ---- samples ---- */

static void a_sample_without_labels_is_name_and_value(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(metric_format_sample(out, sizeof(out), "pmemk_x_total", METRIC_NO_LABELS, 42, 0),
			 strlen("pmemk_x_total 42\n"));
	assert_string_equal(out, "pmemk_x_total 42\n");
}

static void labels_are_in_order_and_escaped(void **state)
{
	char out[256];

	(void)state;
	metric_format_sample(out, sizeof(out), "pmemk_nbd_client_requests_total",
			     METRIC_LABELS({ "export", "pm\"em\\1\n" }, { "client", "3" },
					   { "remote", "10.0.2.2:40000" }, { "op", "read" }),
			     7, 0);
	assert_string_equal(out, "pmemk_nbd_client_requests_total{export=\"pm\\\"em\\\\1\\n\","
				 "client=\"3\",remote=\"10.0.2.2:40000\",op=\"read\"} 7\n");
	/* A label without a value (NULL) is empty, which Prometheus reads as absent. */
	metric_format_sample(out, sizeof(out), "m", METRIC_LABELS({ "map", NULL }), 1, 0);
	assert_string_equal(out, "m{map=\"\"} 1\n");
}

static void values_are_fixed_point(void **state)
{
	char out[64];

	(void)state;
	metric_format_sample(out, sizeof(out), "s", METRIC_NO_LABELS, 12345678901ull, 9);
	assert_string_equal(out, "s 12.345678901\n");
	metric_format_sample(out, sizeof(out), "s", METRIC_NO_LABELS, 1, 9);
	assert_string_equal(out, "s 0.000000001\n");
	metric_format_sample(out, sizeof(out), "r", METRIC_NO_LABELS, 1000000, 6);
	assert_string_equal(out, "r 1.000000\n");
	metric_format_sample(out, sizeof(out), "r", METRIC_NO_LABELS, 437500, 6);
	assert_string_equal(out, "r 0.437500\n");
	metric_format_sample(out, sizeof(out), "b", METRIC_NO_LABELS, ~0ull, 0);
	assert_string_equal(out, "b 18446744073709551615\n");
	/* More than 9 decimals: 9. */
	metric_format_sample(out, sizeof(out), "s", METRIC_NO_LABELS, 5, 12);
	assert_string_equal(out, "s 0.000000005\n");
}

static void a_sample_cut_returns_its_whole_length(void **state)
{
	char out[8];

	(void)state;
	assert_int_equal(metric_format_sample(out, sizeof(out), "abcdef", METRIC_NO_LABELS, 123, 0),
			 strlen("abcdef 123\n"));
	assert_string_equal(out, "abcdef ");
}

/* ---- printing ---- */

static void a_family_is_help_then_type(void **state)
{
	(void)state;
	host_console_reset();
	metric_family("pmemk_up", METRIC_GAUGE, "Up.\nReally \"up\".");
	metric_family("pmemk_n_total", METRIC_COUNTER, "N.");
	assert_string_equal(host_console_text(), "# HELP pmemk_up Up.\\nReally \"up\".\n"
						 "# TYPE pmemk_up gauge\n"
						 "# HELP pmemk_n_total N.\n"
						 "# TYPE pmemk_n_total counter\n");
}

static void a_line_too_long_is_left_out_with_a_comment(void **state)
{
	char big[METRIC_LINE_MAX];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	host_console_reset();
	metric_sample("m", METRIC_LABELS({ "l", big }), 1, 0);
	metric_sample("m", METRIC_LABELS({ "l", "short" }), 2, 0);
	assert_string_equal(host_console_text(), "# m: a sample longer than 511 bytes left out\n"
						 "m{l=\"short\"} 2\n");
}

/* ---- the registry and the command ---- */

static void test_source_a(void)
{
	metric_single("t_a", METRIC_GAUGE, "A.", 1, 0);
}
METRICS_SOURCE(test_source_a);

static void test_source_b(void)
{
	metric_family("t_b_total", METRIC_COUNTER, "B.");
	metric_sample("t_b_total", METRIC_LABELS({ "k", "v" }), 2, 0);
}
METRICS_SOURCE(test_source_b);

static void metrics_walks_every_source(void **state)
{
	(void)state;
	assert_int_equal(host_shell("metrics"), 0);
	const char *t = host_console_text();
	const char *a = strstr(t, "# HELP t_a A.\n# TYPE t_a gauge\nt_a 1\n");
	const char *b = strstr(t, "# HELP t_b_total B.\n# TYPE t_b_total counter\nt_b_total{k=\"v\"} 2\n");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(host_shell_refused("metrics x", "metrics: unexpected argument 'x'"));
}

/* ---- the compact JSON layout ---- */

static void compact_json_is_one_line(void **state)
{
	struct nd_json j = { .first = true, .compact = true };

	(void)state;
	host_console_reset();
	nd_json_open(&j, NULL, '{');
	nd_json_u64(&j, "n", 3);
	nd_json_str(&j, "s", "a\"b\\c\n");
	nd_json_open(&j, "l", '[');
	nd_json_str(&j, NULL, "x");
	nd_json_bool(&j, NULL, false);
	nd_json_close(&j, ']');
	nd_json_open(&j, "e", '[');
	nd_json_close(&j, ']');
	nd_json_open(&j, "o", '{');
	nd_json_int(&j, "i", -1);
	nd_json_close(&j, '}');
	nd_json_close(&j, '}');
	assert_string_equal(host_console_text(),
			    "{\"n\":3,\"s\":\"a\\\"b\\\\c\\u000a\",\"l\":[\"x\",false],\"e\":[],"
			    "\"o\":{\"i\":-1}}\n");
}

static void pretty_json_is_still_json_c_s(void **state)
{
	struct nd_json j = { .first = true };

	(void)state;
	host_console_reset();
	nd_json_open(&j, NULL, '{');
	nd_json_u64(&j, "n", 3);
	nd_json_open(&j, "l", '[');
	nd_json_str(&j, NULL, "x");
	nd_json_close(&j, ']');
	nd_json_close(&j, '}');
	assert_string_equal(host_console_text(), "{\n  \"n\":3,\n  \"l\":[\n    \"x\"\n  ]\n}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_label_value_escapes_backslash_quote_and_newline),
		cmocka_unit_test(a_help_text_leaves_quotes_alone),
		cmocka_unit_test(escaping_cuts_like_snprintf),
		cmocka_unit_test(a_sample_without_labels_is_name_and_value),
		cmocka_unit_test(labels_are_in_order_and_escaped),
		cmocka_unit_test(values_are_fixed_point),
		cmocka_unit_test(a_sample_cut_returns_its_whole_length),
		cmocka_unit_test(a_family_is_help_then_type),
		cmocka_unit_test(a_line_too_long_is_left_out_with_a_comment),
		cmocka_unit_test(metrics_walks_every_source),
		cmocka_unit_test(compact_json_is_one_line),
		cmocka_unit_test(pretty_json_is_still_json_c_s),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
