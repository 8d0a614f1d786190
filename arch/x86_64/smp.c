/*
 * AP start-up (FACTS-2 §6.2; Intel SDM vol. 3A §9.4 MP initialization):
 * the trampoline (trampoline.S) is copied to four pages below 1 MiB
 * (code and data, then its own PML4, PDPT and PD), and each AP the MADT
 * lists enabled gets INIT, then two STARTUP IPIs through the xAPIC's ICR.
 * One AP at a time: the trampoline's data block names one stack and one
 * per-CPU block. Each AP loads its own GDT and TSS, the kernel's IDT, sets
 * its GS base to its per-CPU block, enables its local APIC, reports in and
 * idles: halted until an IPI brings it a call (arch_cpu_start), which it
 * runs with interrupts off.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "boot_info.h"
#include "direct_map.h"
#include "e820.h"
#include "madt.h"
#include "params.h"
#include "printk.h"
#include "shell.h"
#include "smp.h"
#include "spinlock.h"
#include "x86.h"

/* xAPIC registers (FACTS-2 §6.2), offsets from the MMIO base. */
#define LAPIC_SVR 0xF0
#define LAPIC_ESR 0x280
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define SVR_ENABLE (1u << 8)
#define SVR_SPURIOUS_VECTOR 0xFF
#define ICR_BUSY (1u << 12)
#define ICR_INIT_ASSERT 0x0000C500u	/* INIT, level, assert */
#define ICR_INIT_DEASSERT 0x00008500u	/* INIT, level, de-assert */
#define ICR_STARTUP 0x00000600u		/* | vector (page number) */
#define ICR_FIXED 0x00004000u		/* fixed delivery, assert; | vector */
#define MSR_APIC_BASE 0x1B
#define APIC_BASE_ENABLE (1ull << 11)
#define MSR_GS_BASE 0xC0000101

#define STACK_SIZE (16 * 1024)
#define TRAMP_PAGES 4			/* code+data, PML4, PDPT, PD */
#define AP_WAIT_NS (2000ull * 1000 * 1000)	/* an AP that takes longer has failed */
/*
 * A bound on smp_call_on_each's wait, not a performance limit: under TCG
 * eight vCPUs share two host cores, and a vCPU preempted while holding a
 * spinlock stalls the others for a host time slice.
 */
#define CALL_WAIT_NS (60ull * 1000 * 1000 * 1000)

/* The trampoline's data block (trampoline.S, smp_tramp_data). */
struct smp_tramp_data {
	u64 gdt[4];
	u16 gdtr_limit;
	u32 gdtr_base;
	u16 pad;
	u32 pml4, cr0, cr4, efer;
	u64 stack, percpu, kcr3, entry;
} __packed;

extern const u8 smp_tramp_start[], smp_tramp_end[], smp_tramp_data[];
extern const u8 smp_tramp_far32[], smp_tramp_far64[], smp_tramp_pm32[], smp_tramp_lm64[];
extern const u8 smp_ap_entry[];

/* Per-CPU data; GS base points at it, `self` first so %gs:0 finds it. */
struct percpu {
	struct percpu *self;
	u32 cpu;
	u32 apic_id;
	volatile u32 online;
	u32 seen_apic_id;	/* what the CPU read from its own local APIC */
	u32 seen_cpu;		/* what it read back through GS */
	struct cpu_tables tables;
	u8 *stack;		/* STACK_SIZE; the IST1 stack follows it */
	u32 busy;		/* atomic: given a call (arch_cpu_start), not yet returned */
	u32 waiter;		/* atomic: CPU halted in arch_cpu_wait for this one, or ~0 */
	u64 tlb_gen;		/* tlb_flush_gen when this CPU last dropped its TLB */
	u64 idle_kicks_seen;	/* idle_kicks when its idle work last found nothing */
	smp_call_fn call_fn;	/* the call; set after call_arg (atomic) */
	void *call_arg;
};

static struct cpu_info cpus[SMP_MAX_CPUS];
static struct percpu percpu_area[SMP_MAX_CPUS] __aligned(64);
static struct percpu *percpus[SMP_MAX_CPUS];
static u32 nr_cpus_listed, nr_online = 1;
volatile u32 *lapic;
static u64 tramp_pa;

static u32 max_cpus = SMP_MAX_CPUS;	/* nr_cpus= */
static struct spinlock call_lock = SPINLOCK_INIT("smp_call", LOCK_RANK_SMP_CALL);

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

