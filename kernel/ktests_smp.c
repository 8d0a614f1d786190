/* In-kernel tests of SMP bring-up (arch/x86_64/smp.c): every CPU the MADT enables is online. */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "idle.h"
#include "ktest.h"
#include "madt.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "paging.h"
#include "pgtable.h"
#include "page_alloc.h"
#include "pmem.h"
#include "smp.h"
#include "spinlock.h"

/* As many online as the MADT enables, capped by nr_cpus= (the BSP counts even without a MADT). */
KTEST(smp_enabled_cpus_are_online)
{
	u32 want = madt.nr_enabled ? madt.nr_enabled : 1;

	if (want > smp_max_cpus())
		want = smp_max_cpus();
	KT_EXPECT_EQ(smp_nr_online(), want);
	u32 online = 0;
	for (u32 n = 0; n < smp_nr_cpus(); n++)
		online += smp_cpu(n)->state == CPU_ONLINE;
	KT_EXPECT_EQ(online, smp_nr_online());
}

/*
 * Each online CPU ran its own start-up code: it read its own APIC ID from
 * its local APIC and its own CPU number back through its GS base.
 */
KTEST(smp_each_cpu_reported_itself)
{
	KT_EXPECT_EQ(smp_processor_id(), 0);
	for (u32 n = 0; n < smp_nr_cpus(); n++) {
		const struct cpu_info *c = smp_cpu(n);
		if (c->state != CPU_ONLINE)
			continue;
		KT_EXPECT_EQ(c->seen_apic_id, c->apic_id);
		KT_EXPECT_EQ(c->seen_cpu, n);
		for (u32 m = 0; m < n; m++)
			KT_ASSERT(smp_cpu(m)->apic_id != c->apic_id);
	}
}

/* What each CPU saw when it ran a call: set once per CPU. */
static struct {
	u32 runs;
	u32 apic_id;	/* read from the local APIC of the CPU that ran it */
} seen[SMP_MAX_CPUS];

static void record_cpu(void *arg)
{
	u32 cpu = smp_processor_id();

	(void)arg;
	__atomic_add_fetch(&seen[cpu].runs, 1, __ATOMIC_RELAXED);
	seen[cpu].apic_id = smp_apic_id_here();
}

/* The job ran once on every online CPU, each on its own (its own local APIC answered). */
KTEST(smp_call_runs_on_every_cpu)
{
	memset(seen, 0, sizeof(seen));
	KT_EXPECT_EQ(smp_call_on_each(record_cpu, NULL), 0);
	for (u32 n = 0; n < smp_nr_cpus(); n++) {
		const struct cpu_info *c = smp_cpu(n);
		KT_EXPECT_EQ(seen[n].runs, c->state == CPU_ONLINE ? 1 : 0);
		if (c->state == CPU_ONLINE)
			KT_EXPECT_EQ(seen[n].apic_id, c->apic_id);
	}
	/* And again: the idle loop takes a second call. */
	KT_EXPECT_EQ(smp_call_on_each(record_cpu, NULL), 0);
	KT_EXPECT_EQ(seen[smp_nr_cpus() - 1].runs,
		     smp_cpu(smp_nr_cpus() - 1)->state == CPU_ONLINE ? 2 : 0);
}

/* Rounds over all CPUs: more vCPUs than host cores slow a contended lock down. */
#define CONTENDED_ROUNDS_TOTAL 200000
static struct spinlock counter_lock = SPINLOCK_INIT("ktest_counter", LOCK_RANK_TEST_A);
static volatile u64 counter;
static u32 arrived;

/*
 * Read-modify-write in two steps: without the lock, concurrent CPUs lose
 * updates. Every CPU first waits for the others (a bounded wait: a CPU
 * that never comes only makes the test weaker, the call reports it), so
 * the loops overlap even though IPIs wake the CPUs one by one.
 */
static void add_rounds(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
	for (u64 spins = 0; spins < 100000000ull; spins++) {
		if (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) >= smp_nr_online())
			break;
		arch_cpu_relax();
	}
	for (u32 i = 0; i < CONTENDED_ROUNDS_TOTAL / smp_nr_online(); i++) {
		spin_lock(&counter_lock);
		u64 v = counter;
		for (int d = 0; d < 8; d++)	/* widen the window a broken lock would leave */
			arch_cpu_relax();
		counter = v + 1;
		spin_unlock(&counter_lock);
	}
}

/* Every CPU at once through one lock: no update lost, nothing left held. */
KTEST(smp_spinlock_excludes_every_cpu)
{
	u32 held = spin_held_count();	/* run from the shell: the device model lock */

	counter = 0;
	arrived = 0;
	KT_EXPECT_EQ(smp_call_on_each(add_rounds, NULL), 0);
	KT_EXPECT_EQ(counter, (u64)(CONTENDED_ROUNDS_TOTAL / smp_nr_online()) * smp_nr_online());
	KT_EXPECT_EQ(spin_held_count(), held);
}

