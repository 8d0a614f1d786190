/*
 * Machine checks (Intel SDM vol. 3B ch. 16): the banks cleared and CR4.MCE
 * set on every CPU, the #MC handler, and the injector's half that loads a
 * bank and raises vector 18 inside the copy.
 *
 * The handler reads every bank with an error, clears it and acts on
 * mce_decode()'s verdict: poison on pmem found in passing (a scrub) is
 * queued for its region's bad-block list; poison a machine-check-safe copy
 * consumed is queued too and the copy resumes at its fixup, returning the
 * bytes not copied; anything else (not recoverable, or not pmem) prints one
 * decoded line and stops the machine, as Linux panics. It prints nothing
 * on the way that goes on: the queue's drain does (media_error.h).
 */
#include "arch.h"
#include "cpu_features.h"
#include "media_poison.h"
#include "mce.h"
#include "printk.h"
#include "trap.h"
#include "x86.h"

#define CR4_MCE (1ull << 6)

struct mce_stats mce_stats;
static u32 mce_banks; /* 0: no MCA (or no #MC at all) */

int wrmsr_safe(u32 msr, u64 val); /* copy_mc.S: 0, or -EIO after a #GP */
size_t copy_mc_raise(size_t n); /* copy_mc.S */

static void print_caps(u64 cap)
{
	pr_info("mce: machine checks on: %u banks%s%s%s%s\n", mce_banks,
		cap & MCG_CAP_CTL_P ? ", MCG_CTL" : "",
		cap & MCG_CAP_SER_P ? ", recoverable uncorrected (SER)" :
				      ", no SER (anything uncorrected stops the machine)",
		cap & MCG_CAP_CMCI_P ? ", CMCI" : "", cap & MCG_CAP_LMCE_P ? ", LMCE" : "");
}

/* This CPU's banks: every error reported, every old record cleared (SDM §16.8 steps). */
static void init_banks(u32 banks, u64 cap, bool boot)
{
	if (cap & MCG_CAP_CTL_P)
		wrmsr(MSR_MCG_CTL, ~0ull);
	for (u32 i = 0; i < banks; i++) {
		u64 st = rdmsr(MSR_MC_STATUS(i));
		if (boot && (st & MCI_STATUS_VAL))
			pr_warn("mce: bank %u held an error from before boot (status %#llx, %s): cleared\n",
				i, st, mce_error_kind(st));
		wrmsr(MSR_MC_CTL(i), ~0ull);
		wrmsr(MSR_MC_STATUS(i), 0);
	}
}

void arch_mce_init_cpu(void)
{
	bool boot = arch_cpu_id() == 0;

	if (!cpu_features.mce) {
		if (boot)
			pr_info("mce: this CPU has no machine-check exception: a poisoned read stops the machine\n");
		return;
	}
	if (cpu_features.mca) {
		u64 cap = rdmsr(MSR_MCG_CAP);
		u32 banks = (u32)(cap & MCG_CAP_COUNT);
		init_banks(banks, cap, boot);
		if (boot) {
			mce_banks = banks;
			print_caps(cap);
		}
	} else if (boot) {
		pr_info("mce: machine-check exception without the architecture (no banks): every #MC stops the machine\n");
	}
	write_cr4(read_cr4() | CR4_MCE);
}

static __noreturn void mce_fatal(const struct mce_record *r, const char *why)
{
	pr_emerg(
		"mce: CPU %u bank %u: uncorrected %s error at %#llx (status %#llx misc %#llx mcg_status %#llx): %s: machine stopped\n",
		r->cpu, r->bank, mce_error_kind(r->status), r->addr, r->status, r->misc,
		r->mcg_status, why);
	arch_exit(EXIT_MACHINE_CHECK);
}

