/* Spinlocks and the lock-order check (include/spinlock.h). */
#include <errno.h>

#include "arch.h"
#include "printk.h"
#include "spinlock.h"

/* Per CPU: the locks it holds, in the order taken. Only its own CPU touches a row. */
static struct {
	const struct spinlock *lock[LOCK_MAX_HELD];
	u32 n;
} held[ARCH_MAX_CPUS];

int lock_order_check(const struct spinlock *const *h, u32 n, const struct spinlock *l,
		     const struct spinlock **culprit)
{
	*culprit = NULL;
	for (u32 i = 0; i < n; i++) {
		if (h[i] == l || h[i]->rank >= l->rank) {
			*culprit = h[i];
			return -EDEADLK;
		}
	}
	return n >= LOCK_MAX_HELD ? -ENOSPC : 0;
}

static __noreturn void lock_bug(const char *what, const struct spinlock *l,
				const struct spinlock *other)
{
	if (other)
		pr_emerg("spinlock: CPU %u %s %s (rank %d) while holding %s (rank %d)\n",
			 arch_cpu_id(), what, l->name, l->rank, other->name, other->rank);
	else
		pr_emerg("spinlock: CPU %u %s %s (rank %d)\n", arch_cpu_id(), what, l->name,
			 l->rank);
	arch_exit(EXIT_PANIC);
}

static void check_and_push(struct spinlock *l)
{
	u32 cpu = arch_cpu_id();
	const struct spinlock *culprit;
	int err = lock_order_check(held[cpu].lock, held[cpu].n, l, &culprit);

	if (err == -ENOSPC)
		lock_bug("holds too many locks to take", l, NULL);
	if (err)
		lock_bug(culprit == l ? "takes again" : "breaks the lock order taking", l,
			 culprit == l ? NULL : culprit);
}

static void push(struct spinlock *l)
{
	u32 cpu = arch_cpu_id();

	held[cpu].lock[held[cpu].n++] = l;
	__atomic_store_n(&l->owner, cpu, __ATOMIC_RELAXED);
}

void spin_lock(struct spinlock *l)
{
	check_and_push(l);
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			arch_cpu_relax();
	push(l);
}

bool spin_trylock(struct spinlock *l)
{
	check_and_push(l);
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	push(l);
	return true;
}

void spin_unlock(struct spinlock *l)
{
	u32 cpu = arch_cpu_id();
	u32 n = held[cpu].n;

	if (!__atomic_load_n(&l->locked, __ATOMIC_RELAXED) || l->owner != cpu)
		lock_bug("releases a lock it does not hold:", l, NULL);
	/* Usually the last one taken; any order of release is allowed. */
	for (u32 i = n; i-- > 0;) {
		if (held[cpu].lock[i] != l)
			continue;
		for (u32 j = i; j + 1 < n; j++)
			held[cpu].lock[j] = held[cpu].lock[j + 1];
		held[cpu].n--;
		break;
	}
	/* No CPU's number: a CPU that held it last must not see itself as owner (spin_held). */
	__atomic_store_n(&l->owner, ~0u, __ATOMIC_RELAXED);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);	/* the critical section's stores before it */
}

u32 spin_held_count(void)
{
	return held[arch_cpu_id()].n;
}

bool spin_held(const struct spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == arch_cpu_id();
}

void rlock_lock(struct rlock *r)
{
	/* Only the holder can see itself as owner: another CPU's owner value never matches. */
	if (spin_held(&r->lock)) {
		r->depth++;
		return;
	}
	spin_lock(&r->lock);
	r->depth = 1;
}

bool rlock_trylock(struct rlock *r)
{
	if (spin_held(&r->lock)) {
		r->depth++;
		return true;
	}
	if (!spin_trylock(&r->lock))
		return false;
	r->depth = 1;
	return true;
}

void rlock_unlock(struct rlock *r)
{
	if (--r->depth == 0)
		spin_unlock(&r->lock);
}
