/*
 * kmain: the init order (docs/ARCHITECTURE.md): memory map, memblock, page
 * tables, heap, page allocator; then in-kernel tests, batch commands and the
 * shell.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "acpica.h"
#include "arch.h"
#include "boot_files.h"
#include "cpu_features.h"
#include "cpu_time.h"
#include "e820.h"
#include "heap.h"
#include "kernel.h"
#include "madt.h"
#include "srat.h"
#include "ktest.h"
#include "memblock.h"
#include "nd_pfn.h"
#include "nfit.h"
#include "nvdimm.h"
#include "page_alloc.h"
#include "paging.h"
#include "net.h"
#include "params.h"
#include "pci.h"
#include "persist.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"
#include "smp.h"
#include "sparse.h"
#include "x86.h"

#define PMEMK_VERSION "0.1"
#define BOOT_ALLOC_LIMIT (4 * GiB)	/* what the boot page tables direct map */

extern char _text[], _etext[], _rodata[], _erodata[], _data[], _end[]; /* linker.ld */

static const char *ktest_spec;
static const char *run_cmds;

KERNEL_PARAM_STRING("ktest", ktest_spec, "all or NAME,...",
		    "run in-kernel tests (all or NAME,...) then power off");

KERNEL_PARAM_STRING("run", run_cmds, "commands: run=\"cmd; cmd\"",
		    "shell commands to run at the end of boot, ';'-separated");

static int loglevel_param(const char *val)
{
	char *end;
	long v = val ? strtol(val, &end, 10) : -1;

	if (!val || *end || v < 0 || v > 8) {
		pr_err("loglevel=%s: expected a number 0..8\n", val ? val : "");
		return -1;
	}
	console_loglevel = (int)v;
	return 0;
}
KERNEL_PARAM("loglevel", loglevel_param, "print messages below this level (Linux's numbers)");

static int console_param(const char *val)
{
	/* Only the first serial port exists; accept Linux's spelling of it. */
	if (val && strncmp(val, "ttyS0", 5) != 0) {
		pr_warn("console=%s: only ttyS0 (COM1, 115200 8N1) is supported\n", val);
		return -1;
	}
	return 0;
}
KERNEL_PARAM("console", console_param, "console device: ttyS0[,115200]");

/* RAM into memblock; reserve what must survive: low 1 MiB, the image, loader data. */
static void memblock_setup(const struct boot_info *bi)
{
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (e->type == E820_TYPE_RAM)
			memblock_add(e->addr, e->size);
	}
	memblock_reserve(0, 1 * MiB);
	memblock_reserve(bi->kernel_start, bi->kernel_end - bi->kernel_start);
	for (u32 i = 0; i < bi->nr_reserved; i++)
		memblock_reserve(bi->reserved[i].addr, bi->reserved[i].size);
	memblock_set_limit(BOOT_ALLOC_LIMIT);
}

static bool direct_mapped_type(u32 type)
{
	return type == E820_TYPE_RAM || type == E820_TYPE_ACPI || type == E820_TYPE_NVS;
}

/*
 * What the direct map holds at boot, in address order: the first MiB (BIOS
 * data area, EBDA, the RSDP scan area) and every RAM and ACPI range of the
 * e820 map. Reserved memory and pmem are added when something needs them.
 */
static u32 boot_direct_ranges(struct phys_range *r)
{
	u32 n = 0;

	r[n++] = (struct phys_range){0, 1 * MiB};
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (direct_mapped_type(e->type))
			r[n++] = (struct phys_range){e->addr, e->addr + e->size};
	}
	return n;
}

/* The kernel's own page tables: the image as linked, the boot direct map. */
static void paging_setup(void)
{
	static struct phys_range direct[1 + E820_MAX_ENTRIES];
	const struct kernel_image image = {
		.text = (u64)_text,
		.etext = (u64)_etext,
		.rodata = (u64)_rodata,
		.erodata = (u64)_erodata,
		.data = (u64)_data,
		.end = (u64)_end,
	};

	paging_init(&image, direct, boot_direct_ranges(direct));
}

/* The MADT's CPUs as smp_init takes them. */
static u32 smp_cpu_list(struct smp_cpu_desc *cpus)
{
	for (u32 i = 0; i < madt.nr_cpus; i++)
		cpus[i] = (struct smp_cpu_desc){ .apic_id = madt.cpu[i].apic_id,
						 .processor_uid = madt.cpu[i].uid,
						 .enabled = madt.cpu[i].flags & MADT_CPU_ENABLED };
	return madt.nr_cpus;
}

/* The MADT's I/O APICs and ISA IRQ overrides, for the interrupts of NICs without MSI. */
static void smp_irq_list(struct smp_config *cfg, struct smp_ioapic_desc *io,
			 struct smp_irq_override *ov)
{
	for (u32 i = 0; i < madt.nr_ioapics; i++)
		io[i] = (struct smp_ioapic_desc){ .id = madt.ioapic[i].id,
						  .address = madt.ioapic[i].address,
						  .gsi_base = madt.ioapic[i].gsi_base };
	for (u32 i = 0; i < madt.nr_overrides; i++)
		ov[i] = (struct smp_irq_override){ .irq = madt.override[i].irq,
						   .gsi = madt.override[i].gsi,
						   .flags = madt.override[i].flags };
	cfg->ioapics = io;
	cfg->nr_ioapics = madt.nr_ioapics;
	cfg->overrides = ov;
	cfg->nr_overrides = madt.nr_overrides;
}

