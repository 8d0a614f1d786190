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
 *   KERNEL_PARAM_U64(name, var, min, max, help)  a number in [min, max], in
 *                                                C's syntax (a u64 var)
 *
 * and the rest call a setter of their own, KERNEL_PARAM(name, set, help),
 * which returns 0 or a negative errno after printing one line that names the
 * bad value. A refused value leaves the variable as it was.
 *
 * An unknown name is ignored with a line, except under a prefix that
 * fails closed, KERNEL_PARAM_FAMILY(prefix, var) (a security setting
 * mistyped must not leave the service open): there a name nobody
 * registered, or a value a parameter refused, sets var (a const char *)
 * to that parameter's name, and the family's owner refuses to run
 * (nbd.*: the NBD server does not listen). Parameters registered later
 * under the prefix are known to it by that alone.
 */
#ifndef PMEMK_PARAMS_H
#define PMEMK_PARAMS_H

#include "types.h"

enum kernel_param_kind {
	KPARAM_SETTER,		/* set(val) */
	KPARAM_STRING,		/* *(const char **)var = val */
	KPARAM_CHOICE,		/* *(int *)var = index of val in words */
	KPARAM_U64,		/* *(u64 *)var = val, a number in [min, max] */
	KPARAM_FAMILY,		/* not a parameter: name is a prefix that fails closed */
};

struct kernel_param {
	const char *name;
	int (*set)(const char *val);	/* KPARAM_SETTER: val is NULL for a bare "name" */
	const char *help;
	enum kernel_param_kind kind;
	void *var;			/* KPARAM_STRING, KPARAM_CHOICE, KPARAM_U64; FAMILY: const char ** */
	const char *what;		/* KPARAM_STRING: what the value is, for its refusal */
	const char *const *words;	/* KPARAM_CHOICE: NULL-terminated */
	int bare;			/* KPARAM_CHOICE: the index a bare name means; -1: refused */
	u64 min, max;			/* KPARAM_U64 */
};

#define KERNEL_PARAM_REGISTER_(_id, ...) REGISTER(kparams, struct kernel_param, _id, __VA_ARGS__)

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

#define KERNEL_PARAM_U64(_name, _var, _min, _max, _help)                        \
	KERNEL_PARAM_REGISTER_(_var, .name = _name, .help = _help, .kind = KPARAM_U64, \
			       .var = &_var, .min = _min, .max = _max)

/* prefix ("nbd."): *(const char **)&var names its first unknown or refused parameter, or NULL. */
#define KERNEL_PARAM_FAMILY(_prefix, _var)                                      \
	KERNEL_PARAM_REGISTER_(_var, .name = _prefix, .help = "", .kind = KPARAM_FAMILY, \
			       .var = &_var)

REGISTRY(kparams, struct kernel_param);
#define for_each_kernel_param(p) for_each_registered(kparams, p)

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
