/*
 * The machine-check-safe copy's contract, on the host CPU with the real
 * arch/x86_64/copy_mc.S: a fault inside it (here a page fault on a guard
 * page, which the kernel's trap handler treats as it treats a #MC on
 * poison: the exception table's fixup) ends the copy with the bytes not
 * copied; the bytes it says it copied are the source's. Also wrmsr_safe
 * (a #GP in user mode is its refusal) and the #MC handler's verdicts.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <cmocka.h>

#include "../../arch/x86_64/mce.h"
#include "../../arch/x86_64/trap.h"
#include "arch.h"

int wrmsr_safe(u32 msr, u64 val);

static unsigned faults;

/* The trap handler's part: resume a listed instruction at its fixup, else die. */
static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	u64 fixup = ex_table_fixup((u64)uc->uc_mcontext.gregs[REG_RIP]);

	(void)si;
	if (!fixup) {
		signal(sig, SIG_DFL);
		return; /* faults again, unhandled: the test dies loudly */
	}
	faults++;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)fixup;
}

static u8 *area; /* two pages: readable and writable, then nothing */

/* Ours, not cmocka's (which it installs around every test): called first in each. */
static void catch_faults(void)
{
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

static int setup(void **state)
{
	(void)state;
	area = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(area != MAP_FAILED);
	assert_int_equal(mprotect(area + 4096, 4096, PROT_NONE), 0);
	for (int i = 0; i < 4096; i++)
		area[i] = (u8)(i * 7 + 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(area, 2 * 4096);
	return 0;
}

static void copies_without_a_fault_return_zero(void **state)
{
	static const size_t sizes[] = { 0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 1000, 4096 };
	u8 dst[4096 + 16];

	(void)state;
	catch_faults();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t mis = 0; mis < 3 && sizes[i] + mis <= 4096; mis++) {
			memset(dst, 0xEE, sizeof(dst));
			assert_int_equal(
				arch_copy_mc(dst + mis, area + 4096 - sizes[i] - mis, sizes[i]), 0);
			assert_memory_equal(dst + mis, area + 4096 - sizes[i] - mis, sizes[i]);
			assert_int_equal(dst[mis + sizes[i]], 0xEE); /* not one byte more */
		}
	}
	assert_int_equal(faults, 0);
}

/* A copy of n bytes from `avail` bytes before the guard page. */
static void check_load_fault(size_t avail, size_t n)
{
	u8 dst[8192];
	unsigned before = faults;

	memset(dst, 0xEE, sizeof(dst));
	size_t left = arch_copy_mc(dst, area + 4096 - avail, n);
	assert_int_equal(faults, before + 1);
	/* Never claims a byte it could not read; errs high by less than one 64-byte step. */
	assert_true(left >= n - avail);
	assert_true(left <= n);
	assert_true(left < n - avail + 64);
	assert_memory_equal(dst, area + 4096 - avail, n - left);
}

static void a_fault_on_a_load_returns_the_bytes_not_copied(void **state)
{
	(void)state;
	catch_faults();
	check_load_fault(0, 1);
	check_load_fault(0, 4096);
	check_load_fault(5, 6);
	check_load_fault(8, 9);
	check_load_fault(63, 64);
	check_load_fault(64, 65);
	check_load_fault(100, 200);
	check_load_fault(4000, 8000);
}

static void a_fault_on_a_store_returns_the_bytes_not_copied(void **state)
{
	u8 src[512];

	(void)state;
	catch_faults();
	memset(src, 0x5A, sizeof(src));
	unsigned before = faults;
	size_t left = arch_copy_mc(area + 4096 - 100, src, sizeof(src));
	assert_int_equal(faults, before + 1);
	assert_true(left >= sizeof(src) - 100 && left < sizeof(src) - 100 + 64);
	assert_memory_equal(area + 4096 - 100, src, sizeof(src) - left);
	for (int i = 0; i < 4096; i++) /* put the pattern back for the other tests */
		area[i] = (u8)(i * 7 + 3);
}

