/*
 * AP start-up (FACTS-2 §6.2; Intel SDM vol. 3A §9.4 MP initialization):
 * each AP the firmware lists enabled (struct smp_config, from kmain) gets
 * INIT, then two STARTUP IPIs, and
 * starts in the trampoline (trampoline.c). One AP at a time: the
 * trampoline's data block names one stack and one per-CPU block. Each AP
 * loads its own GDT and TSS, the kernel's IDT, sets its GS base to its
 * per-CPU block, enables its local APIC, reports in and idles (smp_call.c).
 * Also the table of CPUs and the questions about it (include/smp.h).
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cpu_time.h"
#include "lapic.h"
#include "params.h"
#include "percpu.h"
#include "printk.h"
#include "smp.h"
#include "trampoline.h"
#include "x86.h"

#define AP_WAIT_NS (2000ull * 1000 * 1000)	/* an AP that takes longer has failed */

struct cpu_info smp_cpus[SMP_MAX_CPUS];
struct percpu *smp_percpu[SMP_MAX_CPUS];
u32 smp_nr_listed;
static struct percpu percpu_area[SMP_MAX_CPUS] __aligned(64);
static u32 nr_online = 1;

static u32 max_cpus = SMP_MAX_CPUS;	/* nr_cpus= */

static int nr_cpus_param(const char *val)
{
	char *end;
	unsigned long n = val ? strtoul(val, &end, 0) : 0;

	if (!val || *end || n < 1) {
		pr_err("nr_cpus: needs a number >= 1, got \"%s\"\n", val ? val : "");
		return -EINVAL;
	}
	max_cpus = n > SMP_MAX_CPUS ? SMP_MAX_CPUS : (u32)n;
	return 0;
}
KERNEL_PARAM("nr_cpus", nr_cpus_param, "start at most N CPUs, the boot CPU included (Linux's)");

static int nosmp_param(const char *val)
{
	(void)val;
	max_cpus = 1;
	return 0;
}
KERNEL_PARAM("nosmp", nosmp_param, "run on the boot CPU only (nr_cpus=1)");

static void delay_us(u64 us)
{
	u64 start = arch_cycles();

	while (arch_cycles_to_ns(arch_cycles() - start) < us * 1000)
		cpu_relax();
}

extern const u8 smp_spurious_entry[];

void smp_ap_start(struct percpu *pc);
__noreturn void smp_ap_start(struct percpu *pc)
{
	gdt_load(&pc->tables, (u64)(pc->stack + 2 * STACK_SIZE));
	idt_load();
	wrmsr(MSR_GS_BASE, (u64)pc);
	arch_mce_init_cpu();
	lapic_enable_local();
	pc->seen_apic_id = lapic_id();
	pc->seen_cpu = smp_processor_id();
	cpu_time_online(pc->cpu);	/* its busy and idle time count from here (uptime) */
	__atomic_store_n(&pc->online, 1, __ATOMIC_RELEASE);	/* orders the stores above before it */
	ap_idle(pc);
}

u32 smp_processor_id(void)
{
	struct percpu *pc;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(pc));
	return pc->cpu;
}

/* Set once CPU 0's GS base is: before that, %gs:0 is not per-CPU data. */
static bool gs_ready;

u32 arch_cpu_id(void)
{
	return gs_ready ? smp_processor_id() : 0;
}

void arch_cpu_relax(void)
{
	cpu_relax();
}

u32 smp_apic_id_here(void)
{
	return lapic ? lapic_id() : 0;
}

u32 arch_nr_cpus(void)
{
	return smp_nr_listed;
}

static struct percpu *percpu_alloc(u32 cpu, u32 apic_id)
{
	struct percpu *pc = &percpu_area[cpu];

	memset(pc, 0, sizeof(*pc));
	pc->self = pc;
	pc->cpu = cpu;
	pc->apic_id = apic_id;
	pc->waiter = ~0u;
	pc->stack = cpu ? memalign(16, 2 * STACK_SIZE) : NULL;
	return cpu && !pc->stack ? NULL : pc;
}

/* INIT, then two STARTUP IPIs (SDM's delays: 10 ms, 200 µs); wait for the report. */
static int start_ap(struct percpu *pc, u64 tramp_pa)
{
	u32 vector = (u32)(tramp_pa >> 12);

	tramp_prepare_ap(tramp_pa, (u64)(pc->stack + STACK_SIZE), pc);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* the data block before the IPIs */
	if (lapic_ipi(pc->apic_id, ICR_INIT_ASSERT))
		return -EIO;
	delay_us(10000);
	lapic_ipi(pc->apic_id, ICR_INIT_DEASSERT);
	for (int i = 0; i < 2; i++) {
		if (lapic_ipi(pc->apic_id, ICR_STARTUP | vector))
			return -EIO;
		delay_us(200);
		if (__atomic_load_n(&pc->online, __ATOMIC_ACQUIRE))
			return 0;
	}
	u64 start = arch_cycles();
	while (arch_cycles_to_ns(arch_cycles() - start) < AP_WAIT_NS)
		if (__atomic_load_n(&pc->online, __ATOMIC_ACQUIRE))
			return 0;
	return -ETIMEDOUT;
}

