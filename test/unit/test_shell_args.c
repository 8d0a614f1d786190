/*
 * Host tests: the shell's dispatcher (lib/shell.c: argv splitting, lookup,
 * the lock policy) and the argument helpers every command parses with
 * (lib/shell_args.c), through commands this file registers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "printk.h"
#include "shell.h"

/* ---- a lock for the dispatcher to take, and commands to run ---- */

static int lock_depth, lock_calls;

static void fake_lock(void)
{
	lock_depth++;
	lock_calls++;
}

static bool fake_trylock(void)
{
	fake_lock();
	return true;
}

static void fake_unlock(void)
{
	lock_depth--;
}
SHELL_LOCK(fake_lock, fake_trylock, fake_unlock);

static int depth_seen;

static int cmd_locked(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	depth_seen = lock_depth;
	return 7;
}
SHELL_COMMAND(SHELL_SYSTEM, "t-locked", cmd_locked, "t-locked", "returns 7 under the lock");

static int cmd_unlocked(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	depth_seen = lock_depth;
	return 0;
}
SHELL_COMMAND_CONCURRENT(SHELL_SYSTEM, "t-unlocked", cmd_unlocked, "t-unlocked",
			 "runs without the lock");

/* N [M]: N in 1..100, M any u64; prints them. */
static int cmd_num(int argc, char **argv)
{
	u32 n;
	u64 m = 0;

	if (shell_arg_u32(argv[0], "n", shell_arg(argc, argv, 1), 1, 100, &n) ||
	    (argc > 2 && shell_arg_u64(argv[0], "m", argv[2], 0, ~0ull, &m)) ||
	    shell_args_max(argc, argv, 3))
		return -EINVAL;
	kprintf("n=%u m=%llu\n", n, m);
	return 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "t-num", cmd_num, "t-num N [M]", "parse numbers");

/* [-v|--verbose] [-s SIZE] [-m a|b|c] NAME */
static int cmd_opts(int argc, char **argv)
{
	static const char *const modes[] = { "a", "b", "c", NULL };
	const char *name = NULL, *v;
	bool verbose = false;
	u64 size = 0;
	int mode = 0;

	for (int i = 1; i < argc; i++) {
		if (shell_arg_flag(argv[i], "-v", "--verbose")) {
			verbose = true;
		} else if (shell_arg_flag(argv[i], "-s", NULL)) {
			if (!(v = shell_arg_value(argc, argv, &i)) ||
			    shell_arg_size(argv[0], "size", v, 1, 1ull << 40, &size))
				return -EINVAL;
		} else if (shell_arg_flag(argv[i], "-m", NULL)) {
			if (!(v = shell_arg_value(argc, argv, &i)) ||
			    (mode = shell_arg_keyword(argv[0], "mode", v, modes)) < 0)
				return -EINVAL;
		} else if (name || argv[i][0] == '-') {
			return shell_arg_unexpected(argv[0], argv[i]);
		} else {
			name = argv[i];
		}
	}
	if (shell_arg_name(argv[0], "device", name))
		return -EINVAL;
	kprintf("%s verbose=%d size=%llu mode=%s\n", name, verbose, size, modes[mode]);
	return 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "t-opts", cmd_opts, "t-opts [-v] [-s SIZE] [-m a|b|c] NAME",
	      "parse options");

/* ---- the parsers ---- */