static void load32_reads_or_fails_with_eio(void **state)
{
	u32 v = 0;

	(void)state;
	catch_faults();
	assert_int_equal(arch_load32_mc(area + 4092, &v), 0);
	assert_memory_equal(&v, area + 4092, 4);
	assert_int_equal(arch_load32_mc(area + 4096, &v), -5);
}

static void wrmsr_safe_refused_is_eio(void **state)
{
	(void)state;
	catch_faults();
	/* In user mode WRMSR is a #GP: the same refusal hardware gives a bank write. */
	assert_int_equal(wrmsr_safe(MSR_MC_STATUS(9), 1), -5);
}

/* QEMU's `mce` encodings (FACTS-3 §2.2). */
#define AO_STATUS 0xbd000000000000c0ull
#define AR_STATUS 0xbd80000000000134ull

static enum mce_verdict decode(u64 status, u64 mcg, u64 addr, u64 misc, bool in_copy, u64 *phys,
			       u64 *len)
{
	struct mce_record r = { .status = status, .mcg_status = mcg, .addr = addr, .misc = misc };
	const char *why = NULL;
	enum mce_verdict v = mce_decode(&r, in_copy, phys, len, &why);

	assert_true(v != MCE_FATAL || why);
	return v;
}

static void mce_verdicts_follow_the_sdm(void **state)
{
	u64 phys = 0, len = 0;

	(void)state;
	catch_faults();
	/* A scrub's find (SRAO), 4 KiB granule: recorded, page-aligned. */
	assert_int_equal(decode(AO_STATUS, 5, 0x140001234, 0x8c, false, &phys, &len), MCE_RECORD);
	assert_int_equal(phys, 0x140001000);
	assert_int_equal(len, 4096);
	/* Poison consumed (SRAR): recovered inside a copy, fatal anywhere else. */
	assert_int_equal(decode(AR_STATUS, 7, 0x140000200, 0x89, true, &phys, &len), MCE_RECOVER);
	assert_int_equal(phys, 0x140000200);
	assert_int_equal(len, 512);
	assert_int_equal(decode(AR_STATUS, 7, 0x140000200, 0x89, false, &phys, &len), MCE_FATAL);
	/* Corrected; context corrupt; no restart IP; no address; a non-physical address. */
	assert_int_equal(decode(AR_STATUS & ~MCI_STATUS_UC, 7, 0, 0, false, &phys, &len),
			 MCE_CORRECTED);
	assert_int_equal(decode(AR_STATUS | MCI_STATUS_PCC, 7, 0x1000, 0x8c, true, &phys, &len),
			 MCE_FATAL);
	assert_int_equal(decode(AO_STATUS, 4, 0x1000, 0x8c, false, &phys, &len), MCE_FATAL);
	assert_int_equal(decode(AO_STATUS & ~MCI_STATUS_ADDRV, 5, 0, 0x8c, false, &phys, &len),
			 MCE_FATAL);
	assert_int_equal(decode(AO_STATUS, 5, 0x1000, 0x4c, false, &phys, &len), MCE_FATAL);
	/* Without MISCV a page is assumed. */
	assert_int_equal(decode(AO_STATUS & ~MCI_STATUS_MISCV, 5, 0x12345, 0, false, &phys, &len),
			 MCE_RECORD);
	assert_int_equal(phys, 0x12000);
	assert_string_equal(mce_error_kind(AR_STATUS), "data read");
	assert_string_equal(mce_error_kind(AO_STATUS), "memory scrub");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copies_without_a_fault_return_zero),
		cmocka_unit_test(a_fault_on_a_load_returns_the_bytes_not_copied),
		cmocka_unit_test(a_fault_on_a_store_returns_the_bytes_not_copied),
		cmocka_unit_test(load32_reads_or_fails_with_eio),
		cmocka_unit_test(wrmsr_safe_refused_is_eio),
		cmocka_unit_test(mce_verdicts_follow_the_sdm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
