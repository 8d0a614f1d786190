/*
 * The arch contract: everything privileged the portable layers (mm/, nvdimm/,
 * drivers/, lib/) may ask for. arch/x86_64/ implements it for the kernel;
 * test/host/arch_host.c implements it over a simulated physical memory for
 * the host unit tests (entries in a format of their own: test/host/pte_host.c).
 * Portable code never includes anything from arch/.
 */
#ifndef PMEMK_ARCH_H
#define PMEMK_ARCH_H

#include "types.h"

/* Physical <-> kernel virtual through the direct map (memlayout.h). */
void *phys_to_virt(u64 pa);
u64 virt_to_phys(const void *va);

/* Invalidate TLB entries after a page-table change. */
void arch_flush_tlb_range(u64 va, u64 len);
void arch_flush_tlb_all(void);

/*
 * Portable code changed the kernel page tables for [va, va+len) and will
 * now access that range through virtual addresses (the vmemmap). A no-op
 * on x86 (the MMU walks the same tables; unmaps flush the TLB themselves);
 * the host tests mirror the new mappings into their vmemmap window.
 */
void arch_sync_kernel_mappings(u64 va, u64 len);

/* Physical address of the active top-level page table. */
u64 arch_pgtable_root(void);

/*
 * Make the tables rooted at root_pa (a table built with the entries below)
 * the active ones; every earlier translation is dropped. On x86 this loads
 * CR3; the host records it for arch_pgtable_root().
 */
void arch_pgtable_activate(u64 root_pa);

/*
 * Page-table entries (after Hafnium's inc/hf/arch/mm.h). Portable code
 * builds, reads and tears down tables only through these: it never knows
 * where the present bit is or how an address is stored. Every function takes
 * the level of the table the entry lives in, because formats differ by
 * level (on x86, bit 7 means "leaf" in a PD but PAT in a PT). A table is one
 * 4 KiB page of 512 entries; an all-zero entry is absent at every level, so
 * a zeroed page is an empty table. The host fake encodes entries its own way
 * and aborts when an entry is read at a level it was not made for.
 */

/* Levels, by the size one entry maps; the root table's entries are PG_LEVEL_512G. */
enum pg_level {
	PG_LEVEL_4K = 1,
	PG_LEVEL_2M = 2,
	PG_LEVEL_1G = 3,
	PG_LEVEL_512G = 4,
};

/* Bytes mapped by one entry at each level. */
static inline u64 pg_level_size(enum pg_level l)
{
	return 1ULL << (PAGE_SHIFT + 9 * ((unsigned int)l - 1));
}

/* Index of va's entry in a table of level l. */
static inline unsigned int pg_level_index(u64 va, enum pg_level l)
{
	return (unsigned int)(va >> (PAGE_SHIFT + 9 * ((unsigned int)l - 1))) & 511;
}

/* One entry; a struct so that portable code cannot test its bits by mistake. */
typedef struct {
	u64 val;
} pte_t;

/*
 * Portable protections of a leaf: reading is always allowed, these add
 * writing and executing. Walks report the protection in effect, the
 * intersection over every level.
 */
#define PGPROT_WRITE (1ULL << 0)
#define PGPROT_EXEC (1ULL << 1)

#define PROT_KERNEL_RX PGPROT_EXEC
#define PROT_KERNEL_RO 0ULL
#define PROT_KERNEL_RW PGPROT_WRITE

/*
 * The implementation's entry format, found on the include path: the kernel's
 * arch/x86_64/arch_pte.h defines the functions below as static inlines (the
 * prototypes that follow then check their signatures), the host tests'
 * test/host/arch_pte.h leaves them to the fake in test/host/pte_host.c.
 */
#include "arch_pte.h"

/*
 * Can this CPU map a leaf (a page or a block) at this level? x86: 4 KiB
 * always, 2 MiB with PSE, 1 GiB with PDPE1GB (CPUID), never 512 GiB. The
 * host fake: 4 KiB, 2 MiB and 1 GiB, unless a test turned one of the last
 * two off (host_set_leaf_allowed). Portable code asks this, never CPUID.
 */
bool arch_pte_leaf_allowed(enum pg_level level);

