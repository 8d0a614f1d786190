/*
 * In-kernel tests, run inside QEMU with ktest=all|NAME,... and reported as
 * TAP 13, ending with "ktest: N passed, M failed, K skipped". Register with
 * KTEST; name tests module_behaviour_condition. A test fails if any KT_
 * check fails; checks print the failing expression and location as TAP
 * comments. A test that cannot run here calls ktest_skip() and returns: it
 * is reported with TAP's "# SKIP" directive and never counted as passed.
 */
#ifndef PMEMK_KTEST_H
#define PMEMK_KTEST_H

#include "types.h"

struct ktest {
	const char *name;
	void (*fn)(void);
	bool manual;	/* not part of ktest=all (e.g. deliberate faults) */
};

/* The test body is the function ktest_<name> (what stack traces show). */
#define KTEST_REGISTER(_name, _manual)                                          \
	static void ktest_##_name(void);                                        \
	REGISTER(ktests, struct ktest, _name, #_name, ktest_##_name, _manual);  \
	static void ktest_##_name(void)

#define KTEST(name) KTEST_REGISTER(name, false)
#define KTEST_MANUAL(name) KTEST_REGISTER(name, true)

REGISTRY(ktests, struct ktest);

void ktest_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Mark the running test skipped, with a one-line reason (what this boot
 * lacks, e.g. "no pmem range of 4096 MiB"); the caller returns. A test that
 * also failed a check is reported as failed.
 */
void ktest_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define KT_ASSERT(cond)                                                     \
	do {                                                                \
		if (!(cond)) {                                              \
			ktest_fail(__FILE__, __LINE__, "%s", #cond);        \
			return;                                             \
		}                                                           \
	} while (0)

#define KT_EXPECT_EQ(a, b)                                                  \
	do {                                                                \
		unsigned long long _a = (a);            \
		unsigned long long _b = (b);            \
		if (_a != _b)                                               \
			ktest_fail(__FILE__, __LINE__, "%s == %s (%#llx != %#llx)", \
				   #a, #b, _a, _b);                         \
	} while (0)

/*
 * Run the tests named in `spec` ("all" or comma-separated names). Returns
 * the failures (names matching no test included); skips are not failures.
 */
int ktest_run(const char *spec);

#endif
