/* The serial shell: line input, argv splitting, dispatch to registered commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "kernel.h"
#include "netdev.h"
#include "nvdimm.h"
#include "params.h"
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

bool shell_idle(void)
{
	bool work = false;

	for (bool (*const *fn)(void) = __start_shell_idle; fn < __stop_shell_idle; fn++)
		work |= (*fn)();
	return work;
}

static u64 halt_poll_ns = IDLE_HALT_POLL_NS;

static int halt_poll_param(const char *val)
{
	char *end;
	unsigned long long ns = val ? strtoull(val, &end, 0) : 0;

	if (!val || !*val || *end) {
		pr_err("idle.halt_poll_ns: needs a number of ns, got \"%s\"\n", val ? val : "");
		return -EINVAL;
	}
	halt_poll_ns = ns;
	return 0;
}
KERNEL_PARAM("idle.halt_poll_ns", halt_poll_param,
	     "poll this long after the last work before halting (default 20000)");

void shell_idle_wait(bool work)
{
	static u64 last_work;
	u64 now = arch_cycles();

	if (work) {
		last_work = now;
		return;
	}
	if (arch_cycles_to_ns(now - last_work) < halt_poll_ns)
		return;
	if (netdev_wake_arm_all() && arch_idle(CONSOLE_POLL_NS)) {
		netdev_wake_disarm_all();
		arch_irq_drain();
		return;
	}
	netdev_wake_disarm_all();
}

int console_poll(void)
{
	static u64 last;	/* arch_cycles() of the last read that found nothing */
	u64 now = arch_cycles();

	if (last && arch_cycles_to_ns(now - last) < CONSOLE_POLL_NS)
		return -1;
	int c = arch_console_trygetc();
	last = c < 0 ? now : 0;
	return c;
}

/* The next console byte; the idle work runs while there is none. */
static int wait_byte(void)
{
	if (&__start_shell_idle[0] == &__stop_shell_idle[0])
		return arch_console_getc();
	for (;;) {
		int c = console_poll();
		if (c >= 0)
			return c;
		shell_idle_wait(shell_idle());
	}
}

static size_t read_line(char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		int c = wait_byte();
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