/*
 * Can a leaf withhold PGPROT_EXEC? x86: with NX (CPUID; the boot code set
 * EFER.NXE). Without it a struct pgtable has nx false and every leaf is
 * made executable, so the then-reserved NX bit is never set.
 */
bool arch_pte_noexec_allowed(void);

/*
 * The width of a physical address on this CPU (x86: MAXPHYADDR, CPUID
 * 0x80000008, 36 when the CPU does not say; the host fake: 46). Nothing
 * lies at or above 1 << it. Never 0.
 */
u32 arch_phys_addr_bits(void);

/* An entry that maps nothing (all zero). */
pte_t arch_pte_absent(enum pg_level level);

/*
 * An entry at `level` pointing to the next-level table at table_pa (4 KiB
 * aligned). It allows everything: leaves carry the protection.
 */
pte_t arch_pte_table(enum pg_level level, u64 table_pa);

/*
 * A leaf at `level` mapping pg_level_size(level) bytes at pa (aligned to
 * that size; the level must be arch_pte_leaf_allowed) with prot (PGPROT_*).
 */
pte_t arch_pte_leaf(enum pg_level level, u64 pa, u64 prot);

/* Does the entry map something (a table or a leaf)? */
bool arch_pte_is_present(enum pg_level level, pte_t pte);

/* Is it a present entry pointing to a next-level table? */
bool arch_pte_is_table(enum pg_level level, pte_t pte);

/* Is it a present leaf? */
bool arch_pte_is_leaf(enum pg_level level, pte_t pte);

/* The table a table entry points to (physical). Only for arch_pte_is_table entries. */
u64 arch_pte_table_pa(enum pg_level level, pte_t pte);

/* The first byte a leaf maps (physical). Only for arch_pte_is_leaf entries. */
u64 arch_pte_leaf_pa(enum pg_level level, pte_t pte);

/* What a present entry allows (PGPROT_*); a table entry's part of the effective protection. */
u64 arch_pte_prot(enum pg_level level, pte_t pte);

/* Time: raw TSC cycles and their conversion with the calibrated rate. */
u64 arch_cycles(void);
u64 arch_cycles_to_ns(u64 cycles);

#define ARCH_CLOCK_MAX_SAMPLES 15

/* What arch_clock_recalibrate() saw; rates in kHz. */
struct arch_clock_cal {
	u64 khz;	/* the median, in use from now on */
	u64 min_khz;
	u64 max_khz;
	u64 prev_khz;	/* the rate in use before (at the first call, the boot's) */
	u32 n;		/* rates the median is of: prev_khz and each sample taken */
};

/*
 * Measure the cycle counter's rate again, `samples` times (at most
 * ARCH_CLOCK_MAX_SAMPLES), each the way the boot calibrated it; take the
 * median of those and the rate in use, and use it from now on in
 * arch_cycles_to_ns(). One calibration on a loaded host (an emulator) can
 * be off by tens of percent; the median ignores such outliers. Samples that
 * fail (no reference timer) and a rate of 0 in use do not count; with none
 * left the rate stays as it was. Returns the rate now in use (0: unknown)
 * and fills *cal unless it is NULL. Takes about 30 ms per sample on x86;
 * prints nothing (the caller reports).
 */
u64 arch_clock_recalibrate(unsigned int samples, struct arch_clock_cal *cal);

/* Console output (serial on the kernel, stdout on the host). */
void arch_console_write(const char *s, size_t n);
/* Blocking console input; returns a byte, or -1 when there is none. */
int arch_console_getc(void);
/* Console input without waiting: a byte, or -1 when none has arrived. */
int arch_console_trygetc(void);

/*
 * PCI configuration space (PCI Local Bus 3.0 §3.2.2.3.2, configuration
 * mechanism #1: address port 0xCF8, data port 0xCFC; FACTS-2 §5.3). Port
 * I/O is privileged, so drivers/pci reaches it only through these; the host
 * tests put a fake configuration space behind them (test/host/pci_host.c).
 * reg is the byte offset in the function's 256-byte space, width 1, 2 or 4
 * and reg aligned to it. A function that is absent reads as all ones.
 */
