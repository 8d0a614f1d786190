/*
 * The HTTPS API's jobs (include/api.h): a console command run on an idle
 * CPU, so the network loop, which answered 202 at once, never waits for
 * it. Each job's output is captured on the CPU that runs it (and echoed:
 * the console sees it as it would an on-cpu command's) and can be read
 * while it runs (print_capture_peek); how far the CPU's current batch of
 * work is (work_progress: a map=mem create's struct page init) is its
 * progress.
 *
 * Only the network's CPU starts and reads jobs; the CPU running one writes
 * its state, result and end time, published by the state's release store.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "api_json.h"
#include "arch.h"
#include "print_capture.h"
#include "printk.h"
#include "shell.h"
#include "workqueue.h"

enum job_state { JOB_FREE, JOB_RUNNING, JOB_DONE };

struct api_job {
	u32 id;
	u32 state;		/* enum job_state; atomic */
	u32 cpu;
	int rc;
	u64 t_start, t_end;	/* arch_cycles() */
	char line[SHELL_LINE_MAX];
	struct print_capture cap;
	char out[API_JOB_OUTPUT];
};

static struct api_job jobs[API_JOBS];
static u32 next_id = 1;

static void job_run(void *arg)
{
	struct api_job *j = arg;
	int err = print_capture_begin(&j->cap);

	j->rc = err ? err : shell_exec(j->line);
	if (!err)
		print_capture_end(&j->cap);
	j->t_end = arch_cycles();
	pr_info("api: job %u on CPU %u: '%s' returned %d\n", j->id, arch_cpu_id(), j->line, j->rc);
	__atomic_store_n(&j->state, JOB_DONE, __ATOMIC_RELEASE);
}

/* A free slot, else the one that finished first; NULL when every one runs. */
static struct api_job *job_slot(void)
{
	struct api_job *oldest = NULL;

	for (unsigned int i = 0; i < API_JOBS; i++) {
		u32 st = __atomic_load_n(&jobs[i].state, __ATOMIC_ACQUIRE);
		if (st == JOB_FREE)
			return &jobs[i];
		if (st == JOB_DONE && (!oldest || jobs[i].t_end < oldest->t_end))
			oldest = &jobs[i];
	}
	return oldest;
}

int api_job_start(const char *line, u32 *id)
{
	struct api_job *j = job_slot();

	if (!j)
		return -ENOSPC;
	if (strlen(line) >= sizeof(j->line))
		return -E2BIG;
	memset(j, 0, sizeof(*j));
	j->id = next_id;
	strcpy(j->line, line);
	j->cap = (struct print_capture)PRINT_CAPTURE_INIT(j->out, sizeof(j->out), true);
	j->t_start = arch_cycles();
	j->state = JOB_RUNNING;
	for (u32 cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		if (cpu == arch_cpu_id())
			continue;
		j->cpu = cpu;
		if (!arch_cpu_start(cpu, job_run, j)) {
			*id = next_id++;
			return 0;
		}
	}
	j->state = JOB_FREE;
	return -EAGAIN;
}

/* Append to out (the room left), as snprintf does; the length so far, or more than len. */
static size_t put(char *out, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put(char *out, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	int n = vsnprintf(out + at, len - at, fmt, ap);
	va_end(ap);
	return n < 0 ? len : at + (size_t)n;
}

/* A string's JSON inside quotes, escaped, at out + at. */
static size_t put_str(char *out, size_t len, size_t at, const char *s)
{
	if (at >= len)
		return at;
	at = put(out, len, at, "\"");
	if (at < len)
		at += api_json_escape(out + at, len - at, s);
	return put(out, len, at, "\"");
}

static size_t job_json(const struct api_job *j, char *out, size_t len, size_t at)
{
	static char text[API_JOB_OUTPUT];
	u32 st = __atomic_load_n(&j->state, __ATOMIC_ACQUIRE);
	u64 end = st == JOB_DONE ? j->t_end : arch_cycles();

	at = put(out, len, at, "{\"id\":%u,\"command\":", j->id);
	at = put_str(out, len, at, j->line);
	at = put(out, len, at, ",\"state\":\"%s\",\"cpu\":%u,\"elapsed_ms\":%llu",
		 st == JOB_RUNNING ? "running" : j->rc ? "failed" : "done", j->cpu,
		 (unsigned long long)(arch_cycles_to_ns(end - j->t_start) / 1000000));
	if (st == JOB_RUNNING) {
		u64 done, total;
		work_progress(j->cpu, &done, &total);
		if (total)
			at = put(out, len, at, ",\"progress\":{\"done\":%llu,\"total\":%llu}",
				 (unsigned long long)done, (unsigned long long)total);
	} else {
		at = put(out, len, at, ",\"status\":%u,\"result\":%d", api_status_of(j->rc, 200),
			 j->rc);
	}
	print_capture_peek(&j->cap, text, sizeof(text));
	at = put(out, len, at, ",\"output\":");
	at = put_str(out, len, at, text);
	return put(out, len, at, "}");
}

int api_job_json(u32 id, char *out, size_t len)
{
	size_t at = 0;
	bool first = true;

	if (id) {
		for (unsigned int i = 0; i < API_JOBS; i++)
			if (jobs[i].state != JOB_FREE && jobs[i].id == id)
				at = job_json(&jobs[i], out, len, 0);
		if (!at)
			return -ENOENT;
	} else {
		/* In the order they were started. */
		at = put(out, len, at, "[");
		for (u32 want = next_id > API_JOBS ? next_id - API_JOBS : 1; want < next_id; want++)
			for (unsigned int i = 0; i < API_JOBS; i++)
				if (jobs[i].state != JOB_FREE && jobs[i].id == want) {
					at = put(out, len, at, first ? "" : ",");
					at = job_json(&jobs[i], out, len, at);
					first = false;
				}
		at = put(out, len, at, "]");
	}
	at = put(out, len, at, "\n");
	if (at >= len)
		return -E2BIG;
	return (int)at;
}

void api_jobs_reset(void)
{
	for (unsigned int i = 0; i < API_JOBS; i++)
		while (__atomic_load_n(&jobs[i].state, __ATOMIC_ACQUIRE) == JOB_RUNNING)
			arch_cpu_relax();
	memset(jobs, 0, sizeof(jobs));
	next_id = 1;
}
