/* Host tests: HTTP/1.1 requests from a connection's bytes (net/http_request.c). */
#define _GNU_SOURCE	/* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "http_request.h"

static struct http_reader r;

/* Feed all of s at once: the result, *used set. */
static enum http_read feed(const char *s, size_t *used)
{
	return http_reader_feed(&r, (const u8 *)s, strlen(s), used);
}

/* A fresh reader fed s: the result. */
static enum http_read read_one(const char *s)
{
	size_t used;

	http_reader_init(&r);
	return feed(s, &used);
}

static void assert_refused(const char *s, unsigned int status)
{
	enum http_read got = read_one(s);

	if (got != HTTP_READ_ERROR || r.status != status)
		fail_msg("%s: got %d status %u (%s), want %u", s, got, r.status,
			 r.reason ? r.reason : "", status);
	assert_non_null(r.reason);
	assert_null(strchr(r.reason, '\n'));
}

static void http_get_with_bearer_token(void **state)
{
	(void)state;
	assert_int_equal(read_one("GET /v1/regions?x=1 HTTP/1.1\r\nHost: pmemk\r\n"
				  "Authorization: Bearer abc.DEF-123_~+/=\r\nAccept: */*\r\n\r\n"),
			 HTTP_READ_DONE);
	assert_int_equal(r.req.method, HTTP_REQ_GET);
	assert_string_equal(r.req.path, "/v1/regions");
	assert_string_equal(r.req.query, "x=1");
	assert_string_equal(r.req.host, "pmemk");
	assert_int_equal(r.req.auth, HTTP_AUTH_BEARER);
	assert_string_equal(r.req.token, "abc.DEF-123_~+/=");
	assert_int_equal(r.req.token_len, 16);
	assert_true(r.req.keep_alive);
	assert_int_equal(r.req.body_len, 0);
}

static void http_post_body_and_connection_close(void **state)
{
	(void)state;
	assert_int_equal(read_one("POST /v1/namespaces HTTP/1.1\r\nhost: a\r\n"
				  "content-type: application/json\r\nContent-Length: 14\r\n"
				  "Connection: close\r\n\r\n{\"mode\":\"raw\"}"),
			 HTTP_READ_DONE);
	assert_int_equal(r.req.method, HTTP_REQ_POST);
	assert_string_equal(r.req.content_type, "application/json");
	assert_int_equal(r.req.body_len, 14);
	assert_memory_equal(r.req.body, "{\"mode\":\"raw\"}", 14);
	assert_false(r.req.keep_alive);
	assert_int_equal(r.req.auth, HTTP_AUTH_NONE);
}

/* HTTP/1.0: no Host needed, no keep-alive unless asked. */
static void http_10_and_keep_alive(void **state)
{
	(void)state;
	assert_int_equal(read_one("DELETE /v1/exports/pmem1 HTTP/1.0\r\n\r\n"), HTTP_READ_DONE);
	assert_int_equal(r.req.method, HTTP_REQ_DELETE);
	assert_false(r.req.keep_alive);
	assert_int_equal(r.req.http_minor, 0);
	assert_int_equal(read_one("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
			 HTTP_READ_DONE);
	assert_true(r.req.keep_alive);
}

#define THREE "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"                              \
	      "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz" \
	      "DELETE /c HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer t0k3n\r\n\r\n"

static const char *const three_paths[] = { "/a", "/b", "/c" };

/* Three pipelined requests in one buffer: one at a time, the rest left. */
static void http_pipelined_requests_one_at_a_time(void **state)
{
	const char *s = THREE;
	size_t left = strlen(s), used;

	(void)state;
	http_reader_init(&r);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(http_reader_feed(&r, (const u8 *)s, left, &used), HTTP_READ_DONE);
		assert_string_equal(r.req.path, three_paths[i]);
		/* before next: the reader holds on to the answered request */
		size_t again;
		assert_int_equal(http_reader_feed(&r, (const u8 *)s + used, left - used, &again),
				 HTTP_READ_DONE);
		assert_int_equal(again, 0);
		if (i == 1)
			assert_memory_equal(r.req.body, "xyz", 3);
		if (i == 2)
			assert_string_equal(r.req.token, "t0k3n");
		s += used;
		left -= used;
		http_reader_next(&r);
	}
	assert_int_equal(left, 0);
	assert_int_equal(http_reader_eof(&r), HTTP_READ_MORE);
}

