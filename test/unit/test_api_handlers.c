/*
 * The HTTPS API's answers (net/api_handlers.c, net/api_jobs.c): routes,
 * tokens and roles, failing sources refused, the console's output as the
 * body, results as HTTP statuses, and jobs on another CPU. The commands
 * are fakes registered here under the console's names: what is tested is
 * how the API runs them and answers, not the commands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "api.h"
#include "api_files.h"
#include "api_tokens.h"
#include "host.h"
#include "printk.h"
#include "shell.h"
#include "workqueue.h"

#define ADMIN "admin-token-0123456789abcdef"
#define READER "read-token-0123456789abcdef"

static struct api_tokens tokens;

/* The API's token table: the boot file's stand-in. */
const struct api_tokens *api_token_table(void)
{
	return &tokens;
}

const char *api_page(size_t *len)
{
	*len = sizeof("<p>the page</p>") - 1;
	return "<p>the page</p>";
}

/* ---- fake commands and lock ---- */

static bool lock_busy;
static int lock_depth;
static void fake_lock(void) { lock_depth++; }
static bool fake_trylock(void) { return lock_busy ? false : (lock_depth++, true); }
static void fake_unlock(void) { lock_depth--; }
SHELL_LOCK(fake_lock, fake_trylock, fake_unlock);

static char last_line[SHELL_LINE_MAX];
static int create_rc;
static volatile int job_gate;	/* the create job waits while it is 1 */

/* What the API ran: argv joined. */
static void remember(int argc, char **argv)
{
	size_t at = 0;

	last_line[0] = '\0';
	for (int i = 0; i < argc; i++)
		at += (size_t)snprintf(last_line + at, sizeof(last_line) - at, "%s%s", i ? " " : "",
				       argv[i]);
}

static int cmd_list(int argc, char **argv)
{
	remember(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "-RN"))
		kprintf("[\n  {\n    \"dev\":\"region0\",\n    \"size\":1073741824\n  }\n]\n");
	return 0;	/* -N, -D: nothing (ndctl prints nothing when there is none) */
}
SHELL_COMMAND(SHELL_NVDIMM, "list", cmd_list, "list", "fake");

static int cmd_create(int argc, char **argv)
{
	remember(argc, argv);
	while (__atomic_load_n(&job_gate, __ATOMIC_ACQUIRE))
		;
	if (create_rc) {
		kprintf("create-namespace: region0: not enough free space\n");
		return create_rc;
	}
	kprintf("{\n  \"dev\":\"namespace0.0\",\n  \"mode\":\"fsdax\"\n}\n");
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "create-namespace", cmd_create, "create-namespace", "fake");

static int cmd_destroy(int argc, char **argv)
{
	remember(argc, argv);
	kprintf("destroy-namespace: namespace0.0 busy: exported (nbd-unexport pmem0 first)\n");
	return -EBUSY;
}
SHELL_COMMAND(SHELL_NVDIMM, "destroy-namespace", cmd_destroy, "destroy-namespace", "fake");

/* check-namespace: a batch of 4 jobs on its own CPU, each waiting for its gate. */
static volatile int batch_gate[4];

static void batch_job(void *ctx, u64 j)
{
	(void)ctx;
	while (__atomic_load_n(&batch_gate[j], __ATOMIC_ACQUIRE))
		;
}

static int cmd_check(int argc, char **argv)
{
	remember(argc, argv);
	work_run_cpus(batch_job, 4, NULL, 1);
	kprintf("namespace0.0: clean\n");
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "check-namespace", cmd_check, "check-namespace", "fake");

static int cmd_export(int argc, char **argv)
{
	remember(argc, argv);
	kprintf("nbd: exporting pmem1 (read-only)\n");
	return 0;
}
SHELL_COMMAND_NET(SHELL_NET, "nbd-export", cmd_export, "nbd-export", "fake");

static int cmd_metrics(int argc, char **argv)
{
	remember(argc, argv);
	kprintf("# TYPE pmemk_uptime_seconds gauge\npmemk_uptime_seconds 1.5\n");
	return 0;
}
SHELL_COMMAND_NET(SHELL_NET, "metrics", cmd_metrics, "metrics", "fake");

/* ---- requests ---- */

