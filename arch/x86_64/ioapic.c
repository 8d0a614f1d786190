/*
 * The I/O APICs (Intel 82093AA datasheet §3.2; ACPI 6.4 §5.2.12.3 and
 * §5.2.12.5): the interrupt lines of devices without MSI, pointed at the
 * vector that ends the boot CPU's idle halt (idle.c). ioapic_init, from
 * smp_init, maps every I/O APIC the MADT lists and masks each of its
 * pins; arch_wake_intx routes one line to the boot CPU, masked;
 * arch_intx_mask opens and closes it around a halt. The interrupt masks
 * every wake-up line, counts and acknowledges: a level-triggered line
 * stays asserted until its driver quiets the device, which happens in the
 * poll loop after the halt, not here.
 *
 * Which ISA IRQ a PCI function's INTx reaches is the firmware's Interrupt
 * Line (arch_isa_irq_line, through the MADT's overrides), not ACPI's
 * _PRT: docs/ARCHITECTURE.md, "Polling, then halting", says why.
 */
#include <errno.h>

#include "arch.h"
#include "direct_map.h"
#include "lapic.h"
#include "printk.h"
#include "smp.h"
#include "x86.h"

/* Indirect access (§3.1): the register number in IOREGSEL, its value through IOWIN. */
#define IOREGSEL 0
#define IOWIN 4		/* in u32s: offset 0x10 */
#define IOAPIC_VER 0x01	/* bits 23:16: the highest redirection entry */
#define IOAPIC_RTE(pin) (0x10 + 2 * (pin))	/* low word; the high word follows */

/* Redirection entry, low word (§3.2.4): fixed delivery, physical destination. */
#define RTE_ACTIVE_LOW (1u << 13)
#define RTE_LEVEL (1u << 15)
#define RTE_MASKED (1u << 16)
#define RTE_DEST_SHIFT 24	/* high word: the destination APIC ID */

/* MPS INTI flags of an override (ACPI table 5.50). */
#define INTI_POLARITY(f) ((f) & 3u)
#define INTI_TRIGGER(f) (((f) >> 2) & 3u)
#define INTI_HIGH_OR_EDGE 1u
#define INTI_LOW_OR_LEVEL 3u

#define INTX_VECTOR 0xE2	/* beside idle.c's 0xE0 (timer) and 0xE1 (MSI) */
#define MAX_IOAPICS 16
#define MAX_OVERRIDES 16
#define MAX_WAKE_LINES 8

struct ioapic {
	volatile u32 *regs;
	u32 gsi_base, nr_pins;
};

static struct ioapic ioapics[MAX_IOAPICS];
static u32 nr_ioapics;
static struct smp_irq_override overrides[MAX_OVERRIDES];
static u32 nr_overrides;
static struct arch_intx wake_lines[MAX_WAKE_LINES];
static u32 nr_wake_lines;
static u32 dest_apic_id;
u64 ioapic_wakes;

static u32 io_read(const struct ioapic *io, u32 reg)
{
	io->regs[IOREGSEL] = reg;
	return io->regs[IOWIN];
}

static void io_write(const struct ioapic *io, u32 reg, u32 val)
{
	io->regs[IOREGSEL] = reg;
	io->regs[IOWIN] = val;
}

/* The I/O APIC with this GSI among its pins, and the pin; NULL if none. */
static const struct ioapic *find_pin(u32 gsi, u32 *pin)
{
	for (u32 i = 0; i < nr_ioapics; i++)
		if (gsi >= ioapics[i].gsi_base && gsi - ioapics[i].gsi_base < ioapics[i].nr_pins) {
			*pin = gsi - ioapics[i].gsi_base;
			return &ioapics[i];
		}
	return NULL;
}

static u32 rte_low(const struct arch_intx *line, bool masked)
{
	return INTX_VECTOR | (line->active_low ? RTE_ACTIVE_LOW : 0) |
	       (line->level ? RTE_LEVEL : 0) | (masked ? RTE_MASKED : 0);
}