/*
 * The other CPUs, from what the firmware says: the MADT's CPUs, local
 * APIC and I/O APICs, and for the AP trampoline the e820 RAM and the
 * loader's ranges.
 */
static void smp_setup(const struct boot_info *bi)
{
	static struct smp_cpu_desc cpus[MADT_MAX_CPUS];
	static struct smp_ioapic_desc ioapics[MADT_MAX_IOAPICS];
	static struct smp_irq_override overrides[MADT_MAX_OVERRIDES];
	static struct phys_range ram[E820_MAX_ENTRIES], in_use[BOOT_MAX_RESERVED];
	struct smp_config cfg = { .cpus = cpus, .lapic_address = madt.lapic_address,
				  .ram = ram, .in_use = in_use };

	cfg.nr_cpus = smp_cpu_list(cpus);
	smp_irq_list(&cfg, ioapics, overrides);
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (e->type == E820_TYPE_RAM)
			ram[cfg.nr_ram++] = (struct phys_range){ e->addr, e->addr + e->size };
	}
	for (u32 i = 0; i < bi->nr_reserved; i++) {
		const struct boot_reserved *r = &bi->reserved[i];
		in_use[cfg.nr_in_use++] = (struct phys_range){ r->addr, r->addr + r->size };
	}
	smp_init(&cfg);
}

/*
 * A memmap=nn!ss range is carved before the ACPI tables can be read; now
 * that they are listed, trim it clear of them (or give it back): writing
 * there would corrupt the tables, the DSDT that ACPICA runs among them.
 */
static void memmap_spare_acpi_tables(void)
{
	static struct boot_reserved fw[FW_RANGES_MAX];

	e820_memmap_spare_firmware(&e820_table, fw,
				   fw_tables_ranges(&fw_tables, fw, FW_RANGES_MAX));
}

/* The heap behind malloc: 1/16 of RAM, between 4 and 64 MiB. */
static void heap_setup(void)
{
	u64 size = memblock_phys_mem_size() / 16;

	size = MIN(MAX(size, 4 * MiB), 64 * MiB);
	u64 pa = memblock_alloc(size, PMD_SIZE);
	if (!pa)
		panic("no RAM for a %llu MiB kernel heap", (size >> 20));
	heap_init(phys_to_virt(pa), size);
}

void kmain(const struct boot_info *bi)
{
	smp_boot_cpu_init();	/* GS base: arch_cpu_id() works from here on */
	cpu_time_boot();	/* uptime and CPU 0's time online count from here */
	pr_info("pmemk %s: persistent memory manager\n", PMEMK_VERSION);
	pr_info("boot: %s%s%s\n", boot_path_name(bi->path), bi->loader[0] ? ", loader " : "",
		bi->loader);
	pr_info("Command line: %s\n", bi->cmdline);
	if (bi->cmdline_truncated)
		pr_err("cmdline: longer than %d bytes, truncated\n", BOOT_CMDLINE_MAX - 1);
	params_parse(bi->cmdline);
	boot_files_init(bi);	/* reserved with the loader's ranges below */
	cpu_features_print();
	arch_mce_init_cpu();	/* before any pmem is read: a poisoned line is an error, not a stop */
	tsc_calibrate();

	e820_init(bi);
	memblock_setup(bi);
	paging_setup();
	memblock_set_limit(0);
	heap_setup();
	page_alloc_init();
	paging_use_page_allocator();
	sparse_init_ram();
	/* Before anything uses e820 pmem: no memmap=nn!ss range may hold ACPI tables. */
	fw_tables_init(bi);
	memmap_spare_acpi_tables();
	meminfo_print_boot(bi);

	/*
	 * Persistent memory: the providers register DIMMs and regions with the
	 * nvdimm core, the NFIT first (it owns the ranges it describes), then
	 * e820 for the pmem it does not cover; then the regions are published.
	 */
	/* The other CPUs: listed by the MADT, started, parked (nothing runs on them yet). */
	madt_init();
	srat_init();	/* proximity domains: the regions' NUMA nodes */
	smp_setup(bi);
	nfit_probe();
	nvdimm_labels_load();	/* labelled regions are divided at publication */
	nvdimm_health_load();	/* a line for a DIMM that is not ok */
	e820_pmem_register(&e820_table);
	nvdimm_publish();
	nvdimm_ars_probe();	/* where bad blocks can come from */
	/* Namespaces: bring back pfn devices from their info blocks, then pmem.create=. */
	persist_init();
	nd_probe_namespaces();
	nd_apply_create_param();
	/* Devices: PCI functions, then the drivers that claim them. */
	pr_info("pci: %u functions\n", pci_scan());
	pci_probe_drivers();
	net_init();
	bench_boot();	/* bench=: run the benchmarks, power off */

	if (ktest_spec) {
		int failed = ktest_run(ktest_spec);
		kernel_poweroff(failed ? EXIT_TESTS_FAILED : EXIT_OK);
	}
	if (run_cmds)
		shell_run_batch(run_cmds);
	shell_interactive();
}
