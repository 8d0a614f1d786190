/*
 * Kernel parameters: each module registers the names it understands with
 * KERNEL_PARAM; params_parse() walks the command line (Linux's quoting rules,
 * lib/cmdline.c) and calls each setter. A setter returns 0 or a negative
 * errno after printing one line that names the bad value.
 */
#ifndef PMEMK_PARAMS_H
#define PMEMK_PARAMS_H

#include "types.h"

struct kernel_param {
	const char *name;
	int (*set)(const char *val);	/* val is NULL for a bare "name" */
	const char *help;
};

#define KERNEL_PARAM(_name, _set, _help)                                        \
	static const struct kernel_param __kparam_##_set = { _name, _set, _help }; \
	static const struct kernel_param *const __kparam_ptr_##_set              \
		__section("kparams") __used __aligned(8) = &__kparam_##_set

/* Weak: a link without any KERNEL_PARAM (a host test) sees an empty list. */
extern const struct kernel_param *const __start_kparams[] __attribute__((weak));
extern const struct kernel_param *const __stop_kparams[] __attribute__((weak));

#define for_each_kernel_param(p)                                        \
	for (const struct kernel_param *const *p = __start_kparams;       \
	     p < __stop_kparams; p++)

/* Parse a whole command line; returns the number of rejected parameters. */
int params_parse(const char *cmdline);

/*
 * Split the next parameter off `args` (modified in place). Returns a pointer
 * past it, or NULL when nothing is left. *param is the name, *val the value
 * or NULL when there is no '='. Setters get pointers into a buffer that
 * stays valid for the life of the kernel (the command line is parsed once).
 * Double quotes may surround the value or the
 * whole parameter ("run=a; b"); they are removed.
 */
char *cmdline_next_arg(char *args, char **param, char **val);

/*
 * A parameter whose value is one of two words: for `a` or `b`, *is_a says
 * which and 0 is returned; anything else (no value too) prints
 * "NAME=VAL: expected A or B" and returns -EINVAL, *is_a unchanged.
 */
int param_either(const char *name, const char *val, const char *a, const char *b, bool *is_a);

/* Parse a size with Linux's memparse rules: C number, then K/M/G/T/P/E. */
int parse_size(const char *s, u64 *out, const char **end);

#endif
