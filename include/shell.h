/*
 * The serial shell: each command is defined in the module whose code it
 * drives, at the end of that file (or of its sibling NAME_cmds.c when the
 * commands outgrow it), and registered with SHELL_COMMAND into one linker
 * section; `help` lists them grouped by subsystem. The dispatcher
 * (lib/shell.c, portable: host tests run commands through it) splits a
 * line into argv and runs the command; the console loop is the kernel's
 * (kernel/shell.c). Commands parse their arguments with the shell_arg_*
 * helpers below and return 0 or a negative errno after printing one line
 * that says why.
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
	bool network;		/* uses lwIP, a NIC or the NBD tables: only on the boot CPU */
	bool net_loop;		/* runs the network loop itself until done (ping): never from inside it */
};

/*
 * shell_exec runs a command holding the device model lock (nd_lock,
 * LOCK_RANK_ND), so commands on different CPUs (on-cpu) that list, create,
 * destroy or otherwise touch the nvdimm model and the shell's tables run
 * one at a time. A SHELL_COMMAND_CONCURRENT command runs without it: it
 * must hold what it uses itself (block I/O holds its device with pmem_hold_name)
 * and may run on one CPU while another CPU's command changes the model.
 */
#define SHELL_COMMAND_(_group, _name, _run, _usage, _help, _conc, _net, _loop)  \
	REGISTER(shell_cmds, struct shell_command, _run, _name, _usage, _help, _run, _group, _conc, \
		 _net, _loop)
#define SHELL_COMMAND(_group, _name, _run, _usage, _help)                       \
	SHELL_COMMAND_(_group, _name, _run, _usage, _help, false, false, false)
#define SHELL_COMMAND_CONCURRENT(_group, _name, _run, _usage, _help)            \
	SHELL_COMMAND_(_group, _name, _run, _usage, _help, true, false, false)
/*
 * A command that touches the network's state (lwIP, the NICs' rings, the
 * NBD tables), which only the boot CPU runs (net_poll is its idle work and
 * nothing there takes a lock): `on-cpu N` refuses it for any other CPU.
 */
#define SHELL_COMMAND_NET(_group, _name, _run, _usage, _help)                   \
	SHELL_COMMAND_(_group, _name, _run, _usage, _help, false, true, false)
/*
 * A network command that runs the network loop itself until it is done
 * (ping waits for replies, net-echo serves): from the console only, never
 * from inside that loop (shell_run_captured, the HTTPS API, refuses it).
 */
#define SHELL_COMMAND_NET_LOOP(_group, _name, _run, _usage, _help)              \
	SHELL_COMMAND_(_group, _name, _run, _usage, _help, false, true, true)

/*
 * The lock shell_exec holds around every command not marked concurrent,
 * registered by the layer that owns it (nvdimm/bus.c registers nd_lock),
 * so that the dispatcher in lib/ needs nothing above it. A link without
 * one (a host test of lib/ alone) runs every command unlocked.
 */
struct shell_lock {
	void (*lock)(void);
	bool (*trylock)(void);	/* take it if free: true (shell_run_captured never waits) */
	void (*unlock)(void);
};
#define SHELL_LOCK(_lock, _trylock, _unlock)                                    \
	REGISTER(shell_lock, struct shell_lock, _lock, _lock, _trylock, _unlock)

REGISTRY(shell_lock, struct shell_lock);
REGISTRY(shell_cmds, struct shell_command);
#define for_each_shell_command(c) for_each_registered(shell_cmds, c)

/* Ctrl-C typed on the console (console_poll, idle.h): for commands that wait; other bytes are dropped. */
bool shell_interrupted(void);

#define SHELL_MAX_ARGS 32
#define SHELL_LINE_MAX 512

/*
 * Run one command line (split on spaces and tabs; double quotes group
 * words): returns the command's result, -ENOENT if there is no such
 * command, -E2BIG for a line or argument list too long (each after one line).
 */
int shell_exec(const char *line);
/*
 * Run one command line as shell_exec does, with its output captured into
 * cap (include/print_capture.h: its buf, size and echo filled in; begun and
 * ended here), for the HTTPS API, which runs in the network loop: so no
 * lock is waited for (-EAGAIN after one line when a command on another CPU
 * holds one) and a SHELL_COMMAND_NET_LOOP command is refused (-EPERM after
 * one line). Returns the command's result, or print_capture_begin's error
 * (-EBUSY: this CPU already captures) with nothing run. Which commands
 * may be run from there (those that answer at once) is the caller's to say.
 */
