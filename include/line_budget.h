/*
 * A budget of log lines about single connections, so that a flood of
 * connections cannot flood the console (lib/line_budget.c): at most `max`
 * lines in each window of `window_ms`, a window starting at its first
 * line; the first line after a window that left some out is preceded by
 * one saying how many ("nbd: 7 lines about connections left out (at most
 * 20 in 10 s)"). Portable: the caller passes its clock.
 */
#ifndef PMEMK_LINE_BUDGET_H
#define PMEMK_LINE_BUDGET_H

#include "types.h"

struct line_budget {
	const char *who;	/* the prefix of the "left out" line ("nbd") */
	u32 max, window_ms;
	/* the budget's own */
	bool started;
	u32 window, printed, left_out;
};

#define LINE_BUDGET_INIT(_who, _max, _window_ms) { .who = (_who), .max = (_max), .window_ms = (_window_ms) }

/* May one more line be printed now (now_ms: a clock in milliseconds)? */
bool line_budget_ok(struct line_budget *b, u32 now_ms);

#endif
