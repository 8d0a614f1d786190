/*
 * The serial shell: each command is defined in the module whose code it
 * drives, at the end of that file (or of its sibling NAME_cmds.c when the
 * commands outgrow it), and registered with SHELL_COMMAND into one linker
 * section; `help` lists them grouped by subsystem. The shell splits a line
 * into argv and dispatches. Commands return 0 or a negative errno after
 * printing one line that says why.
 */
#ifndef PMEMK_SHELL_H
#define PMEMK_SHELL_H

#include "types.h"

/* Subsystems, in the order `help` lists them. */
enum shell_group {
	SHELL_NVDIMM,	/* ndctl's verbs: namespaces, regions, DIMMs */
	SHELL_BLOCK,	/* sector I/O and DAX on block devices */
	SHELL_MEMORY,	/* memory map, allocators, ZONE_DEVICE */
	SHELL_SYSTEM,	/* the shell, the CPU, tests, power */
	SHELL_NET,	/* PCI, NICs, TCP/IP */
	SHELL_BENCH,	/* measurements */
	SHELL_NR_GROUPS
};

struct shell_command {
	const char *name;
	const char *usage;	/* e.g. "poweroff [status]" */
	const char *help;	/* one line */
	int (*run)(int argc, char **argv);
	enum shell_group group;
};

#define SHELL_COMMAND(_group, _name, _run, _usage, _help)                       \
	static const struct shell_command __shcmd_##_run = { _name, _usage, _help, _run, \
							      _group };          \
	static const struct shell_command *const __shcmd_ptr_##_run              \
		__section("shell_cmds") __used __aligned(8) = &__shcmd_##_run

extern const struct shell_command *const __start_shell_cmds[] __attribute__((weak));
extern const struct shell_command *const __stop_shell_cmds[] __attribute__((weak));

#define for_each_shell_command(c)                                            \
	for (const struct shell_command *const *c = __start_shell_cmds;        \
	     c < __stop_shell_cmds; c++)

/*
 * Work to do while the shell waits for input (polling NICs, the TCP/IP
 * stack's timers): each SHELL_IDLE function is called over and over while
 * no byte is waiting on the console, and by long-running commands that
 * call shell_idle(). It must return soon.
 */
#define SHELL_IDLE(_fn)                                                         \
	static void (*const __shidle_ptr_##_fn)(void) __section("shell_idle") __used \
		__aligned(8) = _fn

extern void (*const __start_shell_idle[])(void) __attribute__((weak));
extern void (*const __stop_shell_idle[])(void) __attribute__((weak));

/* Run every SHELL_IDLE function once. */
void shell_idle(void);

/* Run one command line; returns the command's result (-ENOENT if unknown). */
int shell_exec(const char *line);
/* Run a ';'-separated list (the run= parameter); stops at nothing. */
void shell_run_batch(const char *cmds);
/* The interactive loop on the console; never returns. */
__noreturn void shell_interactive(void);

#endif