/* Send one IPI and wait for the ICR to go idle (QEMU delivers synchronously). */
static int lapic_ipi(u32 apic_id, u32 icr_lo)
{
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_ICR_HI, apic_id << 24);	/* high first: the low write sends */
	lapic_write(LAPIC_ICR_LO, icr_lo);
	for (u32 i = 0; i < 1000000; i++) {
		if (!(lapic_read(LAPIC_ICR_LO) & ICR_BUSY))
			return 0;
		cpu_relax();
	}
	return -ETIMEDOUT;
}

/* This CPU's local APIC on: software enable, spurious vector 0xFF. */
static void lapic_enable_local(void)
{
	lapic_write(LAPIC_SVR, SVR_ENABLE | SVR_SPURIOUS_VECTOR);
}

/*
 * Map the local APIC. Write-back in the PAT like the rest of the direct
 * map (as pci_map_bar does): QEMU ignores caching, and on hardware the
 * firmware's MTRRs make 0xFEE00000 uncached. A UC PAT mapping through the
 * arch interface is still to do.
 */
static int lapic_map(void)
{
	u64 base = rdmsr(MSR_APIC_BASE);
	u64 pa = base & ~0xfffull & ((1ull << 52) - 1);

	if (!(base & APIC_BASE_ENABLE))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
	if (madt.lapic_address && madt.lapic_address != pa)
		pr_warn("smp: MADT says the local APIC is at %#llx, the CPU says %#llx: using the CPU's\n",
			madt.lapic_address, pa);
	if (direct_map_add(pa, 4096)) {
		pr_err("smp: cannot map the local APIC at %#llx\n", pa);
		return -ENOMEM;
	}
	lapic = phys_to_virt(pa);
	return 0;
}

/* Does [pa, pa+len) overlap a range the loader handed over? */
static bool loader_uses(const struct boot_info *bi, u64 pa, u64 len)
{
	for (u32 i = 0; i < bi->nr_reserved; i++) {
		const struct boot_reserved *r = &bi->reserved[i];
		if (pa < r->addr + r->size && r->addr < pa + len)
			return true;
	}
	return false;
}

/*
 * TRAMP_PAGES of e820 RAM in [0x1000, 0xA0000), highest first, that the
 * loader does not use. memblock_setup() reserved the whole first MiB and
 * the boot direct map covers it, so nothing else allocates there.
 */
static u64 tramp_pick(const struct boot_info *bi)
{
	const u64 len = TRAMP_PAGES * 4096ull;

	for (u64 pa = 0xA0000 - len; pa >= 0x1000; pa -= 4096) {
		bool ram = false;
		for (u32 i = 0; i < e820_table.nr && !ram; i++) {
			const struct e820_entry *e = &e820_table.entries[i];
			ram = e->type == E820_TYPE_RAM && e->addr <= pa &&
			      pa + len <= e->addr + e->size;
		}
		if (ram && !loader_uses(bi, pa, len))
			return pa;
	}
	return 0;
}

/* Copy the code, build its page tables, fill what does not change per AP. */
static void tramp_install(u64 pa)
{
	u8 *t = phys_to_virt(pa);
	u64 *pml4 = phys_to_virt(pa + 0x1000), *pdpt = phys_to_virt(pa + 0x2000);
	u64 *pd = phys_to_virt(pa + 0x3000);
	const u64 *kpml4 = phys_to_virt(arch_pgtable_root());
	size_t size = (size_t)(smp_tramp_end - smp_tramp_start);
	struct smp_tramp_data *d = (void *)(t + (smp_tramp_data - smp_tramp_start));
	u32 far32 = (u32)(pa + (u64)(smp_tramp_pm32 - smp_tramp_start));
	u32 far64 = (u32)(pa + (u64)(smp_tramp_lm64 - smp_tramp_start));

	memset(t, 0, TRAMP_PAGES * 4096);
	memcpy(t, smp_tramp_start, size);
	memcpy(t + (smp_tramp_far32 - smp_tramp_start), &far32, 4);
	memcpy(t + (smp_tramp_far64 - smp_tramp_start), &far64, 4);
	d->gdtr_base = (u32)(pa + (u64)(smp_tramp_data - smp_tramp_start));
	/* Entry 0: identity map of the first 2 MiB (present, writable, 2 MiB leaf). */
	memcpy(pml4, kpml4, 4096);
	pml4[0] = (pa + 0x2000) | 0x3;
	pdpt[0] = (pa + 0x3000) | 0x3;
	pd[0] = 0x83;
	d->pml4 = (u32)(pa + 0x1000);
	d->cr0 = (u32)read_cr0();
	d->cr4 = (u32)read_cr4() & ~(1u << 17);	/* PCIDE cannot be set outside long mode */
	d->efer = (u32)(rdmsr(MSR_EFER) & ((1u << 0) | (1u << 8) | (u32)EFER_NXE));
	d->kcr3 = arch_pgtable_root();
	d->entry = (u64)smp_ap_entry;
}