static void parse_u64_takes_c_numbers_only(void **state)
{
	static const char *const bad[] = { "",	 "x",  "80x", " 1", "1 ",  "+1",
					   "-1", "0x", "0xg", "08", "1.5", "1K" };
	u64 v;

	(void)state;
	assert_int_equal(shell_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(shell_parse_u64("80", &v), 0);
	assert_int_equal(v, 80);
	assert_int_equal(shell_parse_u64("0x1F", &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(shell_parse_u64("010", &v), 0);	/* C's octal, as strtoull */
	assert_int_equal(v, 8);
	assert_int_equal(shell_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == ~0ull);
	assert_int_equal(shell_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(shell_parse_u64(NULL, &v), -EINVAL);
	v = 5;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(shell_parse_u64(bad[i], &v), -EINVAL);
	assert_int_equal(v, 5);	/* untouched when refused */
}

static void parse_size_takes_memparse_suffixes(void **state)
{
	static const char *const bad[] = { "", "K", "1Q", "1KB", "1K ", " 1K", "-1K", "+4M" };
	u64 v;

	(void)state;
	assert_int_equal(shell_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(shell_parse_size("4K", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(shell_parse_size("2m", &v), 0);
	assert_int_equal(v, 2 * MiB);
	assert_int_equal(shell_parse_size("0x10G", &v), 0);
	assert_int_equal(v, 16 * GiB);
	assert_int_equal(shell_parse_size("15E", &v), 0);
	assert_int_equal(shell_parse_size("16E", &v), -ERANGE);
	assert_int_equal(shell_parse_size("99999999999999999999", &v), -ERANGE);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(shell_parse_size(bad[i], &v), -EINVAL);
}

/* ---- the dispatcher ---- */

static void exec_splits_on_blanks_and_groups_quotes(void **state)
{
	(void)state;
	assert_int_equal(host_shell("echo  a\tb   c "), 0);
	assert_string_equal(host_console_text(), "a b c\n");
	assert_int_equal(host_shell("echo \"a  b\" c"), 0);
	assert_string_equal(host_console_text(), "a  b c\n");
	assert_int_equal(host_shell("   "), 0);
	assert_string_equal(host_console_text(), "");
}

static void exec_refuses_unknown_commands_and_long_lines(void **state)
{
	char line[SHELL_LINE_MAX + 8];

	(void)state;
	assert_int_equal(host_shell("nope 1 2"), -ENOENT);
	assert_string_equal(host_console_text(), "nope: command not found (try 'help')\n");
	memset(line, 'a', SHELL_LINE_MAX);
	line[SHELL_LINE_MAX] = '\0';
	assert_int_equal(host_shell(line), -E2BIG);
	assert_string_equal(host_console_text(), "shell: line longer than 511 characters\n");
	strcpy(line, "echo");
	for (int i = 0; i < SHELL_MAX_ARGS; i++)
		strcat(line, " x");
	assert_int_equal(host_shell(line), -E2BIG);
	assert_string_equal(host_console_text(), "shell: more than 32 arguments\n");
	line[strlen(line) - 2] = '\0';	/* 32 words with the command */
	assert_int_equal(host_shell(line), 0);
}

/* A command runs under the registered lock unless it is concurrent; the lock is let go. */
static void exec_takes_the_lock_unless_concurrent(void **state)
{
	(void)state;
	lock_calls = 0;
	assert_int_equal(host_shell("t-locked"), 7);
	assert_int_equal(depth_seen, 1);
	assert_int_equal(lock_calls, 1);
	assert_int_equal(lock_depth, 0);
	assert_int_equal(host_shell("t-unlocked"), 0);
	assert_int_equal(depth_seen, 0);
	assert_int_equal(lock_calls, 1);
	assert_int_equal(host_shell("nope"), -ENOENT);
	assert_int_equal(lock_calls, 1);	/* nothing run, nothing taken */
}

static void help_lists_commands_by_group(void **state)
{
	(void)state;
	assert_int_equal(host_shell("help"), 0);
	assert_true(host_console_has("system:\n"));
	assert_true(host_console_has("  t-num N [M]"));
	assert_true(host_console_has("  echo WORDS..."));
	/* A usage wider than the column: on a line of its own. */
	assert_true(host_console_has("  t-opts [-v] [-s SIZE] [-m a|b|c] NAME\n"));
}

/* ---- the helpers, as commands see them ---- */

static void numbers_are_refused_with_the_usage(void **state)
{
	(void)state;
	assert_int_equal(host_shell("t-num 0x10 0xffffffffffffffff"), 0);
	assert_string_equal(host_console_text(), "n=16 m=18446744073709551615\n");
	assert_true(host_shell_refused("t-num 80x", "t-num: n '80x': not a number"));
	assert_true(host_shell_refused("t-num", "t-num: missing n"));
	assert_true(host_shell_refused("t-num \"\"", "t-num: n '': not a number"));
	assert_true(host_shell_refused("t-num 0", "t-num: n '0': not in 1..100"));
	assert_true(host_shell_refused("t-num 101", "t-num: n '101': not in 1..100"));
	assert_true(host_shell_refused("t-num 4294967297", "t-num: n '4294967297': not in 1..100"));
	assert_true(host_shell_refused("t-num -1", "t-num: n '-1': not a number"));
	assert_true(host_shell_refused("t-num 1 18446744073709551616",
				       "t-num: m '18446744073709551616': too large"));
	assert_true(host_shell_refused("t-num 1 2 3", "t-num: unexpected argument '3'"));
	assert_true(host_shell_refused("t-num 1 2 -x", "t-num: unknown option '-x'"));
}

static void options_flags_sizes_keywords_and_names(void **state)
{
	(void)state;
	assert_int_equal(host_shell("t-opts -s 2M --verbose -m c pmem0"), 0);
	assert_string_equal(host_console_text(), "pmem0 verbose=1 size=2097152 mode=c\n");
	assert_int_equal(host_shell("t-opts pmem0"), 0);
	assert_string_equal(host_console_text(), "pmem0 verbose=0 size=0 mode=a\n");
	assert_true(host_shell_refused(
		"t-opts -s 2Mx pmem0",
		"t-opts: size '2Mx': not a size (a number, then K, M, G, T, P or E)"));
	assert_true(host_shell_refused("t-opts -s 0 pmem0",
				       "t-opts: size '0': not in 1..1099511627776"));
	assert_true(host_shell_refused("t-opts -s 2T pmem0",
				       "t-opts: size '2T': not in 1..1099511627776"));
	assert_true(host_shell_refused("t-opts -s 16E pmem0",
				       "t-opts: size '16E': not in 1..1099511627776"));
	assert_true(host_shell_refused("t-opts pmem0 -s", "t-opts: -s needs a value"));
	assert_true(
		host_shell_refused("t-opts -m d pmem0", "t-opts: mode 'd': expected a, b or c"));
	assert_true(host_shell_refused("t-opts -q pmem0", "t-opts: unknown option '-q'"));
	assert_true(
		host_shell_refused("t-opts -verbose pmem0", "t-opts: unknown option '-verbose'"));
	assert_true(
		host_shell_refused("t-opts pmem0 pmem1", "t-opts: unexpected argument 'pmem1'"));
	assert_true(host_shell_refused("t-opts -v", "t-opts: missing device"));
	assert_true(host_shell_refused("t-opts \"\"", "t-opts: device '': not a name"));
	assert_true(host_shell_refused("t-opts -", "t-opts: unexpected argument '-'"));
}

/* The usage comes from the command's registration, found by name; an unknown name prints nothing. */
static void usage_is_found_by_name(void **state)
{
	(void)state;
	host_console_reset();
	assert_int_equal(shell_usage("t-num"), -EINVAL);
	assert_string_equal(host_console_text(), "usage: t-num N [M]\n");
	host_console_reset();
	assert_int_equal(shell_arg_error("t-opts", "%d %s", 5, "x"), -EINVAL);
	assert_string_equal(host_console_text(),
			    "t-opts: 5 x\nusage: t-opts [-v] [-s SIZE] [-m a|b|c] NAME\n");
	host_console_reset();
	assert_int_equal(shell_usage("nope"), -EINVAL);
	assert_string_equal(host_console_text(), "");
	assert_non_null(shell_find("echo"));
	assert_null(shell_find("ech"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_u64_takes_c_numbers_only),
		cmocka_unit_test(parse_size_takes_memparse_suffixes),
		cmocka_unit_test(exec_splits_on_blanks_and_groups_quotes),
		cmocka_unit_test(exec_refuses_unknown_commands_and_long_lines),
		cmocka_unit_test(exec_takes_the_lock_unless_concurrent),
		cmocka_unit_test(help_lists_commands_by_group),
		cmocka_unit_test(numbers_are_refused_with_the_usage),
		cmocka_unit_test(options_flags_sizes_keywords_and_names),
		cmocka_unit_test(usage_is_found_by_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
