/*
 * Host tests: capturing what a CPU prints (lib/print_capture.c through
 * lib/printk.c), shell_run_captured (lib/shell.c) and the capture command
 * (lib/shell_capture.c). CPUs are faked with host_set_cpu_id in one thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "print_capture.h"
#include "printk.h"
#include "shell.h"

/* ---- a lock shell_run_captured can find taken, and commands to run ---- */

static bool lock_taken_elsewhere;
static int lock_depth;

static void fake_lock(void)
{
	lock_depth++;
}

static bool fake_trylock(void)
{
	if (lock_taken_elsewhere)
		return false;
	lock_depth++;
	return true;
}

static void fake_unlock(void)
{
	lock_depth--;
}
SHELL_LOCK(fake_lock, fake_trylock, fake_unlock);

static int runs;

static int cmd_refuse(int argc, char **argv)
{
	(void)argc;
	runs++;
	pr_err("%s: region0 is busy\n", argv[0]);
	return -EBUSY;
}
SHELL_COMMAND(SHELL_SYSTEM, "t-refuse", cmd_refuse, "t-refuse", "print an error line, -EBUSY");

static int cmd_net(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	runs++;
	return 0;
}
SHELL_COMMAND_NET_LOOP(SHELL_NET, "t-net", cmd_net, "t-net", "a command that runs the network loop");

static int cmd_nbd(int argc, char **argv)
{
	return cmd_net(argc, argv);
}
SHELL_COMMAND_NET(SHELL_NET, "t-nbd", cmd_nbd, "t-nbd", "a command of the network's tables");

static void setup(void)
{
	host_set_cpu_id(0);
	host_console_reset();
	lock_taken_elsewhere = false;
	runs = 0;
}

/* ---- the capture ---- */

static void kprintf_goes_to_the_capture_only_without_echo(void **state)
{
	char buf[64];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), false);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&cap), 0);
	kprintf("{\"dev\":\"%s\"}\n", "namespace0.0");
	print_capture_end(&cap);
	assert_string_equal(buf, "{\"dev\":\"namespace0.0\"}\n");
	assert_int_equal(cap.len, strlen(buf));
	assert_false(print_capture_truncated(&cap));
	assert_string_equal(host_console_text(), "");
}

static void echo_sends_the_same_bytes_to_the_console(void **state)
{
	char buf[64];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), true);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&cap), 0);
	kprintf("one %d\n", 1);
	kprintf("two\n");
	print_capture_end(&cap);
	assert_string_equal(buf, "one 1\ntwo\n");
	assert_string_equal(host_console_text(), buf);
}

static void a_full_buffer_cuts_and_counts_what_is_lost(void **state)
{
	char buf[8];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), false);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&cap), 0);
	kprintf("0123456789");
	kprintf("abc");
	print_capture_end(&cap);
	assert_string_equal(buf, "0123456");
	assert_int_equal(cap.len, 7);
	assert_int_equal(cap.lost, 3 + 3);
	assert_true(print_capture_truncated(&cap));
}

static void errors_and_warnings_are_captured_without_the_timestamp(void **state)
{
	char buf[128];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), true);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&cap), 0);
	pr_err("nd: disk on fire");
	pr_warn("nd: smoke\n");
	pr_info("nd: only the log\n");
	pr_emerg("nd: never captured\n");
	print_capture_end(&cap);
	assert_string_equal(buf, "nd: disk on fire\nnd: smoke\n");
	assert_true(host_console_has("] nd: disk on fire\n"));
	assert_true(host_console_has("] nd: smoke\n"));
	assert_true(host_console_has("] nd: only the log\n"));
	assert_true(host_console_has("] nd: never captured\n"));
}

static void an_error_line_is_captured_under_a_quiet_log_level(void **state)
{
	char buf[64];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), true);
	int saved = console_loglevel;

	(void)state;
	setup();
	console_loglevel = LOGLEVEL_ERR;	/* errors are not printed */
	assert_int_equal(print_capture_begin(&cap), 0);
	pr_err("quiet\n");
	print_capture_end(&cap);
	console_loglevel = saved;
	assert_string_equal(buf, "quiet\n");
	assert_string_equal(host_console_text(), "");
}

static void nothing_is_captured_after_the_end(void **state)
{
	char buf[32];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), false);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&cap), 0);
	kprintf("in\n");
	print_capture_end(&cap);
	kprintf("out\n");
	pr_err("out too\n");
	assert_string_equal(buf, "in\n");
	assert_int_equal(cap.len, 3);
	assert_true(host_console_has("out\n"));
	assert_true(host_console_has("] out too\n"));
}

static void captures_do_not_nest_and_need_a_buffer(void **state)
{
	char a[32], b[32];
	struct print_capture outer = PRINT_CAPTURE_INIT(a, sizeof(a), false);
	struct print_capture inner = PRINT_CAPTURE_INIT(b, sizeof(b), false);
	struct print_capture none = PRINT_CAPTURE_INIT(NULL, 0, false);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&none), -EINVAL);
	assert_int_equal(print_capture_begin(&outer), 0);
	strcpy(b, "untouched");
	assert_int_equal(print_capture_begin(&inner), -EBUSY);
	kprintf("x\n");
	print_capture_end(&inner);	/* not current: changes nothing */
	kprintf("y\n");
	print_capture_end(&outer);
	assert_string_equal(a, "x\ny\n");
	assert_string_equal(b, "untouched");
}