/* Remove the identity map: the trampoline tables map nothing once all APs are in. */
static void tramp_retire(u64 pa)
{
	memset(phys_to_virt(pa + 0x1000), 0, 3 * 4096);
}

/* Mappings removed since this CPU last dropped its TLB (arch.c's lazy shootdown): drop them. */
static void tlb_catch_up(struct percpu *pc)
{
	u64 gen = __atomic_load_n(&tlb_flush_gen, __ATOMIC_ACQUIRE);

	if (gen != pc->tlb_gen) {
		write_cr3(read_cr3());
		pc->tlb_gen = gen;
	}
}

/* include/arch.h's idle work, and a count of kicks an idle CPU compares with what it saw. */
static bool (*idle_work)(void);
static u64 idle_kicks;

void arch_set_idle_work(bool (*fn)(void))
{
	__atomic_store_n(&idle_work, fn, __ATOMIC_RELEASE);
}

void arch_idle_kick(void)
{
	__atomic_fetch_add(&idle_kicks, 1, __ATOMIC_SEQ_CST);
	for (u32 i = 1; i < nr_cpus_listed; i++)
		if (cpus[i].state == CPU_ONLINE && percpus[i] && i != smp_processor_id() &&
		    !__atomic_load_n(&percpus[i]->busy, __ATOMIC_RELAXED))
			smp_send_ipi(i, SMP_IPI_VECTOR);
}

/*
 * One round of idle work if there is any since the CPU last found none.
 * Runs with interrupts on; a call given meanwhile waits for its return.
 */
static bool ap_idle_work(struct percpu *pc)
{
	bool (*fn)(void) = __atomic_load_n(&idle_work, __ATOMIC_ACQUIRE);
	u64 kicks = __atomic_load_n(&idle_kicks, __ATOMIC_SEQ_CST);

	if (!fn || kicks == pc->idle_kicks_seen)
		return false;
	tlb_catch_up(pc);
	__asm__ volatile("sti" ::: "memory");
	bool more = fn();
	__asm__ volatile("cli" ::: "memory");
	if (!more)
		pc->idle_kicks_seen = kicks;	/* a kick after the load runs fn again */
	return true;
}

/*
 * An AP's life once online: run the call it was given, else idle work,
 * else halt with interrupts on until the next IPI. "sti; hlt" leaves no
 * gap: an IPI that arrived after the check waits for the sti and then ends
 * the hlt.
 */
static __noreturn void ap_idle(struct percpu *pc)
{
	for (;;) {
		__asm__ volatile("cli" ::: "memory");
		smp_call_fn fn = __atomic_load_n(&pc->call_fn, __ATOMIC_ACQUIRE);
		if (fn) {
			tlb_catch_up(pc);
			fn(pc->call_arg);
			__atomic_store_n(&pc->call_fn, NULL, __ATOMIC_RELAXED);
			/*
			 * The call's stores before the caller sees it done; and
			 * busy cleared before waiter is read (seq_cst pairs with
			 * arch_cpu_wait: one of the two sees the other's store).
			 */
			__atomic_store_n(&pc->busy, 0, __ATOMIC_SEQ_CST);
			u32 w = __atomic_load_n(&pc->waiter, __ATOMIC_SEQ_CST);
			if (w != ~0u)
				smp_send_ipi(w, SMP_IPI_VECTOR);
			continue;
		}
		if (ap_idle_work(pc))
			continue;
		__asm__ volatile("sti; hlt" ::: "memory");
	}
}

void smp_ipi_handler(void);
void smp_ipi_handler(void)
{
	lapic_write(LAPIC_EOI, 0);
}

extern const u8 smp_spurious_entry[];

