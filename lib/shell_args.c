/*
 * Shell command arguments, parsed one way for every command: C numbers,
 * memparse sizes, device names, keywords, flags; bad input gets one line
 * naming the argument, then the command's usage (include/shell.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "printk.h"
#include "shell.h"

int shell_parse_u64(const char *s, u64 *out)
{
	char *end;

	/* strtoull alone would take " 1", "+1" and "-1" (as 2^64 - 1). */
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int shell_parse_size(const char *s, u64 *out)
{
	const char *end;
	u64 v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	/* From a digit on, parse_size fails only by overflow. */
	if (parse_size(s, &v, &end))
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int shell_usage(const char *cmd)
{
	const struct shell_command *c = shell_find(cmd);

	if (c)
		kprintf("usage: %s\n", c->usage);
	return -EINVAL;
}

int shell_arg_error(const char *cmd, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("%s: %s\n", cmd, msg);
	return shell_usage(cmd);
}

/* After a parse: 0, or the error line for err (-EINVAL, -ERANGE) or for v outside [min, max]. */
static int check_range(const char *cmd, const char *what, const char *arg, int err,
		       const char *kind, u64 v, u64 min, u64 max)
{
	if (!arg)
		return shell_arg_error(cmd, "missing %s", what);
	if (err == -EINVAL)
		return shell_arg_error(cmd, "%s '%s': not a %s", what, arg, kind);
	if (!err && v >= min && v <= max)
		return 0;
	if (max != ~0ull)
		return shell_arg_error(cmd, "%s '%s': not in %llu..%llu", what, arg, min, max);
	if (err)
		return shell_arg_error(cmd, "%s '%s': too large", what, arg);
	return shell_arg_error(cmd, "%s '%s': must be at least %llu", what, arg, min);
}

int shell_arg_u64(const char *cmd, const char *what, const char *arg, u64 min, u64 max, u64 *out)
{
	u64 v = 0;
	int err = arg ? shell_parse_u64(arg, &v) : 0;

	err = check_range(cmd, what, arg, err, "number", v, min, max);
	if (!err)
		*out = v;
	return err;
}

int shell_arg_u32(const char *cmd, const char *what, const char *arg, u32 min, u32 max, u32 *out)
{
	u64 v = 0;
	int err = shell_arg_u64(cmd, what, arg, min, max, &v);

	if (!err)
		*out = (u32)v;
	return err;
}

int shell_arg_size(const char *cmd, const char *what, const char *arg, u64 min, u64 max, u64 *out)
{
	u64 v = 0;
	int err = arg ? shell_parse_size(arg, &v) : 0;

	err = check_range(cmd, what, arg, err, "size (a number, then K, M, G, T, P or E)", v, min,
			  max);
	if (!err)
		*out = v;
	return err;
}

int shell_arg_name(const char *cmd, const char *what, const char *arg)
{
	if (!arg)
		return shell_arg_error(cmd, "missing %s", what);
	if (!*arg || *arg == '-')
		return shell_arg_error(cmd, "%s '%s': not a name", what, arg);
	return 0;
}

int shell_arg_keyword(const char *cmd, const char *what, const char *arg, const char *const *words)
{
	char list[96] = "";
	size_t len = 0;
	int i;

	for (i = 0; arg && words[i]; i++)
		if (!strcmp(arg, words[i]))
			return i;
	if (!arg)
		return shell_arg_error(cmd, "missing %s", what);
	/* "a", "a or b", "a, b or c" */
	for (i = 0; words[i] && len < sizeof(list); i++) {
		const char *sep = !i ? "" : words[i + 1] ? ", " : " or ";

		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", sep, words[i]);
	}
	return shell_arg_error(cmd, "%s '%s': expected %s", what, arg, list);
}

bool shell_arg_flag(const char *arg, const char *short_name, const char *long_name)
{
	return !strcmp(arg, short_name) || (long_name && !strcmp(arg, long_name));
}

const char *shell_arg_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		shell_arg_error(argv[0], "%s needs a value", argv[*i]);
		return NULL;
	}
	return argv[++*i];
}

int shell_arg_unexpected(const char *cmd, const char *arg)
{
	if (arg[0] == '-' && arg[1])
		return shell_arg_error(cmd, "unknown option '%s'", arg);
	return shell_arg_error(cmd, "unexpected argument '%s'", arg);
}

int shell_args_max(int argc, char **argv, int max)
{
	return argc > max ? shell_arg_unexpected(argv[0], argv[max]) : 0;
}

const char *shell_only_name(int argc, char **argv, const char *what)
{
	if (shell_arg_name(argv[0], what, shell_arg(argc, argv, 1)) || shell_args_max(argc, argv, 2))
		return NULL;
	return argv[1];
}

int shell_opt_u32(int argc, char **argv, int i, const char *what, u32 min, u32 max, u32 *out)
{
	return i < argc ? shell_arg_u32(argv[0], what, argv[i], min, max, out) : 0;
}
