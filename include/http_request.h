/*
 * HTTP/1.1 requests read from a connection's bytes (net/http_request.c,
 * over Debian's http-parser 2.9.4): bytes go in as they arrive, split
 * anywhere, several requests back to back (pipelined); one complete
 * request comes out at a time, or the status to answer with and one line
 * of why. Everything is bounded and lives in one struct http_reader per
 * connection: nothing is allocated. Portable, host-tested
 * (test_http_request) and fuzzed (fuzz_api_request).
 *
 * What a request may be (RFC 9112), and the answer when it is not:
 *   - GET, POST or DELETE; another method http-parser knows (HEAD, PUT,
 *     OPTIONS, ...) 405, one it does not 501;
 *   - HTTP/1.0 or 1.1, else 505; a request target in origin form (a path,
 *     an optional query) of at most HTTP_TARGET_MAX bytes, else 414 (too
 *     long) or 400 (not a path);
 *   - request line and headers together at most HTTP_HEAD_MAX bytes, and
 *     each header the API keeps within its own bound, else 431;
 *   - a body of at most HTTP_BODY_MAX bytes with Content-Length, else 413
 *     (said before the body is read); Transfer-Encoding (chunked or any)
 *     411: the API's clients know their body's length up front;
 *   - Host exactly once for HTTP/1.1, Authorization at most once, else
 *     400; Expect only 100-continue, else 417; anything else malformed 400.
 * After an error the reader stays failed: answer with the status and close
 * the connection (the bytes after a bad request cannot be trusted to start
 * the next one).
 */
#ifndef PMEMK_HTTP_REQUEST_H
#define PMEMK_HTTP_REQUEST_H

#include "types.h"

#define HTTP_HEAD_MAX 8192	/* request line and headers, bytes */
#define HTTP_TARGET_MAX 256	/* request target (path and query), bytes */
#define HTTP_BODY_MAX 4096	/* body, bytes */
#define HTTP_TOKEN_MAX 128	/* a bearer token kept, bytes */
#define HTTP_HOST_MAX 255	/* Host, bytes (a DNS name's bound) */
#define HTTP_CTYPE_MAX 63	/* Content-Type, bytes */

enum http_req_method { HTTP_REQ_GET = 1, HTTP_REQ_POST, HTTP_REQ_DELETE };

/* What the Authorization header gave. */
enum http_auth {
	HTTP_AUTH_NONE,		/* no Authorization header */
	HTTP_AUTH_BEARER,	/* "Bearer TOKEN": token[0..token_len) */
	HTTP_AUTH_INVALID,	/* another scheme, no token, or one longer than HTTP_TOKEN_MAX */
};

/* One complete request. Strings are NUL-terminated. */
struct http_request {
	enum http_req_method method;
	char path[HTTP_TARGET_MAX + 1];		/* up to '?', not decoded */
	char query[HTTP_TARGET_MAX + 1];	/* after '?' ("" without one) */
	char host[HTTP_HOST_MAX + 1];		/* "" for an HTTP/1.0 request without one */
	char content_type[HTTP_CTYPE_MAX + 1];	/* "" without one */
	enum http_auth auth;
	char token[HTTP_TOKEN_MAX + 1];		/* a secret: never print it */
	size_t token_len;
	bool keep_alive;	/* false: answer, then close (Connection: close, or HTTP/1.0) */
	u8 http_minor;		/* HTTP/1.x */
	size_t body_len;
	u8 body[HTTP_BODY_MAX];
};

/* The header being read, while it is. */
enum http_header_kind {
	HTTP_HDR_OTHER, HTTP_HDR_HOST, HTTP_HDR_AUTHORIZATION, HTTP_HDR_CONTENT_TYPE,
	HTTP_HDR_TRANSFER_ENCODING, HTTP_HDR_EXPECT,
};

/* A connection's reader. Its fields are the reader's; read req, status and reason. */
struct http_reader {
	/* http-parser's struct http_parser (its size checked in the .c), first */
	_Alignas(8) u8 parser[32];
	struct http_request req;	/* the request read so far, whole after HTTP_READ_DONE */
	u16 status;			/* after HTTP_READ_ERROR: 400, 405, 411, 413, 414, 417, 431, 501, 505 */
	const char *reason;		/* after HTTP_READ_ERROR: one line, no byte of the input */
	/* bookkeeping while reading */
	bool started, failed, done, in_value, seen_host, seen_auth, expect_continue, continue_due;
	enum http_header_kind header;	/* the header whose value is being read */
	char name[24];			/* its name so far, lower case (longer ones are none we keep) */
	size_t name_len, value_len, target_len;
	char value[HTTP_TOKEN_MAX + 16];	/* Authorization or Expect, as sent */
};

enum http_read {
	HTTP_READ_MORE,		/* every byte taken: give more when they come */
	HTTP_READ_DONE,		/* r->req is one whole request; *used bytes were taken */
	HTTP_READ_ERROR,	/* answer r->status, r->reason and close */
};

/* Make r ready for a connection's first request. */
void http_reader_init(struct http_reader *r);

/*
 * Read buf[0..len) (len may be 0). *used: how many bytes were taken; after
 * HTTP_READ_DONE the rest (buf + *used) belongs to the next request: give
 * it again after http_reader_next. After HTTP_READ_ERROR nothing more is
 * read (every later call returns it again).
 */
enum http_read http_reader_feed(struct http_reader *r, const u8 *buf, size_t len, size_t *used);

/*
 * Once per request, after a feed that returned HTTP_READ_MORE: whether the
 * client waits for "HTTP/1.1 100 Continue" before it sends the body
 * (Expect: 100-continue, the headers read, a body still to come).
 */
bool http_reader_continue_due(struct http_reader *r);

/*
 * After HTTP_READ_DONE, once the request was answered: wipe it (the token
 * too) and read the next one. A request whose keep_alive is false ends the
 * connection: close it instead.
 */
void http_reader_next(struct http_reader *r);

/*
 * The peer closed its side: HTTP_READ_MORE if that happened between
 * requests (close quietly), else HTTP_READ_ERROR (400, a request cut short).
 */
enum http_read http_reader_eof(struct http_reader *r);

/* Wipe everything r holds (the token too): the connection is gone. */
void http_reader_wipe(struct http_reader *r);

#endif
