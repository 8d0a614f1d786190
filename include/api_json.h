/*
 * The HTTP API's request bodies (net/api_json.c, over Debian's jsmn 1.1.0)
 * and the escaping of strings put into its JSON answers. Portable,
 * host-tested (test_api_json) and fuzzed (fuzz_api_request).
 *
 * A body is one JSON object of the keys below and nothing else: an unknown
 * key, a key given twice, a value of the wrong type, a string too long or
 * holding an escape or a control character (no value the API takes needs
 * one), an empty body or anything after the object is refused with one
 * line of why. Numbers are non-negative integers written plainly (no sign,
 * fraction, exponent or leading zero).
 *
 * POST /v1/namespaces, create-namespace's options (ndctl's names):
 *   {"region":"region0", "size":"1G" or 1073741824, "name":"db",
 *    "mode":"fsdax", "map":"dev", "align":"2M" or 2097152}      a new namespace (-r)
 *   {"namespace":"namespace0.0", "mode":"devdax", "force":true}  reconfigure one (-e)
 *   also "sector_size" (-l, a number; mode sector only).
 * mode, map and align go through the console's own parser (nd_pfn_mode_why,
 * nd_pfn_align_why) and the whole through its cross-option rules
 * (nd_create_args_why), so both refuse the same things with the same line.
 *
 * POST /v1/exports, nbd-export's spec DEV[:ro][@ID[+ID...]] as JSON:
 *   {"device":"pmem1", "ro":true, "identities":["alice","bob"]}
 * made into that spec and checked by the console's parser
 * (nbd_export_spec_parse); nbd_export_add takes the spec as nbd-export does.
 */
#ifndef PMEMK_API_JSON_H
#define PMEMK_API_JSON_H

#include "nd_pfn.h"
#include "types.h"

#define API_JSON_TOKENS 32	/* JSON tokens a body may have */
#define API_DEV_NAME_MAX 23	/* a region, namespace or device name */
#define API_NS_NAME_MAX 64	/* a namespace's name in its label (ND_LABEL_NAME_LEN) */
/* nbd-export's longest spec (NBD_EXPORT_SPEC_MAX, checked in the .c). */
#define API_EXPORT_SPEC_MAX (API_DEV_NAME_MAX + 4 + 8 * 64 - 1)

/* create-namespace's options from a POST /v1/namespaces body. */
struct api_ns_create {
	char region[API_DEV_NAME_MAX + 1];	/* -r: a new namespace here ("" if not) */
	char ns[API_DEV_NAME_MAX + 1];		/* -e: reconfigure this one ("" if not) */
	char name[API_NS_NAME_MAX + 1];		/* -n ("" if not) */
	u64 size;				/* -s; 0: not given (the largest free extent) */
	struct nd_pfn_request req;		/* -m, -M, -a, -l, -f as the console reads them */
};

/*
 * Parse body[0..len) (at most HTTP_BODY_MAX) into *out: 0, or -EINVAL with why[0..why_len) one line
 * (also what the console's parser said, e.g. "mode 'x': expected fsdax,
 * devdax, sector or raw"); -EOPNOTSUPP for align 1G on a CPU without 1 GiB
 * pages. *out is all zeros after a refusal.
 */
int api_json_ns_create(const char *body, size_t len, struct api_ns_create *out, char *why,
		       size_t why_len);

/*
 * The create-namespace command line that does what c asks, for the
 * console's parser to run (its refusals are then the console's): every
 * string quoted (none can hold a '"': bodies take no escapes), mode, map
 * and align always spelled out (-M and -a only where the mode has them).
 * 0; -E2BIG (line "") when it does not fit in len.
 */
int api_ns_create_line(const struct api_ns_create *c, char *line, size_t len);

/*
 * Parse a POST /v1/exports body into spec[0..spec_len) (nbd-export's
 * DEV[:ro][@ID[+ID...]], NUL-terminated; spec_len at least
 * API_EXPORT_SPEC_MAX + 1): 0, or -EINVAL with why one line and spec "".
 */
int api_json_export(const char *body, size_t len, char *spec, size_t spec_len, char *why,
		    size_t why_len);

/*
 * s as the inside of a JSON string (no quotes around it) into
 * out[0..len), NUL-terminated: '"' and '\' escaped with '\', other bytes
 * below 0x20 as \u00XX (as the console's nd_json_str does), the rest as
 * they are; cut before the first byte (or escape) that would not fit
 * whole. Returns the length of the whole escaped string, as snprintf does:
 * at least len means it was cut.
 */
size_t api_json_escape(char *out, size_t len, const char *s);

#endif
