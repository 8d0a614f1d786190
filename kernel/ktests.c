/* In-kernel tests of the boot foundation, on the real CPU and page tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_page.h"
#include "arch.h"
#include "cpu_features.h"
#include "e820.h"
#include "kallsyms.h"
#include "kernel.h"
#include "ktest.h"
#include "memblock.h"
#include "memlayout.h"
#include "page_alloc.h"
#include "params.h"
#include "pgtable.h"
#include "x86.h"

extern char _text[], _etext[], _rodata[], _data[];

KTEST(libc_snprintf_and_strtoull_work)
{
	char buf[64];
	char *end;

	snprintf(buf, sizeof(buf), "%#llx %s %5d", 0x1234abcdULL, "pm", 42);
	KT_ASSERT(strcmp(buf, "0x1234abcd pm    42") == 0);
	KT_EXPECT_EQ(strtoull("0xffff888000000000", &end, 0), PAGE_OFFSET);
	KT_EXPECT_EQ(*end, 0);
}

KTEST(heap_malloc_free_roundtrip)
{
	void *p[64];

	for (int i = 0; i < 64; i++) {
		p[i] = malloc(4096 + (size_t)i * 100);
		KT_ASSERT(p[i] != NULL);
		memset(p[i], i, 4096);
	}
	for (int i = 0; i < 64; i++) {
		KT_EXPECT_EQ(((unsigned char *)p[i])[4095], i);
		free(p[i]);
	}
}

KTEST(tsc_calibrated_and_monotonic)
{
	KT_ASSERT(cpu_features.tsc_khz > 0);
	u64 a = arch_cycles(), b = arch_cycles();
	KT_ASSERT(b >= a);
	KT_EXPECT_EQ(arch_cycles_to_ns(cpu_features.tsc_khz * 1000), 1000000000ULL);
}

KTEST(tsc_recalibrate_installs_median_with_current_rate)
{
	u64 before = cpu_features.tsc_khz;
	struct arch_clock_cal cal;

	KT_ASSERT(before > 0);
	KT_EXPECT_EQ(arch_clock_recalibrate(2, &cal), cal.khz);
	KT_EXPECT_EQ(cpu_features.tsc_khz, cal.khz);
	KT_EXPECT_EQ(cal.prev_khz, before);
	KT_EXPECT_EQ(cal.n, 3);
	KT_ASSERT(cal.min_khz <= before && before <= cal.max_khz);
	KT_ASSERT(cal.min_khz <= cal.khz && cal.khz <= cal.max_khz);
	KT_EXPECT_EQ(arch_clock_recalibrate(0, NULL), cal.khz);	/* the median of one */
}

static bool walk(u64 va, u64 *pa, u64 *flags, enum pg_level *level)
{
	return pgtable_walk(&kernel_pgtable, va, pa, flags, level);
}

KTEST(paging_kernel_sections_have_their_permissions)
{
	u64 pa, flags;
	enum pg_level level;
	/* Without NX every page is executable. */
	u64 exec_anyway = cpu_features.nx ? 0 : PGPROT_EXEC;

	KT_ASSERT(arch_pgtable_root() == kernel_pgtable.root);
	KT_ASSERT(walk((u64)_text, &pa, &flags, &level));
	KT_EXPECT_EQ(pa, (u64)_text - KERNEL_VMA);
	KT_EXPECT_EQ(flags, PROT_KERNEL_RX);
	KT_ASSERT(walk((u64)_rodata, &pa, &flags, &level));
	KT_EXPECT_EQ(flags, PROT_KERNEL_RO | exec_anyway);
	KT_ASSERT(walk((u64)_data, &pa, &flags, &level));
	KT_EXPECT_EQ(flags, PROT_KERNEL_RW | exec_anyway);
}

/*
 * The x86 entry format (arch/x86_64/arch_pte.h) against the SDM's bits (vol. 3A
 * §4.5), not against the functions that decode it: the paging_* walks would
 * agree with a consistently wrong encoding.
 */
KTEST(paging_x86_entries_have_the_sdm_bits)
{
	const u64 nx = 1ULL << 63;

	KT_EXPECT_EQ(arch_pte_table(PG_LEVEL_512G, 0x5000).val, 0x5003ULL);
	KT_EXPECT_EQ(arch_pte_leaf(PG_LEVEL_4K, 0x7000, PROT_KERNEL_RW).val, 0x7003ULL | nx);
	KT_EXPECT_EQ(arch_pte_leaf(PG_LEVEL_2M, 0x200000, PROT_KERNEL_RO).val, 0x200081ULL | nx);
	KT_EXPECT_EQ(arch_pte_leaf(PG_LEVEL_1G, 0x40000000, PROT_KERNEL_RX).val, 0x40000081ULL);
	KT_EXPECT_EQ(arch_pte_absent(PG_LEVEL_2M).val, 0);
	/* In a PT, bit 7 is PAT: still a 4 KiB leaf. In a PD, bit 12 is PAT, not address. */
	KT_ASSERT(arch_pte_is_leaf(PG_LEVEL_4K, (pte_t){0x7081}));
	KT_ASSERT(arch_pte_is_table(PG_LEVEL_2M, (pte_t){0x7003}));
	KT_EXPECT_EQ(arch_pte_leaf_pa(PG_LEVEL_2M, (pte_t){0x201081}), 0x200000);
	KT_EXPECT_EQ(arch_pte_prot(PG_LEVEL_4K, (pte_t){0x7003ULL | nx}), PROT_KERNEL_RW);
}