static struct http_request req;
static struct api_answer ans;
static const struct api_peer peer = { .addr = 0x0a000202, .name = "10.0.2.2:40000" };
static const struct api_peer other = { .addr = 0x0a000203, .name = "10.0.2.3:40000" };
static u32 now = 1000;

/* Ask: method, path, token (NULL: none), body (NULL: none); the answer in ans. */
static void ask_from(const struct api_peer *from, enum http_req_method m, const char *path,
		     const char *token, const char *body)
{
	memset(&req, 0, sizeof(req));
	req.method = m;
	snprintf(req.path, sizeof(req.path), "%s", path);
	char *q = strchr(req.path, '?');
	if (q) {	/* as the reader splits the target */
		snprintf(req.query, sizeof(req.query), "%s", q + 1);
		*q = '\0';
	}
	req.keep_alive = true;
	if (token) {
		req.auth = HTTP_AUTH_BEARER;
		req.token_len = strlen(token);
		memcpy(req.token, token, req.token_len);
	}
	if (body) {
		req.body_len = strlen(body);
		memcpy(req.body, body, req.body_len);
	}
	last_line[0] = '\0';
	api_handle(&req, from, now, &ans);
}

static void ask(enum http_req_method m, const char *path, const char *token, const char *body)
{
	ask_from(&peer, m, path, token, body);
}

/* The answer's body, NUL-terminated. */
static const char *body_text(void)
{
	static char b[API_BODY_MAX + 1];

	memcpy(b, ans.body, ans.len);
	b[ans.len] = '\0';
	return b;
}

static int setup(void **state)
{
	char why[256];
	const char *file = ADMIN " admin\n" READER " read\n";

	(void)state;
	assert_int_equal(api_tokens_parse(file, strlen(file), &tokens, why, sizeof(why)), 0);
	host_set_cpu_id(0);
	host_nr_cpus = 2;
	lock_busy = false;
	create_rc = 0;
	now += 10 * API_AUTH_WINDOW_MS;	/* every earlier test's failures forgotten */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	job_gate = 0;
	api_jobs_reset();
	host_nr_cpus = 1;
	return 0;
}

static void the_page_needs_no_token_and_nothing_else_is_read_without_one(void **state)
{
	(void)state;
	ask(HTTP_REQ_GET, "/", NULL, NULL);
	assert_int_equal(ans.status, 200);
	assert_string_equal(body_text(), "<p>the page</p>");
	assert_non_null(strstr(ans.type, "text/html"));

	ask(HTTP_REQ_GET, "/v1/regions", NULL, NULL);
	assert_int_equal(ans.status, 401);
	assert_non_null(strstr(ans.headers, "WWW-Authenticate: Bearer realm=\"pmemk\"\r\n"));
	assert_string_equal(last_line, "");	/* nothing ran */
	ask(HTTP_REQ_GET, "/v1/regions", "not-a-token-of-ours-at-all", NULL);
	assert_int_equal(ans.status, 401);
	assert_non_null(strstr(ans.headers, "error=\"invalid_token\""));
	assert_null(strstr(body_text(), "not-a-token"));
	assert_string_equal(last_line, "");
}

static void a_read_token_reads_the_consoles_bytes(void **state)
{
	(void)state;
	ask(HTTP_REQ_GET, "/v1/regions", READER, NULL);
	assert_int_equal(ans.status, 200);
	assert_string_equal(last_line, "list -RN");
	assert_string_equal(body_text(),
			    "[\n  {\n    \"dev\":\"region0\",\n    \"size\":1073741824\n  }\n]\n");
	assert_string_equal(ans.type, "application/json");
	/* No namespaces: ndctl prints nothing, the API an empty array. */
	ask(HTTP_REQ_GET, "/v1/namespaces", READER, NULL);
	assert_int_equal(ans.status, 200);
	assert_string_equal(last_line, "list -N");
	assert_string_equal(body_text(), "[]\n");
	ask(HTTP_REQ_GET, "/metrics", READER, NULL);
	assert_int_equal(ans.status, 200);
	assert_string_equal(ans.type, "text/plain; version=0.0.4; charset=utf-8");
	assert_string_equal(body_text(), "# TYPE pmemk_uptime_seconds gauge\npmemk_uptime_seconds 1.5\n");
}