/* The same bytes one at a time: the same three requests. */
static void http_byte_by_byte(void **state)
{
	const char *s = THREE;
	int seen = 0;

	(void)state;
	http_reader_init(&r);
	for (size_t i = 0; s[i]; i++) {
		size_t used;
		enum http_read got = http_reader_feed(&r, (const u8 *)s + i, 1, &used);
		assert_int_equal(used, 1);
		if (got == HTTP_READ_MORE)
			continue;
		assert_int_equal(got, HTTP_READ_DONE);
		assert_string_equal(r.req.path, three_paths[seen]);
		if (seen == 1)
			assert_memory_equal(r.req.body, "xyz", 3);
		if (seen == 2)
			assert_string_equal(r.req.token, "t0k3n");
		seen++;
		http_reader_next(&r);
	}
	assert_int_equal(seen, 3);
}

static void http_every_split_of_a_post(void **state)
{
	const char *s = "POST /v1/exports HTTP/1.1\r\nHost: h\r\nAuthorization: bearer "
			"0123456789abcdef\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n{\"a\"}";
	size_t len = strlen(s);

	(void)state;
	for (size_t cut = 1; cut < len; cut++) {
		size_t used;
		http_reader_init(&r);
		assert_int_equal(http_reader_feed(&r, (const u8 *)s, cut, &used), HTTP_READ_MORE);
		assert_int_equal(http_reader_feed(&r, (const u8 *)s + cut, len - cut, &used),
				 HTTP_READ_DONE);
		assert_string_equal(r.req.token, "0123456789abcdef");
		assert_int_equal(r.req.body_len, 5);
	}
}

/* Expect: 100-continue: due once the headers are in and before the body. */
static void http_expect_continue(void **state)
{
	size_t used;

	(void)state;
	assert_int_equal(read_one("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\n"
				  "Content-Length: 2\r\n\r\n"),
			 HTTP_READ_MORE);
	assert_true(http_reader_continue_due(&r));
	assert_false(http_reader_continue_due(&r));
	assert_int_equal(feed("{}", &used), HTTP_READ_DONE);
	assert_refused("POST /x HTTP/1.1\r\nHost: h\r\nExpect: magic\r\nContent-Length: 2\r\n\r\n",
		       417);
}

static void http_authorization_forms(void **state)
{
	(void)state;
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic YTpi\r\n\r\n"),
			 HTTP_READ_DONE);
	assert_int_equal(r.req.auth, HTTP_AUTH_INVALID);
	assert_int_equal(r.req.token_len, 0);
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer\r\n\r\n"),
			 HTTP_READ_DONE);
	assert_int_equal(r.req.auth, HTTP_AUTH_INVALID);
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer a b\r\n\r\n"),
			 HTTP_READ_DONE);
	assert_int_equal(r.req.auth, HTTP_AUTH_INVALID);
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer   tok  \r\n\r\n"),
			 HTTP_READ_DONE);
	assert_int_equal(r.req.auth, HTTP_AUTH_BEARER);
	assert_string_equal(r.req.token, "tok");
	assert_refused("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer a\r\n"
		       "Authorization: Bearer b\r\n\r\n", 400);
}

/* A header line of name: value; a token of n characters. */
static void request_with_token(char *buf, size_t len, size_t n)
{
	char tok[512];

	memset(tok, 'k', n);
	tok[n] = '\0';
	snprintf(buf, len, "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer %s\r\n\r\n", tok);
}

