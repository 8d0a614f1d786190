/*
 * Memory totals: the boot's "Memory:" lines and the meminfo command
 * (/proc/meminfo's shape), from the page allocator, mm's counters, the heap
 * and the e820 map; two of them as metric families (include/metrics.h).
 */
#include "e820.h"
#include "heap.h"
#include "kernel.h"
#include "memblock.h"
#include "metrics.h"
#include "mm.h"
#include "page_alloc.h"
#include "persist.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"

void meminfo_print_boot(const struct boot_info *bi)
{
	struct page_alloc_stats st;

	page_alloc_stats(&st);
	u64 total = memblock_phys_mem_size();
	u64 pmem = 0;
	for (u32 i = 0; i < e820_table.nr; i++)
		if (e820_is_pmem(e820_table.entries[i].type))
			pmem += e820_table.entries[i].size;
	pr_info("Memory: %lluK/%lluK available (%lluK kernel image, %lluK heap, %lluK page tables, %lluK other reserved)\n",
		(st.free_pages * 4), (total >> 10), ((bi->kernel_end - bi->kernel_start) >> 10),
		(heap_size() >> 10), (kernel_pgtable.nr_tables * 4),
		((total >> 10) - st.free_pages * 4 - ((bi->kernel_end - bi->kernel_start) >> 10) -
		 (heap_size() >> 10) - kernel_pgtable.nr_tables * 4));
	pr_info("Memory: %lluK persistent memory in the e820 map\n", (pmem >> 10));
}

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
	/* struct page array served by compounds' shared tail frames: RAM not spent. */
	meminfo_line("VmemmapShared:", mm_stat(MM_VMEMMAP_SHARED));
	meminfo_line("SectionTables:", mm_stat(MM_SECTION_TABLES));
	meminfo_line("DeviceMapped:", mm_stat(MM_DEVICE_MAPPED));
	meminfo_line("AltmapUsed:", mm_stat(MM_ALTMAP_USED));
	meminfo_line("AltmapWaste:", mm_stat(MM_ALTMAP_WASTE));
	/* Device memory usable already whose struct pages idle CPUs have yet to store. */
	meminfo_line("MemmapPending:", mm_stat(MM_MEMMAP_PENDING));
	meminfo_line("HeapTotal:", heap_size());
	meminfo_line("HeapUsed:", heap_used());
	meminfo_line("PmemE820:", pmem);
	meminfo_line("PmemWritten:", pmem_written_total());	/* stored to pmem since boot */
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "meminfo", cmd_meminfo, "meminfo", "memory totals, /proc/meminfo style");

/* meminfo's PmemWritten and MemmapPending, from the same counters. */
static void memory_metrics(void)
{
	metric_single("pmemk_pmem_written_bytes_total", METRIC_COUNTER,
		      "Bytes stored to persistent memory since boot (meminfo's PmemWritten).",
		      pmem_written_total(), 0);
	metric_single("pmemk_memmap_pending_bytes", METRIC_GAUGE,
		      "Device memory usable already whose struct pages are still to be stored "
		      "(meminfo's MemmapPending).",
		      mm_stat(MM_MEMMAP_PENDING), 0);
}
METRICS_SOURCE(memory_metrics);
