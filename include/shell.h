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
	bool concurrent;	/* runs without the device model lock (below) */
};

/*
 * shell_exec runs a command holding the device model lock (nd_lock,
 * LOCK_RANK_ND), so commands on different CPUs (on-cpu) that list, create,
 * destroy or otherwise touch the nvdimm model and the shell's tables run
 * one at a time. A SHELL_COMMAND_CONCURRENT command runs without it: it
 * must hold what it uses itself (block I/O holds its device with pmem_get)
 * and may run on one CPU while another CPU's command changes the model.
 */
#define SHELL_COMMAND_(_group, _name, _run, _usage, _help, _conc)               \
	static const struct shell_command __shcmd_##_run = { _name, _usage, _help, _run, \
							      _group, _conc };   \
	static const struct shell_command *const __shcmd_ptr_##_run              \
		__section("shell_cmds") __used __aligned(8) = &__shcmd_##_run
#define SHELL_COMMAND(_group, _name, _run, _usage, _help)                       \
	SHELL_COMMAND_(_group, _name, _run, _usage, _help, false)
#define SHELL_COMMAND_CONCURRENT(_group, _name, _run, _usage, _help)            \
	SHELL_COMMAND_(_group, _name, _run, _usage, _help, true)

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
