/*
 * Metrics in Prometheus's text exposition format, version 0.0.4
 * (prometheus.io/docs/instrumenting/exposition_formats): what `metrics`
 * prints and the HTTPS API serves as GET /metrics. Each layer emits its
 * own metric families from a function registered with METRICS_SOURCE
 * (the kernel's CPU time, the namespaces, memory, NBD); `metrics` walks
 * the registry in link order. A family is a "# HELP" and a "# TYPE" line
 * (metric_family) and then all of its samples (metric_sample), so a
 * source prints each of its families whole and no two sources share a
 * family name.
 *
 *   # HELP pmemk_nbd_read_bytes_total Bytes NBD clients read from the export.
 *   # TYPE pmemk_nbd_read_bytes_total counter
 *   pmemk_nbd_read_bytes_total{export="pmem1"} 1048576
 *
 * Values are integers printed as fixed point (v / 10^decimals), so no
 * floating point is needed: seconds from nanoseconds are (ns, 9).
 */
#ifndef PMEMK_METRICS_H
#define PMEMK_METRICS_H

#include <stddef.h>

#include "types.h"

enum metric_type {
	METRIC_COUNTER,	/* only goes up (while its labels' object lives) */
	METRIC_GAUGE,	/* a value now */
};

/* One label of a sample: value escaped when printed (\\, \", \n). */
struct metric_label {
	const char *name;
	const char *value;
};

/*
 * A sample's labels as two arguments, the array and its length:
 * metric_sample("m", METRIC_LABELS({ "cpu", "0" }, { "mode", "idle" }), ns, 9).
 */
#define METRIC_LABELS(...)                                        \
	((const struct metric_label[]){ __VA_ARGS__ }),           \
		(unsigned int)(sizeof((const struct metric_label[]){ __VA_ARGS__ }) / \
			       sizeof(struct metric_label))
#define METRIC_NO_LABELS NULL, 0

/* A family's two header lines. help is escaped (\\ and \n). */
void metric_family(const char *name, enum metric_type type, const char *help);
/*
 * One sample: `name{labels} value` with value v / 10^decimals (decimals
 * at most 9; 0: an integer). A line longer than METRIC_LINE_MAX is left
 * out, with a comment line saying so (parsers skip comments).
 */
#define METRIC_LINE_MAX 512
void metric_sample(const char *name, const struct metric_label *labels, unsigned int n, u64 v,
		   unsigned int decimals);
/* A family of one sample without labels. */
void metric_single(const char *name, enum metric_type type, const char *help, u64 v,
		   unsigned int decimals);

/*
 * The formatting, pure (host-tested), each as snprintf: the whole length
 * is returned, at most len - 1 bytes and a NUL are written (nothing when
 * len is 0).
 *
 * metric_escape: s with '\' as \\, newline as \n, and with `quote` '"'
 * as \" (a label value; a HELP text leaves quotes alone).
 * metric_format_sample: the sample's line, newline included.
 */
size_t metric_escape(char *out, size_t len, const char *s, bool quote);
size_t metric_format_sample(char *out, size_t len, const char *name,
			    const struct metric_label *labels, unsigned int n, u64 v,
			    unsigned int decimals);

/* A layer's families: emit() prints them with the calls above. */
struct metrics_source {
	const char *name;
	void (*emit)(void);
};
#define METRICS_SOURCE(_fn) REGISTER(metrics_sources, struct metrics_source, _fn, #_fn, _fn)
REGISTRY(metrics_sources, struct metrics_source);

/* Every registered source's families, in link order (the `metrics` command). */
void metrics_emit_all(void);

#endif