bool arch_pci_cfg_present(void);
u32 arch_pci_cfg_read(u8 bus, u8 dev, u8 fn, u8 reg, unsigned int width);
void arch_pci_cfg_write(u8 bus, u8 dev, u8 fn, u8 reg, unsigned int width, u32 val);

/*
 * Port I/O for what firmware describes by port number (ACPI's SystemIO
 * operation regions and FADT registers, through drivers/acpica): width 1,
 * 2 or 4 bytes. Kernel only; the host tests have no ports.
 */
u32 arch_io_read(u16 port, unsigned int width);
void arch_io_write(u16 port, unsigned int width, u32 val);

/*
 * Ordering between the CPU and a DMA-capable device, for rings in ordinary
 * write-back RAM (what virtio and e1000 descriptors live in).
 * arch_dma_wmb: every store before it (a descriptor) is visible to the
 * device before any store after it (the index or tail that hands it over).
 * arch_dma_rmb: a load after it (a descriptor's content) is not performed
 * before a load before it (the used index or a status bit). x86 keeps
 * stores in order and loads in order (SDM Vol. 3A §9.2.2), so both only
 * stop the compiler.
 * arch_dma_mb: every store before it is visible before any load after it
 * is performed (an available index published, then the device's flag
 * that says whether to ring its doorbell). x86 may perform a load before
 * an older store to another location (§9.2.2 again): this one is a fence.
 */
void arch_dma_wmb(void);
void arch_dma_rmb(void);
void arch_dma_mb(void);

/*
 * This CPU's number (0 = the boot CPU; below ARCH_MAX_CPUS), from its
 * per-CPU data (x86: through GS, set before anything can ask). The host
 * fake is CPU 0 on the main thread, CPU n in the thread running a call
 * arch_cpu_start() gave CPU n.
 */
#define ARCH_MAX_CPUS 64
u32 arch_cpu_id(void);
/* A spin-wait hint (x86 PAUSE). */
void arch_cpu_relax(void);

/*
 * Work on other CPUs: the transport of the work queue (lib/workqueue.c).
 * CPU numbers run from 0 to arch_nr_cpus() - 1 (not all online).
 * arch_cpu_start hands fn(arg) to an idle online CPU and returns at once:
 * 0 when the CPU took it (it runs fn, then is idle again), -EBUSY when it
 * is running something already (the boot CPU always is: it runs the
 * shell), -ENODEV when it is not online or is the caller. Every store the
 * caller made before the call is visible to fn. arch_cpu_busy is true
 * from a successful start until fn has returned; fn's stores are visible
 * to a caller that saw it false. The kernel's CPUs idle in a halt loop
 * woken by an IPI; the host fake runs each call in a thread of its own,
 * with host_nr_cpus CPUs (1 unless a test sets more).
 */
u32 arch_nr_cpus(void);
int arch_cpu_start(u32 cpu, void (*fn)(void *arg), void *arg);
bool arch_cpu_busy(u32 cpu);
/*
 * Return once arch_cpu_busy(cpu) is false (fn's stores visible), without
 * spinning where the arch can help: x86 halts until the finishing CPU's
 * IPI, so a waiting vCPU leaves its host core to the ones working. One
 * waiter per CPU at a time (the one that started the call).
 */
void arch_cpu_wait(u32 cpu);

/*
 * Idle work (include/idle.h): every online CPU but the boot one walks the
 * idle work registry (idle_work_run) while it is idle, again and again
 * while a walk finds work, taking any call arch_cpu_start gave it between
 * two walks (it is not busy meanwhile); once a walk finds none it halts
 * until arch_idle_kick(), which says there is new work. The boot CPU walks
 * the registry from its own idle loop (kernel/idle.c). The host fake's
 * kick does nothing: host tests call the work themselves.
 */
void arch_idle_kick(void);

/*
 * The boot CPU waiting for news: arch_idle halts it until an interrupt or
 * until about max_ns have passed, and returns true; false (at once) where
 * it cannot be woken by a timer, and the caller then polls. x86: the local
 * APIC timer, one-shot, bounds the halt. arch_wake_msi gives the message
 * (PCI MSI/MSI-X address and data) a device sends to end that halt; false
 * when there is none. The host fake has neither.
 */
