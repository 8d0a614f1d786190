/*
 * Host tests: spinlocks and the lock-order check (lib/spinlock.c) on one
 * CPU (the host fake's arch_cpu_id() is 0). Contention across CPUs is
 * tested in the kernel (kernel/ktests_smp.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "spinlock.h"

static struct spinlock a = SPINLOCK_INIT("a", LOCK_RANK_TEST_A);
static struct spinlock b = SPINLOCK_INIT("b", LOCK_RANK_TEST_B);
static struct spinlock call = SPINLOCK_INIT("call", LOCK_RANK_SMP_CALL);

static void test_order_check(void **state)
{
	const struct spinlock *held[LOCK_MAX_HELD] = { &call, &a };
	const struct spinlock *culprit;

	(void)state;
	assert_int_equal(lock_order_check(held, 0, &a, &culprit), 0);
	assert_null(culprit);
	assert_int_equal(lock_order_check(held, 1, &a, &culprit), 0);
	assert_int_equal(lock_order_check(held, 2, &b, &culprit), 0);
	/* Taking a lock again, or one ranked at or below a held one. */
	assert_int_equal(lock_order_check(held, 2, &a, &culprit), -EDEADLK);
	assert_ptr_equal(culprit, &a);
	assert_int_equal(lock_order_check(held, 2, &call, &culprit), -EDEADLK);
	assert_ptr_equal(culprit, &call);
	held[0] = &b;
	assert_int_equal(lock_order_check(held, 1, &a, &culprit), -EDEADLK);
	assert_ptr_equal(culprit, &b);
}

static void test_too_many_held(void **state)
{
	struct spinlock l[LOCK_MAX_HELD + 1];
	const struct spinlock *held[LOCK_MAX_HELD];
	const struct spinlock *culprit;

	(void)state;
	for (int i = 0; i <= LOCK_MAX_HELD; i++)
		l[i] = (struct spinlock)SPINLOCK_INIT("l", (enum lock_rank)(200 + i));
	for (int i = 0; i < LOCK_MAX_HELD; i++)
		held[i] = &l[i];
	assert_int_equal(lock_order_check(held, LOCK_MAX_HELD, &l[LOCK_MAX_HELD], &culprit),
			 -ENOSPC);
	assert_null(culprit);
}

/* Lock, nest in order, release out of order: the held list follows. */
static void test_lock_unlock(void **state)
{
	(void)state;
	assert_int_equal(spin_held_count(), 0);
	spin_lock(&call);
	spin_lock(&a);
	assert_int_equal(spin_held_count(), 2);
	assert_int_equal(a.locked, 1);
	assert_true(spin_trylock(&b));
	assert_int_equal(spin_held_count(), 3);
	spin_unlock(&a);	/* not the last taken */
	assert_int_equal(a.locked, 0);
	spin_unlock(&b);
	spin_unlock(&call);
	assert_int_equal(spin_held_count(), 0);
	/* Free again: it can be taken again. */
	assert_true(spin_trylock(&a));
	spin_unlock(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_check),
		cmocka_unit_test(test_too_many_held),
		cmocka_unit_test(test_lock_unlock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
