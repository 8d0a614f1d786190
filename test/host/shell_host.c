/* Host test support for shell commands: run a line through the dispatcher, judge a refusal. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "shell.h"

int host_shell(const char *line)
{
	host_console_reset();
	return shell_exec(line);
}

bool host_shell_refused(const char *line, const char *error)
{
	char name[64], want[1024];
	size_t n = strcspn(line, " ");
	const struct shell_command *c;

	snprintf(name, sizeof(name), "%.*s", (int)n, line);
	c = shell_find(name);
	if (!c) {
		fprintf(stderr, "host_shell_refused: '%s': no such command\n", name);
		return false;
	}
	snprintf(want, sizeof(want), "%s\nusage: %s\n", error, c->usage);
	int rc = host_shell(line);
	if (rc == -EINVAL && !strcmp(host_console_text(), want))
		return true;
	fprintf(stderr, "'%s' returned %d and printed:\n%s-- wanted -EINVAL and:\n%s", line, rc,
		host_console_text(), want);
	return false;
}