struct print_capture;
int shell_run_captured(const char *line, struct print_capture *cap);
/* The command registered as name, or NULL. */
const struct shell_command *shell_find(const char *name);
/* Run a ';'-separated list (the run= parameter); stops at nothing. */
void shell_run_batch(const char *cmds);
/* The interactive loop on the console; never returns. */
__noreturn void shell_interactive(void);

/*
 * ---- Arguments (lib/shell_args.c) ----
 *
 * Every command parses its arguments with these, so that a number means
 * the same everywhere and bad input is refused the same way: one line with
 * the command, what the argument is and why it is refused, then the
 * command's registered usage line, and -EINVAL:
 *
 *   net-echo: port '80x': not a number
 *   usage: net-echo PORT [CONNECTIONS]
 *
 * `cmd` is argv[0], the name the command was run as: its usage is found by
 * that name (shell_find). A number is written as in C: decimal, 0x hex or
 * 0 octal, a digit first (no sign, no space) and nothing after it. A size
 * is a number with an optional memparse suffix: K, M, G, T, P or E
 * (parse_size). An argument given as NULL is missing ("cmd: missing what").
 */

/* s as a number: 0, -EINVAL (empty, not a number, or anything after it), -ERANGE (over 64 bits). */
int shell_parse_u64(const char *s, u64 *out);
/* s as a size, the same way. */
int shell_parse_size(const char *s, u64 *out);

/* Print "usage: " and cmd's registered usage line; returns -EINVAL. */
int shell_usage(const char *cmd);
/* Print "cmd: " and the message, then the usage line; returns -EINVAL. */
__attribute__((format(printf, 2, 3))) int shell_arg_error(const char *cmd, const char *fmt, ...);

/* arg as a number in [min, max]: 0 and *out, else an error naming it `what` and -EINVAL. */
int shell_arg_u64(const char *cmd, const char *what, const char *arg, u64 min, u64 max, u64 *out);
int shell_arg_u32(const char *cmd, const char *what, const char *arg, u32 min, u32 max, u32 *out);
/* argv[i] as a u32 in [min, max] if the line has it, else *out stays (an optional argument). */
int shell_opt_u32(int argc, char **argv, int i, const char *what, u32 min, u32 max, u32 *out);
/* arg as a size in [min, max], the same way. */
int shell_arg_size(const char *cmd, const char *what, const char *arg, u64 min, u64 max, u64 *out);
/*
 * arg as the name of a device (namespace, region, DIMM, block device):
 * present, not empty, not an option (-x). 0, else an error and -EINVAL.
 * Whether such a device exists is the caller's to find out.
 */
int shell_arg_name(const char *cmd, const char *what, const char *arg);
/* arg as one of the NULL-terminated words: its index, else an error and -EINVAL. */
int shell_arg_keyword(const char *cmd, const char *what, const char *arg, const char *const *words);
/* argv[i], or NULL (missing) when the line ends before it. */
static inline const char *shell_arg(int argc, char **argv, int i)
{
	return i < argc ? argv[i] : NULL;
}
/* True if arg is the flag, by its short (-f) or long (--force; NULL: none) spelling. */
bool shell_arg_flag(const char *arg, const char *short_name, const char *long_name);
/*
 * The value of option argv[*i] (-s SIZE): argv[*i + 1], with *i moved onto
 * it; NULL after "cmd: -s needs a value" and the usage when none follows.
 */
const char *shell_arg_value(int argc, char **argv, int *i);
/* An argument the command has no place for: "unknown option '-x'" or "unexpected argument 'x'". */
int shell_arg_unexpected(const char *cmd, const char *arg);
/* 0 if argc <= max, else shell_arg_unexpected on argv[max]. */
int shell_args_max(int argc, char **argv, int max);
/*
 * A command of one argument, a name (CMD NAME): argv[1], else NULL after
 * the error and the usage (missing, not a name, or more arguments).
 */
const char *shell_only_name(int argc, char **argv, const char *what);

#endif