/* One bank's error: read, cleared, acted on. True when it was consumed by a copy. */
static bool handle_bank(u32 bank, u64 mcg, u64 fixup)
{
	struct mce_record r = { .cpu = arch_cpu_id(),
				.bank = bank,
				.mcg_status = mcg,
				.status = rdmsr(MSR_MC_STATUS(bank)) };
	u64 phys = 0, len = 0;
	const char *why = "";

	if (!(r.status & MCI_STATUS_VAL))
		return false;
	if (r.status & MCI_STATUS_ADDRV)
		r.addr = rdmsr(MSR_MC_ADDR(bank));
	if (r.status & MCI_STATUS_MISCV)
		r.misc = rdmsr(MSR_MC_MISC(bank));
	wrmsr(MSR_MC_STATUS(bank), 0);
	enum mce_verdict v = mce_decode(&r, fixup != 0, &phys, &len, &why);
	if (v == MCE_CORRECTED) {
		__atomic_fetch_add(&mce_stats.corrected, 1, __ATOMIC_RELAXED);
		return false;
	}
	if (v != MCE_FATAL &&
	    !media_error_notify(phys, len,
				v == MCE_RECOVER ? MEDIA_ERR_MCE_SYNC : MEDIA_ERR_MCE_ASYNC)) {
		v = MCE_FATAL;
		why = "not persistent memory";
	}
	if (v == MCE_FATAL)
		mce_fatal(&r, why);
	__atomic_fetch_add(&mce_stats.recovered, 1, __ATOMIC_RELAXED);
	return v == MCE_RECOVER;
}

bool mce_handle(struct trap_frame *f)
{
	u64 fixup = ex_table_fixup(f->rip);
	bool consumed = false, any = false;

	if (!mce_banks) {
		struct mce_record r = { .cpu = arch_cpu_id() };
		mce_fatal(&r, "no machine-check banks to say what failed");
	}
	u64 mcg = rdmsr(MSR_MCG_STATUS);
	for (u32 b = 0; b < mce_banks; b++) {
		u64 st = rdmsr(MSR_MC_STATUS(b));
		any |= (st & MCI_STATUS_VAL) != 0;
		consumed |= handle_bank(b, mcg, fixup);
	}
	if (!any && !(mcg & MCG_STATUS_RIPV)) {
		struct mce_record r = { .cpu = arch_cpu_id(), .mcg_status = mcg };
		mce_fatal(&r, "no bank holds an error and RIPV is clear");
	}
	wrmsr(MSR_MCG_STATUS, 0); /* MCIP off: the next #MC is not a shutdown */
	if (consumed)
		f->rip = fixup;
	return true;
}

/*
 * The injector (media_error.h): the bank with the highest number, loaded
 * as QEMU's `mce` command would for a data load that met poison (UC, EN,
 * S, AR, MISCV, ADDRV; MCACOD 0x134; MISC: physical address, 512-byte
 * granule; MCG_STATUS RIPV|EIPV|MCIP), then vector 18 from inside the copy.
 * A CPU that refuses the writes (hardware allows them only in debug modes)
 * gets the record filed directly, with one line.
 */
size_t arch_copy_mc_inject(void *dst, const void *src, size_t n, u64 phys)
{
	const u64 status = MCI_STATUS_VAL | MCI_STATUS_UC | MCI_STATUS_EN | MCI_STATUS_MISCV |
			   MCI_STATUS_ADDRV | MCI_STATUS_S | MCI_STATUS_AR | 0x134;
	u32 b = mce_banks - 1;
	static bool said;

	(void)dst;
	(void)src;
	if (mce_banks && (read_cr4() & CR4_MCE) && !wrmsr_safe(MSR_MC_ADDR(b), phys) &&
	    !wrmsr_safe(MSR_MC_MISC(b), (MCI_MISC_MODE_PHYS << 6) | 9) &&
	    !wrmsr_safe(MSR_MC_STATUS(b), status) &&
	    !wrmsr_safe(MSR_MCG_STATUS, MCG_STATUS_RIPV | MCG_STATUS_EIPV | MCG_STATUS_MCIP))
		return copy_mc_raise(n);
	if (mce_banks)
		(void)wrmsr_safe(MSR_MC_STATUS(b), 0);
	if (!said)
		pr_warn("mce: this CPU cannot load a bank: injected errors are filed without a machine check\n");
	said = true;
	media_error_notify(phys & ~511ull, 512, MEDIA_ERR_MCE_SYNC);
	return n;
}
