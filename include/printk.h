/* Kernel log: printk with Linux's levels, to the console, with a timestamp. */
#ifndef PMEMK_PRINTK_H
#define PMEMK_PRINTK_H

#include <stdarg.h>
#include "types.h"

enum loglevel {
	LOGLEVEL_EMERG = 0,
	LOGLEVEL_ALERT,
	LOGLEVEL_CRIT,
	LOGLEVEL_ERR,
	LOGLEVEL_WARNING,
	LOGLEVEL_NOTICE,
	LOGLEVEL_INFO,
	LOGLEVEL_DEBUG,
};

/* Messages with level < console_loglevel are printed (Linux's rule). */
extern int console_loglevel;

__attribute__((format(printf, 2, 3))) void printk(int level, const char *fmt, ...);
void vprintk(int level, const char *fmt, va_list ap);
/* Unprefixed output for shell commands and TAP: no timestamp, no filter. */
__attribute__((format(printf, 1, 2))) void kprintf(const char *fmt, ...);

#define pr_emerg(...) printk(LOGLEVEL_EMERG, __VA_ARGS__)
#define pr_err(...) printk(LOGLEVEL_ERR, __VA_ARGS__)
#define pr_warn(...) printk(LOGLEVEL_WARNING, __VA_ARGS__)
#define pr_notice(...) printk(LOGLEVEL_NOTICE, __VA_ARGS__)
#define pr_info(...) printk(LOGLEVEL_INFO, __VA_ARGS__)
#define pr_debug(...) printk(LOGLEVEL_DEBUG, __VA_ARGS__)

#endif
