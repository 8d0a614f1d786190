/* Dispatch the kernel command line to the parameters modules registered. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "printk.h"
#include "shell.h"

static const struct kernel_param *param_find(const char *name)
{
	for_each_kernel_param(p) {
		if ((*p)->kind != KPARAM_FAMILY && strcmp((*p)->name, name) == 0)
			return *p;
	}
	return NULL;
}

/* The family that fails closed whose prefix name starts with, or NULL. */
static const struct kernel_param *param_family(const char *name)
{
	for_each_kernel_param(p) {
		if ((*p)->kind == KPARAM_FAMILY && !strncmp((*p)->name, name, strlen((*p)->name)))
			return *p;
	}
	return NULL;
}

/* Remember a family's first bad parameter (name lives as long as the kernel). */
static void family_mark(const struct kernel_param *fam, const char *name)
{
	const char **bad = fam->var;

	if (!*bad)
		*bad = name;
}

int params_parse(const char *cmdline)
{
	static char buf[4096];
	char *args = buf, *param, *val;
	int rejected = 0;

	if (strlen(cmdline) >= sizeof(buf)) {
		pr_err("cmdline: longer than %zu bytes, ignoring the rest\n", sizeof(buf) - 1);
		rejected++;
	}
	strncpy(buf, cmdline, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	while ((args = cmdline_next_arg(args, &param, &val))) {
		if (!*param)
			continue;
		const struct kernel_param *p = param_find(param), *fam = param_family(param);
		if (!p && fam) {
			pr_err("cmdline: unknown parameter '%s' refused (%s* fails closed)\n", param,
			       fam->name);
			family_mark(fam, param);
			rejected++;
			continue;
		}
		if (!p) {
			pr_warn("cmdline: unknown parameter '%s' ignored\n", param);
			continue;
		}
		if (param_set(p, val) < 0) {
			rejected++;
			if (fam)
				family_mark(fam, param);
		}
	}
	return rejected;
}

int param_choice(const char *name, const char *val, const char *const *words, int bare)
{
	char list[96] = "";
	size_t used = 0;
	int n = 0;

	if (!val && bare >= 0)
		return bare;
	for (; words[n]; n++)
		if (val && !strcmp(val, words[n]))
			return n;
	for (int i = 0; i < n && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", words[i],
					 i + 2 < n ? ", " : i + 1 < n ? " or " : "");
	pr_err("%s=%s: expected %s\n", name, val ? val : "", list);
	return -EINVAL;
}

/* A number in [p->min, p->max], nothing after it: *(u64 *)p->var. */
static int param_u64(const struct kernel_param *p, const char *val)
{
	u64 v;

	if (!val || shell_parse_u64(val, &v) || v < p->min || v > p->max) {
		pr_err("%s=%s: expected a number from %llu to %llu\n", p->name, val ? val : "",
		       p->min, p->max);
		return -EINVAL;
	}
	*(u64 *)p->var = v;
	return 0;
}

int param_set(const struct kernel_param *p, const char *val)
{
	int w;

	switch (p->kind) {
	case KPARAM_STRING:
		if (!val || !*val) {
			pr_err("%s=: needs %s\n", p->name, p->what);
			return -EINVAL;
		}
		*(const char **)p->var = val;
		return 0;
	case KPARAM_CHOICE:
		w = param_choice(p->name, val, p->words, p->bare);
		if (w >= 0)
			*(int *)p->var = w;
		return w < 0 ? w : 0;
	case KPARAM_U64:
		return param_u64(p, val);
	case KPARAM_FAMILY:
		return -EINVAL;	/* never found by name */
	default:
		return p->set(val);
	}
}
