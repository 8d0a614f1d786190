/*
 * The `capture` command: run a command line as the HTTPS API does
 * (shell_run_captured: captured, never waiting), then print what was
 * captured and its count, so the console can be compared with it byte for
 * byte (test/qemu/cases/capture.sh).
 */
#include <errno.h>
#include <string.h>

#include "print_capture.h"
#include "printk.h"
#include "shell.h"

/* One capture at a time, whichever CPU runs the command (it is concurrent). */
static char capture_text[64 << 10];
static u32 capture_in_use;

/* argv[first..] joined by spaces into line, quoted where a word has a blank: 0, -E2BIG. */
static int join_args(int argc, char **argv, int first, char *line, size_t size)
{
	size_t len = 0;

	line[0] = '\0';
	for (int i = first; i < argc; i++) {
		bool blank = strpbrk(argv[i], " \t") != NULL;
		size_t n = strlen(argv[i]);
		if (len + n + 4 > size)
			return -E2BIG;
		if (i > first)
			line[len++] = ' ';
		if (blank)
			line[len++] = '"';
		memcpy(line + len, argv[i], n);
		len += n;
		if (blank)
			line[len++] = '"';
		line[len] = '\0';
	}
	return 0;
}

/* The captured bytes as they are, in pieces kprintf's buffer holds. */
static void print_captured(const struct print_capture *cap)
{
	for (size_t done = 0; done < cap->len; done += 512) {
		size_t n = cap->len - done < 512 ? cap->len - done : 512;
		kprintf("%.*s", (int)n, cap->buf + done);
	}
}

static int cmd_capture(int argc, char **argv)
{
	char line[SHELL_LINE_MAX];
	struct print_capture cap = PRINT_CAPTURE_INIT(capture_text, sizeof(capture_text), false);

	if (argc < 2)
		return shell_arg_error(argv[0], "missing command");
	if (join_args(argc, argv, 1, line, sizeof(line))) {
		kprintf("%s: command longer than %zu characters\n", argv[0], sizeof(line) - 1);
		return -E2BIG;
	}
	if (__atomic_exchange_n(&capture_in_use, 1, __ATOMIC_ACQUIRE)) {
		kprintf("%s: in use on another CPU\n", argv[0]);
		return -EBUSY;
	}
	/* Run inside another capture (capture capture ...), it runs nothing: -EBUSY, 0 bytes. */
	int rc = shell_run_captured(line, &cap);
	print_captured(&cap);
	kprintf("%s: %zu bytes, %zu lost, '%s' returned %d\n", argv[0], cap.len, cap.lost, line,
		rc);
	__atomic_store_n(&capture_in_use, 0, __ATOMIC_RELEASE);
	return rc;
}
SHELL_COMMAND_CONCURRENT(SHELL_SYSTEM, "capture", cmd_capture, "capture COMMAND [ARGS...]",
			 "run a command as the HTTPS API does (output captured), then print what it captured");
