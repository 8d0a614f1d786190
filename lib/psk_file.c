/* psktool's key file format, parsed from untrusted bytes (include/psk_file.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "psk_file.h"

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

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

/* NULL if id[0..len) is a usable identity, else why not. */
static const char *identity_check(const char *id, size_t len)
{
	if (len == 0)
		return "identity is empty";
	if (len > PSK_IDENTITY_MAX)
		return "identity is longer than 63 bytes";
	for (size_t i = 0; i < len; i++) {
		u8 c = (u8)id[i];
		if (c < 0x20 || c == 0x7f)
			return "identity has a control character";
	}
	return NULL;
}

/* NULL if hex[0..len) is a usable key, else why not. */
static const char *key_check(const char *hex, size_t len)
{
	if (len == 0)
		return "key is empty";
	for (size_t i = 0; i < len; i++)
		if (hex_digit(hex[i]) < 0)
			return "key is not hex";
	if (len % 2)
		return "key has an odd number of hex digits";
	if (len / 2 > PSK_KEY_MAX)
		return "key is longer than 64 bytes";
	return NULL;
}

/* Whether out[0..n) has this identity already. */
static bool find_identity(const struct psk_entry *out, unsigned int n, const char *id, size_t len)
{
	for (unsigned int i = 0; i < n; i++)
		if (strnlen(out[i].identity, sizeof(out[i].identity)) == len &&
		    memcmp(out[i].identity, id, len) == 0)
			return true;
	return false;
}

static void store(struct psk_entry *e, const char *id, size_t id_len, const char *hex,
		  size_t hex_len)
{
	memset(e->identity, 0, sizeof(e->identity));
	memcpy(e->identity, id, id_len);
	for (size_t i = 0; i < hex_len / 2; i++)
		e->key[i] = (u8)(hex_digit(hex[2 * i]) << 4 | hex_digit(hex[2 * i + 1]));
	e->key_len = (u8)(hex_len / 2);
}

/* One line without its end; NULL when it was used or ignored, else why it was skipped. */
static const char *parse_line(const char *s, size_t len, struct psk_entry *out,
			      unsigned int max, unsigned int *n)
{
	if (blank(s, len) || s[0] == '#')
		return NULL;
	const char *colon = memchr(s, ':', len);
	if (!colon)
		return "no ':' between identity and key";
	size_t id_len = (size_t)(colon - s), hex_len = len - id_len - 1;
	const char *why = identity_check(s, id_len);
	if (!why)
		why = key_check(colon + 1, hex_len);
	if (why)
		return why;
	if (find_identity(out, *n, s, id_len))
		return "identity given again; the first one counts";
	if (*n >= max)
		return "more identities than the table holds";
	store(&out[(*n)++], s, id_len, colon + 1, hex_len);
	return NULL;
}

int psk_file_parse(const char *text, size_t len, struct psk_entry *out, unsigned int max,
		   unsigned int *n, char *why, size_t why_len)
{
	struct reasons r = { why, why_len, 0 };
	unsigned int line = 0;
	int skipped = 0;

	if (!out || !n || !why || !why_len)
		return -EINVAL;
	*n = 0;
	why[0] = '\0';
	for (size_t pos = 0; pos < len;) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		pos += l + (nl ? 1 : 0);
		line++;
		if (l && s[l - 1] == '\r')
			l--;
		const char *bad = parse_line(s, l, out, max, n);
		if (bad) {
			reason(&r, line, bad);
			skipped++;
		}
	}
	return skipped;
}
