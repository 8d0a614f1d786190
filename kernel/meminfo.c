/*
 * Memory totals: the boot's "Memory:" lines and the meminfo command
 * (/proc/meminfo's shape), from the page allocator, mm's counters, the heap
 * and the e820 map; two of them as metric families (include/metrics.h).
 */
#include <string.h>

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

/* One figure: its name as /proc/meminfo spells it, in bytes. */
struct meminfo_item {
	const char *name;
	u64 bytes;
};

static int cmd_meminfo(int argc, char **argv)
{
	struct page_alloc_stats st;
	u64 pmem = 0;
	bool json = argc == 2 && !strcmp(argv[1], "-j");

	if (argc > 2 || (argc == 2 && !json))
		return shell_usage(argv[0]);
	page_alloc_stats(&st);
	for (u32 i = 0; i < e820_table.nr; i++)
		if (e820_is_pmem(e820_table.entries[i].type))
			pmem += e820_table.entries[i].size;
	const struct meminfo_item items[] = {
		{ "MemTotal", memblock_phys_mem_size() },
		{ "MemManaged", st.managed_pages * PAGE_SIZE },
		{ "MemFree", st.free_pages * PAGE_SIZE },
		{ "PageTables", kernel_pgtable.nr_tables * PAGE_SIZE },
		{ "Vmemmap", mm_stat(MM_VMEMMAP) },
		/* struct page array served by compounds' shared tail frames: RAM not spent. */
		{ "VmemmapShared", mm_stat(MM_VMEMMAP_SHARED) },
		{ "SectionTables", mm_stat(MM_SECTION_TABLES) },
		{ "DeviceMapped", mm_stat(MM_DEVICE_MAPPED) },
		{ "AltmapUsed", mm_stat(MM_ALTMAP_USED) },
		{ "AltmapWaste", mm_stat(MM_ALTMAP_WASTE) },
		/* Device memory usable already whose struct pages idle CPUs have yet to store. */
		{ "MemmapPending", mm_stat(MM_MEMMAP_PENDING) },
		{ "HeapTotal", heap_size() },
		{ "HeapUsed", heap_used() },
		{ "PmemE820", pmem },
		{ "PmemWritten", pmem_written_total() },	/* stored to pmem since boot */
	};
	size_t n = sizeof(items) / sizeof(items[0]);

	/* -j: the same figures as one JSON object, in bytes (the text is in kB, as /proc's). */
	for (size_t i = 0; i < n; i++) {
		if (json)
			kprintf("%s\"%s\":%llu%s", i ? "," : "{", items[i].name, items[i].bytes,
				i + 1 == n ? "}\n" : "");
		else
			kprintf("%s:%*s%10llu kB\n", items[i].name, 15 - (int)strlen(items[i].name),
				"", items[i].bytes >> 10);
	}
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "meminfo", cmd_meminfo, "meminfo [-j]",
	      "memory totals, /proc/meminfo style (kB); -j: as JSON, in bytes");

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
