/*
 * Host tests of the fake entry format (test/host/pte_host.c): it must catch
 * the two mistakes a host fake with x86's own encoding would let through,
 * portable code writing x86 bits itself and portable code reading an entry
 * at the wrong level. The mistakes are planted by hand into tables that
 * mm/pgtable.c built; death tests run in a forked child.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "memlayout.h"
#include "pgtable.h"

/* x86 bits (SDM vol. 3A §4.5), for planting entries the way x86 code would write them. */
#define X86_PRESENT_WRITE 0x3ULL
#define X86_PSE 0x80ULL

#define TABLES (1 * GiB) /* table pages come from here */

static u64 next_table_pa;
static struct pgtable pt;

static u64 test_alloc_table(void)
{
	u64 pa = next_table_pa;

	next_table_pa += PAGE_SIZE;
	memset(phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

static int setup(void **state)
{
	(void)state;
	next_table_pa = TABLES;
	pt = (struct pgtable){
		.alloc_table = test_alloc_table,
		.max_leaf = PG_LEVEL_1G,
		.nx = true,
	};
	assert_int_equal(pgtable_init(&pt), 0);
	kernel_pgtable = pt; /* for host_walk */
	return 0;
}

static pte_t *root(void)
{
	return phys_to_virt(pt.root);
}

static bool walk(u64 va, enum pg_level *level)
{
	u64 pa, flags;

	return pgtable_walk(&pt, va, &pa, &flags, level);
}

/* What mm/ may rely on: round trips at every level, zero is absent. */
static void fake_entries_round_trip(void **state)
{
	(void)state;
	for (enum pg_level l = PG_LEVEL_4K; l <= PG_LEVEL_1G; l++) {
		u64 pa = 5 * pg_level_size(l);
		pte_t e = arch_pte_leaf(l, pa, PROT_KERNEL_RX);

		assert_true(arch_pte_is_present(l, e) && arch_pte_is_leaf(l, e));
		assert_false(arch_pte_is_table(l, e));
		assert_int_equal(arch_pte_leaf_pa(l, e), pa);
		assert_int_equal(arch_pte_prot(l, e), PROT_KERNEL_RX);
		assert_int_equal(arch_pte_prot(l, arch_pte_leaf(l, pa, PROT_KERNEL_RW)),
				 PROT_KERNEL_RW);
	}
	for (enum pg_level l = PG_LEVEL_2M; l <= PG_LEVEL_512G; l++) {
		pte_t e = arch_pte_table(l, 0x12345000);

		assert_true(arch_pte_is_table(l, e));
		assert_false(arch_pte_is_leaf(l, e));
		assert_int_equal(arch_pte_table_pa(l, e), 0x12345000);
		assert_false(arch_pte_is_present(l, arch_pte_absent(l)));
		assert_int_equal(arch_pte_absent(l).val, 0);
	}
	assert_false(arch_pte_leaf_allowed(PG_LEVEL_512G));
}

/* The fake stores neither the address nor the present bit where x86 does. */
static void fake_encoding_is_not_x86(void **state)
{
	pte_t e = arch_pte_leaf(PG_LEVEL_4K, 0x12345000, PROT_KERNEL_RW);

	(void)state;
	assert_int_not_equal(e.val & 0x000FFFFFFFFFF000ULL, 0x12345000);
	assert_int_equal(e.val >> 63, 0); /* no NX bit for a no-exec leaf */
	assert_false(arch_pte_is_present(PG_LEVEL_4K, (pte_t){0x12345000 | X86_PRESENT_WRITE}));
}

/* Entries with x86 bits (as mm code writing raw bits would leave) map nothing. */
static void x86_entries_are_holes(void **state)
{
	u64 va = PAGE_OFFSET, pa;
	enum pg_level level;
	u64 pdpt = test_alloc_table();

	(void)state;
	/* A root entry to a PDPT holding an x86 1 GiB leaf. */
	((pte_t *)phys_to_virt(pdpt))[0] = (pte_t){0 | X86_PRESENT_WRITE | X86_PSE};
	root()[pg_level_index(va, PG_LEVEL_512G)] = (pte_t){pdpt | X86_PRESENT_WRITE};
	assert_false(walk(va, &level));
	assert_int_equal(level, PG_LEVEL_512G);
	assert_false(host_walk(va, &pa, &level, NULL));
	/* An x86 4 KiB entry beside one mm made: only mm's is mapped. */
	root()[pg_level_index(va, PG_LEVEL_512G)] = arch_pte_absent(PG_LEVEL_512G);
	assert_int_equal(pgtable_map(&pt, va, pa_init(0x10000), PAGE_SIZE, PROT_KERNEL_RW), 0);
	pte_t *pte = pgtable_entry(&pt, va, PG_LEVEL_4K);
	assert_non_null(pte);
	pte[1] = (pte_t){0x11000 | X86_PRESENT_WRITE};
	assert_true(walk(va, &level));
	assert_false(walk(va + PAGE_SIZE, &level));
	assert_int_equal(level, PG_LEVEL_4K);
	assert_false(host_walk(va + PAGE_SIZE, &pa, &level, NULL));
}

/* Fork; the child runs fn and must die of SIGABRT with `msg` on stderr. */
static void assert_aborts(void (*fn)(void), const char *msg)
{
	char out[1024] = "";
	size_t len = 0;
	int fds[2], status;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGABRT, SIG_DFL);
		dup2(fds[1], STDERR_FILENO);
		fn();
		_exit(0); /* did not abort */
	}
	close(fds[1]);
	for (ssize_t n; (n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0;)
		len += (size_t)n;
	close(fds[0]);
	out[len] = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT || !strstr(out, msg))
		fail_msg("child status %#x, stderr \"%s\"; wanted SIGABRT and \"%s\"", status, out,
			 msg);
}

