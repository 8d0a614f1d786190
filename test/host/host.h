/* Host test support: the simulated machine behind include/arch.h. */
#ifndef PMEMK_TEST_HOST_H
#define PMEMK_TEST_HOST_H

#include "arch.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn.h"
#include "pgtable.h"

/* Size of the simulated physical address space (sparse, on demand). */
#define HOST_PHYS_SIZE (64ULL << 30)

/* Everything written to the console since the last reset. */
const char *host_console_text(void);
/* Run a shell command line through the dispatcher (shell_exec), the console reset first. */
int host_shell(const char *line);
/*
 * Run line; true if it returned -EINVAL and printed exactly `error` and the
 * usage line of its command, each on a line of its own (else it says, on stderr,
 * what came instead).
 */
bool host_shell_refused(const char *line, const char *error);
/* Make arch_cpu_id() return `cpu` (< ARCH_MAX_CPUS) in the calling thread: tests with threads as CPUs. */
void host_set_cpu_id(u32 cpu);
void host_console_reset(void);
/* True if the console output since the last reset contains `needle`. */
bool host_console_has(const char *needle);
/* Echo console output to stdout too (default: off, set HOST_CONSOLE=1). */
extern bool host_console_echo;

/*
 * The simulated CPU behind arch_pte_leaf_allowed and arch_pte_noexec_allowed:
 * 4 KiB, 2 MiB and 1 GiB leaves and no-execute unless a test turns one off
 * (level PG_LEVEL_2M or PG_LEVEL_1G); host_cpu_defaults (and host_mm_boot)
 * turns them all on again.
 */
void host_set_leaf_allowed(enum pg_level level, bool allowed);
void host_set_noexec_allowed(bool allowed);
void host_cpu_defaults(void);

/*
 * Whether arch_rdrand64/arch_rdseed64 work (getrandom() plays both): RDRAND
 * only by default, as under QEMU TCG.
 */
extern bool host_rdrand_present;
extern bool host_rdseed_present;

/* CPUs the work queue may use (arch_nr_cpus; default 1, the test's thread alone). */
extern u32 host_nr_cpus;

/*
 * arch_sync_kernel_mappings() mirrors the vmemmap's leaves into the window
 * (default, set again by host_mm_boot). False leaves the window alone, as
 * x86's arch_sync_kernel_mappings does nothing: struct pages are then not
 * reachable, which suits tests that never read them (the scale runs), and
 * leaves may point beyond simulated memory (a device at terabytes), where
 * the mirror would abort. Its mmap calls are then not timed either.
 */
extern bool host_vmemmap_mirror;

/*
 * Page-table entries the calling thread read through the contract
 * (arch_pte_is_present/_table/_leaf, arch_pte_table_pa, ...): the work of a
 * page-table walk or scan, counted exactly, where its time is noisy.
 */
extern __thread u64 host_pte_reads;

/* Count of TLB flushes requested (page-table tests check them). */
extern u64 host_tlb_flushes;

/*
 * mm tests: a fresh machine with RAM [ram_base, ram_base + ram_size) in
 * memblock and the page allocator, empty kernel page tables whose table
 * pages come from it (failing when mm_alloc_should_fail() says so), an
 * empty section table and pgmap registry, zeroed counters, the simulated
 * CPU's defaults (host_cpu_defaults). Simulated memory is zeroed and the
 * vmemmap window emptied first.
 */
void host_mm_boot(u64 ram_base, u64 ram_size);
/* The altmap of Linux's map=dev layout for a namespace at start, align 2 MiB (aborts if none). */
struct vmem_altmap host_pfn_dev_altmap(u64 start, u64 size);

/* A machine for the nvdimm tests (host_nd_machine). */
struct host_nd_machine {
	u64 ram_size;		/* RAM at 1 GiB; 0: 512 MiB */
	u64 ns_start, ns_size;	/* the one e820 pmem region */
	bool keep_pmem;		/* its bytes survive, as across a reboot */
	bool ro;		/* the region is read-only (a DIMM not armed) */
	u32 hinted_dimms;	/* DIMMs interleaved in it, each with a flush hint */
	u64 hint_base;		/* their hints: one page each from here (RAM) */
	bool probe;		/* probe its namespace as boot does */
};
struct nd_namespace_io;
/*
 * A fresh machine (host_mm_reboot) with the nvdimm core, pmem, pfn and BTT
 * devices forgotten and the console emptied, then region0 published with
 * namespace0.0 (returned), probed if asked.
 */
struct nd_namespace_io *host_nd_machine(const struct host_nd_machine *m);

/*
 * Every kind of device namespace0.0 can become (create-namespace -f -e):
 * raw pmem0, sector pmem0s, devdax dax0.0, fsdax pmem0m (map=dev, 2 MiB).
 */
struct host_nd_kind {
	const char *dev;		/* its block device then */
	struct nd_pfn_request req;	/* what makes it so */
};
extern const struct host_nd_kind host_nd_kinds[4];

/* Zero all simulated memory (hands it back to the host), empty the window. */
void host_phys_discard(void);
/* The same but for [keep, keep+size): a reboot keeps the pmem. */
void host_phys_discard_except(u64 keep, u64 size);
/* A hash of [start, start+size)'s non-zero pages and where they are (sparse-aware). */
u64 host_phys_hash(u64 start, u64 size);
/* host_mm_boot, keeping [keep, keep+size) of simulated memory as it is. */
void host_mm_reboot(u64 ram_base, u64 ram_size, u64 keep, u64 size);
/*
 * Walk kernel_pgtable for va with a walker independent of mm/pgtable.c.
 * Mapped: true, *pa, the leaf *level and, unless prot is NULL, the PGPROT_*
 * protection in effect. Hole: false, *level whose entry is empty.
 */
