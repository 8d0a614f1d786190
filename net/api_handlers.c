/*
 * The HTTPS API's answers (include/api.h): route on method and path,
 * check the bearer token, then run the console command the resource is,
 * with its output captured, and make its result an HTTP status and its
 * output the body: the console's JSON as it is, a refusal as
 * {"status":N,"error":"FIRST LINE","output":"ALL OF IT"}.
 *
 * Runs in the network loop: only commands that answer at once run here
 * (list, a map=dev create, destroy, the NBD tables); a command waits for
 * no lock (shell_run_captured: -EAGAIN, 503 with Retry-After). Long work
 * goes to a job (net/api_jobs.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "api_files.h"
#include "api_json.h"
#include "api_tokens.h"
#include "print_capture.h"
#include "printk.h"
#include "shell.h"

u64 api_answers[3];

/* What a route does. */
enum api_do {
	DO_PAGE,	/* the status page */
	DO_SHOW,	/* run cmd, answer its output (JSON unless type says otherwise) */
	DO_NS_CREATE,	/* create-namespace from the JSON body (a job for map=mem, sector) */
	DO_EXPORT,	/* nbd-export from the JSON body */
	DO_JOBS,	/* the jobs, or job ARG */
	DO_RUN,		/* run "cmd ARG[ flag]" at once (echoed to the console unless a GET) */
	DO_JOB,		/* the same as a job */
};

/*
 * A path pattern's '*' is one segment: a device, namespace or job name,
 * the ARG of the route's command. query: the one query the route takes
 * (the whole of it), which adds flag to the command.
 */
struct api_route {
	enum http_req_method method;
	const char *path;
	enum api_do what;
	const char *cmd;
	const char *type;	/* DO_SHOW's Content-Type (NULL: JSON) */
	const char *query, *flag;
};

#define JSON "application/json"
#define PROM "text/plain; version=0.0.4; charset=utf-8"

#define ROUTE(_m, _path, _what, ...) { .method = (_m), .path = (_path), .what = (_what), __VA_ARGS__ }

static const struct api_route routes[] = {
	ROUTE(HTTP_REQ_GET, "/", DO_PAGE),
	ROUTE(HTTP_REQ_GET, "/v1/regions", DO_SHOW, .cmd = "list -RN"),
	ROUTE(HTTP_REQ_GET, "/v1/namespaces", DO_SHOW, .cmd = "list -N"),
	ROUTE(HTTP_REQ_GET, "/v1/dimms", DO_SHOW, .cmd = "list -D"),
	ROUTE(HTTP_REQ_GET, "/v1/badblocks", DO_SHOW, .cmd = "list -RNM"),
	ROUTE(HTTP_REQ_GET, "/v1/meminfo", DO_SHOW, .cmd = "meminfo -j"),
	ROUTE(HTTP_REQ_GET, "/v1/exports", DO_SHOW, .cmd = "nbd-list -j"),
	ROUTE(HTTP_REQ_GET, "/v1/system", DO_SHOW, .cmd = "uptime -j"),
	ROUTE(HTTP_REQ_GET, "/metrics", DO_SHOW, .cmd = "metrics", .type = PROM),
	ROUTE(HTTP_REQ_GET, "/v1/jobs", DO_JOBS),
	ROUTE(HTTP_REQ_GET, "/v1/jobs/*", DO_JOBS),
	ROUTE(HTTP_REQ_POST, "/v1/namespaces", DO_NS_CREATE),
	ROUTE(HTTP_REQ_GET, "/v1/namespaces/*/infoblock", DO_RUN, .cmd = "read-infoblock"),
	ROUTE(HTTP_REQ_DELETE, "/v1/namespaces/*", DO_RUN, .cmd = "destroy-namespace -f"),
	ROUTE(HTTP_REQ_POST, "/v1/namespaces/*/enable", DO_RUN, .cmd = "enable-namespace"),
	ROUTE(HTTP_REQ_POST, "/v1/namespaces/*/disable", DO_RUN, .cmd = "disable-namespace"),
	ROUTE(HTTP_REQ_POST, "/v1/namespaces/*/check", DO_JOB, .cmd = "check-namespace",
	      .query = "repair=1", .flag = " --repair"),
	ROUTE(HTTP_REQ_POST, "/v1/dimms/*/init-labels", DO_RUN, .cmd = "init-labels",
	      .query = "force=1", .flag = " -f"),
	ROUTE(HTTP_REQ_POST, "/v1/exports", DO_EXPORT),
	ROUTE(HTTP_REQ_DELETE, "/v1/exports/*", DO_RUN, .cmd = "nbd-unexport"),
	ROUTE(HTTP_REQ_DELETE, "/v1/clients/*", DO_RUN, .cmd = "nbd-disconnect"),
};