static void http_token_at_and_past_its_bound(void **state)
{
	char buf[1024];

	(void)state;
	request_with_token(buf, sizeof(buf), HTTP_TOKEN_MAX);
	assert_int_equal(read_one(buf), HTTP_READ_DONE);
	assert_int_equal(r.req.auth, HTTP_AUTH_BEARER);
	assert_int_equal(r.req.token_len, HTTP_TOKEN_MAX);
	request_with_token(buf, sizeof(buf), HTTP_TOKEN_MAX + 1);
	assert_int_equal(read_one(buf), HTTP_READ_DONE);
	assert_int_equal(r.req.auth, HTTP_AUTH_INVALID);
	request_with_token(buf, sizeof(buf), 400);	/* longer than the reader keeps */
	assert_int_equal(read_one(buf), HTTP_READ_DONE);
	assert_int_equal(r.req.auth, HTTP_AUTH_INVALID);
	assert_int_equal(r.req.token_len, 0);
}

static void http_target_at_and_past_its_bound(void **state)
{
	char buf[1024], path[512];

	(void)state;
	memset(path, 'p', sizeof(path));
	path[0] = '/';
	snprintf(buf, sizeof(buf), "GET %.*s HTTP/1.1\r\nHost: h\r\n\r\n", HTTP_TARGET_MAX, path);
	assert_int_equal(read_one(buf), HTTP_READ_DONE);
	assert_int_equal(strlen(r.req.path), HTTP_TARGET_MAX);
	snprintf(buf, sizeof(buf), "GET %.*s HTTP/1.1\r\nHost: h\r\n\r\n", HTTP_TARGET_MAX + 1, path);
	assert_refused(buf, 414);
	assert_refused("GET http://h/x HTTP/1.1\r\nHost: h\r\n\r\n", 400);
	assert_refused("GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400);
}

/* Request line and headers: HTTP_HEAD_MAX bytes pass, one more is 431. */
static void http_head_at_and_past_its_bound(void **state)
{
	static char buf[HTTP_HEAD_MAX + 64];
	const char *start = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: ", *end = "\r\n\r\n";
	size_t pad = HTTP_HEAD_MAX - strlen(start) - strlen(end);

	(void)state;
	for (int extra = 0; extra <= 1; extra++) {
		size_t n = pad + (size_t)extra;
		memcpy(buf, start, strlen(start));
		memset(buf + strlen(start), 'x', n);
		strcpy(buf + strlen(start) + n, end);
		assert_int_equal(strlen(buf), HTTP_HEAD_MAX + (size_t)extra);
		if (extra)
			assert_refused(buf, 431);
		else
			assert_int_equal(read_one(buf), HTTP_READ_DONE);
	}
	char host[300];
	memset(host, 'h', 256);
	host[256] = '\0';
	snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: %.255s\r\n\r\n", host);
	assert_int_equal(read_one(buf), HTTP_READ_DONE);
	snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", host);
	assert_refused(buf, 431);
}

/* A body of HTTP_BODY_MAX bytes passes; one more is 413 before it is read. */
static void http_body_at_and_past_its_bound(void **state)
{
	static char buf[HTTP_BODY_MAX + 128];
	int n = snprintf(buf, sizeof(buf), "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n",
			 HTTP_BODY_MAX);

	(void)state;
	memset(buf + n, 'b', HTTP_BODY_MAX);
	buf[n + HTTP_BODY_MAX] = '\0';
	assert_int_equal(read_one(buf), HTTP_READ_DONE);
	assert_int_equal(r.req.body_len, HTTP_BODY_MAX);
	snprintf(buf, sizeof(buf), "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n",
		 HTTP_BODY_MAX + 1);
	assert_refused(buf, 413);
}

static void http_every_error_status(void **state)
{
	(void)state;
	assert_refused("PUT / HTTP/1.1\r\nHost: h\r\n\r\n", 405);
	assert_refused("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n", 405);
	assert_refused("BREW / HTTP/1.1\r\nHost: h\r\n\r\n", 501);
	assert_refused("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505);
	assert_refused("GET / HTTP/1.2\r\nHost: h\r\n\r\n", 505);
	assert_refused("GET / HTTP/1.1\r\n\r\n", 400);	/* no Host */
	assert_refused("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
	assert_refused("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
		       "2\r\n{}\r\n0\r\n\r\n", 411);
	assert_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		       400);
	assert_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: x\r\n\r\n", 400);
	assert_refused("GET / HTTP/1.1\r\nHost h\r\n\r\n", 400);
	assert_refused("GET / HTTP/1.1\r\nBad Header: v\r\n\r\n", 400);
	assert_refused("\x01\x02\x03", 501);
	assert_refused("GET / XTTP/1.1\r\n", 400);
	char ctype[128];
	snprintf(ctype, sizeof(ctype), "GET / HTTP/1.1\r\nHost: h\r\nContent-Type: %064d\r\n\r\n", 0);
	assert_refused(ctype, 431);
}

/* After an error nothing more is read; after Connection: close neither. */
static void http_stays_failed(void **state)
{
	size_t used;

	(void)state;
	assert_refused("PUT / HTTP/1.1\r\nHost: h\r\n\r\n", 405);
	assert_int_equal(feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n", &used), HTTP_READ_ERROR);
	assert_int_equal(used, 0);
	http_reader_next(&r);
	assert_int_equal(feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n", &used), HTTP_READ_ERROR);
	assert_int_equal(r.status, 405);
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"),
			 HTTP_READ_DONE);
	http_reader_next(&r);
	assert_int_equal(feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n", &used), HTTP_READ_ERROR);
	assert_int_equal(r.status, 400);
}

static void http_eof_between_and_inside_requests(void **state)
{
	(void)state;
	http_reader_init(&r);
	assert_int_equal(http_reader_eof(&r), HTTP_READ_MORE);
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHo"), HTTP_READ_MORE);
	assert_int_equal(http_reader_eof(&r), HTTP_READ_ERROR);
	assert_int_equal(r.status, 400);
	assert_int_equal(read_one("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab"),
			 HTTP_READ_MORE);
	assert_int_equal(http_reader_eof(&r), HTTP_READ_ERROR);
}

/* next and wipe leave no byte of the token behind. */
static void http_token_wiped(void **state)
{
	(void)state;
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer SECRETSECRET\r\n\r\n"),
			 HTTP_READ_DONE);
	http_reader_next(&r);
	assert_null(memmem(&r, sizeof(r), "SECRET", 6));
	assert_int_equal(read_one("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer SECRETSECRET\r\n"),
			 HTTP_READ_MORE);
	http_reader_wipe(&r);
	assert_null(memmem(&r, sizeof(r), "SECRET", 6));
}

/* An empty header value, then the next header: names do not run together. */
static void http_empty_header_value(void **state)
{
	(void)state;
	assert_int_equal(read_one("GET / HTTP/1.1\r\nX-Empty:\r\nHost: h\r\n\r\n"), HTTP_READ_DONE);
	assert_string_equal(r.req.host, "h");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(http_get_with_bearer_token),
		cmocka_unit_test(http_post_body_and_connection_close),
		cmocka_unit_test(http_10_and_keep_alive),
		cmocka_unit_test(http_pipelined_requests_one_at_a_time),
		cmocka_unit_test(http_byte_by_byte),
		cmocka_unit_test(http_every_split_of_a_post),
		cmocka_unit_test(http_expect_continue),
		cmocka_unit_test(http_authorization_forms),
		cmocka_unit_test(http_token_at_and_past_its_bound),
		cmocka_unit_test(http_target_at_and_past_its_bound),
		cmocka_unit_test(http_head_at_and_past_its_bound),
		cmocka_unit_test(http_body_at_and_past_its_bound),
		cmocka_unit_test(http_every_error_status),
		cmocka_unit_test(http_stays_failed),
		cmocka_unit_test(http_eof_between_and_inside_requests),
		cmocka_unit_test(http_token_wiped),
		cmocka_unit_test(http_empty_header_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
