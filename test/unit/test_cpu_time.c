/*
 * Host tests: each CPU's busy and idle time (lib/cpu_time.c) on the host's
 * clock (arch_cycles counts nanoseconds), the `uptime` command in both
 * forms, and the CPU metric families. A thread plays a CPU that writes
 * while another reads (also under ThreadSanitizer: make test-tsan).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "cpu_time.h"
#include "host.h"
#include "shell.h"

#define MS 1000000ull

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void a_cpu_never_online_has_no_figures(void **state)
{
	struct cpu_time t;

	(void)state;
	assert_false(cpu_time_read(5, &t));
	assert_false(cpu_time_read(ARCH_MAX_CPUS, &t));
}

static void idle_added_counts_and_busy_is_the_rest(void **state)
{
	struct cpu_time t;

	(void)state;
	cpu_time_online(1);
	sleep_ms(20);
	cpu_time_idle(1, 5 * MS);
	assert_true(cpu_time_read(1, &t));
	assert_true(t.online_ns >= 20 * MS);
	assert_int_equal(t.idle_ns, 5 * MS);
	cpu_time_idle(1, 3 * MS);
	assert_true(cpu_time_read(1, &t));
	assert_int_equal(t.idle_ns, 8 * MS);
}

/* A halt of no known end: readers see it grow while it lasts, and it stays counted after. */
static void an_open_idle_period_grows_while_it_lasts(void **state)
{
	struct cpu_time t, u;

	(void)state;
	cpu_time_online(2);
	sleep_ms(10);	/* busy */
	cpu_time_idle_enter(2);
	sleep_ms(30);
	assert_true(cpu_time_read(2, &t));
	assert_true(t.idle_ns >= 30 * MS);
	assert_true(t.online_ns - t.idle_ns >= 10 * MS);
	sleep_ms(20);
	assert_true(cpu_time_read(2, &u));
	assert_true(u.idle_ns >= t.idle_ns + 20 * MS);
	cpu_time_idle_exit(2);
	sleep_ms(20);	/* busy again */
	assert_true(cpu_time_read(2, &t));
	assert_true(t.idle_ns >= 50 * MS && t.idle_ns < u.idle_ns + 10 * MS);
	assert_true(t.online_ns - t.idle_ns >= 30 * MS);
	/* An exit without an enter changes nothing. */
	cpu_time_idle_exit(2);
	assert_true(cpu_time_read(2, &u));
	assert_int_equal(u.idle_ns, t.idle_ns);
}

/* Idle never exceeds the time online, whatever the writer claims. */
static void idle_is_at_most_the_time_online(void **state)
{
	struct cpu_time t;

	(void)state;
	cpu_time_online(3);
	cpu_time_idle(3, 1000000 * MS);
	assert_true(cpu_time_read(3, &t));
	assert_int_equal(t.idle_ns, t.online_ns);
}

/* CPU 4's idle loop: added idle time and open idle periods, turn about. */
static void *writer(void *arg)
{
	u32 *done = arg;

	host_set_cpu_id(4);
	for (unsigned int k = 0; k < 200000; k++) {
		if (k & 1) {
			cpu_time_idle_enter(4);
			cpu_time_idle_exit(4);
		} else {
			cpu_time_idle(4, 1);
		}
	}
	__atomic_store_n(done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Read while CPU 4 writes: its idle time never goes back, never exceeds its time online. */
static void a_reader_never_sees_idle_time_go_back(void **state)
{
	pthread_t t;
	u32 done = 0;
	u64 last = 0, reads = 0, bad = 0;

	(void)state;
	cpu_time_online(4);
	assert_int_equal(pthread_create(&t, NULL, writer, &done), 0);
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) || reads < 1000) {
		struct cpu_time c;
		assert_true(cpu_time_read(4, &c));
		bad += c.idle_ns < last || c.idle_ns > c.online_ns;
		last = c.idle_ns;
		reads++;
	}
	pthread_join(t, NULL);
	assert_int_equal(bad, 0);
}

static void uptime_prints_each_online_cpu(void **state)
{
	const char *out;
	unsigned long long up, busy, idle;

	(void)state;
	cpu_time_boot();
	cpu_time_idle(0, 0);
	sleep_ms(15);
	cpu_time_idle(0, 10 * MS);
	assert_int_equal(host_shell("uptime"), 0);
	out = host_console_text();
	/* CPUs 1, 2 and 3 came online in the tests above. */
	assert_int_equal(strncmp(out, "up 0.0", 6), 0);
	assert_non_null(strstr(out, " s; cpu0 busy 0.00"));
	assert_non_null(strstr(out, ", cpu1 busy 0."));
	assert_non_null(strstr(out, ", cpu3 busy 0.000 s (0%)"));
	assert_non_null(strstr(out, ", cpu4 busy "));
	assert_null(strstr(out, "cpu5"));
	assert_int_equal(host_shell("uptime -j"), 0);
	out = host_console_text();
	assert_int_equal(sscanf(out, "{\"uptime_ms\":%llu,\"cpus\":[{\"cpu\":0,\"busy_ms\":%llu,\"idle_ms\":%llu}",
				&up, &busy, &idle), 3);
	assert_true(up >= 15);
	assert_int_equal(idle, 10);
	assert_int_equal(busy + idle, up);
	assert_non_null(strstr(out, "{\"cpu\":3,\"busy_ms\":0,\"idle_ms\":"));
	assert_string_equal(out + strlen(out) - 4, "}]}\n");
	assert_int_equal(host_shell("uptime --json"), 0);
	assert_true(host_shell_refused("uptime -x", "uptime: unknown option '-x'"));
	assert_true(host_shell_refused("uptime -j -j", "uptime: unknown option '-j'"));
}

static void the_cpu_metrics_agree_with_the_uptime(void **state)
{
	unsigned long long s, ns, b, bn, i, in;
	const char *out, *p;

	(void)state;
	assert_int_equal(host_shell("metrics"), 0);
	out = host_console_text();
	p = strstr(out, "# TYPE pmemk_uptime_seconds gauge\npmemk_uptime_seconds ");
	assert_non_null(p);
	assert_int_equal(sscanf(strchr(p, '\n') + 1, "pmemk_uptime_seconds %llu.%llu", &s, &ns), 2);
	p = strstr(out, "# TYPE pmemk_cpu_seconds_total counter\n");
	assert_non_null(p);
	assert_int_equal(sscanf(strchr(p, '\n') + 1,
				"pmemk_cpu_seconds_total{cpu=\"0\",mode=\"busy\"} %llu.%llu\n"
				"pmemk_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} %llu.%llu",
				&b, &bn, &i, &in), 4);
	/* CPU 0's busy and idle are of the reading uptime comes from: they add up exactly. */
	assert_int_equal((b + i) * 1000000000ull + bn + in, s * 1000000000ull + ns);
	assert_non_null(strstr(out, "pmemk_cpu_seconds_total{cpu=\"3\",mode=\"idle\"} "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_cpu_never_online_has_no_figures),
		cmocka_unit_test(idle_added_counts_and_busy_is_the_rest),
		cmocka_unit_test(an_open_idle_period_grows_while_it_lasts),
		cmocka_unit_test(idle_is_at_most_the_time_online),
		cmocka_unit_test(a_reader_never_sees_idle_time_go_back),
		cmocka_unit_test(uptime_prints_each_online_cpu),
		cmocka_unit_test(the_cpu_metrics_agree_with_the_uptime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
