/*
 * The boot CPU's idle halt (arch_idle): its local APIC timer, one-shot
 * (Intel SDM vol. 3A §11.5.4; lapic.c measures its rate), bounds each
 * halt; any other
 * interrupt ends it sooner, such as a NIC's MSI-X message sent to
 * WAKE_VECTOR (arch_wake_msi; MSI address format §11.11.1) or a NIC's
 * INTx line through an I/O APIC (ioapic.c). Both
 * vectors only count and acknowledge: the work is found by polling once
 * awake. `cpuinfo` shows the counts.
 *
 * Under an emulator this is what frees a host CPU: a vCPU spinning in the
 * poll loop takes one whole, a halted one none (PERFORMANCE "Halting
 * while idle"). idle=poll keeps the boot CPU spinning, as Linux's.
 */
#include "arch.h"
#include "cpu_features.h"
#include "lapic.h"
#include "params.h"
#include "printk.h"
#include "x86.h"

#define TIMER_VECTOR 0xE0
#define WAKE_VECTOR 0xE1
#define MSI_ADDR_BASE 0xFEE00000ull	/* | destination APIC ID << 12, physical mode */

static u64 timer_per_ms;	/* timer counts per ms at divide 16; 0: no halting */
static int idle_poll;		/* idle=: 0 halt, 1 poll */
static u32 boot_apic_id;
static u64 halts;
u64 idle_timer_wakes, idle_device_wakes;	/* counted by the entries below */

/*
 * The two entries: count, EOI, return. Only RAX is used (saved); the
 * flags incq changes come back with iretq.
 */
void idle_timer_entry(void);
void idle_wake_entry(void);
__asm__(".text\n"
	"idle_timer_entry:\n"
	"	push %rax\n"
	"	incq idle_timer_wakes(%rip)\n"
	"	jmp 1f\n"
	"idle_wake_entry:\n"
	"	push %rax\n"
	"	incq idle_device_wakes(%rip)\n"
	"1:	mov lapic(%rip), %rax\n"
	"	movl $0, " __stringify(LAPIC_EOI) "(%rax)\n"
	"	pop %rax\n"
	"	iretq\n");

KERNEL_PARAM_CHOICE("idle", idle_poll, -1,
		    "poll: the boot CPU spins while it waits; halt (default): it halts until a NIC "
		    "interrupt or 1 ms (Linux's idle=)",
		    "halt", "poll");

void idle_timer_init(void)
{
	u64 counted, ns;

	if (!cpu_features.tsc_khz) {
		pr_warn("idle: no TSC rate to measure the APIC timer by: the boot CPU polls\n");
		return;
	}
	boot_apic_id = lapic_id();
	idt_set_gate(TIMER_VECTOR, (u64)idle_timer_entry);
	idt_set_gate(WAKE_VECTOR, (u64)idle_wake_entry);
	timer_per_ms = lapic_timer_calibrate(TIMER_VECTOR, &counted, &ns);
	if (!timer_per_ms)
		pr_warn("idle: the APIC timer counted %llu in %llu us: the boot CPU polls\n",
			counted, ns / 1000);
}

bool arch_idle(u64 max_ns)
{
	if (!timer_per_ms || idle_poll)
		return false;
	u64 count = max_ns * timer_per_ms / 1000000ull;
	if (count > 0xFFFFFFFFull)
		count = 0xFFFFFFFFull;
	/*
	 * An interrupt that came since interrupts went off waits for the
	 * sti, whose effect comes after the hlt begins: it ends the halt.
	 * The timer is stopped after a halt a device ended, so that it does
	 * not fire later, while interrupts are off (arch_irq_drain says why
	 * that matters).
	 */
	lapic_timer_start((u32)(count ? count : 1));
	halts++;
	__asm__ volatile("sti; hlt; cli" ::: "memory");
	lapic_timer_start(0);
	return true;
}

void arch_irq_drain(void)
{
	/* The one instruction after sti runs before any interrupt is taken: the nop. */
	__asm__ volatile("sti; nop; cli" ::: "memory");
}

bool idle_can_halt(void)
{
	return timer_per_ms && !idle_poll;
}

bool arch_wake_msi(u64 *addr, u32 *data)
{
	if (!idle_can_halt() || boot_apic_id > 0xFF)
		return false;
	*addr = MSI_ADDR_BASE | (u64)boot_apic_id << 12;
	*data = WAKE_VECTOR;	/* fixed delivery, edge */
	return true;
}

void idle_info_print(void)
{
	if (idle_poll)
		kprintf("idle\t\t: poll (idle=poll)\n");
	else if (!timer_per_ms)
		kprintf("idle\t\t: poll (no APIC timer)\n");
	else
		kprintf("idle\t\t: halt (APIC timer %llu kHz), %llu halts, ended by the timer %llu, "
			"by a device %llu\n", timer_per_ms * 16, halts, idle_timer_wakes,
			idle_device_wakes + ioapic_wakes);
}
