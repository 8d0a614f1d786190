/*
 * The serial shell: each module registers its own commands with
 * SHELL_COMMAND; the shell splits a line into argv and dispatches. Commands
 * return 0 or a negative errno after printing one line that says why.
 */
#ifndef PMEMK_SHELL_H
#define PMEMK_SHELL_H

#include "types.h"

struct shell_command {
	const char *name;
	const char *usage;	/* e.g. "poweroff [status]" */
	const char *help;	/* one line */
	int (*run)(int argc, char **argv);
};

#define SHELL_COMMAND(_name, _run, _usage, _help)                               \
	static const struct shell_command __shcmd_##_run = { _name, _usage, _help, _run }; \
	static const struct shell_command *const __shcmd_ptr_##_run              \
		__section("shell_cmds") __used __aligned(8) = &__shcmd_##_run

extern const struct shell_command *const __start_shell_cmds[] __attribute__((weak));
extern const struct shell_command *const __stop_shell_cmds[] __attribute__((weak));

#define for_each_shell_command(c)                                            \
	for (const struct shell_command *const *c = __start_shell_cmds;        \
	     c < __stop_shell_cmds; c++)

/* Run one command line; returns the command's result (-ENOENT if unknown). */
int shell_exec(const char *line);
/* Run a ';'-separated list (the run= parameter); stops at nothing. */
void shell_run_batch(const char *cmds);
/* The interactive loop on the console; never returns. */
__noreturn void shell_interactive(void);

#endif
