/*
 * The arch contract (include/arch.h) for host unit tests: "physical memory"
 * is one large sparse memfd mapped shared, so page tables built by mm/ are
 * real tables inside it and can be walked in software. A PROT_NONE window
 * stands for the vmemmap: arch_sync_kernel_mappings() maps the memfd into it
 * wherever kernel_pgtable's leaves point, so struct page stores land in
 * simulated physical memory exactly where the page tables say. Entries are in
 * the fake's own format (pte_host.c), which host_walk() decodes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "memlayout.h"
#include "mm.h"
#include "pgtable.h"

/* The simulated CPU's clock (1 GHz: arch_cycles counts nanoseconds) and address width. */
#define HOST_TSC_KHZ 1000000ULL
#define HOST_PHYS_ADDR_BITS 46

u32 arch_phys_addr_bits(void)
{
	return HOST_PHYS_ADDR_BITS;
}

/*
 * The vmemmap window: the whole vmemmap (1 TiB, struct pages for 64 TiB),
 * except under ThreadSanitizer (make test-tsan), which leaves applications
 * only parts of the address space, where 1 TiB does not always fit: there
 * 64 GiB, struct pages for 4 TiB of physical addresses (the tests it runs
 * use the first 64 GiB); leaves beyond it are not mirrored.
 */
#ifdef HOST_TSAN
#define HOST_VMEMMAP_WINDOW (64ULL << 30)
#else
#define HOST_VMEMMAP_WINDOW VMEMMAP_SIZE
#endif

static u8 *phys_base;
static int phys_fd = -1;
bool host_vmemmap_mirror = true;
static u8 *vmemmap_window;
struct page *vmemmap;

/* mm/paging.c defines it; this stand-in serves programs without mm/ (the fuzzers). */
__attribute__((weak)) struct pgtable kernel_pgtable;

