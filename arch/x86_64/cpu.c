/*
 * CPUID feature detection: what a pmem manager needs to know (SDM vol. 2A
 * CPUID), the arch contract's questions about the CPU, and `cpuinfo`.
 */
#include <string.h>

#include "arch.h"
#include "cpu_features.h"
#include "printk.h"
#include "shell.h"
#include "smp.h"
#include "x86.h"

struct cpu_features cpu_features;

bool arch_pte_leaf_allowed(enum pg_level level)
{
	switch (level) {
	case PG_LEVEL_4K:
		return true;
	case PG_LEVEL_2M:
		return cpu_features.pse;
	case PG_LEVEL_1G:
		return cpu_features.pdpe1gb;
	default:
		return false;	/* no 512 GiB pages */
	}
}

bool arch_pte_noexec_allowed(void)
{
	return cpu_features.nx;
}

u32 arch_phys_addr_bits(void)
{
	return cpu_features.phys_addr_bits;
}

static void read_brand(struct cpu_features *f)
{
	u32 r[12];

	for (u32 i = 0; i < 3; i++)
		cpuid(0x80000002 + i, 0, &r[i * 4], &r[i * 4 + 1], &r[i * 4 + 2], &r[i * 4 + 3]);
	memcpy(f->brand, r, 48);
	f->brand[48] = '\0';
	/* Trim leading spaces some CPUs pad with. */
	size_t lead = strspn(f->brand, " ");
	memmove(f->brand, f->brand + lead, strlen(f->brand + lead) + 1);
}

void cpu_features_init(void)
{
	struct cpu_features *f = &cpu_features;
	u32 a, b, c, d, max, maxext;

	cpuid(0, 0, &max, &b, &c, &d);
	memcpy(f->vendor, &b, 4);
	memcpy(f->vendor + 4, &d, 4);
	memcpy(f->vendor + 8, &c, 4);
	f->vendor[12] = '\0';

	cpuid(1, 0, &a, &b, &c, &d);
	f->stepping = a & 0xF;
	f->model = ((a >> 4) & 0xF) | (((a >> 16) & 0xF) << 4);
	f->family = ((a >> 8) & 0xF) + ((a >> 20) & 0xFF);
	f->clflush_size = ((b >> 8) & 0xFF) * 8;
	f->pse = d & (1U << 3);
	f->mce = d & (1U << 7);
	f->mca = d & (1U << 14);
	f->clflush = d & (1U << 19);
	f->sse2 = d & (1U << 26);
	f->rdrand = c & (1U << 30);
	f->hypervisor = c & (1U << 31);

	if (max >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		f->clflushopt = b & (1U << 23);
		f->clwb = b & (1U << 24);
		f->rdseed = b & (1U << 18);
	}

	cpuid(0x80000000, 0, &maxext, &b, &c, &d);
	if (maxext >= 0x80000001) {
		cpuid(0x80000001, 0, &a, &b, &c, &d);
		f->nx = d & (1U << 20);
		f->pdpe1gb = d & (1U << 26);
	}
	if (maxext >= 0x80000004)
		read_brand(f);
	if (maxext >= 0x80000007) {
		cpuid(0x80000007, 0, &a, &b, &c, &d);
		f->invariant_tsc = d & (1U << 8);
	}
	f->phys_addr_bits = 36;
	f->virt_addr_bits = 48;
	if (maxext >= 0x80000008) {
		cpuid(0x80000008, 0, &a, &b, &c, &d);
		f->phys_addr_bits = a & 0xFF;
		f->virt_addr_bits = (a >> 8) & 0xFF;
	}
	/* The boot code turned on EFER.NXE when the CPU has NX. */
}

void cpu_features_print(void)
{
	const struct cpu_features *f = &cpu_features;

	pr_info("cpu: %s %s (family %u model %u stepping %u)%s\n", f->vendor,
		f->brand[0] ? f->brand : "", f->family, f->model, f->stepping,
		f->hypervisor ? ", under a hypervisor" : "");
	pr_info("cpu: pse %s, pdpe1gb %s, clflush %s, clflushopt %s, clwb %s, nx %s, invariant_tsc %s\n",
		f->pse ? "yes" : "no", f->pdpe1gb ? "yes" : "no",
		f->clflush ? "yes" : "no", f->clflushopt ? "yes" : "no",
		f->clwb ? "yes" : "no", f->nx ? "yes" : "no",
		f->invariant_tsc ? "yes" : "no");
	pr_info("cpu: cache line %u bytes, %u physical / %u virtual address bits\n",
		f->clflush_size, f->phys_addr_bits, f->virt_addr_bits);
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

static int cmd_cpuinfo(int argc, char **argv)
{
	const struct cpu_features *f = &cpu_features;

	(void)argc;
	(void)argv;
	kprintf("vendor_id\t: %s\n", f->vendor);
	kprintf("model name\t: %s\n", f->brand);
	kprintf("cpu family\t: %u\nmodel\t\t: %u\nstepping\t: %u\n", f->family, f->model,
		f->stepping);
	kprintf("tsc_khz\t\t: %llu\n", f->tsc_khz);
	kprintf("clflush size\t: %u\n", f->clflush_size);
	kprintf("address sizes\t: %u bits physical, %u bits virtual\n", f->phys_addr_bits,
		f->virt_addr_bits);
	kprintf("pse\t\t: %s\npdpe1gb\t\t: %s\nnx\t\t: %s\n", yes(f->pse), yes(f->pdpe1gb),
		yes(f->nx));
	kprintf("clflush\t\t: %s\nclflushopt\t: %s\nclwb\t\t: %s\n", yes(f->clflush),
		yes(f->clflushopt), yes(f->clwb));
	kprintf("invariant_tsc\t: %s\nhypervisor\t: %s\n", yes(f->invariant_tsc),
		yes(f->hypervisor));
	kprintf("rdrand\t\t: %s\nrdseed\t\t: %s\n", yes(f->rdrand), yes(f->rdseed));
	idle_info_print();
	kprintf("cpus\t\t: %u listed, %u online\n", smp_nr_cpus(), smp_nr_online());
	for (u32 n = 0; smp_cpu(n); n++)
		kprintf("cpu %u\t\t: apic id %u, acpi uid %u, %s%s\n", n, smp_cpu(n)->apic_id,
			smp_cpu(n)->processor_uid, cpu_state_name(smp_cpu(n)->state),
			n == 0 ? " (boot CPU)" : "");
	return 0;
}
SHELL_COMMAND(SHELL_SYSTEM, "cpuinfo", cmd_cpuinfo, "cpuinfo", "CPU features relevant to pmem, and every CPU (APIC ID, state)");