/*
 * Destroy during I/O (issue 14 item 2, Linux's 32b2397c1e56 class): CPU 1
 * holds a block device (PMEM_HOLD_IO) and writes it over and over; meanwhile
 * the boot CPU's detach (what destroy-namespace does) is refused with
 * -EBUSY and the device stays findable; once the writer lets go, the
 * detach goes through and the name resolves no more. The device is RAM
 * (2 MiB from the page allocator), so no namespace of the boot is touched.
 */
static struct {
	struct nsio media;
	struct pmem_device dev;
	u32 held, stop;		/* atomic: writer has the device; writer may finish */
	u32 writes;
	int err;
} dio;

static void dio_writer(void *arg)
{
	u8 sector[512];
	struct pmem_hold h;

	(void)arg;
	if (pmem_hold_name("ktpmem", PMEM_HOLD_IO, "ktest writer on CPU 1", &h)) {
		dio.err = -ENODEV;
		return;
	}
	struct pmem_device *dev = h.dev;
	__atomic_store_n(&dio.held, 1, __ATOMIC_RELEASE);
	memset(sector, 0xa5, sizeof(sector));
	/* At least 64 writes, and on until told to stop (bounded: ~a few s under TCG). */
	for (u32 i = 0; i < 1000000 && (i < 64 || !__atomic_load_n(&dio.stop, __ATOMIC_ACQUIRE));
	     i++) {
		int err = pmem_rw(dev, (u64)(i % 4096) * 512, sector, sizeof(sector), PMEM_WRITE);
		if (err && !dio.err)
			dio.err = err;
		dio.writes++;
	}
	pmem_release(&h);
}

KTEST(smp_destroy_refused_while_another_cpu_writes)
{
	u32 cpu = 1;

	if (smp_nr_online() < 2 || smp_cpu(1)->state != CPU_ONLINE) {
		ktest_skip("needs CPU 1 online");
		return;
	}
	u64 pa = page_alloc(9);
	KT_ASSERT(pa);
	memset(&dio, 0, sizeof(dio));
	KT_ASSERT(nsio_init(&dio.media, pa, 2 * MiB, NULL) == 0);
	struct pmem_span span = { .media = &dio.media, .size = 2 * MiB, .pfn_flags = PFN_DEV };
	KT_ASSERT(pmem_attach(&dio.dev, NULL, "ktpmem", &span) == 0);
	KT_ASSERT(arch_cpu_start(cpu, dio_writer, NULL) == 0);
	while (!__atomic_load_n(&dio.held, __ATOMIC_ACQUIRE) && arch_cpu_busy(cpu))
		arch_cpu_relax();
	KT_EXPECT_EQ(dio.held, 1);
	KT_EXPECT_EQ(pmem_detach(&dio.dev), (u64)(s64)-EBUSY);
	KT_EXPECT_EQ(pmem_find("ktpmem") == &dio.dev, 1);
	__atomic_store_n(&dio.stop, 1, __ATOMIC_RELEASE);
	while (arch_cpu_busy(cpu))
		arch_cpu_relax();
	KT_EXPECT_EQ(dio.err, 0);
	KT_EXPECT_EQ(dio.writes >= 64, 1);
	KT_EXPECT_EQ(pmem_detach(&dio.dev), 0);
	KT_EXPECT_EQ(pmem_find("ktpmem") == NULL, 1);
	struct pmem_hold none;
	KT_EXPECT_EQ(pmem_hold_name("ktpmem", PMEM_HOLD_IO, "ktest", &none), (u64)(s64)-ENODEV);
	page_free(pa, 9);
}

/*
 * The lazy TLB shootdown (arch/x86_64/arch.c): CPU 1 reads a kernel page
 * through a mapping, which its TLB then holds (QEMU's TCG keeps a TLB per
 * vCPU too); the boot CPU moves the mapping to another frame. CPU 1's next
 * call must read the new frame, not the old one through a stale entry. The
 * address is the last devdax slot, which no test maps meanwhile.
 */
#define TLB_VA (DAX_MAP_BASE + (DAX_MAP_SLOTS - 1) * DAX_MAP_SLOT_SIZE)
static volatile u64 tlb_seen;

static void tlb_read(void *arg)
{
	(void)arg;
	tlb_seen = *(volatile u64 *)TLB_VA;
}