KTEST(paging_null_and_identity_unmapped)
{
	u64 pa, flags;
	enum pg_level level;

	KT_ASSERT(!walk(0, &pa, &flags, &level));
	KT_ASSERT(!walk(1 * MiB, &pa, &flags, &level));
	KT_ASSERT(!walk(KERNEL_LMA, &pa, &flags, &level));
}

/* Every RAM byte is in the direct map, with large leaves inside aligned RAM. */
KTEST(paging_direct_map_covers_ram)
{
	enum pg_level want = cpu_features.pdpe1gb ? PG_LEVEL_1G : PG_LEVEL_2M;
	bool saw_large = false;

	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (e->type != E820_TYPE_RAM)
			continue;
		for (u64 a = ALIGN_DOWN(e->addr, PAGE_SIZE); a < e->addr + e->size; a += PMD_SIZE / 2) {
			u64 pa, flags;
			enum pg_level level;
			KT_ASSERT(walk(PAGE_OFFSET + a, &pa, &flags, &level));
			KT_EXPECT_EQ(pa, a);
			KT_EXPECT_EQ(flags & PGPROT_WRITE, PGPROT_WRITE);
			if (level >= PG_LEVEL_2M)
				saw_large = true;
			if (IS_ALIGNED(a, pg_level_size(want)) &&
			    a + pg_level_size(want) <= e->addr + e->size && level < want)
				ktest_fail(__FILE__, __LINE__, "%#llx mapped by level %d, want %d",
					   a, level, want);
		}
	}
	KT_ASSERT(saw_large);
}

/* pmem is never in the page allocator: drain it, check, give everything back. */
KTEST(page_alloc_never_returns_pmem_or_reserved)
{
	struct page_alloc_stats before, after;
	u64 *list = NULL, n = 0;
	u64 pa;

	page_alloc_stats(&before);
	while ((pa = page_alloc(PMD_ORDER - 1))) {
		u64 len = PAGE_SIZE << (PMD_ORDER - 1);
		for (u32 i = 0; i < e820_table.nr; i++) {
			const struct e820_entry *e = &e820_table.entries[i];
			if (e->type != E820_TYPE_RAM && pa < e->addr + e->size && e->addr < pa + len)
				ktest_fail(__FILE__, __LINE__,
					   "block %#llx overlaps %s range %#llx", pa,
					   e820_type_name(e->type), e->addr);
		}
		KT_ASSERT(memblock_is_ram(pa, len));
		/* Thread the blocks through themselves: no extra memory needed. */
		*(u64 *)phys_to_virt(pa) = (u64)list;
		list = phys_to_virt(pa);
		n++;
	}
	KT_ASSERT(n > 0);
	while (list) {
		u64 *next = (u64 *)*list;
		page_free(virt_to_phys(list), PMD_ORDER - 1);
		list = next;
	}
	page_alloc_stats(&after);
	KT_EXPECT_EQ(after.free_pages, before.free_pages);
}

KTEST(cmdline_params_registered)
{
	/* The parameters this issue documents must exist. */
	const char *want[] = { "memmap", "ktest", "run", "loglevel", "console" };
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		bool found = false;
		for_each_kernel_param(p)
			found |= strcmp((*p)->name, want[i]) == 0;
		if (!found)
			ktest_fail(__FILE__, __LINE__, "parameter %s missing", want[i]);
	}
}

KTEST(kallsyms_names_kernel_functions)
{
	u64 off = 1;
	const char *name = kallsyms_lookup((u64)kmain + 5, &off);

	KT_ASSERT(name != NULL);
	KT_ASSERT(strcmp(name, "kmain") == 0);
	KT_EXPECT_EQ(off, 5);
	KT_ASSERT(kallsyms_lookup(0x1000, &off) == NULL);
}

/* The HTTPS API's status page is in the image whole, read-only, as the build took it. */
KTEST(api_page_carried_whole_in_rodata)
{
	static const char head[] = "<!DOCTYPE html>", tail[] = "</html>\n";
	const char *p = (const char *)api_page_html;
	size_t n = api_page_html_len;

	KT_ASSERT(n > sizeof(head) + sizeof(tail));
	KT_ASSERT(memcmp(p, head, sizeof(head) - 1) == 0);
	KT_ASSERT(memcmp(p + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1) == 0);
	KT_EXPECT_EQ(p[n], 0);
	KT_ASSERT(p >= _rodata && p + n < _data);
}

/* ktest=panic: a deliberate panic; the report and status 2 must follow. */
KTEST_MANUAL(panic)
{
	panic("deliberate panic from ktest=panic");
}

/* ktest=fault: a deliberate page fault; the exception report must follow. */
KTEST_MANUAL(fault)
{
	volatile u64 *bad = (volatile u64 *)0xdead000ULL;

	*bad = 1;
	ktest_fail(__FILE__, __LINE__, "write to an unmapped address did not fault");
}
