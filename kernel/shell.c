/* The serial shell on the console: line input, the idle work while it waits, poweroff. */
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

bool shell_interrupted(void)
{
	return console_poll() == 3;
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

static int cmd_poweroff(int argc, char **argv)
{
	u32 status = 0;

	if (shell_args_max(argc, argv, 2) ||
	    (argc == 2 && shell_arg_u32(argv[0], "status", argv[1], 0, 127, &status)))
		return -EINVAL;
	kernel_poweroff((int)status);
}
SHELL_COMMAND(SHELL_SYSTEM, "poweroff", cmd_poweroff, "poweroff [status]",
	      "stop the machine; under QEMU exit with the status");
