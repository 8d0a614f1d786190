/*
 * HTTP/1.1 requests from a connection's bytes (include/http_request.h):
 * http-parser does the framing (request line, header lines, Content-Length,
 * the end of each message); its callbacks here keep what the API needs
 * within fixed bounds and refuse the rest with a status and one line.
 * After each whole request the parser is paused, so the bytes of a
 * pipelined next request stay the caller's until it has answered.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include <http_parser.h>

#include "http_request.h"
#include "memzero.h"

_Static_assert(sizeof(http_parser) <= sizeof(((struct http_reader *)0)->parser),
	       "struct http_reader's room for http-parser's state");
_Static_assert(offsetof(struct http_reader, parser) == 0, "the parser comes first");

static http_parser *parser_of(struct http_reader *r)
{
	return (http_parser *)r->parser;
}

static struct http_reader *reader_of(http_parser *p)
{
	return (struct http_reader *)p;	/* the parser is the reader's first field */
}

/* Refuse the request: the first reason found is the one answered. -1 stops http-parser. */
static int fail(struct http_reader *r, u16 status, const char *reason)
{
	if (!r->failed) {
		r->failed = true;
		r->status = status;
		r->reason = reason;
	}
	return -1;
}

/* Append at[0..len) to dst (of size cap, with its NUL) at *used: false if it does not fit. */
static bool append(char *dst, size_t cap, size_t *used, const char *at, size_t len)
{
	if (len >= cap - *used)
		return false;
	memcpy(dst + *used, at, len);
	*used += len;
	dst[*used] = '\0';
	return true;
}

static bool same_word(const char *s, size_t len, const char *word)
{
	if (len != strlen(word))
		return false;
	for (size_t i = 0; i < len; i++)
		if (tolower((unsigned char)s[i]) != word[i])
			return false;
	return true;
}

static int on_message_begin(http_parser *p)
{
	reader_of(p)->started = true;
	return 0;
}

static int on_url(http_parser *p, const char *at, size_t len)
{
	struct http_reader *r = reader_of(p);

	if (!append(r->req.path, sizeof(r->req.path), &r->target_len, at, len))
		return fail(r, 414, "request target longer than 256 bytes");
	return 0;
}

static enum http_header_kind header_kind(const struct http_reader *r)
{
	static const struct {
		const char *name;
		enum http_header_kind kind;
	} kept[] = {
		{ "host", HTTP_HDR_HOST },
		{ "authorization", HTTP_HDR_AUTHORIZATION },
		{ "content-type", HTTP_HDR_CONTENT_TYPE },
		{ "transfer-encoding", HTTP_HDR_TRANSFER_ENCODING },
		{ "expect", HTTP_HDR_EXPECT },
	};

	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		if (r->name_len == strlen(kept[i].name) && !strcmp(r->name, kept[i].name))
			return kept[i].kind;
	return HTTP_HDR_OTHER;
}

/* "Bearer TOKEN" (the scheme in any case, blanks between) into req.token, else INVALID. */
static void take_authorization(struct http_reader *r)
{
	struct http_request *q = &r->req;
	size_t len = r->value_len, at = 6;

	q->auth = HTTP_AUTH_INVALID;
	if (len >= sizeof(r->value))
		return;	/* longer than it holds: cut short, no token */
	while (len && (r->value[len - 1] == ' ' || r->value[len - 1] == '\t'))
		len--;
	if (len <= at || !same_word(r->value, at, "bearer") ||
	    (r->value[at] != ' ' && r->value[at] != '\t'))
		return;
	while (at < len && (r->value[at] == ' ' || r->value[at] == '\t'))
		at++;
	size_t n = len - at;
	if (!n || n > HTTP_TOKEN_MAX || memchr(r->value + at, ' ', n) || memchr(r->value + at, '\t', n))
		return;
	memcpy(q->token, r->value + at, n);
	q->token[n] = '\0';
	q->token_len = n;
	q->auth = HTTP_AUTH_BEARER;
}

/* The value of the header being read is whole. */
static int header_done(struct http_reader *r)
{
	int err = 0;

	if (r->header == HTTP_HDR_AUTHORIZATION)
		take_authorization(r);
	if (r->header == HTTP_HDR_EXPECT) {
		if (r->value_len > sizeof(r->value) - 1 ||
		    !same_word(r->value, r->value_len, "100-continue"))
			err = fail(r, 417, "Expect other than 100-continue");
		r->expect_continue = true;
	}
	memzero_explicit(r->value, sizeof(r->value));
	r->value_len = 0;
	r->in_value = false;
	r->name_len = 0;
	r->name[0] = '\0';
	return err;
}

