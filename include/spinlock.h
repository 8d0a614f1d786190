/*
 * Spinlocks with a documented lock order and a debug check of it.
 *
 * Every lock has a rank (enum lock_rank); a CPU may take a lock only when
 * its rank is above the rank of every lock it already holds, so no cycle
 * (and no ABBA deadlock) can form. spin_lock() checks this, and that the
 * CPU does not already hold the lock, against a per-CPU list of held
 * locks: a violation is a kernel bug and stops the machine with both
 * names. Interrupts are not touched: nothing takes a lock in an interrupt
 * handler yet.
 *
 * The order, outermost first (add a rank here when a lock is added):
 *   LOCK_RANK_SMP_CALL   smp_call_on_each's one-call-at-a-time lock
 *   LOCK_RANK_BTT_LANE   a BTT lane (struct btt.lane_lock): a sector read or write
 *   LOCK_RANK_BTT_MAP    a BTT map lock, taken inside the lane's for the log + map update
 *   LOCK_RANK_TEST_A/B   ktests and host tests only
 */
#ifndef PMEMK_SPINLOCK_H
#define PMEMK_SPINLOCK_H

#include "types.h"

enum lock_rank {
	LOCK_RANK_SMP_CALL = 10,
	LOCK_RANK_BTT_LANE = 40,
	LOCK_RANK_BTT_MAP = 41,
	LOCK_RANK_TEST_A = 100,
	LOCK_RANK_TEST_B = 101,
};

struct spinlock {
	u32 locked;		/* 0 free, 1 held (atomic) */
	u32 owner;		/* CPU holding it, when locked */
	enum lock_rank rank;
	const char *name;
};

#define SPINLOCK_INIT(_name, _rank) { .locked = 0, .owner = 0, .rank = (_rank), .name = (_name) }

/* Locks one CPU may hold at once; more is a bug the check reports. */
#define LOCK_MAX_HELD 8

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

#endif
