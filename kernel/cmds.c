/* Shell commands for the boot foundation: e820, meminfo, cpuinfo. */
#include "arch.h"
#include "e820.h"
#include "heap.h"
#include "memblock.h"
#include "mm.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"

static int cmd_e820(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		kprintf("e820: [mem 0x%016llx-0x%016llx] %s\n", e->addr, (e->addr + e->size - 1),
			e820_type_name(e->type));
	}
	return 0;
}
SHELL_COMMAND("e820", cmd_e820, "e820", "print the kernel's memory map");

static void meminfo_line(const char *name, u64 bytes)
{
	kprintf("%-16s%10llu kB\n", name, (bytes >> 10));
}

static int cmd_meminfo(int argc, char **argv)
{
	struct page_alloc_stats st;
	u64 pmem = 0;

	(void)argc;
	(void)argv;
	page_alloc_stats(&st);
	for (u32 i = 0; i < e820_table.nr; i++)
		if (e820_is_pmem(e820_table.entries[i].type))
			pmem += e820_table.entries[i].size;
	meminfo_line("MemTotal:", memblock_phys_mem_size());
	meminfo_line("MemManaged:", st.managed_pages * PAGE_SIZE);
	meminfo_line("MemFree:", st.free_pages * PAGE_SIZE);
	meminfo_line("PageTables:", kernel_pgtable.nr_tables * PAGE_SIZE);
	meminfo_line("Vmemmap:", mm_stat(MM_VMEMMAP));
	meminfo_line("SectionTables:", mm_stat(MM_SECTION_TABLES));
	meminfo_line("DeviceMapped:", mm_stat(MM_DEVICE_MAPPED));
	meminfo_line("AltmapUsed:", mm_stat(MM_ALTMAP_USED));
	meminfo_line("AltmapWaste:", mm_stat(MM_ALTMAP_WASTE));
	meminfo_line("HeapTotal:", heap_size());
	meminfo_line("HeapUsed:", heap_used());
	meminfo_line("PmemE820:", pmem);
	meminfo_line("PmemWritten:", pmem_written_total());	/* stored to pmem since boot */
	return 0;
}
SHELL_COMMAND("meminfo", cmd_meminfo, "meminfo", "memory totals, /proc/meminfo style");

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
	return 0;
}
SHELL_COMMAND("cpuinfo", cmd_cpuinfo, "cpuinfo", "CPU features relevant to pmem");