static int on_header_field(http_parser *p, const char *at, size_t len)
{
	struct http_reader *r = reader_of(p);

	if (r->in_value && header_done(r))
		return -1;
	for (size_t i = 0; i < len; i++, r->name_len++)
		if (r->name_len < sizeof(r->name) - 1)
			r->name[r->name_len] = (char)tolower((unsigned char)at[i]);
	r->name[r->name_len < sizeof(r->name) ? r->name_len : sizeof(r->name) - 1] = '\0';
	return 0;
}

/* The first bytes of a header's value: which header it is, and is it allowed again. */
static int header_start(struct http_reader *r)
{
	r->in_value = true;
	r->value_len = 0;
	r->header = header_kind(r);
	if (r->header == HTTP_HDR_HOST) {
		if (r->seen_host)
			return fail(r, 400, "Host given twice");
		r->seen_host = true;
	}
	if (r->header == HTTP_HDR_AUTHORIZATION) {
		if (r->seen_auth)
			return fail(r, 400, "Authorization given twice");
		r->seen_auth = true;
	}
	return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
	struct http_reader *r = reader_of(p);
	struct http_request *q = &r->req;
	size_t kept;

	if (!r->in_value && header_start(r))
		return -1;
	switch (r->header) {
	case HTTP_HDR_HOST:
		kept = strlen(q->host);
		if (!append(q->host, sizeof(q->host), &kept, at, len))
			return fail(r, 431, "Host longer than 255 bytes");
		return 0;
	case HTTP_HDR_CONTENT_TYPE:
		kept = strlen(q->content_type);
		if (!append(q->content_type, sizeof(q->content_type), &kept, at, len))
			return fail(r, 431, "Content-Type longer than 63 bytes");
		return 0;
	case HTTP_HDR_AUTHORIZATION:
	case HTTP_HDR_EXPECT:
		/* Too long to be a token we hold: counted on, no longer kept. */
		if (!append(r->value, sizeof(r->value), &r->value_len, at, len))
			r->value_len = sizeof(r->value);
		return 0;
	case HTTP_HDR_TRANSFER_ENCODING:
		return fail(r, 411, "Transfer-Encoding is not accepted: send Content-Length");
	default:
		return 0;
	}
}

/* Split the target into path and query: 0, or the refusal. */
static int take_target(struct http_reader *r)
{
	struct http_request *q = &r->req;
	char *mark = strchr(q->path, '?');

	if (q->path[0] != '/' || strchr(q->path, '#'))
		return fail(r, 400, "request target is not a path");
	if (mark) {
		strcpy(q->query, mark + 1);
		*mark = '\0';
	}
	return 0;
}

static int take_method(struct http_reader *r, unsigned int method)
{
	switch (method) {
	case HTTP_GET:
		r->req.method = HTTP_REQ_GET;
		return 0;
	case HTTP_POST:
		r->req.method = HTTP_REQ_POST;
		return 0;
	case HTTP_DELETE:
		r->req.method = HTTP_REQ_DELETE;
		return 0;
	default:
		return fail(r, 405, "method not allowed: only GET, POST and DELETE");
	}
}

static int on_headers_complete(http_parser *p)
{
	struct http_reader *r = reader_of(p);
	bool has_length = p->flags & F_CONTENTLENGTH;

	if (r->in_value && header_done(r))
		return -1;
	if (p->http_major != 1 || p->http_minor > 1)
		return fail(r, 505, "HTTP version not supported: only HTTP/1.0 and HTTP/1.1");
	r->req.http_minor = (u8)p->http_minor;
	if (take_method(r, p->method) || take_target(r))
		return -1;
	if (p->http_minor == 1 && !r->seen_host)
		return fail(r, 400, "HTTP/1.1 request without Host");
	if (p->uses_transfer_encoding)
		return fail(r, 411, "Transfer-Encoding is not accepted: send Content-Length");
	if (has_length && p->content_length > HTTP_BODY_MAX)
		return fail(r, 413, "body larger than 4096 bytes");
	r->continue_due = r->expect_continue && has_length && p->content_length > 0;
	return 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
	struct http_reader *r = reader_of(p);
	struct http_request *q = &r->req;

	if (len > sizeof(q->body) - q->body_len)
		return fail(r, 413, "body larger than 4096 bytes");
	memcpy(q->body + q->body_len, at, len);
	q->body_len += len;
	return 0;
}

