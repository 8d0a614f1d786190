/*
 * The console's JSON emitter (include/nd_json.h): ndctl's pretty layout for
 * `list` and its siblings, or compact for the API's views. Everything goes
 * out through kprintf.
 */
#include <string.h>

#include "nd_json.h"
#include "printk.h"

/* One value: comma (pretty: and newline, indent) after the previous one, then the key. */
static void item(struct nd_json *j, const char *key)
{
	if (j->compact) {
		if (!j->first)
			kprintf(",");
	} else if (j->depth || !j->first) {
		kprintf("%s\n%*s", j->first ? "" : ",", 2 * j->depth, "");
	}
	if (key)
		kprintf("\"%s\":", key);
	j->first = false;
}

void nd_json_open(struct nd_json *j, const char *key, char bracket)
{
	item(j, key);
	kprintf("%c", bracket);
	j->depth++;
	j->first = true;
}

void nd_json_close(struct nd_json *j, char bracket)
{
	j->depth--;
	if (j->compact)
		kprintf("%c", bracket);
	else
		kprintf("\n%*s%c", 2 * j->depth, "", bracket);
	j->first = false;
	if (!j->depth)
		kprintf("\n");
}

void nd_json_str(struct nd_json *j, const char *key, const char *val)
{
	item(j, key);
	kprintf("\"");
	for (const char *p = val; *p;) {
		size_t n = strcspn(p, "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r"
				   "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f");
		unsigned char c = (unsigned char)p[n];

		kprintf("%.*s", (int)n, p);
		p += n;
		if (!c)
			break;
		if (c == '"' || c == '\\')
			kprintf("\\%c", c);
		else
			kprintf("\\u%04x", c);
		p++;
	}
	kprintf("\"");
}

void nd_json_u64(struct nd_json *j, const char *key, u64 val)
{
	item(j, key);
	kprintf("%llu", val);
}

void nd_json_int(struct nd_json *j, const char *key, long long val)
{
	item(j, key);
	kprintf("%lld", val);
}

void nd_json_bool(struct nd_json *j, const char *key, bool val)
{
	item(j, key);
	kprintf("%s", val ? "true" : "false");
}

void nd_json_raw(struct nd_json *j, const char *key, const char *val)
{
	item(j, key);
	kprintf("%s", val);
}