static void a_read_token_changes_nothing(void **state)
{
	(void)state;
	ask(HTTP_REQ_POST, "/v1/namespaces", READER, "{\"region\":\"region0\",\"size\":\"16M\"}");
	assert_int_equal(ans.status, 403);
	ask(HTTP_REQ_DELETE, "/v1/namespaces/namespace0.0", READER, NULL);
	assert_int_equal(ans.status, 403);
	ask(HTTP_REQ_POST, "/v1/exports", READER, "{\"device\":\"pmem1\"}");
	assert_int_equal(ans.status, 403);
	assert_string_equal(last_line, "");
}

static void a_map_dev_create_runs_the_consoles_command(void **state)
{
	(void)state;
	ask(HTTP_REQ_POST, "/v1/namespaces", ADMIN,
	    "{\"region\":\"region0\",\"size\":\"16M\",\"name\":\"db one\",\"mode\":\"devdax\",\"align\":\"4K\"}");
	assert_int_equal(ans.status, 201);
	assert_string_equal(last_line,
			    "create-namespace -r region0 -s 16777216 -n db one -m devdax -M dev -a 4K");
	assert_string_equal(body_text(), "{\n  \"dev\":\"namespace0.0\",\n  \"mode\":\"fsdax\"\n}\n");
	/* The console's refusal, with the status its result means. */
	create_rc = -ENOSPC;
	ask(HTTP_REQ_POST, "/v1/namespaces", ADMIN, "{\"region\":\"region0\",\"mode\":\"raw\"}");
	assert_int_equal(ans.status, 409);
	assert_string_equal(last_line, "create-namespace -r region0 -m raw");
	assert_string_equal(body_text(),
			    "{\"status\":409,\"error\":\"create-namespace: region0: not enough free space\","
			    "\"output\":\"create-namespace: region0: not enough free space\\u000a\"}\n");
}

static void bad_bodies_are_refused_with_the_parsers_line(void **state)
{
	(void)state;
	ask(HTTP_REQ_POST, "/v1/namespaces", ADMIN, "{\"region\":\"region0\",\"mode\":\"x\"}");
	assert_int_equal(ans.status, 400);
	assert_non_null(strstr(body_text(), "mode 'x': expected fsdax, devdax, sector or raw"));
	ask(HTTP_REQ_POST, "/v1/namespaces", ADMIN, "{\"region\":");
	assert_int_equal(ans.status, 400);
	req.content_type[0] = '\0';
	ask(HTTP_REQ_POST, "/v1/exports", ADMIN, "[1]");
	assert_int_equal(ans.status, 400);
	assert_string_equal(last_line, "");
	/* A body that is not JSON by its type. */
	memset(&req, 0, sizeof(req));
	req.method = HTTP_REQ_POST;
	strcpy(req.path, "/v1/exports");
	strcpy(req.content_type, "multipart/form-data; boundary=x");
	req.auth = HTTP_AUTH_BEARER;
	req.token_len = strlen(ADMIN);
	memcpy(req.token, ADMIN, req.token_len);
	api_handle(&req, &peer, now, &ans);
	assert_int_equal(ans.status, 415);
}

static void an_export_and_a_refused_destroy(void **state)
{
	(void)state;
	ask(HTTP_REQ_POST, "/v1/exports", ADMIN, "{\"device\":\"pmem1\",\"ro\":true}");
	assert_int_equal(ans.status, 201);
	assert_string_equal(last_line, "nbd-export pmem1:ro");
	/* Text output, not JSON: as a message. */
	assert_string_equal(body_text(), "{\"message\":\"nbd: exporting pmem1 (read-only)\\u000a\"}\n");
	ask(HTTP_REQ_DELETE, "/v1/namespaces/namespace0.0", ADMIN, NULL);
	assert_int_equal(ans.status, 409);
	assert_string_equal(last_line, "destroy-namespace -f namespace0.0");
	assert_non_null(strstr(body_text(), "\"error\":\"destroy-namespace: namespace0.0 busy: exported"));
}

