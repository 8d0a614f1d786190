/*
 * Machine-check architecture (Intel SDM vol. 3B ch. 16): the registers,
 * the bits of MCi_STATUS, MCi_MISC and MCG_STATUS that decide what an
 * error means, and the pure decision (mce_decode.c) the #MC handler (mce.c)
 * acts on, which the host tests run too.
 */
#ifndef PMEMK_MCE_H
#define PMEMK_MCE_H

#include "types.h"

#define MSR_MCG_CAP 0x179
#define MSR_MCG_STATUS 0x17A
#define MSR_MCG_CTL 0x17B
#define MSR_MC_CTL(i) (0x400u + 4 * (i))
#define MSR_MC_STATUS(i) (0x401u + 4 * (i))
#define MSR_MC_ADDR(i) (0x402u + 4 * (i))
#define MSR_MC_MISC(i) (0x403u + 4 * (i))

#define MCG_CAP_COUNT 0xffull /* banks */
#define MCG_CAP_CTL_P (1ull << 8)
#define MCG_CAP_CMCI_P (1ull << 10)
#define MCG_CAP_TES_P (1ull << 11)
#define MCG_CAP_SER_P (1ull << 24) /* software error recovery: S and AR are valid */
#define MCG_CAP_LMCE_P (1ull << 27)

#define MCG_STATUS_RIPV (1ull << 0) /* the saved RIP may be returned to */
#define MCG_STATUS_EIPV (1ull << 1) /* the saved RIP is where the error happened */
#define MCG_STATUS_MCIP (1ull << 2) /* a #MC is in progress */

#define MCI_STATUS_VAL (1ull << 63)
#define MCI_STATUS_OVER (1ull << 62)
#define MCI_STATUS_UC (1ull << 61)
#define MCI_STATUS_EN (1ull << 60)
#define MCI_STATUS_MISCV (1ull << 59)
#define MCI_STATUS_ADDRV (1ull << 58)
#define MCI_STATUS_PCC (1ull << 57)
#define MCI_STATUS_S (1ull << 56) /* signalled by #MC (with SER_P) */
#define MCI_STATUS_AR (1ull << 55) /* action required (with SER_P) */
#define MCI_STATUS_MCACOD 0xffffull

#define MCI_MISC_LSB(m) ((u32)((m)&0x3f))
#define MCI_MISC_MODE(m) ((u32)(((m) >> 6) & 7))
#define MCI_MISC_MODE_PHYS 2

/* Errors the handler let the machine go on after (tests, `mce` stats). */
struct mce_stats {
	u64 corrected; /* corrected errors seen in a bank during a #MC */
	u64 recovered; /* uncorrected errors on pmem, listed */
};
extern struct mce_stats mce_stats;

/* What one bank's error means for the machine. */
enum mce_verdict {
	MCE_CORRECTED, /* nothing to do but count it */
	MCE_RECORD, /* poison found in passing (a scrub, UCNA): list it, go on */
	MCE_RECOVER, /* poison consumed by a machine-check-safe copy: list it, fail the copy */
	MCE_FATAL, /* nothing can make the interrupted code go on correctly */
};

/* One bank's error, read. */
struct mce_record {
	u32 cpu, bank;
	u64 status, addr, misc, mcg_status;
};

/*
 * The decision (Linux's mce_severity in miniature). `in_copy`: the #MC
 * interrupted an instruction listed in the exception table. On MCE_RECORD
 * and MCE_RECOVER, *phys and *len are the poisoned range (the address
 * aligned down to the granule MCi_MISC gives), which the caller must
 * still find in pmem (else the error is fatal after all). On MCE_FATAL,
 * *why says why.
 */
enum mce_verdict mce_decode(const struct mce_record *r, bool in_copy, u64 *phys, u64 *len,
			    const char **why);

/* "data load (MCACOD 0x134)", ...: the error's kind, from MCACOD (SDM Table 16-x). */
const char *mce_error_kind(u64 status);

#endif
