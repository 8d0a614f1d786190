/*
 * The HTTPS management API's answers (docs/NETWORK.md, "The HTTPS API";
 * docs/ARCHITECTURE.md): one complete request in (include/http_request.h),
 * one answer out. Portable and host-tested (test_api_handlers); the
 * kernel's glue (net/api_server.c) moves the bytes over TLS and lwIP.
 *
 * Every resource is a console command run with its output captured
 * (shell_run_captured), so the API answers with the console's bytes:
 * ndctl's JSON from `list`, the same one-line refusals. Long work (a
 * create that initialises struct pages or lays out a BTT, a
 * check-namespace) runs as a job on an idle CPU (net/api_jobs.c) and is
 * answered 202 with the job's resource.
 *
 *   GET    /                          the status page (no token: it holds no state)
 *   GET    /v1/regions                list -RN
 *   GET    /v1/namespaces             list -N
 *   GET    /v1/dimms                  list -D
 *   GET    /v1/badblocks              list -RNM (regions and namespaces with their media errors)
 *   GET    /v1/meminfo                meminfo -j
 *   GET    /v1/exports                nbd-list -j
 *   GET    /v1/system                 uptime -j
 *   GET    /metrics                   metrics (Prometheus' text format 0.0.4)
 *   GET    /v1/jobs, /v1/jobs/ID      the jobs
 *   POST   /v1/namespaces             create-namespace (a job for map=mem and sector)
 *   GET    /v1/namespaces/NS/infoblock read-infoblock NS
 *   DELETE /v1/namespaces/NS          destroy-namespace -f NS
 *   POST   /v1/namespaces/NS/enable   enable-namespace NS (and /disable: disable-namespace)
 *   POST   /v1/namespaces/NS/check    check-namespace NS (a job; ?repair=1: --repair)
 *   POST   /v1/dimms/NMEM/init-labels init-labels NMEM (?force=1: -f)
 *   POST   /v1/exports                nbd-export SPEC
 *   DELETE /v1/exports/DEV            nbd-unexport DEV
 *   DELETE /v1/clients/ID             nbd-disconnect ID
 *
 * Authentication: "Authorization: Bearer TOKEN" (api.tokens); none or an
 * unknown token 401, a read token on POST or DELETE 403. A source that
 * presents a token that is not valid API_AUTH_FAILS times in
 * API_AUTH_WINDOW_MS (a guess; a request without one is not) is answered
 * 429 for API_AUTH_WINDOW_MS, valid token or not, before any token is
 * compared.
 */
#ifndef PMEMK_API_H
#define PMEMK_API_H

#include "http_request.h"
#include "types.h"

#define API_BODY_MAX (256 << 10)	/* the largest answer body (captured output) */
#define API_AUTH_FAILS 5		/* failed token attempts from one source ... */
#define API_AUTH_WINDOW_MS 60000	/* ... within this long: refused (429) this long */
#define API_AUTH_SOURCES 16		/* sources whose failures are remembered */

/* Who asked. */
struct api_peer {
	u32 addr;		/* IPv4, host order */
	char name[24];		/* "A.B.C.D:PORT", for log lines */
};

/* One answer; its body is valid until the next api_handle. */
struct api_answer {
	u16 status;
	const char *type;	/* Content-Type */
	const char *body;
	size_t len;
	char headers[192];	/* more header lines, each "Name: value\r\n" */
	bool close;		/* close the connection after it */
};

/* Answer one request read whole by http_reader_feed. now_ms: a clock in milliseconds. */
void api_handle(const struct http_request *req, const struct api_peer *peer, u32 now_ms,
		struct api_answer *a);

/*
 * The answer to a request the reader refused (its status and reason) or
 * that the glue refuses itself (503: too many connections): a JSON error,
 * and the connection closes after it.
 */
void api_answer_refusal(u16 status, const char *reason, struct api_answer *a);

/* The status line and headers of a (Content-Length from a->len): their length, or -E2BIG. */
int api_answer_head(const struct api_answer *a, char *buf, size_t len);

/* "OK", "Not Found", ... ("" for a status the API never sends). */
const char *api_status_text(u16 status);

/* Requests answered since boot, by class (for metrics): [0] 2xx, [1] 4xx, [2] 5xx. */
extern u64 api_answers[3];

/*
 * The status page (net/api_page.html, built into the image; net/api_page.S):
 * its bytes and length.
 */
const char *api_page(size_t *len);

/* ---- Jobs (net/api_jobs.c) ---- */

#define API_JOBS 8			/* jobs kept, running or finished */
#define API_JOB_OUTPUT (16 << 10)	/* a job's captured output */

/*
 * Start line (a console command) on an idle CPU other than this one,
 * its output captured (and echoed to the console). 0 and *id; -EAGAIN
 * when no CPU is idle (or the machine has one); -ENOSPC when every slot
 * holds a job still running.
 */
int api_job_start(const char *line, u32 *id);

/*
 * A job's JSON into out[0..len) (NUL-terminated): {"id","command","state":
 * "running"|"done"|"failed","cpu","elapsed_ms","progress":{"done","total"}
 * while its CPU runs a batch of work, then "status" (the HTTP status its
 * result means), "result" (the command's return) and "output" (what it
 * printed so far)}; id 0: every job as an array. The length written;
 * -ENOENT when there is no such job.
 */
int api_job_json(u32 id, char *out, size_t len);

/* Forget every finished job (host tests). */
void api_jobs_reset(void);

/* The HTTP status a command's result means (0 -> ok_status). */
u16 api_status_of(int rc, u16 ok_status);

#endif
