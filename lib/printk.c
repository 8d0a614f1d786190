/*
 * printk: format with newlib's vsnprintf, prefix a boot-relative timestamp;
 * a CPU's capture (lib/print_capture.c) takes its kprintf output and its
 * error and warning lines.
 */
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "print_capture.h"
#include "printk.h"
#include "spinlock.h"

int console_loglevel = LOGLEVEL_DEBUG;	/* print everything but debug */

static u64 boot_cycles;

/* Whole messages: two CPUs printing at once do not interleave characters. */
static struct spinlock console_lock = SPINLOCK_INIT("console", LOCK_RANK_CONSOLE);

static void console_puts(const char *s, size_t n)
{
	/* A fault while this CPU prints (the exception handler's dump) must not wait for itself. */
	if (spin_held(&console_lock)) {
		arch_console_write(s, n);
		return;
	}
	spin_lock(&console_lock);
	arch_console_write(s, n);
	spin_unlock(&console_lock);
}

/* The levels a capture takes: the reasons a command gives from the layers below it. */
static bool level_captured(int level)
{
	return level == LOGLEVEL_ERR || level == LOGLEVEL_WARNING;
}

void vprintk(int level, const char *fmt, va_list ap)
{
	char buf[512];
	bool to_console = level < console_loglevel;

	if (!to_console && !level_captured(level))
		return;
	if (!boot_cycles)
		boot_cycles = arch_cycles();
	u64 ns = arch_cycles_to_ns(arch_cycles() - boot_cycles);
	int stamp = snprintf(buf, sizeof(buf), "[%5llu.%06llu] ", (ns / 1000000000),
			     (ns / 1000 % 1000000));
	if (stamp < 0)
		return;
	/* Leave room for the newline a truncated or unterminated message needs. */
	int body = vsnprintf(buf + stamp, sizeof(buf) - 1 - (size_t)stamp, fmt, ap);
	if (body < 0)
		return;
	int len = stamp + body;
	if ((size_t)len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	if (buf[len - 1] != '\n')
		buf[len++] = '\n';
	/* The capture gets the line as the shell's reason, without the timestamp. */
	if (level_captured(level) && print_capture_take(buf + stamp, (size_t)(len - stamp)))
		return;
	if (to_console)
		console_puts(buf, (size_t)len);
}

void printk(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}

void kprintf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	int len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(buf))
		len = sizeof(buf) - 1;
	if (print_capture_take(buf, (size_t)len))
		return;
	console_puts(buf, (size_t)len);
}
