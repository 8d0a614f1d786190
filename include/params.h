/*
 * Kernel parameters: each module registers the names it understands;
 * params_parse() walks the command line (Linux's quoting rules,
 * lib/cmdline.c) and hands each value to its parameter. Most are one of two
 * kinds the table itself parses:
 *
 *   KERNEL_PARAM_STRING(name, var, what, help)   a non-empty value, kept in
 *                                                a const char *var
 *   KERNEL_PARAM_CHOICE(name, var, bare, help, words...)   one word of a
 *                                                list: var (an int) is its index
 *
 * and the rest call a setter of their own, KERNEL_PARAM(name, set, help),
 * which returns 0 or a negative errno after printing one line that names the
 * bad value. A refused value leaves the variable as it was.
 */
#ifndef PMEMK_PARAMS_H
#define PMEMK_PARAMS_H

#include "types.h"

enum kernel_param_kind {
	KPARAM_SETTER,		/* set(val) */
	KPARAM_STRING,		/* *(const char **)var = val */
	KPARAM_CHOICE,		/* *(int *)var = index of val in words */
};

struct kernel_param {
	const char *name;
	int (*set)(const char *val);	/* KPARAM_SETTER: val is NULL for a bare "name" */
	const char *help;
	enum kernel_param_kind kind;
	void *var;			/* KPARAM_STRING, KPARAM_CHOICE */
	const char *what;		/* KPARAM_STRING: what the value is, for its refusal */
	const char *const *words;	/* KPARAM_CHOICE: NULL-terminated */
	int bare;			/* KPARAM_CHOICE: the index a bare name means; -1: refused */
};

#define KERNEL_PARAM_REGISTER_(_id, ...)                                        \
	static const struct kernel_param __kparam_##_id = { __VA_ARGS__ };       \
	static const struct kernel_param *const __kparam_ptr_##_id              \
		__section("kparams") __used __aligned(8) = &__kparam_##_id

#define KERNEL_PARAM(_name, _set, _help)                                        \
	KERNEL_PARAM_REGISTER_(_set, .name = _name, .set = _set, .help = _help, \
			       .kind = KPARAM_SETTER)

#define KERNEL_PARAM_STRING(_name, _var, _what, _help)                          \
	KERNEL_PARAM_REGISTER_(_var, .name = _name, .help = _help, .kind = KPARAM_STRING, \
			       .var = &_var, .what = _what)

#define KERNEL_PARAM_CHOICE(_name, _var, _bare, _help, ...)                     \
	static const char *const __kpwords_##_var[] = { __VA_ARGS__, NULL };     \
	KERNEL_PARAM_REGISTER_(_var, .name = _name, .help = _help, .kind = KPARAM_CHOICE, \
			       .var = &_var, .words = __kpwords_##_var, .bare = _bare)

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
 * One word of `words` (NULL-terminated): its index. A bare NAME (val NULL)
 * means words[bare], or is refused when bare < 0. Otherwise -EINVAL after
 * one line: "NAME=VAL: expected A, B or C". (KERNEL_PARAM_CHOICE's parser.)
 */
int param_choice(const char *name, const char *val, const char *const *words, int bare);

/* Hand one value to its parameter, whatever its kind: 0 or a negative errno (after a line). */
int param_set(const struct kernel_param *p, const char *val);

/* Parse a size with Linux's memparse rules: C number, then K/M/G/T/P/E. */
int parse_size(const char *s, u64 *out, const char **end);

#endif