static void paths_and_methods(void **state)
{
	(void)state;
	ask(HTTP_REQ_GET, "/v1/nothing", ADMIN, NULL);
	assert_int_equal(ans.status, 404);
	ask(HTTP_REQ_DELETE, "/v1/regions", ADMIN, NULL);
	assert_int_equal(ans.status, 405);
	assert_non_null(strstr(ans.headers, "Allow: GET\r\n"));
	ask(HTTP_REQ_GET, "/v1/namespaces/namespace0.0", ADMIN, NULL);
	assert_int_equal(ans.status, 405);
	assert_non_null(strstr(ans.headers, "Allow: DELETE\r\n"));
	/* A name is a name: no other byte reaches a command line. */
	ask(HTTP_REQ_DELETE, "/v1/namespaces/a%20-f", ADMIN, NULL);
	assert_int_equal(ans.status, 404);
	ask(HTTP_REQ_DELETE, "/v1/namespaces/", ADMIN, NULL);
	assert_int_equal(ans.status, 404);
	assert_string_equal(last_line, "");
}

static int cmd_enable(int argc, char **argv)
{
	remember(argc, argv);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "enable-namespace", cmd_enable, "enable-namespace", "fake");

static void actions_and_their_one_query(void **state)
{
	(void)state;
	ask(HTTP_REQ_POST, "/v1/namespaces/namespace0.0/enable", ADMIN, NULL);
	assert_int_equal(ans.status, 200);
	assert_string_equal(last_line, "enable-namespace namespace0.0");
	ask(HTTP_REQ_POST, "/v1/namespaces/namespace0.0/enable?force=1", ADMIN, NULL);
	assert_int_equal(ans.status, 400);
	assert_string_equal(body_text(),
			    "{\"status\":400,\"error\":\"query 'force=1': this resource takes none\"}\n");
	ask(HTTP_REQ_GET, "/v1/regions?x", READER, NULL);
	assert_int_equal(ans.status, 400);
	ask(HTTP_REQ_POST, "/v1/namespaces/namespace0.0/check?repair=2", ADMIN, NULL);
	assert_int_equal(ans.status, 400);
	assert_non_null(strstr(body_text(), "takes repair=1 or none"));
	assert_string_equal(last_line, "");
	ask(HTTP_REQ_POST, "/v1/namespaces/namespace0.0/check?repair=1", ADMIN, NULL);
	assert_int_equal(ans.status, 202);
	assert_non_null(strstr(body_text(), "\"command\":\"check-namespace namespace0.0 --repair\""));
}

static void a_busy_model_is_503_with_retry_after(void **state)
{
	(void)state;
	lock_busy = true;
	ask(HTTP_REQ_GET, "/v1/regions", READER, NULL);
	assert_int_equal(ans.status, 503);
	assert_non_null(strstr(ans.headers, "Retry-After: 1\r\n"));
	assert_non_null(strstr(body_text(), "busy: a command on another CPU holds the device model"));
	assert_int_equal(lock_depth, 0);
}

static void a_source_that_keeps_failing_is_refused_even_with_a_token(void **state)
{
	(void)state;
	for (int i = 0; i < API_AUTH_FAILS; i++) {
		ask(HTTP_REQ_GET, "/v1/regions", "wrong-token-0123456789", NULL);
		assert_int_equal(ans.status, 401);
	}
	ask(HTTP_REQ_GET, "/v1/regions", READER, NULL);
	assert_int_equal(ans.status, 429);
	assert_non_null(strstr(ans.headers, "Retry-After: 60\r\n"));
	assert_string_equal(last_line, "");
	/* Another source is not. */
	ask_from(&other, HTTP_REQ_GET, "/v1/regions", READER, NULL);
	assert_int_equal(ans.status, 200);
	now += API_AUTH_WINDOW_MS;
	ask(HTTP_REQ_GET, "/v1/regions", READER, NULL);
	assert_int_equal(ans.status, 200);
}

