/*
 * What CPUID says about this CPU (SDM vol. 2A, CPUID), read once at boot by
 * cpu_features_init(). Private to arch/x86_64 and the kernel's boot code:
 * the portable layers ask include/arch.h's queries (arch_pte_leaf_allowed,
 * arch_pte_noexec_allowed, arch_phys_addr_bits) instead.
 */
#ifndef PMEMK_CPU_FEATURES_H
#define PMEMK_CPU_FEATURES_H

#include "types.h"

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
	bool mce;		/* CPUID.01H:EDX[7]: the machine-check exception (CR4.MCE) */
	bool mca;		/* CPUID.01H:EDX[14]: the machine-check architecture (MCG_CAP, banks) */
	bool sse2;
	bool clflush;
	bool clflushopt;
	bool clwb;
	bool invariant_tsc;
	bool rdrand;		/* CPUID.01H:ECX[30] */
	bool rdseed;		/* CPUID.07H:EBX[18] */
	bool hypervisor;	/* CPUID.01H:ECX[31]: running under a VMM */
	u64 tsc_khz;		/* calibrated TSC frequency, 0 if unknown (tsc.c) */
};

extern struct cpu_features cpu_features;

/* Fill cpu_features from CPUID: first thing at boot (boot_common_init). */
void cpu_features_init(void);
/* The boot's "cpu:" lines. */
void cpu_features_print(void);

#endif