KTEST(smp_tlb_removed_mapping_not_used_by_another_cpu)
{
	if (smp_nr_online() < 2 || smp_cpu(1)->state != CPU_ONLINE) {
		ktest_skip("needs CPU 1 online");
		return;
	}
	u64 a = page_alloc_zeroed(0), b = page_alloc_zeroed(0);
	KT_ASSERT(a && b);
	*(u64 *)phys_to_virt(a) = 0xaaaa;
	*(u64 *)phys_to_virt(b) = 0xbbbb;
	mm_lock();
	int err = pgtable_map(&kernel_pgtable, TLB_VA, pa_init(a), PAGE_SIZE, PROT_KERNEL_RW);
	mm_unlock();
	KT_ASSERT(err == 0);
	KT_ASSERT(arch_cpu_start(1, tlb_read, NULL) == 0);
	arch_cpu_wait(1);
	KT_EXPECT_EQ(tlb_seen, 0xaaaa);
	mm_lock();
	pgtable_unmap(&kernel_pgtable, TLB_VA, PAGE_SIZE);	/* flushes: the generation moves */
	err = pgtable_map(&kernel_pgtable, TLB_VA, pa_init(b), PAGE_SIZE, PROT_KERNEL_RW);
	mm_unlock();
	KT_EXPECT_EQ(err, 0);
	KT_ASSERT(arch_cpu_start(1, tlb_read, NULL) == 0);
	arch_cpu_wait(1);
	KT_EXPECT_EQ(tlb_seen, 0xbbbb);
	mm_lock();
	pgtable_unmap(&kernel_pgtable, TLB_VA, PAGE_SIZE);
	mm_unlock();
	page_free(a, 0);
	page_free(b, 0);
}

/*
 * Idle work of the other CPUs (include/idle.h), idle while the test does
 * not run: the rounds each CPU made, whether it should say there is no
 * more, and how often it said so.
 */
static u32 idle_rounds[SMP_MAX_CPUS], idle_said_no[SMP_MAX_CPUS];
static bool idle_on, idle_stop;

static bool kt_idle_work(void)
{
	u32 cpu = smp_processor_id();

	if (!__atomic_load_n(&idle_on, __ATOMIC_ACQUIRE))
		return false;
	__atomic_add_fetch(&idle_rounds[cpu], 1, __ATOMIC_RELAXED);
	for (volatile int i = 0; i < 2000; i++)	/* a round takes a while, as a section does */
		;
	if (!__atomic_load_n(&idle_stop, __ATOMIC_ACQUIRE))
		return true;
	__atomic_add_fetch(&idle_said_no[cpu], 1, __ATOMIC_RELEASE);	/* after its round's count */
	return false;
}
IDLE_WORK(kt_idle_work, IDLE_OTHER_CPUS);

static u32 idle_rounds_of(u32 cpu)
{
	return __atomic_load_n(&idle_rounds[cpu], __ATOMIC_ACQUIRE);
}

/* Wait up to 5 s for *count to reach n; whether it did. */
static bool idle_count_reaches(const u32 *count, u32 n)
{
	u64 t0 = arch_cycles();

	while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < n &&
	       arch_cycles_to_ns(arch_cycles() - t0) < 5000000000ull)
		arch_cpu_relax();
	return __atomic_load_n(count, __ATOMIC_ACQUIRE) >= n;
}

/*
 * An idle AP runs the idle work once kicked, stays not busy meanwhile,
 * takes a call between two rounds, and halts once a walk of the idle work
 * finds none (until the next kick). The boot CPU never runs work
 * registered for the other CPUs only. Deferred struct page init rides on
 * this.
 */
KTEST(smp_idle_work_runs_on_idle_cpus_and_yields_to_calls)
{
	if (smp_nr_online() < 2 || smp_cpu(1)->state != CPU_ONLINE) {
		ktest_skip("needs CPU 1 online");
		return;
	}
	memset(idle_rounds, 0, sizeof(idle_rounds));
	memset(idle_said_no, 0, sizeof(idle_said_no));
	memset(seen, 0, sizeof(seen));
	__atomic_store_n(&idle_stop, false, __ATOMIC_RELEASE);
	__atomic_store_n(&idle_on, true, __ATOMIC_RELEASE);
	arch_idle_kick();
	KT_EXPECT_EQ(idle_count_reaches(&idle_rounds[1], 20), 1);
	KT_EXPECT_EQ(arch_cpu_busy(1), 0);
	/* A call while it works: taken between two rounds, run once, and then idle work again. */
	KT_EXPECT_EQ(arch_cpu_start(1, record_cpu, NULL), 0);
	arch_cpu_wait(1);
	KT_EXPECT_EQ(seen[1].runs, 1);
	KT_EXPECT_EQ(idle_count_reaches(&idle_rounds[1], idle_rounds_of(1) + 5), 1);
	/*
	 * No more work: once CPU 1 has said so, it calls the work no more. The
	 * other idle work (deferred struct pages) would keep it walking: the
	 * boot CPU takes what is left of it first.
	 */
	while (memmap_defer_step())
		;
	__atomic_store_n(&idle_stop, true, __ATOMIC_RELEASE);
	KT_EXPECT_EQ(idle_count_reaches(&idle_said_no[1], 1), 1);
	u32 stopped = idle_rounds_of(1);
	for (volatile int i = 0; i < 2000000; i++)
		;
	KT_EXPECT_EQ(idle_rounds_of(1), stopped);
	KT_EXPECT_EQ(__atomic_load_n(&idle_said_no[1], __ATOMIC_ACQUIRE), 1);
	KT_EXPECT_EQ(idle_rounds_of(0), 0);
	__atomic_store_n(&idle_on, false, __ATOMIC_RELEASE);
}