/* The body every answer is built in (one request at a time: the network's CPU). */
static char body[API_BODY_MAX];

static const char *method_name(enum http_req_method m)
{
	return m == HTTP_REQ_GET ? "GET" : m == HTTP_REQ_POST ? "POST" : "DELETE";
}

const char *api_status_text(u16 status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 417: return "Expectation Failed";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return "";
}

u16 api_status_of(int rc, u16 ok_status)
{
	switch (rc) {
	case 0: return ok_status;
	case -EINVAL: case -E2BIG: case -ERANGE: case -EOPNOTSUPP: return 400;
	case -EPERM: case -EACCES: return 403;
	case -ENOENT: case -ENODEV: case -ENXIO: return 404;
	case -EBUSY: case -EEXIST: case -ENOSPC: case -EROFS: return 409;
	case -EAGAIN: case -ENOMEM: case -ENETDOWN: return 503;
	}
	return 500;
}

/* Start an answer: status, type, body (not copied), no more headers. */
static void answer(struct api_answer *a, u16 status, const char *type, const char *b, size_t len)
{
	a->status = status;
	a->type = type;
	a->body = b;
	a->len = len;
}

static void add_header(struct api_answer *a, const char *fmt, const char *value)
{
	size_t at = strlen(a->headers);

	snprintf(a->headers + at, sizeof(a->headers) - at, fmt, value);
}

/* {"status":N,"error":REASON[,"output":OUTPUT]} into body (reason and output may point into it). */
static void answer_error(struct api_answer *a, u16 status, const char *reason, const char *output)
{
	static char why[512], out[16 << 10];
	size_t n;

	snprintf(why, sizeof(why), "%s", reason);
	if (output) {
		size_t keep = strnlen(output, sizeof(out) - 1);
		memcpy(out, output, keep);
		out[keep] = '\0';
	}
	n = (size_t)snprintf(body, sizeof(body), "{\"status\":%u,\"error\":\"", status);
	n += api_json_escape(body + n, sizeof(body) - n, why);
	if (output && n < sizeof(body)) {
		n += (size_t)snprintf(body + n, sizeof(body) - n, "\",\"output\":\"");
		if (n < sizeof(body))
			n += api_json_escape(body + n, sizeof(body) - n, out);
	}
	if (n < sizeof(body))
		n += (size_t)snprintf(body + n, sizeof(body) - n, "\"}\n");
	answer(a, status, JSON, body, n < sizeof(body) ? n : strlen(body));
}

void api_answer_refusal(u16 status, const char *reason, struct api_answer *a)
{
	memset(a, 0, sizeof(*a));
	answer_error(a, status, reason, NULL);
	a->close = true;
}

int api_answer_head(const struct api_answer *a, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n%s%s\r\n",
			 a->status, api_status_text(a->status), a->type, a->len, a->headers,
			 a->close ? "Connection: close\r\n" : "");
	return n < 0 || (size_t)n >= len ? -E2BIG : n;
}

/* ---- Authentication: tokens, and sources that keep failing ---- */

static struct auth_source {
	u32 addr, fails, first_ms, blocked_until;
	bool used, blocked;
} sources[API_AUTH_SOURCES];

static struct auth_source *source_of(u32 addr, bool make, u32 now)
{
	struct auth_source *oldest = &sources[0];

	for (unsigned int i = 0; i < API_AUTH_SOURCES; i++) {
		if (sources[i].used && sources[i].addr == addr)
			return &sources[i];
		if (!sources[i].used || (oldest->used && now - sources[i].first_ms > now - oldest->first_ms))
			oldest = &sources[i];
	}
	if (!make)
		return NULL;
	*oldest = (struct auth_source){ .addr = addr, .first_ms = now, .used = true };
	return oldest;
}

/* Seconds src is still refused for (0: it is not). */
static u32 refused_for(u32 addr, u32 now)
{
	struct auth_source *s = source_of(addr, false, now);

	if (!s || !s->blocked)
		return 0;
	if ((s32)(now - s->blocked_until) >= 0) {
		*s = (struct auth_source){ 0 };
		return 0;
	}
	return (s->blocked_until - now + 999) / 1000;
}

