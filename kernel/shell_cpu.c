/*
 * Shell commands on other CPUs: `on-cpu N CMD...` runs a command line on
 * CPU N in the background (through arch_cpu_start, the work queue's
 * transport) and returns at once; `wait-cpu N` waits until it is done and
 * prints its result. What runs there takes the locks shell_exec takes
 * (the device model lock unless the command is concurrent), so a write on
 * one CPU and a destroy-namespace on another meet the block device's
 * holds (pmem_hold) rather than each other's half-done work. A command
 * that uses the network (SHELL_COMMAND_NET) is refused for any CPU but the
 * boot CPU: lwIP, the NIC rings and the NBD tables have no locks, and the
 * boot CPU's idle loop (net_poll) uses them at any moment.
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "printk.h"
#include "shell.h"

#define BG_LINE_MAX 512

/* One background command per CPU; written only while that CPU is idle (under the model lock). */
static struct bg_cmd {
	char line[BG_LINE_MAX];
	int rc;
} bg[ARCH_MAX_CPUS];

static void bg_run(void *arg)
{
	struct bg_cmd *b = arg;

	b->rc = shell_exec(b->line);
	kprintf("on-cpu %u: '%s' returned %d\n", arch_cpu_id(), b->line, b->rc);
}

/* CPU number s (NULL: missing), below arch_nr_cpus(): 0, else one line, the usage, -EINVAL. */
static int cpu_arg(const char *cmd, const char *s, u32 *cpu)
{
	return shell_arg_u32(cmd, "CPU", s, 0, arch_nr_cpus() - 1, cpu);
}

static int cmd_on_cpu(int argc, char **argv)
{
	u32 cpu;
	size_t len = 0;

	if (cpu_arg(argv[0], shell_arg(argc, argv, 1), &cpu))
		return -EINVAL;
	if (argc < 3)
		return shell_arg_error(argv[0], "missing command");
	if (arch_cpu_busy(cpu)) {
		kprintf("on-cpu %u: busy (wait-cpu %u)\n", cpu, cpu);
		return -EBUSY;
	}
	const struct shell_command *c = shell_find(argv[2]);
	if (c && c->network && cpu != 0) {
		kprintf("on-cpu %u: %s uses the network, which only CPU 0 runs; run it without on-cpu\n",
			cpu, argv[2]);
		return -EPERM;
	}
	struct bg_cmd *b = &bg[cpu];
	b->line[0] = '\0';
	for (int i = 2; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (len + n + 2 > sizeof(b->line)) {
			kprintf("on-cpu: command longer than %zu characters\n", sizeof(b->line) - 1);
			return -E2BIG;
		}
		if (i > 2)
			b->line[len++] = ' ';
		memcpy(b->line + len, argv[i], n + 1);
		len += n;
	}
	int err = arch_cpu_start(cpu, bg_run, b);
	if (err) {
		kprintf("on-cpu %u: %s\n", cpu,
			err == -EBUSY ? "busy (the boot CPU runs the shell; or wait-cpu)" :
					"not an online CPU other than this one");
		return err;
	}
	kprintf("on-cpu %u: started '%s'\n", cpu, b->line);
	return 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "on-cpu", cmd_on_cpu, "on-cpu N COMMAND [ARGS...]",
	      "run a command on CPU N in the background (wait-cpu N waits for it)");

static int cmd_wait_cpu(int argc, char **argv)
{
	u32 cpu;

	if (cpu_arg(argv[0], shell_arg(argc, argv, 1), &cpu) || shell_args_max(argc, argv, 2))
		return -EINVAL;
	/* Concurrent: the background command may need the model lock this would hold. */
	while (arch_cpu_busy(cpu))
		arch_cpu_relax();
	kprintf("wait-cpu %u: idle; last on-cpu command returned %d\n", cpu, bg[cpu].rc);
	return 0;
}
SHELL_COMMAND_CONCURRENT(SHELL_SYSTEM, "wait-cpu", cmd_wait_cpu, "wait-cpu N",
			 "wait until CPU N has finished its on-cpu command");
