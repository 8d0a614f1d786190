/*
 * The kernel's own page tables, replacing the boot tables: the image with
 * per-section permissions (text RX, rodata R+NX, data RW+NX) and a direct map
 * at PAGE_OFFSET of the ranges the caller names (RAM and ACPI memory, 1 GiB
 * leaves where the CPU has them, else 2 MiB). Nothing stays identity mapped,
 * so NULL faults. Portable: the caller knows the firmware map and the linker
 * symbols, the arch contract makes the entries and loads the root.
 */
#include <string.h>

#include "arch.h"
#include "memblock.h"
#include "memlayout.h"
#include "page_alloc.h"
#include "paging.h"
#include "pgtable.h"
#include "printk.h"

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
	int err = pgtable_map(&kernel_pgtable, va, pa_init(pa), len, prot);

	if (err) {
		pr_emerg("paging: cannot map %s [%#llx-%#llx]: error %d\n", what, pa,
			 (pa + len - 1), err);
		arch_exit(EXIT_PANIC);
	}
}

static void map_image_section(u64 start, u64 end, u64 prot, const char *what)
{
	u64 va = ALIGN_DOWN(start, PAGE_SIZE);
	u64 len = ALIGN_UP(end, PAGE_SIZE) - va;

	if (len)
		map_or_die(va, va - KERNEL_VMA, len, prot, what);
}

static void map_image(const struct kernel_image *image)
{
	map_image_section(image->text, image->etext, PROT_KERNEL_RX, "kernel text");
	map_image_section(image->rodata, image->erodata, PROT_KERNEL_RO, "kernel rodata");
	map_image_section(image->data, image->end, PROT_KERNEL_RW, "kernel data");
}

static void map_direct_run(u64 start, u64 end)
{
	map_or_die(PAGE_OFFSET + start, start, end - start, PROT_KERNEL_RW, "direct map");
}

/* Direct map the ranges (sorted), page-rounded outward, touching ones merged. */
static void map_direct(const struct phys_range *r, u32 nr)
{
	u64 start, end;

	if (!nr)
		return;
	start = ALIGN_DOWN(r[0].start, PAGE_SIZE);
	end = ALIGN_UP(r[0].end, PAGE_SIZE);
	for (u32 i = 1; i < nr; i++) {
		u64 s = ALIGN_DOWN(r[i].start, PAGE_SIZE);
		u64 t = ALIGN_UP(r[i].end, PAGE_SIZE);

		if (s <= end) {
			end = MAX(end, t);
			continue;
		}
		map_direct_run(start, end);
		start = s;
		end = t;
	}
	map_direct_run(start, end);
}

/* The largest leaf the CPU maps (arch_pte_leaf_allowed: 4 KiB always). */
static enum pg_level largest_leaf(void)
{
	enum pg_level l = PG_LEVEL_512G;

	while (l > PG_LEVEL_4K && !arch_pte_leaf_allowed(l))
		l--;
	return l;
}

static const char *leaf_name(enum pg_level l)
{
	return l == PG_LEVEL_1G ? "1 GiB" : l == PG_LEVEL_2M ? "2 MiB" : "4 KiB";
}

void paging_init(const struct kernel_image *image, const struct phys_range *direct, u32 nr)
{
	struct pgtable *pt = &kernel_pgtable;

	*pt = (struct pgtable){
		.alloc_table = table_from_memblock,
		.max_leaf = largest_leaf(),
		.nx = arch_pte_noexec_allowed(),
	};
	if (pgtable_init(pt)) {
		pr_emerg("paging: no memory for the page-table root\n");
		arch_exit(EXIT_PANIC);
	}
	map_image(image);
	map_direct(direct, nr);
	arch_pgtable_activate(pt->root);
	pr_info("paging: kernel page tables at %#llx, %llu table pages, direct map with %s leaves, NX %s\n",
		pt->root, pt->nr_tables, leaf_name(pt->max_leaf), pt->nx ? "on" : "unavailable");
}

void paging_use_page_allocator(void)
{
	kernel_pgtable.alloc_table = table_from_page_alloc;
	kernel_pgtable.free_table = table_free_page;
}
