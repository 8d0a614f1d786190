/*
 * The in-kernel test runner: selects tests, prints TAP 13 ("ok N - name",
 * "not ok N - name", "ok N - name # SKIP reason") and a summary line that
 * counts passed, failed and skipped tests apart.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "params.h"
#include "printk.h"
#include "shell.h"

static int current_failures;
static bool current_skipped;
static char skip_reason[160];

void ktest_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("    # %s:%d: check failed: %s\n", file, line, msg);
	current_failures++;
}

void ktest_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
	current_skipped = true;
}

static bool selected(const struct ktest *t, const char *spec)
{
	size_t n = strlen(t->name);

	if (strcmp(spec, "all") == 0)
		return !t->manual;
	for (const char *p = spec; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && strncmp(p, t->name, n) == 0)
			return true;
		/* A prefix ending in '*' selects a group: ktest=pgtable_* */
		if (len > 0 && p[len - 1] == '*' && strncmp(p, t->name, len - 1) == 0)
			return !t->manual;
		p += len + (comma ? 1 : 0);
	}
	return false;
}

/* Names in the spec that match no test are errors too: a typo must not pass. */
static int count_unknown(const char *spec)
{
	int unknown = 0;

	if (strcmp(spec, "all") == 0)
		return 0;
	for (const char *p = spec; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool found = false;
		for_each_registered(ktests, t) {
			size_t n = strlen((*t)->name);
			if ((len == n && strncmp(p, (*t)->name, n) == 0) ||
			    (len > 0 && p[len - 1] == '*' && strncmp(p, (*t)->name, len - 1) == 0))
				found = true;
		}
		if (!found && len) {
			kprintf("# ktest: no test named '%.*s'\n", (int)len, p);
			unknown++;
		}
		p += len + (comma ? 1 : 0);
	}
	return unknown;
}

int ktest_run(const char *spec)
{
	int total = 0, passed = 0, skipped = 0, failed, n = 0;

	for_each_registered(ktests, t)
		total += selected(*t, spec);
	kprintf("TAP version 13\n1..%d\n", total);
	for_each_registered(ktests, t) {
		if (!selected(*t, spec))
			continue;
		current_failures = 0;
		current_skipped = false;
		kprintf("# %s\n", (*t)->name);
		(*t)->fn();
		n++;
		if (current_failures) {
			kprintf("not ok %d - %s\n", n, (*t)->name);
		} else if (current_skipped) {
			/* TAP 13's directive: ok, but nothing was proven. */
			skipped++;
			kprintf("ok %d - %s # SKIP %s\n", n, (*t)->name, skip_reason);
		} else {
			passed++;
			kprintf("ok %d - %s\n", n, (*t)->name);
		}
	}
	failed = n - passed - skipped + count_unknown(spec);
	kprintf("ktest: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed;
}

static int cmd_ktest(int argc, char **argv)
{
	if (argc == 1) {
		for_each_registered(ktests, t)
			kprintf("%s%s\n", (*t)->name, (*t)->manual ? " (manual)" : "");
		return 0;
	}
	return ktest_run(argv[1]) ? -1 : 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "ktest", cmd_ktest, "ktest [all|NAME,...]",
	      "list the in-kernel tests, or run some (TAP output)");