/* The table of CPUs: the BSP first, then the firmware's other entries in order. */
static u32 list_cpus(const struct smp_config *cfg, u32 bsp_id)
{
	u32 n = 1;

	smp_cpus[0] = (struct cpu_info){ .apic_id = bsp_id, .state = CPU_ONLINE };
	for (u32 i = 0; i < cfg->nr_cpus; i++) {
		const struct smp_cpu_desc *c = &cfg->cpus[i];
		if (c->apic_id == bsp_id) {
			smp_cpus[0].processor_uid = c->processor_uid;
			continue;
		}
		if (n >= SMP_MAX_CPUS) {
			pr_warn("smp: more than %d CPUs, the rest ignored\n", SMP_MAX_CPUS);
			break;
		}
		smp_cpus[n++] = (struct cpu_info){ .apic_id = c->apic_id,
						   .processor_uid = c->processor_uid,
						   .state = c->enabled ? CPU_SKIPPED : CPU_ABSENT };
	}
	return n;
}

void smp_boot_cpu_init(void)
{
	smp_percpu[0] = percpu_alloc(0, 0);
	wrmsr(MSR_GS_BASE, (u64)smp_percpu[0]);
	gs_ready = true;
	smp_cpus[0] = (struct cpu_info){ .state = CPU_ONLINE };
	smp_nr_listed = 1;
}

/* The boot CPU's part: PICs masked, vectors, its local APIC, the CPU table, the idle timer, the I/O APICs. */
static int bsp_init(const struct smp_config *cfg)
{
	/*
	 * The legacy 8259 PICs masked: pmemk uses none of their lines, and a
	 * CPU halting with interrupts on (arch_cpu_wait) must not take the
	 * firmware's timer tick on vector 8 (#DF's).
	 */
	outb(0x21, 0xff);
	outb(0xA1, 0xff);
	idt_set_gate(SMP_IPI_VECTOR, (u64)smp_ipi_entry);
	idt_set_gate(LAPIC_SPURIOUS_VECTOR, (u64)smp_spurious_entry);
	if (lapic_map(cfg->lapic_address))
		return -ENOMEM;
	u32 bsp_id = lapic_id();
	smp_nr_listed = list_cpus(cfg, bsp_id);
	smp_percpu[0]->apic_id = bsp_id;
	lapic_enable_local();
	smp_cpus[0].seen_apic_id = bsp_id;
	smp_cpus[0].seen_cpu = smp_processor_id();
	idle_timer_init();
	ioapic_init(cfg, bsp_id);
	return 0;
}

/* Start CPU i (listed, enabled) through the trampoline at tramp_pa; a line if it fails. */
static void bring_up(u32 i, u64 tramp_pa)
{
	struct percpu *pc = percpu_alloc(i, smp_cpus[i].apic_id);
	int err = pc ? start_ap(pc, tramp_pa) : -ENOMEM;

	if (err) {
		pr_err("smp: CPU %u (APIC ID %u) did not start: %s\n", i, smp_cpus[i].apic_id,
		       err == -ENOMEM ? "no memory" : "no report in time");
		smp_cpus[i].state = CPU_FAILED;
		return;	/* its stack stays allocated: a late AP may still use it */
	}
	smp_percpu[i] = pc;
	smp_cpus[i].state = CPU_ONLINE;
	smp_cpus[i].seen_apic_id = pc->seen_apic_id;
	smp_cpus[i].seen_cpu = pc->seen_cpu;
	nr_online++;
}

/* The APs to start: the enabled ones, up to max_cpus in all. */
static u32 nr_to_start(void)
{
	u32 n = 1;

	for (u32 i = 1; i < smp_nr_listed; i++)
		if (smp_cpus[i].state == CPU_SKIPPED && n < max_cpus)
			n++;
	return n;
}

/* Start them one at a time through a trampoline in low RAM. */
static void start_aps(const struct smp_config *cfg)
{
	u64 tramp_pa = tramp_pick(cfg);
	u32 started = 1;

	if (!tramp_pa) {
		pr_err("smp: no free RAM below 640 KiB for the AP trampoline: boot CPU only\n");
		return;
	}
	tramp_install(tramp_pa);
	for (u32 i = 1; i < smp_nr_listed && started < max_cpus; i++)
		if (smp_cpus[i].state == CPU_SKIPPED) {
			started++;
			bring_up(i, tramp_pa);
		}
	tramp_retire(tramp_pa);
}

void smp_init(const struct smp_config *cfg)
{
	if (bsp_init(cfg))
		return;
	if (nr_to_start() > 1)
		start_aps(cfg);
	pr_info("smp: %u of %u CPUs online (boot CPU APIC ID %u%s)\n", nr_online, smp_nr_listed,
		smp_cpus[0].apic_id, max_cpus < SMP_MAX_CPUS ? ", nr_cpus= or nosmp" : "");
}

u32 smp_nr_cpus(void)
{
	return smp_nr_listed;
}

u32 smp_max_cpus(void)
{
	return max_cpus;
}

u32 smp_nr_online(void)
{
	return nr_online;
}

const struct cpu_info *smp_cpu(u32 n)
{
	return n < smp_nr_listed ? &smp_cpus[n] : NULL;
}

const char *cpu_state_name(enum cpu_state s)
{
	static const char *const names[] = { "absent", "not started", "failed", "online" };

	return s <= CPU_ONLINE ? names[s] : "?";
}