static void read_table_entry_as_leaf_level(void)
{
	(void)arch_pte_is_present(PG_LEVEL_2M, arch_pte_table(PG_LEVEL_1G, 0x5000));
}

static void read_leaf_as_other_level(void)
{
	(void)arch_pte_leaf_pa(PG_LEVEL_1G, arch_pte_leaf(PG_LEVEL_2M, 0x200000, 0));
}

static void table_pa_of_a_leaf(void)
{
	(void)arch_pte_table_pa(PG_LEVEL_2M, arch_pte_leaf(PG_LEVEL_2M, 0x200000, 0));
}

static void misaligned_leaf(void)
{
	(void)arch_pte_leaf(PG_LEVEL_2M, 0x201000, 0);
}

/* Every accessor checks the level recorded in the entry. */
static void fake_aborts_on_level_mixup(void **state)
{
	(void)state;
	assert_aborts(read_table_entry_as_leaf_level,
		      "level mix-up, the entry was made for level 3");
	assert_aborts(read_leaf_as_other_level, "arch_pte_leaf_pa(level 3");
	assert_aborts(table_pa_of_a_leaf, "not a table entry");
	assert_aborts(misaligned_leaf, "not aligned");
}

static void walk_dm(void)
{
	enum pg_level level;

	(void)walk(PAGE_OFFSET, &level);
}

/*
 * mm code that installs a table entry with the child's level (the classic
 * off-by-one) is caught by the next walk.
 */
static void pgtable_walk_aborts_on_entry_of_wrong_level(void **state)
{
	(void)state;
	assert_int_equal(pgtable_map(&pt, PAGE_OFFSET, pa_init(0), PAGE_SIZE, PROT_KERNEL_RW), 0);
	pte_t *pml4e = pgtable_entry(&pt, PAGE_OFFSET, PG_LEVEL_512G);
	u64 pdpt = arch_pte_table_pa(PG_LEVEL_512G, *pml4e);

	*pml4e = arch_pte_table(PG_LEVEL_1G, pdpt); /* the mistake */
	assert_aborts(walk_dm, "level mix-up, the entry was made for level 3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(fake_entries_round_trip, setup),
		cmocka_unit_test_setup(fake_encoding_is_not_x86, setup),
		cmocka_unit_test_setup(x86_entries_are_holes, setup),
		cmocka_unit_test_setup(fake_aborts_on_level_mixup, setup),
		cmocka_unit_test_setup(pgtable_walk_aborts_on_entry_of_wrong_level, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
