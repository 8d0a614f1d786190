/*
 * JSON onto the console (kprintf, so a capture takes it: print_capture.h),
 * one value at a time, in one of two layouts: pretty, the way json-c
 * prints for ndctl (`list`, so its output diffs against Linux's), or
 * compact on one line (the JSON views the HTTPS API serves: nbd-list -j,
 * uptime -j). Either way a top-level value ends with a newline.
 */
#ifndef PMEMK_ND_JSON_H
#define PMEMK_ND_JSON_H

#include "types.h"

/* Start with { .first = true } (pretty) or { .first = true, .compact = true }. */
struct nd_json {
	int depth;
	bool first;		/* nothing printed yet at this depth */
	bool compact;		/* no newlines or indentation inside the value */
};

/* An object ('{') or array ('['), as the value of key (NULL: in an array, or at the top). */
void nd_json_open(struct nd_json *j, const char *key, char bracket);
void nd_json_close(struct nd_json *j, char bracket);
/* A string: quotes, backslashes and control characters escaped (names may come from media). */
void nd_json_str(struct nd_json *j, const char *key, const char *val);
void nd_json_u64(struct nd_json *j, const char *key, u64 val);
void nd_json_int(struct nd_json *j, const char *key, long long val);
void nd_json_bool(struct nd_json *j, const char *key, bool val);
/* A value already in JSON's syntax (a number formatted by the caller), as is. */
void nd_json_raw(struct nd_json *j, const char *key, const char *val);

#endif