void smp_ap_start(struct percpu *pc);
__noreturn void smp_ap_start(struct percpu *pc)
{
	gdt_load(&pc->tables, (u64)(pc->stack + 2 * STACK_SIZE));
	idt_load();
	wrmsr(MSR_GS_BASE, (u64)pc);
	lapic_enable_local();
	pc->seen_apic_id = lapic_read(LAPIC_ID) >> 24;
	pc->seen_cpu = smp_processor_id();
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
	return lapic ? lapic_read(LAPIC_ID) >> 24 : 0;
}

int smp_send_ipi(u32 cpu, u8 vector)
{
	if (cpu >= nr_cpus_listed || cpus[cpu].state != CPU_ONLINE || !lapic)
		return -ENODEV;
	return lapic_ipi(cpus[cpu].apic_id, ICR_FIXED | vector);
}

u32 arch_nr_cpus(void)
{
	return nr_cpus_listed;
}

int arch_cpu_start(u32 cpu, void (*fn)(void *arg), void *arg)
{
	u32 idle = 0;

	if (cpu >= nr_cpus_listed || cpu == smp_processor_id() || cpus[cpu].state != CPU_ONLINE)
		return -ENODEV;
	if (cpu == 0)
		return -EBUSY;	/* the boot CPU runs the shell, it never idles */
	/* Claim the CPU: two callers racing for it, one wins. */
	if (!__atomic_compare_exchange_n(&percpus[cpu]->busy, &idle, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -EBUSY;
	percpus[cpu]->call_arg = arg;
	/* The caller's stores and arg before fn: the AP acquires fn. */
	__atomic_store_n(&percpus[cpu]->call_fn, fn, __ATOMIC_RELEASE);
	smp_send_ipi(cpu, SMP_IPI_VECTOR);
	return 0;
}

bool arch_cpu_busy(u32 cpu)
{
	return cpu < nr_cpus_listed && percpus[cpu] &&
	       __atomic_load_n(&percpus[cpu]->busy, __ATOMIC_ACQUIRE);
}

void arch_cpu_wait(u32 cpu)
{
	struct percpu *pc = cpu < nr_cpus_listed ? percpus[cpu] : NULL;

	if (!pc)
		return;
	for (;;) {
		__atomic_store_n(&pc->waiter, smp_processor_id(), __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&pc->busy, __ATOMIC_SEQ_CST))
			break;
		/*
		 * The IPI the CPU sends when done ends the hlt; one that came
		 * after the check is held until sti, which takes effect after
		 * hlt begins. Only LAPIC interrupts can come (smp_init masked
		 * the 8259s), and their handlers only acknowledge.
		 */
		__asm__ volatile("sti; hlt; cli" ::: "memory");
	}
	__atomic_store_n(&pc->waiter, ~0u, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* the call's stores, after busy was seen clear */
}

int smp_call_on_each(smp_call_fn fn, void *arg)
{
	u32 self = smp_processor_id();
	bool given[SMP_MAX_CPUS] = { false };
	int err = 0;

	spin_lock(&call_lock);
	for (u32 i = 0; i < nr_cpus_listed; i++) {
		if (i == self || cpus[i].state != CPU_ONLINE)
			continue;
		/* Still in an earlier call (one that timed out, or an on-cpu command). */
		if (arch_cpu_start(i, fn, arg)) {
			pr_err("smp: CPU %u is still busy with an earlier call, skipped\n", i);
			err = -EBUSY;
			continue;
		}
		given[i] = true;
	}
	fn(arg);
	for (u32 i = 0; i < nr_cpus_listed; i++) {
		if (!given[i])
			continue;
		u64 start = arch_cycles();
		while (arch_cpu_busy(i)) {
			if (arch_cycles_to_ns(arch_cycles() - start) > CALL_WAIT_NS) {
				pr_err("smp: CPU %u did not finish its call within %llu s\n", i,
				       CALL_WAIT_NS / 1000000000ull);
				err = -ETIMEDOUT;
				break;
			}
			cpu_relax();
		}
	}
	spin_unlock(&call_lock);
	return err;
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
static int start_ap(struct percpu *pc)
{
	struct smp_tramp_data *d = phys_to_virt(tramp_pa + (u64)(smp_tramp_data - smp_tramp_start));
	u32 vector = (u32)(tramp_pa >> 12);

	d->stack = (u64)(pc->stack + STACK_SIZE);
	d->percpu = (u64)pc;
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

/* The table of CPUs: the BSP first, then the MADT's other entries in order. */
static u32 list_cpus(u32 bsp_id)
{
	u32 n = 1;

	cpus[0] = (struct cpu_info){ .apic_id = bsp_id, .state = CPU_ONLINE };
	for (u32 i = 0; i < madt.nr_cpus; i++) {
		const struct madt_cpu *c = &madt.cpu[i];
		if (c->apic_id == bsp_id) {
			cpus[0].acpi_uid = c->uid;
			continue;
		}
		if (n >= SMP_MAX_CPUS) {
			pr_warn("smp: more than %d CPUs, the rest ignored\n", SMP_MAX_CPUS);
			break;
		}
		cpus[n++] = (struct cpu_info){ .apic_id = c->apic_id, .acpi_uid = c->uid,
					       .state = c->flags & MADT_CPU_ENABLED ? CPU_SKIPPED
										    : CPU_ABSENT };
	}
	return n;
}

void smp_boot_cpu_init(void)
{
	percpus[0] = percpu_alloc(0, 0);
	wrmsr(MSR_GS_BASE, (u64)percpus[0]);
	gs_ready = true;
	cpus[0] = (struct cpu_info){ .state = CPU_ONLINE };
	nr_cpus_listed = 1;
}

void smp_init(const struct boot_info *bi)
{
	u32 started = 1;

	/*
	 * The legacy 8259 PICs masked: pmemk uses none of their lines, and a
	 * CPU halting with interrupts on (arch_cpu_wait) must not take the
	 * firmware's timer tick on vector 8 (#DF's).
	 */
	outb(0x21, 0xff);
	outb(0xA1, 0xff);
	idt_set_gate(SMP_IPI_VECTOR, (u64)smp_ipi_entry);
	idt_set_gate(SVR_SPURIOUS_VECTOR, (u64)smp_spurious_entry);
	if (lapic_map())
		return;
	u32 bsp_id = lapic_read(LAPIC_ID) >> 24;
	nr_cpus_listed = list_cpus(bsp_id);
	percpus[0]->apic_id = bsp_id;
	lapic_enable_local();
	cpus[0].seen_apic_id = bsp_id;
	cpus[0].seen_cpu = smp_processor_id();
	lapic_timer_init();
	for (u32 i = 1; i < nr_cpus_listed; i++)
		if (cpus[i].state == CPU_SKIPPED && started < max_cpus)
			started++;
	if (started == 1)
		goto out;
	tramp_pa = tramp_pick(bi);
	if (!tramp_pa) {
		pr_err("smp: no free RAM below 640 KiB for the AP trampoline: boot CPU only\n");
		goto out;
	}
	tramp_install(tramp_pa);
	started = 1;
	for (u32 i = 1; i < nr_cpus_listed && started < max_cpus; i++) {
		if (cpus[i].state != CPU_SKIPPED)
			continue;
		started++;
		struct percpu *pc = percpu_alloc(i, cpus[i].apic_id);
		int err = pc ? start_ap(pc) : -ENOMEM;
		if (err) {
			pr_err("smp: CPU %u (APIC ID %u) did not start: %s\n", i, cpus[i].apic_id,
			       err == -ENOMEM ? "no memory" : "no report in time");
			cpus[i].state = CPU_FAILED;
			continue;	/* its stack stays allocated: a late AP may still use it */
		}
		percpus[i] = pc;
		cpus[i].state = CPU_ONLINE;
		cpus[i].seen_apic_id = pc->seen_apic_id;
		cpus[i].seen_cpu = pc->seen_cpu;
		nr_online++;
	}
	tramp_retire(tramp_pa);
out:
	pr_info("smp: %u of %u CPUs online (boot CPU APIC ID %u%s)\n", nr_online, nr_cpus_listed,
		bsp_id, max_cpus < SMP_MAX_CPUS ? ", nr_cpus= or nosmp" : "");
}

u32 smp_nr_cpus(void)
{
	return nr_cpus_listed;
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
	return n < nr_cpus_listed ? &cpus[n] : NULL;
}

const char *cpu_state_name(enum cpu_state s)
{
	static const char *const names[] = { "absent", "not started", "failed", "online" };

	return s <= CPU_ONLINE ? names[s] : "?";
}
