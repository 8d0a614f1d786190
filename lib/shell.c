/*
 * The shell's dispatcher: argv splitting, command lookup, the lock policy,
 * a line run with its output captured (for the API); help and echo.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "print_capture.h"
#include "printk.h"
#include "shell.h"

const struct shell_command *shell_find(const char *name)
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

/*
 * Release the registered locks before end, in reverse order. (No pointer
 * is stepped below the start: with no lock registered, a host test's
 * link, start and end are both NULL.)
 */
static void shell_locks_drop(const struct shell_lock *const *end)
{
	while (end > __start_shell_lock)
		(*--end)->unlock();
}

/*
 * Take every registered lock (the device model's), in order: true. With
 * nowait each is only tried: false, none held, when one is taken elsewhere.
 */
static bool shell_locks_take(bool nowait)
{
	for (const struct shell_lock *const *l = __start_shell_lock; l < __stop_shell_lock; l++) {
		if (!nowait) {
			(*l)->lock();
		} else if (!(*l)->trylock()) {
			shell_locks_drop(l);
			return false;
		}
	}
	return true;
}

/* Run c holding every registered lock, unless it is concurrent; nowait: -EAGAIN rather than wait. */
static int run_locked(const struct shell_command *c, int argc, char **argv, bool nowait)
{
	if (c->concurrent)
		return c->run(argc, argv);
	if (!shell_locks_take(nowait)) {
		kprintf("%s: busy: a command on another CPU holds the device model; try again\n",
			argv[0]);
		return -EAGAIN;
	}
	int rc = c->run(argc, argv);
	shell_locks_drop(__stop_shell_lock);
	return rc;
}

/*
 * shell_exec's work; from_net_loop (shell_run_captured): never wait for a
 * lock, refuse the commands that would run the network loop inside itself.
 */
static int shell_dispatch(const char *line, bool from_net_loop)
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
	if (from_net_loop && c->net_loop) {
		kprintf("%s: uses the network, whose loop this runs in; only from the console\n",
			argv[0]);
		return -EPERM;
	}
	return run_locked(c, argc, argv, from_net_loop);
}

int shell_exec(const char *line)
{
	return shell_dispatch(line, false);
}

int shell_run_captured(const char *line, struct print_capture *cap)
{
	int err = print_capture_begin(cap);

	if (err)
		return err;
	int rc = shell_dispatch(line, true);
	print_capture_end(cap);
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

static int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
	kprintf("\n");
	return 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "echo", cmd_echo, "echo WORDS...", "print the words");
