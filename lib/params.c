/* Dispatch the kernel command line to the parameters modules registered. */
#include <errno.h>
#include <string.h>

#include "params.h"
#include "printk.h"

static const struct kernel_param *param_find(const char *name)
{
	for_each_kernel_param(p) {
		if (strcmp((*p)->name, name) == 0)
			return *p;
	}
	return NULL;
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
		const struct kernel_param *p = param_find(param);
		if (!p) {
			pr_warn("cmdline: unknown parameter '%s' ignored\n", param);
			continue;
		}
		if (p->set(val) < 0)
			rejected++;
	}
	return rejected;
}

int param_either(const char *name, const char *val, const char *a, const char *b, bool *is_a)
{
	if (val && (!strcmp(val, a) || !strcmp(val, b))) {
		*is_a = !strcmp(val, a);
		return 0;
	}
	pr_err("%s=%s: expected %s or %s\n", name, val ? val : "", a, b);
	return -EINVAL;
}
