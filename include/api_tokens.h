/*
 * The HTTP API's bearer tokens (lib/api_tokens.c): the boot file api.tokens
 * parsed into a fixed table, a lookup whose time does not depend on which
 * token matched, how much of one did, or whether any did, and a wipe.
 * Portable, host-tested (test_api_tokens) and fuzzed (fuzz_api_request).
 *
 * The file: one "TOKEN ROLE" a line, the two separated by blanks (spaces or
 * tabs; blanks before and after are ignored), e.g.
 *
 *   # ops team
 *   Zm9vYmFyLWJhei1xdXV4LTE5ODQ= admin
 *   monitoring.3f9c2a71e5b8d604 read
 *
 * TOKEN is API_TOKEN_MIN to API_TOKEN_MAX characters of A-Z a-z 0-9 and
 * . _ ~ + / = - (RFC 6750's b64token, what `openssl rand -base64 32`
 * prints); ROLE is read (GET only) or admin (everything). LF or CRLF line
 * ends, a last line without one, blank lines and lines whose first non-blank
 * is '#' are fine. The input is untrusted and holds secrets: a bad line is
 * skipped with a reason naming its line number, never its content; a token
 * given again is skipped (the first one counts).
 */
#ifndef PMEMK_API_TOKENS_H
#define PMEMK_API_TOKENS_H

#include "types.h"

#define API_TOKEN_MIN 16	/* characters */
#define API_TOKEN_MAX 128	/* characters */
#define API_TOKENS_MAX 16	/* tokens kept */

/* Bits, so a test can see that a lookup went over every entry (test_api_tokens). */
enum api_role { API_ROLE_NONE = 0, API_ROLE_READ = 1, API_ROLE_ADMIN = 2 };

struct api_token {
	char token[API_TOKEN_MAX];	/* not NUL-terminated; zero after len */
	u8 len;				/* 0: an unused slot */
	u8 role;			/* enum api_role */
};

struct api_tokens {
	struct api_token slot[API_TOKENS_MAX];	/* used ones first */
	unsigned int n;
};

/*
 * Parse len bytes of text (NULs and all: they make a line bad) into *t,
 * replacing what it held. Each skipped line adds one reason line
 * ("line 3: role is not read or admin\n") to why (NUL-terminated; reasons
 * that no longer fit are left out, the count still counts them). Keeps no
 * token byte anywhere but *t. Returns the number of lines skipped (0: every
 * line was used), or -EINVAL when t or why is NULL or why_len is 0.
 */
int api_tokens_parse(const char *text, size_t len, struct api_tokens *t, char *why,
		     size_t why_len);

/*
 * The role of the token presented as tok[0..len) (not NUL-terminated):
 * API_ROLE_NONE when no stored token is exactly it. Every slot of the table
 * (used or not) is compared in full, byte by byte without a branch on their
 * contents, so the time depends on len alone (and a len outside
 * API_TOKEN_MIN..API_TOKEN_MAX, the client's own knowledge, answers NONE at
 * once). Logs nothing.
 */
enum api_role api_tokens_lookup(const struct api_tokens *t, const char *tok, size_t len);

/* Zero the table (a store the compiler keeps): no token is left in it. */
void api_tokens_wipe(struct api_tokens *t);

/* "read", "admin" or "none". */
const char *api_role_name(enum api_role role);

#endif