static int on_message_complete(http_parser *p)
{
	struct http_reader *r = reader_of(p);

	r->req.keep_alive = http_should_keep_alive(p);
	r->done = true;
	r->continue_due = false;
	http_parser_pause(p, 1);	/* the next request's bytes stay the caller's */
	return 0;
}

static const http_parser_settings settings = {
	.on_message_begin = on_message_begin,
	.on_url = on_url,
	.on_header_field = on_header_field,
	.on_header_value = on_header_value,
	.on_headers_complete = on_headers_complete,
	.on_body = on_body,
	.on_message_complete = on_message_complete,
};

/* The refusal for an error http-parser found itself (its text names no input byte). */
static void fail_parse(struct http_reader *r, enum http_errno err)
{
	switch (err) {
	case HPE_HEADER_OVERFLOW:
		fail(r, 431, "request line and headers longer than 8192 bytes");
		break;
	case HPE_INVALID_METHOD:
		fail(r, 501, "method not implemented");
		break;
	case HPE_INVALID_CONTENT_LENGTH:
	case HPE_UNEXPECTED_CONTENT_LENGTH:
		fail(r, 400, "bad or repeated Content-Length");
		break;
	case HPE_INVALID_TRANSFER_ENCODING:
		fail(r, 411, "Transfer-Encoding is not accepted: send Content-Length");
		break;
	case HPE_CLOSED_CONNECTION:
		fail(r, 400, "bytes after a request that closed the connection");
		break;
	default:
		fail(r, 400, http_errno_description(err));
	}
}

void http_reader_init(struct http_reader *r)
{
	memzero_explicit(r, sizeof(*r));
	http_parser_init(parser_of(r), HTTP_REQUEST);
	/* One bound for every reader (http-parser keeps it in a global). */
	http_parser_set_max_header_size(HTTP_HEAD_MAX);
}

enum http_read http_reader_feed(struct http_reader *r, const u8 *buf, size_t len, size_t *used)
{
	http_parser *p = parser_of(r);

	*used = 0;
	if (r->failed)
		return HTTP_READ_ERROR;
	if (r->done)
		return HTTP_READ_DONE;
	if (!len)
		return HTTP_READ_MORE;	/* to http-parser, 0 bytes would mean the end */
	size_t n = http_parser_execute(p, &settings, (const char *)buf, len);
	*used = n;
	if (r->failed)
		return HTTP_READ_ERROR;	/* a callback's refusal */
	if (r->done)
		return HTTP_READ_DONE;
	if (HTTP_PARSER_ERRNO(p) != HPE_OK) {
		fail_parse(r, HTTP_PARSER_ERRNO(p));
		return HTTP_READ_ERROR;
	}
	if (n != len) {
		fail(r, 400, "malformed request");	/* http-parser stopped without a reason */
		return HTTP_READ_ERROR;
	}
	return HTTP_READ_MORE;
}

bool http_reader_continue_due(struct http_reader *r)
{
	bool due = r->continue_due && !r->failed && !r->done;

	r->continue_due = false;
	return due;
}

void http_reader_next(struct http_reader *r)
{
	http_parser *p = parser_of(r);

	memzero_explicit(&r->req, sizeof(r->req));
	r->started = r->done = r->in_value = r->seen_host = r->seen_auth = false;
	r->expect_continue = r->continue_due = false;
	r->header = HTTP_HDR_OTHER;
	r->name_len = r->value_len = r->target_len = 0;
	r->name[0] = '\0';
	if (!r->failed)
		http_parser_pause(p, 0);
}

enum http_read http_reader_eof(struct http_reader *r)
{
	if (r->failed)
		return HTTP_READ_ERROR;
	if (r->started && !r->done) {
		fail(r, 400, "connection closed in the middle of a request");
		return HTTP_READ_ERROR;
	}
	return HTTP_READ_MORE;
}

void http_reader_wipe(struct http_reader *r)
{
	memzero_explicit(r, sizeof(*r));
}
