/* Host tests: command-line splitting (Linux quoting rules), parse_size and param_choice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include "host.h"
#include "params.h"

static void split(const char *line, const char **want, int nwant)
{
	char buf[256], *args = buf, *param, *val;
	char got[16][128];
	int n = 0;

	strcpy(buf, line);
	while ((args = cmdline_next_arg(args, &param, &val))) {
		assert_true(n < 16);
		snprintf(got[n], sizeof(got[n]), "%s|%s", param, val ? val : "(null)");
		n++;
	}
	assert_int_equal(n, nwant);
	for (int i = 0; i < n; i++)
		assert_string_equal(got[i], want[i]);
}

static void cmdline_plain_key_values(void **state)
{
	(void)state;
	const char *want[] = { "memmap|256M!768M", "quiet|(null)", "a|" };
	split("  memmap=256M!768M quiet   a= ", want, 3);
}

static void cmdline_quoted_value(void **state)
{
	(void)state;
	const char *want[] = { "run|e820; meminfo", "x|1" };
	split("run=\"e820; meminfo\" x=1", want, 2);
}

static void cmdline_quoted_whole_parameter(void **state)
{
	(void)state;
	/* GRUB hands over "run=a; b" for an argument with spaces. */
	const char *want[] = { "run|a; b", "ktest|all" };
	split("\"run=a; b\" ktest=all", want, 2);
}

static void cmdline_unterminated_quote_runs_to_end(void **state)
{
	(void)state;
	const char *want[] = { "run|a b c" };
	split("run=\"a b c", want, 1);
}

static void cmdline_empty(void **state)
{
	(void)state;
	split("", NULL, 0);
	split("    ", NULL, 0);
}

static void parse_size_suffixes(void **state)
{
	(void)state;
	u64 v;
	const char *end;

	assert_int_equal(parse_size("256M", &v, &end), 0);
	assert_int_equal(v, 256ULL << 20);
	assert_int_equal(*end, 0);
	assert_int_equal(parse_size("0x40000000", &v, NULL), 0);
	assert_int_equal(v, 0x40000000ULL);
	assert_int_equal(parse_size("4k!", &v, &end), 0);
	assert_int_equal(v, 4096);
	assert_string_equal(end, "!");
	assert_int_equal(parse_size("1T", &v, NULL), 0);
	assert_int_equal(v, 1ULL << 40);
	assert_int_equal(parse_size("010", &v, NULL), 0);
	assert_int_equal(v, 8);	/* leading 0: octal, as memparse */
}

static void parse_size_rejects_garbage(void **state)
{
	(void)state;
	u64 v;

	assert_int_not_equal(parse_size("", &v, NULL), 0);
	assert_int_not_equal(parse_size("M", &v, NULL), 0);
	assert_int_not_equal(parse_size("-1", &v, NULL), 0);
	assert_int_not_equal(parse_size("99999999999999999999", &v, NULL), 0);
	assert_int_not_equal(parse_size("17179869184G", &v, NULL), 0);	/* 2^64 */
}

/* One word of a list: its index; a bare name as the setter says; else one line naming them all. */
static void param_choice_words(void **state)
{
	static const char *const two[] = { "on", "off", NULL };
	static const char *const three[] = { "diff", "rewrite", "keep", NULL };

	(void)state;
	assert_int_equal(param_choice("x", "off", two, -1), 1);
	assert_int_equal(param_choice("x", NULL, two, 0), 0);
	host_console_reset();
	assert_int_equal(param_choice("nd.labels", NULL, two, -1), -EINVAL);
	assert_true(host_console_has("nd.labels=: expected on or off\n"));
	host_console_reset();
	assert_int_equal(param_choice("memmap_pmem", "Diff", three, -1), -EINVAL);
	assert_true(host_console_has("memmap_pmem=Diff: expected diff, rewrite or keep\n"));
	assert_int_equal(param_choice("x", "on ", two, -1), -EINVAL);	/* no trailing garbage */
}

static int t_mode = 7;
static const char *t_name;
KERNEL_PARAM_CHOICE("t.mode", t_mode, 1, "a test's choice", "slow", "fast");
KERNEL_PARAM_STRING("t.name", t_name, "a name", "a test's string");
static u64 t_reps = 5;
KERNEL_PARAM_U64("t.reps", t_reps, 1, 15, "a test's number");

/* The table's own kinds through params_parse: the index, the string; a refusal changes nothing. */
static void param_kinds_through_the_command_line(void **state)
{
	(void)state;
	host_console_reset();
	assert_int_equal(params_parse("t.mode=slow t.name=pmem0"), 0);
	assert_int_equal(t_mode, 0);
	assert_string_equal(t_name, "pmem0");
	/* Values point into the one command line: a second parse overwrites it, the pointer stays. */
	const char *kept = t_name;
	assert_int_equal(params_parse("t.mode"), 0);	/* bare: the word it means */
	assert_int_equal(t_mode, 1);
	assert_int_equal(params_parse("t.mode=medium t.name= t.name"), 3);
	assert_int_equal(t_mode, 1);
	assert_ptr_equal(t_name, kept);
	assert_true(host_console_has("t.mode=medium: expected slow or fast\n"));
	assert_true(host_console_has("t.name=: needs a name\n"));
	assert_int_equal(params_parse("t.reps=0x0f"), 0);
	assert_int_equal(t_reps, 15);
	host_console_reset();
	assert_int_equal(params_parse("t.reps=16 t.reps=0 t.reps=3x t.reps"), 4);
	assert_int_equal(t_reps, 15);
	assert_true(host_console_has("t.reps=3x: expected a number from 1 to 15\n"));
	assert_true(host_console_has("t.reps=: expected a number from 1 to 15\n"));
}

/* A family that fails closed (nbd.*): unknown names and refused values mark it; others do not. */
static const char *f_bad;
KERNEL_PARAM_FAMILY("f.", f_bad);
static u64 f_level = 1;
KERNEL_PARAM_U64("f.level", f_level, 1, 3, "a guarded number");

static void param_family_fails_closed(void **state)
{
	(void)state;
	host_console_reset();
	assert_int_equal(params_parse("f.level=2 fx.other=1 t.mode=fast"), 0);
	assert_null(f_bad);	/* fx. is not f.'s, and is only ignored */
	assert_true(host_console_has("cmdline: unknown parameter 'fx.other' ignored\n"));
	assert_int_equal(params_parse("f.levl=3 f.level=9"), 2);
	assert_string_equal(f_bad, "f.levl");	/* the first one named */
	assert_true(host_console_has("cmdline: unknown parameter 'f.levl' refused (f.* fails closed)\n"));
	assert_int_equal(f_level, 2);
	f_bad = NULL;
	assert_int_equal(params_parse("f.level=0"), 1);	/* a refused value marks it too */
	assert_string_equal(f_bad, "f.level");
	f_bad = NULL;
	assert_int_equal(params_parse("f."), 1);	/* the prefix itself is no parameter */
	assert_string_equal(f_bad, "f.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cmdline_plain_key_values),
		cmocka_unit_test(cmdline_quoted_value),
		cmocka_unit_test(cmdline_quoted_whole_parameter),
		cmocka_unit_test(cmdline_unterminated_quote_runs_to_end),
		cmocka_unit_test(cmdline_empty),
		cmocka_unit_test(parse_size_suffixes),
		cmocka_unit_test(parse_size_rejects_garbage),
		cmocka_unit_test(param_choice_words),
		cmocka_unit_test(param_kinds_through_the_command_line),
		cmocka_unit_test(param_family_fails_closed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