/* Map one I/O APIC and mask every pin; false (a line) when it cannot be used. */
static bool ioapic_add(const struct smp_ioapic_desc *d)
{
	struct ioapic *io = &ioapics[nr_ioapics];

	if (!d->address || direct_map_add(d->address & ~0xfffull, 4096)) {
		pr_warn("ioapic: I/O APIC %u at %#x cannot be mapped: its lines are not used\n",
			d->id, d->address);
		return false;
	}
	io->regs = phys_to_virt(d->address);
	u32 ver = io_read(io, IOAPIC_VER);
	if (ver == 0xFFFFFFFFu) {
		pr_warn("ioapic: I/O APIC %u at %#x does not answer: its lines are not used\n",
			d->id, d->address);
		return false;
	}
	io->gsi_base = d->gsi_base;
	io->nr_pins = ((ver >> 16) & 0xff) + 1;
	for (u32 pin = 0; pin < io->nr_pins; pin++)
		io_write(io, IOAPIC_RTE(pin), io_read(io, IOAPIC_RTE(pin)) | RTE_MASKED);
	pr_info("ioapic: I/O APIC %u at %#x, GSIs %u-%u, all masked\n", d->id, d->address,
		io->gsi_base, io->gsi_base + io->nr_pins - 1);
	nr_ioapics++;
	return true;
}

/* The interrupt on INTX_VECTOR (the entry below): every wake-up line masked, then EOI. */
void ioapic_intx_irq(void);
void ioapic_intx_irq(void)
{
	for (u32 i = 0; i < nr_wake_lines; i++)
		arch_intx_mask(wake_lines[i].gsi, true);
	ioapic_wakes++;
	lapic_eoi();
}

/*
 * The caller-saved registers around a C call; 9 pushes after the 5-word
 * interrupt frame leave the stack 16-byte aligned for the call.
 */
void ioapic_intx_entry(void);
__asm__(".text\n"
	"ioapic_intx_entry:\n"
	"	push %rax\n	push %rcx\n	push %rdx\n	push %rsi\n	push %rdi\n"
	"	push %r8\n	push %r9\n	push %r10\n	push %r11\n"
	"	cld\n"
	"	call ioapic_intx_irq\n"
	"	pop %r11\n	pop %r10\n	pop %r9\n	pop %r8\n"
	"	pop %rdi\n	pop %rsi\n	pop %rdx\n	pop %rcx\n	pop %rax\n"
	"	iretq\n");

void ioapic_init(const struct smp_config *cfg, u32 boot_apic_id)
{
	dest_apic_id = boot_apic_id;
	idt_set_gate(INTX_VECTOR, (u64)ioapic_intx_entry);
	for (u32 i = 0; i < cfg->nr_ioapics && nr_ioapics < MAX_IOAPICS; i++)
		ioapic_add(&cfg->ioapics[i]);
	if (!nr_ioapics)
		pr_warn("ioapic: no usable I/O APIC: devices without MSI are polled\n");
	for (u32 i = 0; i < cfg->nr_overrides && nr_overrides < MAX_OVERRIDES; i++)
		overrides[nr_overrides++] = cfg->overrides[i];
}

int arch_isa_irq_line(u8 irq, struct arch_intx *line)
{
	if (!nr_ioapics)
		return -ENODEV;
	if (irq > 15)
		return -EINVAL;
	*line = (struct arch_intx){ .gsi = irq, .level = true, .active_low = true };
	for (u32 i = 0; i < nr_overrides; i++) {
		const struct smp_irq_override *o = &overrides[i];
		if (o->irq != irq)
			continue;
		line->gsi = o->gsi;
		if (INTI_POLARITY(o->flags) == INTI_HIGH_OR_EDGE)
			line->active_low = false;
		if (INTI_TRIGGER(o->flags) == INTI_HIGH_OR_EDGE)
			line->level = false;
	}
	return 0;
}

int arch_wake_intx(const struct arch_intx *line)
{
	u32 pin;
	const struct ioapic *io = find_pin(line->gsi, &pin);

	if (!io)
		return -ENODEV;
	if (!idle_can_halt() || dest_apic_id > 0xFF)
		return -EOPNOTSUPP;
	for (u32 i = 0; i < nr_wake_lines; i++)
		if (wake_lines[i].gsi == line->gsi)
			return wake_lines[i].level == line->level &&
			       wake_lines[i].active_low == line->active_low ? 0 : -EBUSY;
	if (nr_wake_lines == MAX_WAKE_LINES)
		return -EBUSY;
	wake_lines[nr_wake_lines++] = *line;
	io_write(io, IOAPIC_RTE(pin), RTE_MASKED);	/* masked while it changes */
	io_write(io, IOAPIC_RTE(pin) + 1, dest_apic_id << RTE_DEST_SHIFT);
	io_write(io, IOAPIC_RTE(pin), rte_low(line, true));
	return 0;
}

void arch_intx_mask(u32 gsi, bool masked)
{
	u32 pin;
	const struct ioapic *io = find_pin(gsi, &pin);

	for (u32 i = 0; io && i < nr_wake_lines; i++)
		if (wake_lines[i].gsi == gsi)
			io_write(io, IOAPIC_RTE(pin), rte_low(&wake_lines[i], masked));
}