static void map_mem_is_a_job_on_another_cpu(void **state)
{
	(void)state;
	job_gate = 1;
	ask(HTTP_REQ_POST, "/v1/namespaces", ADMIN, "{\"region\":\"region0\",\"map\":\"mem\"}");
	assert_int_equal(ans.status, 202);
	assert_non_null(strstr(ans.headers, "Location: /v1/jobs/1\r\n"));
	assert_non_null(strstr(body_text(), "\"state\":\"running\",\"cpu\":1"));
	/* The network loop goes on meanwhile: a second job finds no idle CPU. */
	ask(HTTP_REQ_POST, "/v1/namespaces/namespace0.0/check", ADMIN, NULL);
	assert_int_equal(ans.status, 503);
	ask(HTTP_REQ_GET, "/v1/jobs/1", READER, NULL);
	assert_int_equal(ans.status, 200);
	assert_non_null(strstr(body_text(), "\"command\":\"create-namespace -r \\\"region0\\\" -m fsdax -M mem -a 2M\""));
	__atomic_store_n(&job_gate, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < 100000; i++) {
		ask(HTTP_REQ_GET, "/v1/jobs/1", READER, NULL);
		if (strstr(body_text(), "\"state\":\"done\""))
			break;
	}
	assert_non_null(strstr(body_text(), "\"state\":\"done\""));
	assert_non_null(strstr(body_text(), "\"status\":200,\"result\":0,\"output\":\"{\\u000a  \\\"dev\\\":\\\"namespace0.0\\\""));
	ask(HTTP_REQ_GET, "/v1/jobs", READER, NULL);
	assert_true(body_text()[0] == '[');
	ask(HTTP_REQ_GET, "/v1/jobs/7", READER, NULL);
	assert_int_equal(ans.status, 404);
	ask(HTTP_REQ_GET, "/v1/jobs/x", READER, NULL);
	assert_int_equal(ans.status, 404);
}

/* Wait until job 1's JSON has want (a few seconds at most). */
static void job_shows(const char *want)
{
	for (int i = 0; i < 200000; i++) {
		ask(HTTP_REQ_GET, "/v1/jobs/1", READER, NULL);
		if (strstr(body_text(), want))
			return;
	}
	fail_msg("job 1 never showed %s: %s", want, body_text());
}

static void a_jobs_progress_is_its_cpus_batch(void **state)
{
	(void)state;
	for (int j = 0; j < 4; j++)
		batch_gate[j] = 1;
	ask(HTTP_REQ_POST, "/v1/namespaces/namespace0.0/check", ADMIN, NULL);
	assert_int_equal(ans.status, 202);
	job_shows("\"progress\":{\"done\":0,\"total\":4}");
	__atomic_store_n(&batch_gate[0], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&batch_gate[1], 0, __ATOMIC_RELEASE);
	job_shows("\"progress\":{\"done\":2,\"total\":4}");
	__atomic_store_n(&batch_gate[2], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&batch_gate[3], 0, __ATOMIC_RELEASE);
	job_shows("\"state\":\"done\"");
	assert_null(strstr(body_text(), "progress"));
	assert_non_null(strstr(body_text(), "\"output\":\"namespace0.0: clean\\u000a\""));
}

static void the_head_of_an_answer(void **state)
{
	char head[512];

	(void)state;
	ask(HTTP_REQ_GET, "/v1/regions", NULL, NULL);
	ans.close = true;
	assert_true(api_answer_head(&ans, head, sizeof(head)) > 0);
	assert_non_null(strstr(head, "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"));
	assert_non_null(strstr(head, "Connection: close\r\n\r\n"));
	assert_int_equal(api_answer_head(&ans, head, 20), -E2BIG);
	api_answer_refusal(431, "request line and headers larger than 8192 bytes", &ans);
	assert_int_equal(ans.status, 431);
	assert_true(ans.close);
	assert_string_equal(body_text(),
			    "{\"status\":431,\"error\":\"request line and headers larger than 8192 bytes\"}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(the_page_needs_no_token_and_nothing_else_is_read_without_one, setup, teardown),
		cmocka_unit_test_setup_teardown(a_read_token_reads_the_consoles_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(a_read_token_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(a_map_dev_create_runs_the_consoles_command, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_bodies_are_refused_with_the_parsers_line, setup, teardown),
		cmocka_unit_test_setup_teardown(an_export_and_a_refused_destroy, setup, teardown),
		cmocka_unit_test_setup_teardown(paths_and_methods, setup, teardown),
		cmocka_unit_test_setup_teardown(actions_and_their_one_query, setup, teardown),
		cmocka_unit_test_setup_teardown(a_busy_model_is_503_with_retry_after, setup, teardown),
		cmocka_unit_test_setup_teardown(a_source_that_keeps_failing_is_refused_even_with_a_token, setup, teardown),
		cmocka_unit_test_setup_teardown(map_mem_is_a_job_on_another_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(a_jobs_progress_is_its_cpus_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(the_head_of_an_answer, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
