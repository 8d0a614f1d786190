/*
 * Each CPU's busy and idle time (include/cpu_time.h), the `uptime`
 * command, and the uptime and CPU metric families.
 *
 * One word per CPU holds its idle time, written by that CPU alone: the
 * idle cycles so far, or, while an open-ended idle period runs
 * (cpu_time_idle_enter), IDLE_NOW and the cycle count at which an idle
 * period begun at cycle 0 would have reached the same total (entry -
 * idle so far), so a reader's arch_cycles() minus it is the total up to
 * that moment. A reader thus needs no lock and no second word that could
 * come from another moment: one value of the word, and the clock read
 * while the word held it (idle_word_at).
 */
#include <errno.h>
#include <stdio.h>

#include "arch.h"
#include "cpu_time.h"
#include "metrics.h"
#include "nd_json.h"
#include "printk.h"
#include "shell.h"

#define IDLE_NOW (1ull << 63)	/* idle now: the rest of the word is entry - idle so far */
#define CLOSING (1ull << 62)	/* with IDLE_NOW: the period is ending, its end not yet stored */
#define BASE (CLOSING - 1)

/* A cache line per CPU: each is written on every pass of its own idle loop. */
struct cpu_clock {
	u64 online;	/* arch_cycles() when it came online; 0: not online */
	u64 idle;	/* see the top */
} __attribute__((aligned(64)));

static struct cpu_clock clocks[ARCH_MAX_CPUS];

void cpu_time_boot(void)
{
	__atomic_store_n(&clocks[0].online, arch_cycles(), __ATOMIC_RELEASE);
}

void cpu_time_online(u32 cpu)
{
	if (cpu < ARCH_MAX_CPUS)
		__atomic_store_n(&clocks[cpu].online, arch_cycles(), __ATOMIC_RELEASE);
}

void cpu_time_idle(u32 cpu, u64 cycles)
{
	if (cpu >= ARCH_MAX_CPUS)
		return;
	/* The only writer: a plain read of its own word, one atomic store for readers. */
	u64 v = __atomic_load_n(&clocks[cpu].idle, __ATOMIC_RELAXED);
	__atomic_store_n(&clocks[cpu].idle, v + cycles, __ATOMIC_RELAXED);
}

void cpu_time_idle_enter(u32 cpu)
{
	if (cpu >= ARCH_MAX_CPUS)
		return;
	u64 v = __atomic_load_n(&clocks[cpu].idle, __ATOMIC_RELAXED);
	__atomic_store_n(&clocks[cpu].idle, IDLE_NOW | (arch_cycles() - v), __ATOMIC_RELAXED);
}

/*
 * The end is read from the clock after CLOSING is visible: a reader that
 * saw the period open (without CLOSING) read its own clock before that,
 * so no reader counts the period past its end (idle_word_at).
 */
void cpu_time_idle_exit(u32 cpu)
{
	if (cpu >= ARCH_MAX_CPUS)
		return;
	u64 v = __atomic_load_n(&clocks[cpu].idle, __ATOMIC_RELAXED);
	if (!(v & IDLE_NOW))
		return;
	__atomic_store_n(&clocks[cpu].idle, v | CLOSING, __ATOMIC_SEQ_CST);
	__atomic_store_n(&clocks[cpu].idle, arch_cycles() - (v & BASE), __ATOMIC_RELEASE);
}

/*
 * The idle word and a clock reading taken while it held that value, never
 * while an idle period is closing: an open period is then counted up to
 * `now`, and `now` is before its end. (Read before the load, the clock
 * could predate a period the load finds begun; read after it, or while
 * the CPU stores the end it read from its clock, postdate that end: either
 * way a later reading could find less idle time, and a counter that goes
 * back is a reset to Prometheus.) The word changes only when the CPU
 * starts or stops being idle, and CLOSING lasts two stores: a retry is
 * rare and short. To within the clock's own ordering against memory
 * (x86's rdtsc is not serializing: a few cycles).
 */
static u64 idle_word_at(const struct cpu_clock *c, u64 *now)
{
	for (;;) {
		u64 v = __atomic_load_n(&c->idle, __ATOMIC_SEQ_CST);
		if (v & CLOSING) {
			arch_cpu_relax();
			continue;
		}
		*now = arch_cycles();
		if (__atomic_load_n(&c->idle, __ATOMIC_SEQ_CST) == v)
			return v;
	}
}

