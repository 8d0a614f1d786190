/* A budget of log lines per window (include/line_budget.h). */
#include "line_budget.h"
#include "printk.h"

bool line_budget_ok(struct line_budget *b, u32 now)
{
	if (!b->started || now - b->window >= b->window_ms) {
		b->started = true;
		if (b->left_out)
			pr_warn("%s: %u lines about connections left out (at most %u in %u s)\n", b->who,
				b->left_out, b->max, b->window_ms / 1000);
		b->window = now;
		b->printed = b->left_out = 0;
	}
	if (b->printed < b->max) {
		b->printed++;
		return true;
	}
	b->left_out++;
	return false;
}
