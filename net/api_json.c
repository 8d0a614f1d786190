/*
 * The HTTP API's request bodies (include/api_json.h): jsmn cuts the body
 * into tokens; the walk here checks what jsmn lets through (the separators
 * between an object's members, what follows the object), then each key's
 * value, and hands the words to the console's own parsers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

#include "api_json.h"
#include "http_request.h"
#include "nbd_priv.h"
#include "shell.h"

_Static_assert(API_EXPORT_SPEC_MAX == NBD_EXPORT_SPEC_MAX, "nbd-export's longest spec");
_Static_assert(API_DEV_NAME_MAX + 1 == NBD_DEV_NAME, "a device's name");

#define KEY_MAX 15	/* the longest key any body has ("sector_size") and then some */

/* A body being read: its text, its tokens, where a refusal goes. */
struct body {
	const char *js;
	int len;
	jsmntok_t tok[API_JSON_TOKENS];
	int n;
	char *why;
	size_t why_len;
};

/* One line into why, then -EINVAL. */
__attribute__((format(printf, 2, 3))) static int refuse(struct body *b, const char *fmt, ...)
{
	va_list ap;

	if (b->why_len) {
		va_start(ap, fmt);
		vsnprintf(b->why, b->why_len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Where token t begins and ends in the text, a string's quotes included. */
static int outer_start(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? t->start - 1 : t->start;
}

static int outer_end(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? t->end + 1 : t->end;
}

/* Whether js[from..to) is blanks around one sep (sep 0: blanks only). */
static bool gap(const struct body *b, int from, int to, char sep)
{
	bool seen = !sep;

	for (int i = from; i < to; i++) {
		if (!seen && b->js[i] == sep)
			seen = true;
		else if (!space(b->js[i]))
			return false;
	}
	return seen;
}

static int tokenize(struct body *b)
{
	jsmn_parser p;

	if (!b->len || memchr(b->js, '\0', (size_t)b->len))
		return refuse(b, "body is not a JSON object");
	jsmn_init(&p);
	b->n = jsmn_parse(&p, b->js, (size_t)b->len, b->tok, API_JSON_TOKENS);
	if (b->n == JSMN_ERROR_NOMEM)
		return refuse(b, "body has more than %d JSON tokens", API_JSON_TOKENS);
	if (b->n == JSMN_ERROR_PART)
		return refuse(b, "body is not JSON: it ends too soon");
	if (b->n < 1)
		return refuse(b, "body is not JSON");
	if (b->tok[0].type != JSMN_OBJECT)
		return refuse(b, "body is not a JSON object");
	if (!gap(b, 0, b->tok[0].start, 0) || !gap(b, b->tok[0].end, b->len, 0))
		return refuse(b, "something before or after the JSON object");
	return 0;
}

/* Token t's text into dst (of size cap): a string without escapes or control characters. */
static int string_of(struct body *b, const char *key, const jsmntok_t *t, char *dst, size_t cap)
{
	size_t n = (size_t)(t->end - t->start);
	const char *s = b->js + t->start;

	if (t->type != JSMN_STRING)
		return refuse(b, "'%s' must be a string", key);
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\\' || (unsigned char)s[i] < 0x20)
			return refuse(b, "'%s' holds an escape or a control character", key);
	if (n >= cap)
		return refuse(b, "'%s' is longer than %zu characters", key, cap - 1);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

static int bool_of(struct body *b, const char *key, const jsmntok_t *t, bool *out)
{
	size_t n = (size_t)(t->end - t->start);
	const char *s = b->js + t->start;

	if (t->type == JSMN_PRIMITIVE && n == 4 && !memcmp(s, "true", 4))
		*out = true;
	else if (t->type == JSMN_PRIMITIVE && n == 5 && !memcmp(s, "false", 5))
		*out = false;
	else
		return refuse(b, "'%s' must be true or false", key);
	return 0;
}

/* A plain number's digits into dst (of size cap), for the parser that takes its words. */
static int number_text(struct body *b, const char *key, const jsmntok_t *t, char *dst, size_t cap)
{
	size_t n = (size_t)(t->end - t->start);
	const char *s = b->js + t->start;

	if (t->type != JSMN_PRIMITIVE || !n || (s[0] == '0' && n > 1))
		return refuse(b, "'%s' must be a plain number", key);
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return refuse(b, "'%s' must be a plain number", key);
	if (n >= cap)
		return refuse(b, "'%s' is too large", key);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* A size's words: a string ("1G") or a number, into dst. */
static int size_text(struct body *b, const char *key, const jsmntok_t *t, char *dst, size_t cap)
{
	if (t->type == JSMN_STRING)
		return string_of(b, key, t, dst, cap);
	if (t->type == JSMN_PRIMITIVE)
		return number_text(b, key, t, dst, cap);
	return refuse(b, "'%s' must be a string or a number", key);
}

/* A member's handler: key is known, value is its token. */
typedef int (*member_fn)(struct body *b, void *out, unsigned int key, const jsmntok_t *value);

/*
 * Every member of the body's object: the separators checked, each key one
 * of keys[] and given once, its value to fn (an array's elements follow
 * it: fn checks them, the walk steps over them).
 */
static int walk(struct body *b, const char *const *keys, void *out, member_fn fn)
{
	const jsmntok_t *obj = &b->tok[0];
	int at = obj->start + 1, i = 1;
	u32 seen = 0;

	for (int m = 0; m < obj->size; m++) {
		char key[KEY_MAX + 1];
		if (i + 1 >= b->n)
			return refuse(b, "body is not JSON");
		const jsmntok_t *k = &b->tok[i], *v = &b->tok[i + 1];
		if (k->type != JSMN_STRING || !gap(b, at, outer_start(k), m ? ',' : 0) ||
		    !gap(b, outer_end(k), outer_start(v), ':'))
			return refuse(b, "body is not JSON");
		if (string_of(b, "key", k, key, sizeof(key)))
			return refuse(b, "unknown key");	/* not one of ours: no need to echo it */
		unsigned int which = 0;
		while (keys[which] && strcmp(keys[which], key))
			which++;
		if (!keys[which])
			return refuse(b, "unknown key '%s'", key);
		if (seen & (1u << which))
			return refuse(b, "'%s' given twice", key);
		seen |= 1u << which;
		int err = fn(b, out, which, v);
		if (err)
			return err;
		at = outer_end(v);
		i += 2 + (v->type == JSMN_ARRAY ? v->size : 0);
	}
	if (i != b->n || !gap(b, at, obj->end - 1, 0))
		return refuse(b, "body is not JSON");
	return 0;
}

enum ns_key { NS_REGION, NS_NAMESPACE, NS_NAME, NS_SIZE, NS_MODE, NS_MAP, NS_ALIGN, NS_SECTOR_SIZE, NS_FORCE };
static const char *const ns_keys[] = { "region", "namespace", "name", "size", "mode", "map",
				       "align", "sector_size", "force", NULL };

/* The words of a create request, as the console holds its argv. */
struct ns_words {
	struct api_ns_create *out;
	char mode[16], map[16], align[32], size[32], lbasize[16];
};

static int ns_member(struct body *b, void *arg, unsigned int key, const jsmntok_t *v)
{
	struct ns_words *w = arg;
	struct api_ns_create *o = w->out;
	const char *k = ns_keys[key];

	switch ((enum ns_key)key) {
	case NS_REGION:
		return string_of(b, k, v, o->region, sizeof(o->region));
	case NS_NAMESPACE:
		return string_of(b, k, v, o->ns, sizeof(o->ns));
	case NS_NAME:
		return string_of(b, k, v, o->name, sizeof(o->name));
	case NS_SIZE:
		return size_text(b, k, v, w->size, sizeof(w->size));
	case NS_MODE:
		return string_of(b, k, v, w->mode, sizeof(w->mode));
	case NS_MAP:
		return string_of(b, k, v, w->map, sizeof(w->map));
	case NS_ALIGN:
		return size_text(b, k, v, w->align, sizeof(w->align));
	case NS_SECTOR_SIZE:
		return number_text(b, k, v, w->lbasize, sizeof(w->lbasize));
	case NS_FORCE:
		return bool_of(b, k, v, &o->req.force);
	}
	return refuse(b, "unknown key");
}

/* The words through the console's parsers (create-namespace's, in pfn_dev_cmds.c). */
static int ns_request(struct body *b, struct ns_words *w)
{
	struct api_ns_create *o = w->out;
	u64 v = 0;
	int err = *w->size ? shell_parse_size(w->size, &o->size) : 0;

	/* shell_arg_size's lines, for create-namespace -s */
	if (err == -EINVAL)
		return refuse(b, "size '%s': not a size (a number, then K, M, G, T, P or E)", w->size);
	if (err)
		return refuse(b, "size '%s': too large", w->size);
	if (*w->size && !o->size)
		return refuse(b, "size '%s': must be at least 1", w->size);
	if (*w->lbasize && (shell_parse_u64(w->lbasize, &v) || !v || v > ~0u))
		return refuse(b, "sector size '%s': not in 1..4294967295", w->lbasize);
	o->req.lbasize = *w->lbasize ? (u32)v : 0;
	if (*w->align) {
		err = nd_pfn_align_why(w->align, &o->req.align, b->why, b->why_len);
		if (err)
			return err;
	}
	err = nd_pfn_mode_why(w->mode, *w->map ? w->map : NULL, &o->req, b->why, b->why_len);
	if (err)
		return err;
	const char *why = nd_create_args_why(*o->region, *o->ns, *w->size || *o->name, &o->req);
	return why ? refuse(b, "%s", why) : 0;
}

int api_json_ns_create(const char *body, size_t len, struct api_ns_create *out, char *why,
		       size_t why_len)
{
	struct body b = { .js = body, .len = len > HTTP_BODY_MAX ? -1 : (int)len, .why = why,
			  .why_len = why_len };
	struct ns_words w = { .out = out, .mode = "fsdax" };

	memset(out, 0, sizeof(*out));
	out->req.mode = PFN_MODE_PMEM;	/* create-namespace's defaults */
	out->req.align = 2 * MiB;
	int err = b.len < 0 ? refuse(&b, "body larger than %d bytes", HTTP_BODY_MAX) :
			      tokenize(&b);
	if (!err)
		err = walk(&b, ns_keys, &w, ns_member);
	if (!err)
		err = ns_request(&b, &w);
	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}

/* An align as create-namespace's -a takes it. */
static const char *align_word(u64 align)
{
	return align == PAGE_SIZE ? "4K" : align == 1 * GiB ? "1G" : "2M";
}

/* Append to line[0..len) at *at, as snprintf does; *at may pass len (then it was cut). */
static void line_add(char *line, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void line_add(char *line, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;

	if (*at >= len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(line + *at, len - *at, fmt, ap);
	va_end(ap);
	*at = n < 0 ? len : *at + (size_t)n;
}

int api_ns_create_line(const struct api_ns_create *c, char *line, size_t len)
{
	const struct nd_pfn_request *r = &c->req;
	const char *mode = r->sector ? "sector" : r->mode == PFN_MODE_NONE ? "raw" :
			   r->devdax ? "devdax" : "fsdax";
	size_t at = 0;

	if (*c->region)
		line_add(line, len, &at, "create-namespace -r \"%s\"", c->region);
	else
		line_add(line, len, &at, "create-namespace -e \"%s\"", c->ns);
	if (c->size)
		line_add(line, len, &at, " -s %llu", (unsigned long long)c->size);
	if (*c->name)
		line_add(line, len, &at, " -n \"%s\"", c->name);
	line_add(line, len, &at, " -m %s", mode);
	if (r->mode != PFN_MODE_NONE)
		line_add(line, len, &at, " -M %s -a %s", r->mode == PFN_MODE_RAM ? "mem" : "dev",
			 align_word(r->align));
	if (r->lbasize)
		line_add(line, len, &at, " -l %u", r->lbasize);
	if (r->force)
		line_add(line, len, &at, " -f");
	if (at >= len) {
		if (len)
			line[0] = '\0';
		return -E2BIG;
	}
	return 0;
}

enum export_key { EXPORT_DEVICE, EXPORT_RO, EXPORT_IDENTITIES };
static const char *const export_keys[] = { "device", "ro", "identities", NULL };

/* An export's words, then its spec. */
struct export_words {
	struct nbd_export_spec s;
	bool has_ids;						/* a list, even of one "" */
	char ids[NBD_EXPORT_IDS * (NBD_IDENTITY_MAX + 1)];	/* '+' between them */
};

static int identities_of(struct body *b, struct export_words *w, const jsmntok_t *arr)
{
	size_t used = 0;
	int at = arr->start + 1;

	if (arr->type != JSMN_ARRAY)
		return refuse(b, "'identities' must be a list of strings");
	if (arr->size > NBD_EXPORT_IDS)
		return refuse(b, "more than 8 identities");
	w->has_ids = arr->size > 0;
	for (int e = 0; e < arr->size; e++) {
		const jsmntok_t *t = arr + 1 + e;
		char id[NBD_IDENTITY_MAX + 1];
		if (t - b->tok >= b->n || !gap(b, at, outer_start(t), e ? ',' : 0))
			return refuse(b, "body is not JSON");
		if (string_of(b, "identities", t, id, sizeof(id)))
			return -EINVAL;
		if (strchr(id, '+'))
			return refuse(b, "an identity may hold only letters, digits, '.', '_' and '-'");
		used += (size_t)snprintf(w->ids + used, sizeof(w->ids) - used, "%s%s", e ? "+" : "", id);
		at = outer_end(t);
	}
	if (!gap(b, at, arr->end - 1, 0))
		return refuse(b, "body is not JSON");
	return 0;
}

static int export_member(struct body *b, void *arg, unsigned int key, const jsmntok_t *v)
{
	struct export_words *w = arg;

	switch ((enum export_key)key) {
	case EXPORT_DEVICE:
		if (string_of(b, "device", v, w->s.dev, sizeof(w->s.dev)))
			return -EINVAL;
		if (!w->s.dev[0] || strpbrk(w->s.dev, ":@"))
			return refuse(b, "not a device name");
		return 0;
	case EXPORT_RO:
		return bool_of(b, "ro", v, &w->s.ro);
	case EXPORT_IDENTITIES:
		return identities_of(b, w, v);
	}
	return refuse(b, "unknown key");
}

int api_json_export(const char *body, size_t len, char *spec, size_t spec_len, char *why,
		    size_t why_len)
{
	struct body b = { .js = body, .len = len > HTTP_BODY_MAX ? -1 : (int)len, .why = why,
			  .why_len = why_len };
	struct export_words w;
	const char *bad = NULL;

	memset(&w, 0, sizeof(w));
	if (spec_len)
		spec[0] = '\0';
	int err = b.len < 0 ? refuse(&b, "body larger than %d bytes", HTTP_BODY_MAX) :
			      tokenize(&b);
	if (!err)
		err = walk(&b, export_keys, &w, export_member);
	if (!err && !w.s.dev[0])
		err = refuse(&b, "'device' is missing");
	if (err)
		return err;
	int n = snprintf(spec, spec_len, "%s%s%s%s", w.s.dev, w.s.ro ? ":ro" : "",
			 w.has_ids ? "@" : "", w.ids);
	if (n < 0 || (size_t)n >= spec_len) {
		spec[0] = '\0';
		return refuse(&b, "export spec longer than %zu bytes", spec_len ? spec_len - 1 : 0);
	}
	if (nbd_export_spec_parse(spec, &w.s, &bad)) {
		spec[0] = '\0';
		return refuse(&b, "%s", bad);
	}
	return 0;
}

size_t api_json_escape(char *out, size_t len, const char *s)
{
	size_t at = 0, need = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char one[8];
		size_t n = c == '"' || c == '\\' ? (size_t)snprintf(one, sizeof(one), "\\%c", c) :
			   c < 0x20	       ? (size_t)snprintf(one, sizeof(one), "\\u%04x", c) :
						 (one[0] = (char)c, 1);
		if (need == at && len && at + n < len) {
			memcpy(out + at, one, n);
			at += n;
		}
		need += n;
	}
	if (len)
		out[at] = '\0';
	return need;
}