static void auth_failed(const struct api_peer *peer, u32 now)
{
	struct auth_source *s = source_of(peer->addr, true, now);

	if (now - s->first_ms >= API_AUTH_WINDOW_MS) {
		s->first_ms = now;
		s->fails = 0;
	}
	if (++s->fails < API_AUTH_FAILS)
		return;
	s->blocked = true;
	s->blocked_until = now + API_AUTH_WINDOW_MS;
	pr_warn("api: %s: %u requests with a token that is not valid in %u s; refusing its requests for %u s\n",
		peer->name, s->fails, API_AUTH_WINDOW_MS / 1000, API_AUTH_WINDOW_MS / 1000);
}

/* The role the request's token has, or an answer (401, 429) and NONE. */
static enum api_role authenticate(const struct http_request *req, const struct api_peer *peer,
				  u32 now, struct api_answer *a)
{
	char wait[12];
	u32 secs = refused_for(peer->addr, now);
	enum api_role role = API_ROLE_NONE;

	if (secs) {
		snprintf(wait, sizeof(wait), "%u", secs);
		add_header(a, "Retry-After: %s\r\n", wait);
		answer_error(a, 429, "too many requests without a valid token from here; try later",
			     NULL);
		return API_ROLE_NONE;
	}
	if (req->auth == HTTP_AUTH_BEARER && api_token_table())
		role = api_tokens_lookup(api_token_table(), req->token, req->token_len);
	if (role != API_ROLE_NONE)
		return role;
	if (req->auth == HTTP_AUTH_NONE) {	/* no guess: not counted against the source */
		add_header(a, "WWW-Authenticate: Bearer realm=\"%s\"\r\n", "pmemk");
		answer_error(a, 401, "a bearer token is needed (Authorization: Bearer TOKEN)", NULL);
	} else {
		auth_failed(peer, now);
		add_header(a, "WWW-Authenticate: Bearer realm=\"%s\", error=\"invalid_token\"\r\n",
			   "pmemk");
		answer_error(a, 401, "the bearer token is not valid", NULL);
	}
	return API_ROLE_NONE;
}

/* ---- Routing ---- */

