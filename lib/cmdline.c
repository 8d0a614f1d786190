/* Command-line tokenizing and number parsing, following Linux's rules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

static char *skip_spaces(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return s;
}

/*
 * Linux's rule (lib/cmdline.c next_arg): a parameter ends at the first space
 * outside double quotes. A quote may open at the very start ("key=v a l")
 * or right after '=' (key="v a l"); the closing quote is dropped with it.
 */
char *cmdline_next_arg(char *args, char **param, char **val)
{
	bool in_quote = false, quoted = false;
	char *eq = NULL;
	size_t i;

	args = skip_spaces(args);
	if (!*args)
		return NULL;
	if (*args == '"') {
		args++;
		in_quote = quoted = true;
	}
	for (i = 0; args[i]; i++) {
		if ((args[i] == ' ' || args[i] == '\t' || args[i] == '\n') && !in_quote)
			break;
		if (!eq && args[i] == '=')
			eq = args + i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	*param = args;
	*val = NULL;
	if (eq) {
		*eq = '\0';
		*val = eq + 1;
		if (**val == '"') {
			(*val)++;
			quoted = true;
		}
	}
	/* Drop a closing quote that ends the parameter. */
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';
	char *next = args + i;
	if (*next)
		*next++ = '\0';
	return next;
}

int parse_size(const char *s, u64 *out, const char **end)
{
	char *e;
	unsigned int shift = 0;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 0);
	if (e == s || errno == ERANGE)
		return -EINVAL;
	switch (*e) {
	case 'E': case 'e': shift = 60; break;
	case 'P': case 'p': shift = 50; break;
	case 'T': case 't': shift = 40; break;
	case 'G': case 'g': shift = 30; break;
	case 'M': case 'm': shift = 20; break;
	case 'K': case 'k': shift = 10; break;
	default: break;
	}
	if (shift) {
		e++;
		if (v > (~0ULL >> shift))
			return -ERANGE;
		v <<= shift;
	}
	*out = v;
	if (end)
		*end = e;
	return 0;
}