bool host_walk(u64 va, u64 *pa, enum pg_level *level, u64 *prot);

/*
 * The fake PCI configuration space (pci_host.c) behind arch_pci_cfg_*.
 * Functions are added per test; BAR registers keep only the bits of their
 * mask (the type bits read-only, as in hardware), the command register is
 * writable, other writes are counted and dropped.
 */
#define PCI_FAKE_BUSES 8
struct pci_fake_fn {
	bool present;
	u8 cfg[256];
	u32 bar_mask[6];
	u32 bar_lie[6];		/* if set: what an all-ones write makes the BAR read */
	unsigned int other_writes;
	u8 msix_cap;		/* offset of an MSI-X capability: its enable and mask bits are writable */
};
extern struct pci_fake_fn pci_fake[PCI_FAKE_BUSES][32][8];
extern bool pci_fake_mechanism;			/* arch_pci_cfg_present() */
extern unsigned int pci_fake_sized_while_decoding;	/* all-ones BAR writes with decoding on */
extern unsigned int pci_fake_reads;
void pci_fake_reset(void);
/* class_rev: class << 24 | subclass << 16 | prog-if << 8 | revision. */
struct pci_fake_fn *pci_fake_add(u8 bus, u8 dev, u8 fn, u16 vendor, u16 device, u32 class_rev);
/* BAR i reads as value; mask says which bits a write may change. */
void pci_fake_bar(struct pci_fake_fn *f, unsigned int i, u32 value, u32 mask);
/* A capability at off (id, next pointer, 16-bit control); sets the status bit. */
void pci_fake_cap(struct pci_fake_fn *f, u8 off, u8 id, u8 next, u16 ctl);

/*
 * The I/O APIC fake (arch_host.c): host_intx_rc is what arch_isa_irq_line
 * returns (-ENODEV unless a test sets 0: then ISA IRQ n is GSI n, level,
 * active low); host_intx_routed, the last line arch_wake_intx was given.
 */
extern int host_intx_rc;
extern struct arch_intx host_intx_routed;

/*
 * What mm owns, for "nothing leaked" checks: free RAM pages, page-table
 * pages and every mm_stat counter.
 */
struct host_mm_snap {
	u64 free_pages, tables, stat[MM_NR_STATS];
};
struct host_mm_snap host_mm_snap(void);
/* "" if a and b agree, else the first difference, named ("vmemmap: 4096 -> 8192"). */
const char *host_mm_snap_diff(struct host_mm_snap a, struct host_mm_snap b);
/* In a cmocka test: fail with that difference. */
#define assert_mm_snap(now, before) assert_string_equal(host_mm_snap_diff((before), (now)), "")

/*
 * Scale runs (scale_host.c): a pfn device of `size` bytes at
 * HOST_SCALE_BASE (64 GiB, just above simulated physical memory, so that
 * touching one of its frames aborts) laid out with nd_pfn_lay_out (2 MiB
 * align; map=dev: altmap, else map=mem), registered by memremap_pages with
 * PGMAP_DEFER_INIT and deferral on (mapped, no struct page stored), then
 * torn down by memunmap_pages: once cold after a fresh host_mm_boot (RAM
 * [HOST_SCALE_RAM_BASE, + ram_size)), then `reps` times warm in the same
 * boot (0: the cold run alone, whose times then stand for the medians). The largest device ends at MAX_PFN: HOST_SCALE_MAX_SIZE, 64 TiB -
 * 64 GiB.
 */
#define HOST_SCALE_BASE HOST_PHYS_SIZE
#define HOST_SCALE_RAM_BASE (16 * MiB)
#define HOST_SCALE_MAX_SIZE (PFN_PHYS(MAX_PFN) - HOST_SCALE_BASE)
#define HOST_SCALE_MAX_REPS 31
struct host_scale {
	u64 size;
	bool map_dev;
	struct range range;		/* the pgmap's */
	u64 altmap_free;		/* pages the layout gave the memmap (map=dev) */
	u64 layout_ns;			/* one nd_pfn_lay_out (mean of many) */
	/* Medians of the warm runs (the cold run's with reps 0). */
	u64 memremap_ns, map_ns, sparse_ns;	/* memremap_pages; its direct map and sparse steps */
	u64 memunmap_ns;
	u64 cold_ns[4];			/* the same four (this order), first registration after boot */
	/* From the last run: */
	bool deferred;			/* no struct page stored (pages_init 0) */
	u64 pages_init;
	u64 pgtable_pages;		/* memremap_stats: page-table pages added */
	u64 vmemmap_ram;		/* bytes of RAM holding struct pages */
	u64 sections;			/* sections of the range with a memmap */
	u64 lazy_sections;		/* sections whose vmemmap waits for the deferred init */
	u64 section_tables;		/* bytes of section table added */
	u64 altmap_alloc, altmap_align;	/* pages, after memremap_pages */
	u64 rss_kib;			/* largest host RSS growth over a memremap_pages */
	u64 memremap_pte_reads;		/* host_pte_reads in memremap_pages */
	u64 memunmap_pte_reads;		/* and in memunmap_pages */
	struct host_mm_snap before;	/* before the first memremap_pages */
	struct host_mm_snap live;	/* registered (the last run) */
	struct host_mm_snap after;	/* after the last memunmap_pages (or the first that leaked) */
	bool left_memmap;		/* a subsection still had struct pages after memunmap */
};
/* 0, or -EINVAL (reps above HOST_SCALE_MAX_REPS), or the layout's, memremap's or memunmap's error. */
int host_scale_run(u64 size, bool map_dev, u64 ram_size, unsigned int reps, struct host_scale *r);

#endif
