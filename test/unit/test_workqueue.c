/*
 * Host tests: the work queue (lib/workqueue.c) over the host fake's CPUs,
 * which are threads (test/host/arch_host.c): every job runs exactly once
 * whatever the number of CPUs, the jobs really run at the same time on
 * distinct CPUs, the CPU limit holds, a busy CPU is left alone, and a job
 * may itself run a batch. Also built with ThreadSanitizer (make test-tsan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "arch.h"
#include "host.h"
#include "workqueue.h"

#define NR_JOBS 10000

static u32 runs[NR_JOBS];
static u64 cpu_mask;	/* atomic: CPUs that ran a job */

static int setup(void **state)
{
	(void)state;
	memset(runs, 0, sizeof(runs));
	cpu_mask = 0;
	host_nr_cpus = 4;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	host_nr_cpus = 1;
	return 0;
}

static void count_job(void *ctx, u64 job)
{
	(void)ctx;
	__atomic_fetch_add(&runs[job], 1, __ATOMIC_RELAXED);
	__atomic_fetch_or(&cpu_mask, 1ull << arch_cpu_id(), __ATOMIC_RELAXED);
}

static void check_each_ran_once(u64 nr)
{
	for (u64 j = 0; j < NR_JOBS; j++)
		if (runs[j] != (j < nr ? 1u : 0u))
			fail_msg("job %llu ran %u times", j, runs[j]);
}

static void workqueue_every_job_runs_once(void **state)
{
	static const u32 cpus[] = { 1, 2, 4, ARCH_MAX_CPUS };

	(void)state;
	for (unsigned int i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		setup(NULL);
		host_nr_cpus = cpus[i];
		u32 n = work_run(count_job, NR_JOBS, NULL);
		assert_true(n >= 1 && n <= cpus[i]);
		check_each_ran_once(NR_JOBS);
	}
}

static void workqueue_no_jobs_calls_nothing(void **state)
{
	(void)state;
	assert_int_equal(work_run(count_job, 0, NULL), 1);
	check_each_ran_once(0);
	/* One job: no helper is woken for it. */
	assert_int_equal(work_run(count_job, 1, NULL), 1);
	check_each_ran_once(1);
	assert_int_equal(cpu_mask, 1);
}

/*
 * Each of 4 jobs waits until all 4 have started: that can only finish if 4
 * CPUs run them at once. Bounded, so a serial queue fails instead of hanging.
 */
static u32 arrived;

static void barrier_job(void *ctx, u64 job)
{
	bool *timed_out = ctx;

	count_job(NULL, job);
	__atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
	for (u64 spins = 0; __atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < 4; spins++) {
		if (spins > 50 * 1000 * 1000) {
			__atomic_store_n(timed_out, true, __ATOMIC_RELAXED);
			return;
		}
		arch_cpu_relax();
	}
}

static void workqueue_jobs_run_at_once_on_distinct_cpus(void **state)
{
	bool timed_out = false;

	(void)state;
	arrived = 0;
	assert_int_equal(work_run(barrier_job, 4, &timed_out), 4);
	assert_false(timed_out);
	assert_int_equal(cpu_mask, 0xf);
	check_each_ran_once(4);
}

static void workqueue_respects_max_cpus(void **state)
{
	(void)state;
	host_nr_cpus = 8;
	assert_int_equal(work_run_cpus(count_job, NR_JOBS, NULL, 2), 2);
	check_each_ran_once(NR_JOBS);
	assert_true(__builtin_popcountll(cpu_mask) <= 2);
	setup(NULL);
	assert_int_equal(work_run_cpus(count_job, NR_JOBS, NULL, 1), 1);
	assert_int_equal(cpu_mask, 1);	/* the caller alone */
	check_each_ran_once(NR_JOBS);
}

static u32 hold;

static void hold_cpu(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&hold, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

/* A CPU running something else (an on-cpu command) is not enlisted, and not disturbed. */
static void workqueue_skips_a_busy_cpu(void **state)
{
	(void)state;
	hold = 1;
	assert_int_equal(arch_cpu_start(2, hold_cpu, NULL), 0);
	assert_int_equal(arch_cpu_start(2, hold_cpu, NULL), -EBUSY);
	assert_int_equal(arch_cpu_start(0, hold_cpu, NULL), -ENODEV);	/* the caller */
	assert_int_equal(arch_cpu_start(4, hold_cpu, NULL), -ENODEV);	/* not a CPU */
	assert_int_equal(work_run(count_job, NR_JOBS, NULL), 3);
	check_each_ran_once(NR_JOBS);
	assert_false(cpu_mask & (1u << 2));
	assert_true(arch_cpu_busy(2));
	__atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
	while (arch_cpu_busy(2))
		arch_cpu_relax();
}

/* A job that runs a batch of its own: only idle CPUs join it, and both finish. */
static u32 inner_runs[64][64];

static void inner_job(void *ctx, u64 job)
{
	u32 *row = ctx;

	__atomic_fetch_add(&row[job], 1, __ATOMIC_RELAXED);
}

static void outer_job(void *ctx, u64 job)
{
	(void)ctx;
	work_run(inner_job, 64, inner_runs[job]);
}

static void workqueue_nested_batches_complete(void **state)
{
	(void)state;
	memset(inner_runs, 0, sizeof(inner_runs));
	work_run(outer_job, 64, NULL);
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 64; j++)
			if (inner_runs[i][j] != 1)
				fail_msg("inner job %d of %d ran %u times", j, i, inner_runs[i][j]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(workqueue_every_job_runs_once, setup, teardown),
		cmocka_unit_test_setup_teardown(workqueue_no_jobs_calls_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(workqueue_jobs_run_at_once_on_distinct_cpus, setup,
						teardown),
		cmocka_unit_test_setup_teardown(workqueue_respects_max_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(workqueue_skips_a_busy_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(workqueue_nested_batches_complete, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
