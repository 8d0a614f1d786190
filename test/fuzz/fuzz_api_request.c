/*
 * libFuzzer harness: the HTTP API's parsing as a hostile client drives it:
 * request bytes (net/http_request.c over http-parser), then each whole
 * request's body as both JSON bodies (net/api_json.c over jsmn) and its
 * bearer token through the token table (lib/api_tokens.c).
 *
 * Input: byte 0 = how the rest is cut into feeds (0: whole; else the size
 * of every piece), then the bytes a connection would carry. Seeds:
 * test/fuzz/seeds/fuzz_api_request (pipelined GETs, POSTs with JSON
 * bodies, bad requests).
 *
 * Checked after every feed: the result is one of three; a refusal has one
 * of the statuses the header promises and a one-line reason, and the
 * reader stays refused; a whole request has a path starting with '/',
 * strings within their bounds, a body within HTTP_BODY_MAX and a token
 * only when the Authorization header gave one; nothing is taken past the
 * bytes given. The body parsers' reasons are one NUL-terminated line
 * inside their buffer, their outputs zero after a refusal, an export
 * spec they accept parses again, and a create they accept becomes a
 * command line whose strings are each one quoted word.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_tokens.h"
#include "http_request.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static const u16 statuses[] = { 400, 405, 411, 413, 414, 417, 431, 501, 505 };

static void check_refusal(const struct http_reader *r)
{
	bool known = false;

	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		known |= r->status == statuses[i];
	CHECK(known);
	CHECK(r->reason && *r->reason && !strchr(r->reason, '\n'));
}

static void check_reason(const char *why, size_t len)
{
	CHECK(memchr(why, '\0', len));
	CHECK(!strchr(why, '\n'));
}

/* The body as both bodies the API takes. */
static void check_bodies(const struct http_request *q)
{
	static struct api_ns_create ns;
	static const struct api_ns_create zero;
	char why[128], spec[API_EXPORT_SPEC_MAX + 1];

	memset(why, 0x5a, sizeof(why));
	if (api_json_ns_create((const char *)q->body, q->body_len, &ns, why, sizeof(why))) {
		check_reason(why, sizeof(why));
		CHECK(!memcmp(&ns, &zero, sizeof(ns)));
	} else {
		char line[512];
		size_t quotes = 0;
		CHECK(*ns.region || *ns.ns);
		CHECK(!*ns.region || !*ns.ns);
		/* The command line the API runs: each string one quoted word, nothing more. */
		CHECK(!api_ns_create_line(&ns, line, sizeof(line)));
		for (const char *p = line; *p; p++)
			quotes += *p == '"';
		CHECK(quotes == 2 + (*ns.name ? 2 : 0));
	}
	memset(why, 0x5a, sizeof(why));
	if (api_json_export((const char *)q->body, q->body_len, spec, sizeof(spec), why, sizeof(why))) {
		check_reason(why, sizeof(why));
		CHECK(spec[0] == '\0');
	} else {
		CHECK(spec[0] && strlen(spec) <= API_EXPORT_SPEC_MAX);
	}
}

static void check_request(const struct http_request *q)
{
	static struct api_tokens t;
	static bool loaded;

	if (!loaded) {
		char why[64];
		CHECK(api_tokens_parse("0123456789abcdef admin\nreadonly-token-1 read\n", 44, &t, why,
				       sizeof(why)) == 0);
		loaded = true;
	}
	CHECK(q->method >= HTTP_REQ_GET && q->method <= HTTP_REQ_DELETE);
	CHECK(q->path[0] == '/' && strlen(q->path) + strlen(q->query) <= HTTP_TARGET_MAX);
	CHECK(strlen(q->host) <= HTTP_HOST_MAX && strlen(q->content_type) <= HTTP_CTYPE_MAX);
	CHECK(q->body_len <= HTTP_BODY_MAX);
	CHECK(q->auth == HTTP_AUTH_BEARER ? q->token_len >= 1 && q->token_len <= HTTP_TOKEN_MAX :
					    q->token_len == 0);
	enum api_role role = api_tokens_lookup(&t, q->token, q->token_len);
	CHECK(role == API_ROLE_NONE || !memcmp(q->token, role == API_ROLE_ADMIN ?
					       "0123456789abcdef" : "readonly-token-1", 16));
	check_bodies(q);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct http_reader r;

	if (size < 1)
		return 0;
	size_t piece = data[0] ? data[0] : size;
	data++, size--;
	http_reader_init(&r);
	for (size_t at = 0; at < size;) {
		size_t n = size - at < piece ? size - at : piece, used;
		enum http_read got = http_reader_feed(&r, data + at, n, &used);
		CHECK(used <= n);
		at += used;
		if (got == HTTP_READ_ERROR) {
			check_refusal(&r);
			CHECK(http_reader_feed(&r, data, size, &used) == HTTP_READ_ERROR && !used);
			return 0;
		}
		if (got == HTTP_READ_DONE) {
			check_request(&r.req);
			bool last = !r.req.keep_alive;
			http_reader_next(&r);
			if (last)
				return 0;
		} else {
			CHECK(used == n);
			http_reader_continue_due(&r);
		}
	}
	if (http_reader_eof(&r) == HTTP_READ_ERROR)
		check_refusal(&r);
	http_reader_wipe(&r);
	return 0;
}
