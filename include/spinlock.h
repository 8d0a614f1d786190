/*
 * Spinlocks with a documented lock order and a debug check of it.
 *
 * Every lock has a rank (enum lock_rank); a CPU may take a lock only when
 * its rank is above the rank of every lock it already holds, so no cycle
 * (and no ABBA deadlock) can form. spin_lock() checks this, and that the
 * CPU does not already hold the lock, against a per-CPU list of held
 * locks: a violation is a kernel bug and stops the machine with both
 * names. Interrupts are not touched: nothing takes a lock in an interrupt
 * handler yet. No lock is held across work_run() by a job (jobs take none),
 * so a CPU waiting for its helpers never waits for a lock they hold.
 *
 * The order, outermost first (add a rank here when a lock is added):
 *   LOCK_RANK_ND         the nvdimm device model (nvdimm/bus.c nd_lock,
 *                        recursive): regions, namespaces, claims,
 *                        pfn/btt/dax devices, create/destroy/probe, the
 *                        shell's nvdimm tables and scratch buffers; the
 *                        shell takes it around every command not marked
 *                        concurrent (kernel/shell.c)
 *   LOCK_RANK_SMP_CALL   smp_call_on_each's one-call-at-a-time lock (a
 *                        ktest run from the shell calls it)
 *   LOCK_RANK_PMEM       the block device table and each device's users
 *                        (nvdimm/pmem.c: pmem_hold/pmem_release/pmem_detach)
 *   LOCK_RANK_BTT_LANE   a BTT lane (struct btt.lane_lock): a sector read or write
 *   LOCK_RANK_BTT_MAP    a BTT map lock, taken inside the lane's for the log + map update
 *   LOCK_RANK_ARS        one root _DSM call at a time (nvdimm/ars.c): a write
 *                        over a bad range clears it through the firmware
 *                        (under a BTT lane); ACPICA maps and allocates inside
 *   LOCK_RANK_MEDIA_ERRORS filing machine-check records (nvdimm/media_error.c),
 *                        around the bad-block lists
 *   LOCK_RANK_BADBLOCKS  a region's bad-block list (badblocks.h), taken by any
 *                        read or write of its media, with nothing inside
 *   LOCK_RANK_MM         page tables, sections, vmemmap, the direct map,
 *                        memremap_pages/memunmap_pages (recursive: mm_lock)
 *   LOCK_RANK_PGMAP      the pgmap table and its pins (mm/memremap.c)
 *   LOCK_RANK_MEMMAP_DEFER the list of pgmaps with deferred struct page
 *                        init and their workers (mm/memmap_defer.c)
 *   LOCK_RANK_PAGE_ALLOC the buddy allocator (mm/page_alloc.c)
 *   LOCK_RANK_HEAP       newlib's malloc (recursive: lib/syscalls.c)
 *   LOCK_RANK_CONSOLE    one message at a time on the console (lib/printk.c;
 *                        a CPU printing again inside, from a fault, does
 *                        not wait for itself)
 *   LOCK_RANK_TEST_A/B   ktests and host tests only
 */
#ifndef PMEMK_SPINLOCK_H
#define PMEMK_SPINLOCK_H

#include "types.h"

enum lock_rank {
	LOCK_RANK_ND = 10,
	LOCK_RANK_SMP_CALL = 20,
	LOCK_RANK_PMEM = 30,
	LOCK_RANK_BTT_LANE = 35,
	LOCK_RANK_BTT_MAP = 36,
	LOCK_RANK_ARS = 37,
	LOCK_RANK_MEDIA_ERRORS = 38,
	LOCK_RANK_BADBLOCKS = 39,
	LOCK_RANK_MM = 40,
	LOCK_RANK_PGMAP = 50,
	LOCK_RANK_MEMMAP_DEFER = 55,
	LOCK_RANK_PAGE_ALLOC = 60,
	LOCK_RANK_HEAP = 70,
	LOCK_RANK_CONSOLE = 80,
	LOCK_RANK_TEST_A = 100,
	LOCK_RANK_TEST_B = 101,
};

struct spinlock {
	u32 locked;		/* 0 free, 1 held (atomic) */
	u32 owner;		/* CPU holding it, when locked; ~0 when free */
	enum lock_rank rank;
	const char *name;
};

#define SPINLOCK_INIT(_name, _rank) { .locked = 0, .owner = ~0u, .rank = (_rank), .name = (_name) }

/* Locks one CPU may hold at once; more is a bug the check reports. */
#define LOCK_MAX_HELD 12

/*
 * May a CPU holding held[0..n) take l? 0, or -EDEADLK (l is held already,
 * or ranks at or below a held lock), -ENOSPC (LOCK_MAX_HELD reached); on
 * an error *culprit is the held lock in the way (NULL for -ENOSPC). Pure.
 */
int lock_order_check(const struct spinlock *const *held, u32 n, const struct spinlock *l,
		     const struct spinlock **culprit);

/* Take l (spinning), after the order check; a violation prints both locks and stops. */
void spin_lock(struct spinlock *l);
/* Take l if it is free: true when taken. The order check applies. */
bool spin_trylock(struct spinlock *l);
/* Release l, which this CPU holds (else a bug: stops the machine). */
void spin_unlock(struct spinlock *l);
/* Locks this CPU holds now. */
u32 spin_held_count(void);
/* True if this CPU holds l. */
bool spin_held(const struct spinlock *l);

/*
 * A recursive lock: the CPU that holds it may take it again (depth
 * counted); the order check applies to the first acquisition only. For
 * code whose public entry points call each other (mm: memremap_pages adds
 * the direct map through direct_map_add) and for newlib's malloc, which
 * takes its lock again inside realloc.
 */
struct rlock {
	struct spinlock lock;
	u32 depth;		/* touched only by the holder */
};

#define RLOCK_INIT(_name, _rank) { .lock = SPINLOCK_INIT(_name, _rank), .depth = 0 }

void rlock_lock(struct rlock *r);
/* Take r if it is free or this CPU holds it: true when taken (depth counted). */
bool rlock_trylock(struct rlock *r);
void rlock_unlock(struct rlock *r);

#endif