bool arch_idle(u64 max_ns);
bool arch_wake_msi(u64 *addr, u32 *data);
/*
 * The same wake-up for a device without MSI: its legacy INTx line, through
 * an I/O APIC (x86: arch/x86_64/ioapic.c; the host fake has none). A line
 * is a GSI (the I/O APICs' input numbering, ACPI §5.2.13) and how it
 * signals.
 *
 * arch_isa_irq_line: the line a PCI function's INTx arrives on when the
 * firmware routed it to ISA IRQ `irq` (its Interrupt Line register): the
 * GSI and signalling of the MADT's interrupt source override for irq,
 * else GSI irq; a field the override leaves "as the bus says" is PCI's
 * (level, active low). -ENODEV without an I/O APIC, -EINVAL for irq > 15.
 *
 * arch_wake_intx: point the line at the vector that ends the boot CPU's
 * idle halt (the boot CPU's local APIC), masked. 0; -ENODEV when no I/O
 * APIC has that GSI; -EOPNOTSUPP when the boot CPU does not halt
 * (arch_wake_msi's reasons: idle=poll, no APIC timer); -EBUSY when the GSI is already a wake-up line that signals
 * otherwise, or too many lines are. Routing one line twice is fine
 * (devices sharing a line).
 *
 * arch_intx_mask: mask or unmask a line arch_wake_intx routed. The
 * interrupt itself masks every wake-up line before its EOI, since a
 * level-triggered line stays asserted until the driver quiets its device:
 * so a driver's wake_arm quiets the device's old causes, enables the new
 * ones, then unmasks; its wake_disarm quiets the device, then masks.
 */
struct arch_intx {
	u32 gsi;
	bool level;		/* else edge */
	bool active_low;	/* else active high */
};

int arch_isa_irq_line(u8 irq, struct arch_intx *line);
int arch_wake_intx(const struct arch_intx *line);
void arch_intx_mask(u32 gsi, bool masked);

/*
 * Take every interrupt that came while interrupts were off (wake-ups that
 * lost the race with the disarm): call after turning the sources off.
 * Under QEMU TCG an interrupt left pending while interrupts are off makes
 * the vCPU take the global lock each time it returns to its main loop,
 * until the next halt takes it: raw TCP ran at two thirds of its speed.
 */
void arch_irq_drain(void);

/* End the machine with a status (0 = success): see arch/x86_64/exit.c. */
__noreturn void arch_exit(int status);

/*
 * Only the first half of arch_exit: hand the status to a debug-exit device
 * (QEMU's isa-debug-exit). Returns when there is none, so that the caller
 * can power the machine off its own way.
 */
void arch_exit_debug(int status);

/*
 * Machine checks (arch/x86_64/mce.c): set this CPU up to take them (CR4.MCE,
 * its banks cleared); the boot CPU's call prints what the CPU offers.
 */
void arch_mce_init_cpu(void);

/*
 * The machine-check-safe copy (Linux's copy_mc_to_kernel): n bytes from
 * src to dst, where a machine check on poisoned memory, or any fault, in a
 * load or store is fixed up instead of stopping the machine. Returns the
 * bytes not copied: 0, or r > 0, when the first n - r bytes were copied
 * and the fault lies at or after src + n - r.
 */
size_t arch_copy_mc(void *dst, const void *src, size_t n);

/* One naturally aligned 4-byte load, machine-check-safe: 0, or -EIO. */
int arch_load32_mc(const void *src, u32 *val);

/*
 * The kernel error injector's copy (media_error.h): n bytes from src,
 * whose first byte, at physical address phys, is poisoned. Raises a real
 * machine check there (bank loaded, vector 18 inside the copy), which
 * lists the sector through media_error_notify; returns n (nothing copied).
 */
size_t arch_copy_mc_inject(void *dst, const void *src, size_t n, u64 phys);

/* Exit statuses the kernel reports (QEMU's isa-debug-exit turns s into 2s+1). */
enum kernel_exit {
	EXIT_OK = 0,
	EXIT_TESTS_FAILED = 1,
	EXIT_PANIC = 2,
	EXIT_EXCEPTION = 3,
	EXIT_MACHINE_CHECK = 4,
};

#endif
