/*
 * The serial shell on the console: line input (idle work runs while it
 * waits: kernel/idle.c), Ctrl-C for commands that wait, poweroff. The
 * dispatcher is lib/shell.c's.
 */
#include <errno.h>

#include "idle.h"
#include "kernel.h"
#include "printk.h"
#include "shell.h"

bool shell_interrupted(void)
{
	return console_poll() == 3;
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
