/*
 * What a machine-check bank's error means (mce.h): Intel SDM vol. 3B
 * §16.3.2 (MCi_STATUS, MCi_MISC), §16.6 (software error recovery: UCR
 * errors SRAR, SRAO, UCNA) and §16.9 (the compound error codes of MCACOD).
 * Pure: the host tests run it.
 */
#include "mce.h"

/* Granules coarser than a 1 GiB page are not a poisoned line we can list. */
#define MCE_MAX_LSB 30

enum mce_verdict mce_decode(const struct mce_record *r, bool in_copy, u64 *phys, u64 *len,
			    const char **why)
{
	u64 st = r->status;

	if (!(st & MCI_STATUS_UC))
		return MCE_CORRECTED;
	if (st & MCI_STATUS_PCC) {
		*why = "processor context corrupt";
		return MCE_FATAL;
	}
	if (!(r->mcg_status & MCG_STATUS_RIPV)) {
		*why = "no restart address (RIPV clear)";
		return MCE_FATAL;
	}
	if (!(st & MCI_STATUS_ADDRV)) {
		*why = "no address (ADDRV clear)";
		return MCE_FATAL;
	}
	u32 lsb = 12; /* without MISCV, assume a page as Linux does */
	if (st & MCI_STATUS_MISCV) {
		if (MCI_MISC_MODE(r->misc) != MCI_MISC_MODE_PHYS) {
			*why = "address not physical (MCi_MISC mode)";
			return MCE_FATAL;
		}
		lsb = MCI_MISC_LSB(r->misc);
	}
	if (lsb > MCE_MAX_LSB) {
		*why = "granule too coarse";
		return MCE_FATAL;
	}
	*len = 1ull << lsb;
	*phys = r->addr & ~(*len - 1);
	bool action_required = (st & MCI_STATUS_S) && (st & MCI_STATUS_AR);
	if (!action_required)
		return MCE_RECORD; /* SRAO (a scrub) or UCNA: the poison was not consumed */
	if (!in_copy) {
		*why = "action required outside a machine-check-safe copy";
		return MCE_FATAL;
	}
	return MCE_RECOVER;
}

const char *mce_error_kind(u64 status)
{
	static const char *const request[16] = {
		"cache error",	     "read",	    "write",	   "data read",	  "data write",
		"instruction fetch", "prefetch",    "eviction",	   "snoop",	  "cache error",
		"cache error",	     "cache error", "cache error", "cache error", "cache error",
		"cache error",
	};
	u32 code = (u32)(status & MCI_STATUS_MCACOD) & ~0x1000u; /* F (filtering) aside */

	if ((code & 0xfff0) == 0x00C0) /* memory controller 0000 0000 1MMM CCCC, MMM 100 */
		return "memory scrub";
	if ((code & 0xff80) == 0x0080)
		return "memory controller";
	if ((code & 0xff00) == 0x0100) /* cache hierarchy 0000 0001 RRRR TTLL */
		return request[(code >> 4) & 0xf];
	return "error";
}
