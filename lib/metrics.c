/*
 * Prometheus's text exposition format 0.0.4 (include/metrics.h): the
 * formatting of a family's header and of a sample's line, the registry of
 * sources and the `metrics` command that walks it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "printk.h"
#include "shell.h"

/* A bounded string being built, snprintf's way: `at` counts every byte, kept or not. */
struct line {
	char *buf;
	size_t len;	/* buf's size */
	size_t at;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (l->len && l->at < l->len - 1) {
		size_t room = l->len - 1 - l->at;
		memcpy(l->buf + l->at, s, n < room ? n : room);
	}
	l->at += n;
	if (l->len)
		l->buf[l->at < l->len - 1 ? l->at : l->len - 1] = '\0';
}

static void put_str(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

/* s escaped as the format asks: \\ and \n always, \" in a label value. */
static void put_escaped(struct line *l, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			put(l, "\\\\", 2);
		else if (*s == '\n')
			put(l, "\\n", 2);
		else if (*s == '"' && quote)
			put(l, "\\\"", 2);
		else
			put(l, s, 1);
	}
}

size_t metric_escape(char *out, size_t len, const char *s, bool quote)
{
	struct line l = { out, len, 0 };

	put(&l, "", 0);
	put_escaped(&l, s, quote);
	return l.at;
}

/* v / 10^decimals, as an integer and exactly `decimals` digits after the point. */
static void put_fixed(struct line *l, u64 v, unsigned int decimals)
{
	char num[48];
	u64 p = 1;

	if (decimals > 9)
		decimals = 9;
	for (unsigned int i = 0; i < decimals; i++)
		p *= 10;
	int n = decimals ? snprintf(num, sizeof(num), "%llu.%0*llu", v / p, (int)decimals, v % p) :
			   snprintf(num, sizeof(num), "%llu", v);
	put(l, num, (size_t)n);
}

size_t metric_format_sample(char *out, size_t len, const char *name,
			    const struct metric_label *labels, unsigned int n, u64 v,
			    unsigned int decimals)
{
	struct line l = { out, len, 0 };

	put(&l, "", 0);
	put_str(&l, name);
	for (unsigned int i = 0; i < n; i++) {
		put(&l, i ? "," : "{", 1);
		put_str(&l, labels[i].name);
		put(&l, "=\"", 2);
		put_escaped(&l, labels[i].value ? labels[i].value : "", true);
		put(&l, "\"", 1);
	}
	if (n)
		put(&l, "}", 1);
	put(&l, " ", 1);
	put_fixed(&l, v, decimals);
	put(&l, "\n", 1);
	return l.at;
}

void metric_family(const char *name, enum metric_type type, const char *help)
{
	char buf[METRIC_LINE_MAX];
	struct line l = { buf, sizeof(buf), 0 };

	put_str(&l, "# HELP ");
	put_str(&l, name);
	put(&l, " ", 1);
	put_escaped(&l, help, false);
	kprintf("%s\n# TYPE %s %s\n", buf, name, type == METRIC_COUNTER ? "counter" : "gauge");
}

void metric_sample(const char *name, const struct metric_label *labels, unsigned int n, u64 v,
		   unsigned int decimals)
{
	char buf[METRIC_LINE_MAX];

	if (metric_format_sample(buf, sizeof(buf), name, labels, n, v, decimals) >= sizeof(buf)) {
		kprintf("# %s: a sample longer than %d bytes left out\n", name, METRIC_LINE_MAX - 1);
		return;
	}
	kprintf("%s", buf);
}

void metric_single(const char *name, enum metric_type type, const char *help, u64 v,
		   unsigned int decimals)
{
	metric_family(name, type, help);
	metric_sample(name, METRIC_NO_LABELS, v, decimals);
}

void metrics_emit_all(void)
{
	for_each_registered(metrics_sources, s)
		(*s)->emit();
}

/*
 * Network: the NBD source reads the server's tables, which are the boot
 * CPU's (include/shell.h, SHELL_COMMAND_NET).
 */
static int cmd_metrics(int argc, char **argv)
{
	if (shell_args_max(argc, argv, 1))
		return -EINVAL;
	metrics_emit_all();
	return 0;
}
SHELL_COMMAND_NET(SHELL_SYSTEM, "metrics", cmd_metrics, "metrics",
		  "every metric in Prometheus's text format 0.0.4 (what GET /metrics serves)");
