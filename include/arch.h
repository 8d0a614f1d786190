/*
 * The arch contract: everything privileged the portable layers (mm/, nvdimm/,
 * drivers/, lib/) may ask for. arch/x86_64/ implements it for the kernel;
 * test/host/arch_host.c implements it over a simulated physical memory for
 * the host unit tests. Portable code never includes anything from arch/.
 */
#ifndef PMEMK_ARCH_H
#define PMEMK_ARCH_H

#include "types.h"

/* CPU features that matter to a pmem manager, read once from CPUID. */
struct cpu_features {
	char vendor[13];
	char brand[49];
	u32 family, model, stepping;
	u32 clflush_size;	/* cache line size in bytes (CPUID.01H:EBX[15:8]*8) */
	u32 phys_addr_bits;	/* MAXPHYADDR */
	u32 virt_addr_bits;
	bool pse;		/* 2 MiB pages */
	bool pdpe1gb;		/* 1 GiB pages */
	bool nx;
	bool sse2;
	bool clflush;
	bool clflushopt;
	bool clwb;
	bool invariant_tsc;
	bool hypervisor;	/* CPUID.01H:ECX[31]: running under a VMM */
	u64 tsc_khz;		/* calibrated TSC frequency, 0 if unknown */
};

extern struct cpu_features cpu_features;

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

/* End the machine with a status (0 = success): see arch/x86_64/exit.c. */
__noreturn void arch_exit(int status);

/* Exit statuses the kernel reports (QEMU's isa-debug-exit turns s into 2s+1). */
enum kernel_exit {
	EXIT_OK = 0,
	EXIT_TESTS_FAILED = 1,
	EXIT_PANIC = 2,
	EXIT_EXCEPTION = 3,
};

#endif
