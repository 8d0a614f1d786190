/*
 * The kernel's own page tables, replacing the boot tables: the image with
 * per-section permissions (text RX, rodata R+NX, data RW+NX) and a direct map
 * of RAM and ACPI memory at PAGE_OFFSET (1 GiB leaves where the CPU has them,
 * else 2 MiB). Nothing stays identity mapped, so NULL faults.
 */
#include <string.h>

#include "arch.h"
#include "e820.h"
#include "memblock.h"
#include "memlayout.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "printk.h"
#include "x86.h"

extern char _text[], _etext[], _rodata[], _erodata[], _data[], _end[];

struct pgtable kernel_pgtable;

static u64 table_from_memblock(void)
{
	u64 pa = memblock_alloc(PAGE_SIZE, PAGE_SIZE);

	if (pa)
		memset(phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

static u64 table_from_page_alloc(void)
{
	return page_alloc_zeroed(0);
}

static void table_free_page(u64 pa)
{
	page_free(pa, 0);
}

static void map_or_die(u64 va, u64 pa, u64 len, u64 prot, const char *what)
{
	int err = pgtable_map(&kernel_pgtable, va, pa, len, prot);

	if (err) {
		pr_emerg("paging: cannot map %s [%#llx-%#llx]: error %d\n", what, pa,
			 (pa + len - 1), err);
		arch_exit(EXIT_PANIC);
	}
}

static void map_image_section(const char *start, const char *end, u64 prot, const char *what)
{
	u64 va = ALIGN_DOWN((u64)start, PAGE_SIZE);
	u64 len = ALIGN_UP((u64)end, PAGE_SIZE) - va;

	if (len)
		map_or_die(va, va - KERNEL_VMA, len, prot, what);
}

static bool direct_mapped_type(u32 type)
{
	return type == E820_TYPE_RAM || type == E820_TYPE_ACPI || type == E820_TYPE_NVS;
}

/* Direct map RAM and ACPI ranges (page-rounded outward, merged) plus the first MiB. */
static void map_direct(void)
{
	u64 start = 0, end = 1 * MiB;	/* BIOS data, EBDA, RSDP scan area */

	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (!direct_mapped_type(e->type))
			continue;
		u64 s = ALIGN_DOWN(e->addr, PAGE_SIZE);
		u64 t = ALIGN_UP(e->addr + e->size, PAGE_SIZE);
		if (s <= end) {
			end = MAX(end, t);
			continue;
		}
		map_or_die(PAGE_OFFSET + start, start, end - start, PROT_KERNEL_RW, "direct map");
		start = s;
		end = t;
	}
	map_or_die(PAGE_OFFSET + start, start, end - start, PROT_KERNEL_RW, "direct map");
}

void paging_init(void)
{
	struct pgtable *pt = &kernel_pgtable;

	pt->alloc_table = table_from_memblock;
	pt->max_leaf = cpu_features.pdpe1gb ? PG_LEVEL_1G :
		       cpu_features.pse ? PG_LEVEL_2M : PG_LEVEL_4K;
	pt->nx = cpu_features.nx;
	if (pgtable_init(pt)) {
		pr_emerg("paging: no memory for the page-table root\n");
		arch_exit(EXIT_PANIC);
	}
	map_image_section(_text, _etext, PROT_KERNEL_RX, "kernel text");
	map_image_section(_rodata, _erodata, PROT_KERNEL_RO, "kernel rodata");
	map_image_section(_data, _end, PROT_KERNEL_RW, "kernel data");
	map_direct();
	write_cr3(pt->root);
	pr_info("paging: kernel page tables at %#llx, %llu table pages, direct map with %s leaves, NX %s\n",
		pt->root, pt->nr_tables,
		pt->max_leaf == PG_LEVEL_1G ? "1 GiB" :
		pt->max_leaf == PG_LEVEL_2M ? "2 MiB" :
					      "4 KiB",
		pt->nx ? "on" : "unavailable");
}

/* After page_alloc_init: later tables come from (and return to) the page allocator. */
void paging_use_page_allocator(void)
{
	kernel_pgtable.alloc_table = table_from_page_alloc;
	kernel_pgtable.free_table = table_free_page;
}