static void each_cpu_has_its_own_capture(void **state)
{
	char a[32], b[32];
	struct print_capture on0 = PRINT_CAPTURE_INIT(a, sizeof(a), false);
	struct print_capture on1 = PRINT_CAPTURE_INIT(b, sizeof(b), false);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&on0), 0);
	host_set_cpu_id(1);
	assert_int_equal(print_capture_begin(&on1), 0);
	kprintf("from 1\n");
	host_set_cpu_id(2);
	kprintf("from 2\n");
	host_set_cpu_id(0);
	kprintf("from 0\n");
	print_capture_end(&on0);
	host_set_cpu_id(1);
	print_capture_end(&on1);
	host_set_cpu_id(0);
	assert_string_equal(a, "from 0\n");
	assert_string_equal(b, "from 1\n");
	assert_string_equal(host_console_text(), "from 2\n");
}

/* ---- shell_run_captured and the capture command ---- */

static void a_captured_line_prints_what_the_console_would(void **state)
{
	char buf[256];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), false);
	const char *lines[] = { "echo a  \"b c\"", "nope x", "t-refuse", "" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		setup();
		int console_rc = shell_exec(lines[i]);
		const char *stamp = strstr(host_console_text(), "] ");
		char console[256];
		snprintf(console, sizeof(console), "%s", stamp ? stamp + 2 : host_console_text());
		host_console_reset();
		assert_int_equal(shell_run_captured(lines[i], &cap), console_rc);
		assert_string_equal(buf, console);
		assert_string_equal(host_console_text(), "");
	}
	assert_int_equal(lock_depth, 0);
}

static void the_network_loop_neither_waits_nor_runs_loop_commands(void **state)
{
	char buf[256];
	struct print_capture cap = PRINT_CAPTURE_INIT(buf, sizeof(buf), false);

	(void)state;
	setup();
	assert_int_equal(shell_run_captured("t-net", &cap), -EPERM);
	assert_string_equal(
		buf, "t-net: uses the network, whose loop this runs in; only from the console\n");
	lock_taken_elsewhere = true;
	assert_int_equal(shell_run_captured("t-refuse", &cap), -EAGAIN);
	assert_string_equal(
		buf, "t-refuse: busy: a command on another CPU holds the device model; try again\n");
	assert_int_equal(runs, 0);
	assert_int_equal(lock_depth, 0);
	assert_int_equal(shell_exec("t-net"), 0);	/* the console runs it */
	assert_int_equal(runs, 1);
	lock_taken_elsewhere = false;
	/* A network command that only touches the tables (nbd-export) runs from the loop. */
	assert_int_equal(shell_run_captured("t-nbd", &cap), 0);
	assert_int_equal(runs, 2);
}

static void a_captured_line_inside_a_capture_runs_nothing(void **state)
{
	char a[64], b[64];
	struct print_capture outer = PRINT_CAPTURE_INIT(a, sizeof(a), false);
	struct print_capture inner = PRINT_CAPTURE_INIT(b, sizeof(b), false);

	(void)state;
	setup();
	assert_int_equal(print_capture_begin(&outer), 0);
	assert_int_equal(shell_run_captured("t-refuse", &inner), -EBUSY);
	print_capture_end(&outer);
	assert_int_equal(runs, 0);
	assert_string_equal(a, "");
}

static void the_capture_command_prints_the_bytes_and_their_count(void **state)
{
	(void)state;
	setup();
	assert_int_equal(host_shell("capture echo a \"b c\""), 0);
	assert_string_equal(host_console_text(),
			    "a b c\ncapture: 6 bytes, 0 lost, 'echo a \"b c\"' returned 0\n");
	assert_int_equal(host_shell("capture t-refuse"), -EBUSY);
	assert_string_equal(host_console_text(), "t-refuse: region0 is busy\n"
						 "capture: 26 bytes, 0 lost, 't-refuse' returned -16\n");
	assert_true(host_shell_refused("capture", "capture: missing command"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kprintf_goes_to_the_capture_only_without_echo),
		cmocka_unit_test(echo_sends_the_same_bytes_to_the_console),
		cmocka_unit_test(a_full_buffer_cuts_and_counts_what_is_lost),
		cmocka_unit_test(errors_and_warnings_are_captured_without_the_timestamp),
		cmocka_unit_test(an_error_line_is_captured_under_a_quiet_log_level),
		cmocka_unit_test(nothing_is_captured_after_the_end),
		cmocka_unit_test(captures_do_not_nest_and_need_a_buffer),
		cmocka_unit_test(each_cpu_has_its_own_capture),
		cmocka_unit_test(a_captured_line_prints_what_the_console_would),
		cmocka_unit_test(the_network_loop_neither_waits_nor_runs_loop_commands),
		cmocka_unit_test(a_captured_line_inside_a_capture_runs_nothing),
		cmocka_unit_test(the_capture_command_prints_the_bytes_and_their_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
