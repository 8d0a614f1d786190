/*
 * The HTTP API's bearer tokens (include/api_tokens.h): the api.tokens file
 * parsed from untrusted bytes, a constant-time lookup, a wipe.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api_tokens.h"
#include "memzero.h"

/* The reasons buffer: lines are appended whole or not at all. */
struct reasons {
	char *buf;
	size_t len, used;
};

static void reason(struct reasons *r, unsigned int line, const char *what)
{
	char one[96];
	int k = snprintf(one, sizeof(one), "line %u: %s\n", line, what);

	if (k <= 0 || (size_t)k >= sizeof(one) || r->used + (size_t)k >= r->len)
		return;
	memcpy(r->buf + r->used, one, (size_t)k + 1);
	r->used += (size_t)k;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool token_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=' || c == '-';
}

/* NULL if tok[0..len) may be a token, else why not. */
static const char *token_check(const char *tok, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!token_char(tok[i]))
			return "token has a character other than A-Z a-z 0-9 . _ ~ + / = -";
	if (len < API_TOKEN_MIN)
		return "token is shorter than 16 characters";
	if (len > API_TOKEN_MAX)
		return "token is longer than 128 characters";
	return NULL;
}

static enum api_role role_of(const char *s, size_t len)
{
	if (len == 4 && !memcmp(s, "read", 4))
		return API_ROLE_READ;
	if (len == 5 && !memcmp(s, "admin", 5))
		return API_ROLE_ADMIN;
	return API_ROLE_NONE;
}

/* Whether the table has this token already (at parse time: no secret to keep from timing). */
static bool known(const struct api_tokens *t, const char *tok, size_t len)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (t->slot[i].len == len && !memcmp(t->slot[i].token, tok, len))
			return true;
	return false;
}

/* The next run of non-blanks in s[*at..len): its start, and *at past it. */
static const char *word(const char *s, size_t len, size_t *at, size_t *word_len)
{
	while (*at < len && blank(s[*at]))
		(*at)++;
	size_t start = *at;
	while (*at < len && !blank(s[*at]))
		(*at)++;
	*word_len = *at - start;
	return s + start;
}

/* One line without its end; NULL when it was used or ignored, else why it was skipped. */
static const char *parse_line(const char *s, size_t len, struct api_tokens *t)
{
	size_t at = 0, tok_len, role_len, rest_len;
	const char *tok = word(s, len, &at, &tok_len);

	if (!tok_len || tok[0] == '#')
		return NULL;
	const char *role = word(s, len, &at, &role_len);
	word(s, len, &at, &rest_len);
	if (!role_len || rest_len)
		return "expected TOKEN ROLE";
	const char *why = token_check(tok, tok_len);
	if (why)
		return why;
	enum api_role r = role_of(role, role_len);
	if (r == API_ROLE_NONE)
		return "role is not read or admin";
	if (known(t, tok, tok_len))
		return "token given again; the first one counts";
	if (t->n >= API_TOKENS_MAX)
		return "more tokens than the table holds (16)";
	struct api_token *e = &t->slot[t->n++];
	memcpy(e->token, tok, tok_len);
	e->len = (u8)tok_len;
	e->role = (u8)r;
	return NULL;
}

int api_tokens_parse(const char *text, size_t len, struct api_tokens *t, char *why,
		     size_t why_len)
{
	struct reasons r = { why, why_len, 0 };
	unsigned int line = 0;
	int skipped = 0;

	if (!t || !why || !why_len)
		return -EINVAL;
	api_tokens_wipe(t);
	why[0] = '\0';
	for (size_t pos = 0; pos < len;) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		pos += l + (nl ? 1 : 0);
		line++;
		if (l && s[l - 1] == '\r')
			l--;
		const char *bad = parse_line(s, l, t);
		if (bad) {
			reason(&r, line, bad);
			skipped++;
		}
	}
	return skipped;
}

/*
 * 0 when slot e holds exactly tok[0..len), else not 0; without a branch on
 * any byte of either: all API_TOKEN_MAX bytes are compared (past len with
 * the slot's zero padding), and the lengths too.
 */
static u32 token_differs(const struct api_token *e, const char *tok, size_t len)
{
	u32 diff = (u32)e->len ^ (u32)len;

	for (size_t j = 0; j < API_TOKEN_MAX; j++) {
		u8 want = j < len ? (u8)tok[j] : 0;	/* a branch on len only */
		diff |= (u32)((u8)e->token[j] ^ want);
	}
	return diff;
}

enum api_role api_tokens_lookup(const struct api_tokens *t, const char *tok, size_t len)
{
	u32 role = 0;

	if (len < API_TOKEN_MIN || len > API_TOKEN_MAX)
		return API_ROLE_NONE;	/* the client knows what it sent */
	for (unsigned int i = 0; i < API_TOKENS_MAX; i++) {
		u32 diff = token_differs(&t->slot[i], tok, len);
		/* all ones when diff is 0, else 0: diff | -diff has its top bit set unless diff is 0 */
		u32 match = 0u - (((diff | (0u - diff)) >> 31) ^ 1u);
		role |= match & t->slot[i].role;
	}
	return (enum api_role)role;
}

void api_tokens_wipe(struct api_tokens *t)
{
	memzero_explicit(t, sizeof(*t));
}

const char *api_role_name(enum api_role role)
{
	return role == API_ROLE_ADMIN ? "admin" : role == API_ROLE_READ ? "read" : "none";
}