/* A path segment a route's '*' takes: a device, namespace, region or job name. */
static bool name_ok(const char *s, size_t n)
{
	if (!n || n > API_DEV_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* Does path match pattern? Its '*' segment, if any, into arg. */
static bool path_match(const char *pattern, const char *path, char *arg, size_t arg_len)
{
	const char *star = strchr(pattern, '*');

	if (!star)
		return !strcmp(pattern, path);
	size_t pre = (size_t)(star - pattern);
	if (strncmp(pattern, path, pre))
		return false;
	const char *seg = path + pre, *end = strchr(seg, '/');
	size_t n = end ? (size_t)(end - seg) : strlen(seg);
	if (strcmp(star + 1, seg + n) || n >= arg_len)
		return false;
	memcpy(arg, seg, n);
	arg[n] = '\0';
	return true;
}

/* The route for the request (and its argument), or NULL and *any_method whether the path exists. */
static const struct api_route *route_find(const struct http_request *req, char *arg, size_t len,
					  bool *any_method, char *allow, size_t allow_len)
{
	const struct api_route *found = NULL;
	size_t at = 0;

	*any_method = false;
	allow[0] = '\0';
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		char seg[HTTP_TARGET_MAX + 1] = "";
		if (!path_match(routes[i].path, req->path, seg, sizeof(seg)))
			continue;
		*any_method = true;
		at += (size_t)snprintf(allow + at, at < allow_len ? allow_len - at : 0, "%s%s",
				       at ? ", " : "", method_name(routes[i].method));
		if (routes[i].method == req->method && !found) {
			found = &routes[i];
			snprintf(arg, len, "%s", seg);
		}
	}
	return found;
}

/* ---- Running commands ---- */

/* The first line of s (for an error's reason), in buf. */
static const char *first_line(const char *s, char *buf, size_t len)
{
	size_t n = strcspn(s, "\n");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
	return buf;
}

/* Whether s (after blanks) starts a JSON value the console printed. */
static bool is_json(const char *s)
{
	s += strspn(s, " \t\r\n");
	return *s == '{' || *s == '[';
}

/*
 * Run line captured (echoed to the console when it changes something)
 * and answer: ok_status with the output (JSON as it is; other text as
 * {"message":...}; none as [] for a listing, {} for a change), or the
 * error its result means.
 */
static void run_command(struct api_answer *a, const char *line, u16 ok_status, bool echo,
			const char *type)
{
	static char reason[256];
	struct print_capture cap = PRINT_CAPTURE_INIT(body, sizeof(body), echo);
	int rc = shell_run_captured(line, &cap);

	if (rc == -EBUSY && !cap.len) {	/* this CPU captures already: a kernel bug, said once */
		answer_error(a, 500, "the API's capture is in use", NULL);
		return;
	}
	if (rc) {
		u16 status = api_status_of(rc, ok_status);
		if (status == 503)
			add_header(a, "Retry-After: %s\r\n", "1");
		answer_error(a, status, cap.len ? first_line(body, reason, sizeof(reason)) :
						  "the command failed and said nothing",
			     cap.len ? body : NULL);
		return;
	}
	if (print_capture_truncated(&cap)) {
		snprintf(reason, sizeof(reason), "the answer is larger than %u bytes",
			 (unsigned int)sizeof(body) - 1);
		answer_error(a, 500, reason, NULL);
		return;
	}
	if (type) {
		answer(a, ok_status, type, body, cap.len);
	} else if (!cap.len && !echo) {
		answer(a, ok_status, JSON, "[]\n", 3);	/* a listing of nothing, as ndctl's */
	} else if (!cap.len) {
		answer(a, ok_status, JSON, "{}\n", 3);	/* a change that said nothing */
	} else if (is_json(body)) {
		answer(a, ok_status, JSON, body, cap.len);
	} else {
		static char text[4096];
		size_t keep = cap.len < sizeof(text) - 1 ? cap.len : sizeof(text) - 1;
		memcpy(text, body, keep);
		text[keep] = '\0';
		size_t n = (size_t)snprintf(body, sizeof(body), "{\"message\":\"");
		n += api_json_escape(body + n, sizeof(body) - n, text);
		n += (size_t)snprintf(body + n, n < sizeof(body) ? sizeof(body) - n : 0, "\"}\n");
		answer(a, ok_status, JSON, body, n < sizeof(body) ? n : strlen(body));
	}
}

/* Start line as a job: 202 with its resource, or why not. */
static void start_job(struct api_answer *a, const char *line)
{
	char where[32];
	u32 id;
	int err = api_job_start(line, &id);

	if (err == -EAGAIN) {
		add_header(a, "Retry-After: %s\r\n", "1");
		answer_error(a, 503, "no idle CPU for the job (every other CPU is busy, or there is none); try again",
			     NULL);
		return;
	}
	if (err) {
		answer_error(a, err == -ENOSPC ? 503 : 500,
			     err == -ENOSPC ? "every job slot holds a running job; try again" :
					      "the job could not start",
			     NULL);
		return;
	}
	snprintf(where, sizeof(where), "/v1/jobs/%u", id);
	add_header(a, "Location: %s\r\n", where);
	int n = api_job_json(id, body, sizeof(body));
	answer(a, 202, JSON, body, n > 0 ? (size_t)n : 0);
}

/*
 * The body a POST needs is JSON whatever its type says; a type other than
 * none, application/json, or curl -d's default
 * (application/x-www-form-urlencoded) is refused: true, or an answer (415).
 */
static bool json_body(const struct http_request *req, struct api_answer *a)
{
	const char *t = req->content_type;
	size_t n = strcspn(t, ";");

	while (n && t[n - 1] == ' ')
		n--;
	if (!*t || (n == 16 && !strncasecmp(t, "application/json", 16)) ||
	    (n == 33 && !strncasecmp(t, "application/x-www-form-urlencoded", 33)))
		return true;
	answer_error(a, 415, "the body must be JSON (Content-Type: application/json)", NULL);
	return false;
}

static void do_ns_create(const struct http_request *req, struct api_answer *a)
{
	static struct api_ns_create c;
	char why[256], line[SHELL_LINE_MAX];

	if (!json_body(req, a))
		return;
	int err = api_json_ns_create((const char *)req->body, req->body_len, &c, why, sizeof(why));
	if (!err)
		err = api_ns_create_line(&c, line, sizeof(line));
	if (err) {
		answer_error(a, 400, err == -E2BIG ? "the request is too long for one command" : why,
			     NULL);
		return;
	}
	/* struct pages in RAM, or a BTT's map and log: seconds at some sizes. */
	if (c.req.mode == PFN_MODE_RAM || c.req.sector)
		start_job(a, line);
	else
		run_command(a, line, 201, true, NULL);
}

static void do_export(const struct http_request *req, struct api_answer *a)
{
	char why[256], spec[API_EXPORT_SPEC_MAX + 1], line[SHELL_LINE_MAX];

	if (!json_body(req, a))
		return;
	if (api_json_export((const char *)req->body, req->body_len, spec, sizeof(spec), why,
			    sizeof(why))) {
		answer_error(a, 400, why, NULL);
		return;
	}
	if (strlen(spec) + sizeof("nbd-export ") > sizeof(line)) {
		answer_error(a, 400, "the export's spec is too long for one command", NULL);
		return;
	}
	memcpy(line, "nbd-export ", sizeof("nbd-export ") - 1);
	strcpy(line + sizeof("nbd-export ") - 1, spec);
	run_command(a, line, 201, true, NULL);
}

static void do_jobs(const char *arg, struct api_answer *a)
{
	u32 id = 0;

	if (*arg) {
		u64 v;
		if (shell_parse_u64(arg, &v) || !v || v > 0xFFFFFFFFu) {
			answer_error(a, 404, "no such job", NULL);
			return;
		}
		id = (u32)v;
	}
	int n = api_job_json(id, body, sizeof(body));
	if (n < 0)
		answer_error(a, 404, n == -ENOENT ? "no such job" : "the jobs do not fit", NULL);
	else
		answer(a, 200, JSON, body, (size_t)n);
}

static void dispatch(const struct api_route *r, const char *arg, const struct http_request *req,
		     struct api_answer *a)
{
	char line[SHELL_LINE_MAX];

	switch (r->what) {
	case DO_PAGE: {
		size_t len;
		const char *page = api_page(&len);
		answer(a, 200, "text/html; charset=utf-8", page, len);
		add_header(a, "Content-Security-Policy: %s\r\n",
			   "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:");
		return;
	}
	case DO_SHOW:
		run_command(a, r->cmd, 200, false, r->type);
		return;
	case DO_NS_CREATE:
		do_ns_create(req, a);
		return;
	case DO_EXPORT:
		do_export(req, a);
		return;
	case DO_JOBS:
		do_jobs(arg, a);
		return;
	case DO_RUN:
	case DO_JOB:
		snprintf(line, sizeof(line), "%s %s%s", r->cmd, arg, *req->query ? r->flag : "");
		if (r->what == DO_JOB)
			start_job(a, line);
		else
			run_command(a, line, 200, req->method != HTTP_REQ_GET, NULL);
		return;
	}
}

void api_handle(const struct http_request *req, const struct api_peer *peer, u32 now_ms,
		struct api_answer *a)
{
	char arg[HTTP_TARGET_MAX + 1], allow[64];
	bool path_known;

	memset(a, 0, sizeof(*a));
	a->close = !req->keep_alive;
	const struct api_route *r = route_find(req, arg, sizeof(arg), &path_known, allow,
					       sizeof(allow));
	if (!r && path_known) {
		add_header(a, "Allow: %s\r\n", allow);
		answer_error(a, 405, "this resource takes another method", NULL);
	} else if (!r) {
		answer_error(a, 404, "no such resource", NULL);
	} else if (r->what != DO_PAGE && strchr(r->path, '*') && !name_ok(arg, strlen(arg))) {
		answer_error(a, 404, "no such resource (a name of letters, digits, '.', '_' and '-')",
			     NULL);
	} else if (*req->query && (!r->query || strcmp(req->query, r->query))) {
		snprintf(arg, sizeof(arg), "query '%.64s': this resource takes %s%s", req->query,
			 r->query ? r->query : "none", r->query ? " or none" : "");
		answer_error(a, 400, arg, NULL);
	} else if (r->what == DO_PAGE) {
		dispatch(r, arg, req, a);
	} else {
		enum api_role role = authenticate(req, peer, now_ms, a);
		bool change = req->method != HTTP_REQ_GET;
		if (role == API_ROLE_NONE) {
			/* answered (401, 429) */
		} else if (change && role != API_ROLE_ADMIN) {
			answer_error(a, 403, "this token may read, not change (role read)", NULL);
		} else {
			dispatch(r, arg, req, a);
		}
		if (change && role != API_ROLE_NONE)
			pr_info("api: %s (%s) %s %s: %u\n", peer->name, api_role_name(role),
				method_name(req->method), req->path, a->status);
	}
	api_answers[a->status >= 500 ? 2 : a->status >= 400 ? 1 : 0]++;
}