static char console_buf[1 << 20];
static size_t console_len;
bool host_console_echo;
u64 host_tlb_flushes;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* Make [off, off+len) of the vmemmap window inaccessible again. */
static void window_unmap(u64 off, u64 len)
{
	if (mmap(vmemmap_window + off, len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		die("arch_host: mmap PROT_NONE into the vmemmap window");
}

static u8 *sim_memory(void)
{
	if (phys_base)
		return phys_base;
	phys_fd = memfd_create("pmemk-phys", MFD_CLOEXEC);
	if (phys_fd < 0 || ftruncate(phys_fd, (off_t)HOST_PHYS_SIZE))
		die("arch_host: memfd for simulated physical memory");
	phys_base = mmap(NULL, HOST_PHYS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
			 phys_fd, 0);
	if (phys_base == MAP_FAILED)
		die("arch_host: mmap of simulated physical memory");
	vmemmap_window = mmap(NULL, HOST_VMEMMAP_WINDOW, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vmemmap_window == MAP_FAILED)
		die("arch_host: mmap of the vmemmap window");
	vmemmap = (struct page *)vmemmap_window;
	host_console_echo = getenv("HOST_CONSOLE") != NULL;
	return phys_base;
}

__attribute__((constructor)) static void sim_memory_init(void)
{
	sim_memory();
}

void *phys_to_virt(u64 pa)
{
	if (pa >= HOST_PHYS_SIZE) {
		fprintf(stderr, "arch_host: phys_to_virt(%#llx) outside simulated memory\n", pa);
		abort();
	}
	return sim_memory() + pa;
}

u64 virt_to_phys(const void *va)
{
	const u8 *p = va;

	if (p < sim_memory() || p >= phys_base + HOST_PHYS_SIZE) {
		fprintf(stderr, "arch_host: virt_to_phys(%p) outside simulated memory\n", va);
		abort();
	}
	return (u64)(p - phys_base);
}

void arch_flush_tlb_range(u64 va, u64 len)
{
	(void)va;
	(void)len;
	host_tlb_flushes++;
}

void arch_flush_tlb_all(void)
{
	host_tlb_flushes++;
}

/*
 * A page-table walker of its own (not mm/pgtable.c's), so tests check mm's
 * tables against an independent reading of the entries.
 */
bool host_walk(u64 va, u64 *pa, enum pg_level *level, u64 *prot)
{
	u64 table = kernel_pgtable.root, allowed = PGPROT_WRITE | PGPROT_EXEC;

	*level = PG_LEVEL_512G;
	if (!table)
		return false;
	for (enum pg_level l = PG_LEVEL_512G; l >= PG_LEVEL_4K; l--) {
		u64 size = pg_level_size(l);
		pte_t e = ((const pte_t *)phys_to_virt(table))[(va / size) & 511];

		*level = l;
		if (!arch_pte_is_present(l, e))
			return false;
		allowed &= arch_pte_prot(l, e);
		if (arch_pte_is_leaf(l, e)) {
			*pa = arch_pte_leaf_pa(l, e) + (va & (size - 1));
			if (prot)
				*prot = allowed;
			return true;
		}
		table = arch_pte_table_pa(l, e);
	}
	return false;
}

/* Mirror kernel_pgtable's view of [va, end) of the vmemmap into the window. */
void arch_sync_kernel_mappings(u64 va, u64 len)
{
	if (!host_vmemmap_mirror)
		return;	/* as on x86: the tables alone are the mapping */
	u64 end = MIN(ALIGN_UP(va + len, PAGE_SIZE), VMEMMAP_BASE + HOST_VMEMMAP_WINDOW);

	va = MAX(ALIGN_DOWN(va, PAGE_SIZE), VMEMMAP_BASE);
	while (va < end) {
		enum pg_level level;
		u64 pa, off = va - VMEMMAP_BASE;
		bool mapped = host_walk(va, &pa, &level, NULL);
		u64 next = MIN(end, ALIGN_DOWN(va, pg_level_size(level)) + pg_level_size(level));

		if (!mapped) {
			window_unmap(off, next - va);
		} else if (pa + (next - va) > HOST_PHYS_SIZE) {
			fprintf(stderr,
				"arch_host: vmemmap %#llx maps %#llx, outside simulated memory\n",
				va, pa);
			abort();
		} else if (mmap(vmemmap_window + off, next - va, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_FIXED, phys_fd, (off_t)pa) == MAP_FAILED) {
			die("arch_host: mmap into the vmemmap window");
		}
		va = next;
	}
}

/* Punch [a, b) out of simulated memory: it reads as zero and takes no host RAM. */
static void punch(u64 a, u64 b)
{
	if (b > a && fallocate(phys_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)a,
			       (off_t)(b - a)))
		die("arch_host: punching simulated physical memory");
}

void host_phys_discard(void)
{
	host_phys_discard_except(0, 0);
}

void host_phys_discard_except(u64 keep, u64 size)
{
	sim_memory();
	punch(0, MIN(keep, HOST_PHYS_SIZE));
	punch(MIN(keep + size, HOST_PHYS_SIZE), HOST_PHYS_SIZE);
	window_unmap(0, HOST_VMEMMAP_WINDOW);
}

/*
 * FNV-1a over (offset, bytes) of every non-zero 4 KiB page of [start,
 * start+size): holes and zero pages are alike, so a written-then-zeroed page
 * and a never-written one hash the same. Only the extents the memfd holds
 * are read (SEEK_DATA), so a sparse GiB costs what is in it.
 */
u64 host_phys_hash(u64 start, u64 size)
{
	static const u8 zero[PAGE_SIZE];
	u64 h = 0xcbf29ce484222325ULL, end = start + size;
	off_t pos = (off_t)start;

	sim_memory();
	while ((u64)pos < end) {
		off_t data = lseek(phys_fd, pos, SEEK_DATA);
		if (data < 0 || (u64)data >= end)
			break;
		off_t hole = lseek(phys_fd, data, SEEK_HOLE);
		u64 stop = MIN((u64)hole, end);
		for (u64 pa = ALIGN_DOWN((u64)data, PAGE_SIZE); pa < stop; pa += PAGE_SIZE) {
			const u8 *p = phys_base + pa;
			if (pa < start || !memcmp(p, zero, PAGE_SIZE))
				continue;
			for (int i = 0; i < 8; i++)
				h = (h ^ ((pa >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
			for (u64 i = 0; i < PAGE_SIZE; i++)
				h = (h ^ p[i]) * 0x100000001b3ULL;
		}
		pos = (off_t)ALIGN_UP(stop, PAGE_SIZE);
	}
	return h;
}

static u64 host_root;

u64 arch_pgtable_root(void)
{
	return host_root;
}

void arch_pgtable_activate(u64 root_pa)
{
	host_root = root_pa;
	host_tlb_flushes++;
}

u64 arch_cycles(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

u64 arch_cycles_to_ns(u64 cycles)
{
	return cycles;	/* the host "TSC" counts nanoseconds */
}

/* The host clock's rate is known (1 GHz): every sample measures just that. */
u64 arch_clock_recalibrate(unsigned int samples, struct arch_clock_cal *cal)
{
	u64 khz = HOST_TSC_KHZ;

	if (cal)
		*cal = (struct arch_clock_cal){ .khz = khz,
						.min_khz = khz,
						.max_khz = khz,
						.prev_khz = khz,
						.n = 1 + MIN(samples, ARCH_CLOCK_MAX_SAMPLES) };
	return khz;
}

void arch_console_write(const char *s, size_t n)
{
	sim_memory();
	if (console_len + n < sizeof(console_buf)) {
		memcpy(console_buf + console_len, s, n);
		console_len += n;
		console_buf[console_len] = 0;
	}
	if (host_console_echo)
		fwrite(s, 1, n, stdout);
}

int arch_console_getc(void)
{
	return -1;
}

int arch_console_trygetc(void)
{
	return -1;
}

void arch_dma_wmb(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void arch_dma_rmb(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

void arch_dma_mb(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/*
 * Simulated CPUs for the work queue: CPU 0 is the thread that runs the
 * test; a call given to CPU n runs in a thread of its own that reports n as
 * its CPU number. host_nr_cpus (1 unless a test raises it) bounds them.
 */
u32 host_nr_cpus = 1;
static __thread u32 host_cpu;
static struct host_cpu_slot {
	u32 busy;		/* atomic: a call was given and has not returned */
	void (*fn)(void *arg);
	void *arg;
	u32 cpu;
} host_cpus[ARCH_MAX_CPUS];

u32 arch_cpu_id(void)
{
	return host_cpu;
}

/* Tests that run their own threads as CPUs (test_btt_lanes). */
void host_set_cpu_id(u32 cpu)
{
	host_cpu = cpu;
}

void arch_cpu_relax(void)
{
	sched_yield();
}

u32 arch_nr_cpus(void)
{
	return host_nr_cpus < ARCH_MAX_CPUS ? host_nr_cpus : ARCH_MAX_CPUS;
}

static void *host_cpu_thread(void *arg)
{
	struct host_cpu_slot *c = arg;

	host_cpu = c->cpu;
	c->fn(c->arg);
	__atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);	/* fn's stores before it */
	return NULL;
}

int arch_cpu_start(u32 cpu, void (*fn)(void *arg), void *arg)
{
	struct host_cpu_slot *c = &host_cpus[cpu < ARCH_MAX_CPUS ? cpu : 0];
	u32 idle = 0;

	if (cpu >= arch_nr_cpus() || cpu == host_cpu)
		return -ENODEV;
	if (cpu == 0)
		return -EBUSY;	/* the test's own thread, as the kernel's boot CPU */
	if (!__atomic_compare_exchange_n(&c->busy, &idle, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -EBUSY;
	c->fn = fn;
	c->arg = arg;
	c->cpu = cpu;
	/* Detached: arch_cpu_busy is the wait, as for the kernel's CPUs. */
	pthread_attr_t attr;
	pthread_t thread;
	if (pthread_attr_init(&attr) || pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) ||
	    pthread_create(&thread, &attr, host_cpu_thread, c))
		die("arch_host: pthread_create");
	pthread_attr_destroy(&attr);
	return 0;
}

void arch_cpu_wait(u32 cpu)
{
	while (arch_cpu_busy(cpu))
		sched_yield();
}

/* Host tests drive idle work themselves (memmap_defer_step). */
void arch_idle_kick(void)
{
}

bool arch_cpu_busy(u32 cpu)
{
	return cpu < ARCH_MAX_CPUS && __atomic_load_n(&host_cpus[cpu].busy, __ATOMIC_ACQUIRE);
}

void arch_exit(int status)
{
	fflush(stdout);
	exit(status);
}

const char *host_console_text(void)
{
	return console_buf;
}

void host_console_reset(void)
{
	console_len = 0;
	console_buf[0] = 0;
}

bool host_console_has(const char *needle)
{
	return strstr(console_buf, needle) != NULL;
}

/* No timer and no interrupts here: callers poll. */
bool arch_idle(u64 max_ns)
{
	(void)max_ns;
	return false;
}

bool arch_wake_msi(u64 *addr, u32 *data)
{
	(void)addr;
	(void)data;
	return false;
}

void arch_irq_drain(void)
{
}

/*
 * No I/O APIC either, unless a test gives one: host_intx_rc 0 makes ISA
 * IRQ n GSI n, level, active low, and arch_wake_intx record the line.
 */
int host_intx_rc = -ENODEV;
struct arch_intx host_intx_routed;

int arch_isa_irq_line(u8 irq, struct arch_intx *line)
{
	if (host_intx_rc)
		return host_intx_rc;
	*line = (struct arch_intx){ .gsi = irq, .level = true, .active_low = true };
	return 0;
}

int arch_wake_intx(const struct arch_intx *line)
{
	host_intx_routed = *line;
	return 0;
}

void arch_intx_mask(u32 gsi, bool masked)
{
	(void)gsi;
	(void)masked;
}
