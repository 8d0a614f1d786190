/* The serial shell: line input, argv splitting, dispatch to registered commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "idle.h"
#include "kernel.h"
#include "nvdimm.h"
#include "printk.h"
#include "shell.h"

#define SHELL_MAX_ARGS 32
#define SHELL_LINE_MAX 512

static const struct shell_command *shell_find(const char *name)
{
	for_each_shell_command(c) {
		if (strcmp((*c)->name, name) == 0)
			return *c;
	}
	return NULL;
}

/* Split on spaces; double quotes group words. Returns argc or -E2BIG. */
static int split_args(char *line, char **argv)
{
	int argc = 0;

	for (char *p = line; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (argc == SHELL_MAX_ARGS)
			return -E2BIG;
		bool quoted = *p == '"';
		if (quoted)
			p++;
		argv[argc++] = p;
		while (*p && (quoted ? *p != '"' : (*p != ' ' && *p != '\t')))
			p++;
		if (*p)
			*p++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

int shell_exec(const char *line)
{
	char buf[SHELL_LINE_MAX];
	char *argv[SHELL_MAX_ARGS + 1];

	if (strlen(line) >= sizeof(buf)) {
		kprintf("shell: line longer than %d characters\n", SHELL_LINE_MAX - 1);
		return -E2BIG;
	}
	strcpy(buf, line);
	int argc = split_args(buf, argv);
	if (argc < 0) {
		kprintf("shell: more than %d arguments\n", SHELL_MAX_ARGS);
		return argc;
	}
	if (argc == 0)
		return 0;
	const struct shell_command *c = shell_find(argv[0]);
	if (!c) {
		kprintf("%s: command not found (try 'help')\n", argv[0]);
		return -ENOENT;
	}
	if (c->concurrent)
		return c->run(argc, argv);
	nd_lock();
	int rc = c->run(argc, argv);
	nd_unlock();
	return rc;
}

void shell_run_batch(const char *cmds)
{
	char line[SHELL_LINE_MAX];

	for (const char *p = cmds; *p;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		if (len >= sizeof(line)) {
			kprintf("run: command longer than %zu characters skipped\n", sizeof(line) - 1);
		} else {
			memcpy(line, p, len);
			line[len] = '\0';
			char *s = line + strspn(line, " ");
			if (*s) {
				kprintf("pmemk> %s\n", s);
				int rc = shell_exec(s);
				if (rc)
					kprintf("run: '%s' returned %d\n", s, rc);
			}
		}
		p += len + (semi ? 1 : 0);
	}
}

static size_t read_line(char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		int c = idle_getc();
		if (c < 0 || c == '\r' || c == '\n') {
			kprintf("\n");
			buf[n] = '\0';
			return n;
		}
		if (c == 0x7F || c == '\b') {
			if (n) {
				n--;
				kprintf("\b \b");
			}
			continue;
		}
		if (c < ' ' || n + 1 >= size)
			continue;
		buf[n++] = (char)c;
		char echo[2] = { (char)c, 0 };
		kprintf("%s", echo);
	}
}

void shell_interactive(void)
{
	char line[SHELL_LINE_MAX];

	kprintf("pmemk shell: type 'help' for commands\n");
	for (;;) {
		kprintf("pmemk> ");
		read_line(line, sizeof(line));
		shell_exec(line);
	}
}

/* By group (enum shell_group order), then by name. */
static int by_group_name(const void *a, const void *b)
{
	const struct shell_command *x = *(const struct shell_command *const *)a;
	const struct shell_command *y = *(const struct shell_command *const *)b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmd_help(int argc, char **argv)
{
	static const char *const titles[SHELL_NR_GROUPS] = {
		[SHELL_NVDIMM] = "nvdimm (ndctl's verbs)",
		[SHELL_BLOCK] = "block devices",
		[SHELL_MEMORY] = "memory",
		[SHELL_SYSTEM] = "system",
		[SHELL_NET] = "network",
		[SHELL_BENCH] = "benchmarks",
	};
	const struct shell_command *sorted[128];
	size_t n = 0;

	(void)argc;
	(void)argv;
	for_each_shell_command(c) {
		if (n < ARRAY_SIZE(sorted))
			sorted[n++] = *c;
	}
	qsort(sorted, n, sizeof(sorted[0]), by_group_name);
	for (size_t i = 0; i < n; i++) {
		enum shell_group g = sorted[i]->group;

		if (i == 0 || g != sorted[i - 1]->group)
			kprintf("%s%s:\n", i ? "\n" : "",
				g < SHELL_NR_GROUPS && titles[g] ? titles[g] : "other");
		/* A usage wider than its column gets a line of its own. */
		if (strlen(sorted[i]->usage) > 28)
			kprintf("  %s\n  %-28s %s\n", sorted[i]->usage, "", sorted[i]->help);
		else
			kprintf("  %-28s %s\n", sorted[i]->usage, sorted[i]->help);
	}
	return 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "help", cmd_help, "help", "list commands, by subsystem");

static int cmd_poweroff(int argc, char **argv)
{
	int status = 0;

	if (argc > 2) {
		kprintf("usage: poweroff [status]\n");
		return -EINVAL;
	}
	if (argc == 2) {
		char *end;
		long v = strtol(argv[1], &end, 0);
		if (*end || v < 0 || v > 127) {
			kprintf("poweroff: status '%s' is not a number in 0..127\n", argv[1]);
			return -EINVAL;
		}
		status = (int)v;
	}
	kernel_poweroff(status);
}
SHELL_COMMAND(SHELL_SYSTEM, "poweroff", cmd_poweroff, "poweroff [status]",
	      "stop the machine; under QEMU exit with the status");

static int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
	kprintf("\n");
	return 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "echo", cmd_echo, "echo WORDS...", "print the words");