bool cpu_time_read(u32 cpu, struct cpu_time *t)
{
	if (cpu >= ARCH_MAX_CPUS)
		return false;
	u64 online = __atomic_load_n(&clocks[cpu].online, __ATOMIC_ACQUIRE), now;
	u64 v = idle_word_at(&clocks[cpu], &now);

	if (!online)
		return false;
	u64 up = now > online ? now - online : 0;
	u64 idle = v;
	if (v & IDLE_NOW)
		idle = now > (v & BASE) ? now - (v & BASE) : 0;
	/* Another CPU's counter may run a hair ahead of this one's. */
	*t = (struct cpu_time){ arch_cycles_to_ns(up), arch_cycles_to_ns(idle < up ? idle : up) };
	return true;
}

/*
 * The next online CPU after *cpu (~0u: from the first) and its figures:
 * false past the last. The commands print each CPU as they read it, CPU
 * 0's first: its time online is the uptime they show.
 */
static bool next_cpu(u32 *cpu, struct cpu_time *t)
{
	while (++*cpu < ARCH_MAX_CPUS)
		if (cpu_time_read(*cpu, t))
			return true;
	return false;
}

/* ns as seconds with milliseconds: "12.345". */
static void secs(char *buf, size_t len, u64 ns)
{
	snprintf(buf, len, "%llu.%03llu", ns / 1000000000ull, ns / 1000000 % 1000);
}

static void uptime_text(void)
{
	struct cpu_time t;
	char s[32];

	for (u32 cpu = ~0u; next_cpu(&cpu, &t);) {
		u64 busy = t.online_ns - t.idle_ns;
		if (!cpu) {
			secs(s, sizeof(s), t.online_ns);
			kprintf("up %s s;", s);
		}
		secs(s, sizeof(s), busy);
		kprintf("%s cpu%u busy %s s (%llu%%)", cpu ? "," : "", cpu, s,
			t.online_ns ? busy * 100 / t.online_ns : 0);
	}
	kprintf("\n");
}

/* busy_ms + idle_ms is the CPU's time online in whole milliseconds (CPU 0's: uptime_ms). */
static void uptime_json(void)
{
	struct nd_json j = { .first = true, .compact = true };
	struct cpu_time t;

	nd_json_open(&j, NULL, '{');
	for (u32 cpu = ~0u; next_cpu(&cpu, &t);) {
		if (!cpu) {
			nd_json_u64(&j, "uptime_ms", t.online_ns / 1000000);
			nd_json_open(&j, "cpus", '[');
		}
		u64 idle_ms = t.idle_ns / 1000000;
		nd_json_open(&j, NULL, '{');
		nd_json_u64(&j, "cpu", cpu);
		nd_json_u64(&j, "busy_ms", t.online_ns / 1000000 - idle_ms);
		nd_json_u64(&j, "idle_ms", idle_ms);
		nd_json_close(&j, '}');
	}
	nd_json_close(&j, ']');
	nd_json_close(&j, '}');
}

static int cmd_uptime(int argc, char **argv)
{
	const char *a = shell_arg(argc, argv, 1);
	bool json = a && shell_arg_flag(a, "-j", "--json");

	if (a && !json)
		return shell_arg_unexpected(argv[0], a);
	if (shell_args_max(argc, argv, 2))
		return -EINVAL;
	if (!cpu_time_read(0, &(struct cpu_time){ 0 })) {
		kprintf("%s: the boot's time was not taken (cpu_time_boot)\n", argv[0]);
		return -ENODEV;
	}
	if (json)
		uptime_json();
	else
		uptime_text();
	return 0;
}
SHELL_COMMAND_CONCURRENT(SHELL_SYSTEM, "uptime", cmd_uptime, "uptime [-j]",
			 "time since boot and each CPU's busy time (-j: as JSON)");

static void cpu_samples(u32 cpu, const struct cpu_time *t)
{
	char id[12];

	snprintf(id, sizeof(id), "%u", cpu);
	metric_sample("pmemk_cpu_seconds_total", METRIC_LABELS({ "cpu", id }, { "mode", "busy" }),
		      t->online_ns - t->idle_ns, 9);
	metric_sample("pmemk_cpu_seconds_total", METRIC_LABELS({ "cpu", id }, { "mode", "idle" }),
		      t->idle_ns, 9);
}

/* Uptime is CPU 0's time online, from the reading its busy and idle time come from. */
static void cpu_metrics(void)
{
	struct cpu_time t;

	if (!cpu_time_read(0, &t))
		return;
	metric_single("pmemk_uptime_seconds", METRIC_GAUGE, "Seconds since the kernel started.",
		      t.online_ns, 9);
	metric_family("pmemk_cpu_seconds_total", METRIC_COUNTER,
		      "Seconds each online CPU spent busy or idle since it came online "
		      "(as node_exporter's node_cpu_seconds_total).");
	cpu_samples(0, &t);
	for (u32 cpu = 0; next_cpu(&cpu, &t);)
		cpu_samples(cpu, &t);
}
METRICS_SOURCE(cpu_metrics);
