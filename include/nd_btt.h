/*
 * BTT devices (Linux's nd_btt, ndctl mode "sector"): a namespace holding a
 * BTT becomes device bttN.0 with block device pmemNs, whose every sector
 * write is atomic (btt.h). One whose metadata is damaged or that cannot be
 * served is claimed disabled with the reason, never shown raw.
 *
 * What probing writes: nothing, except a map entry whose write the log
 * says completed (Linux's start-up does the same), with a line; nothing at
 * all on a read-only region, where the device is read-only.
 */
#ifndef PMEMK_ND_BTT_H
#define PMEMK_ND_BTT_H

#include "btt.h"
#include "nvdimm.h"
#include "pmem.h"

#define ND_BTT_DEFAULT_LBASIZE 4096	/* ndctl create-namespace -m sector */

struct nd_btt {
	char name[16];			/* bttN.0 */
	struct nd_namespace_io *ns;
	struct btt btt;			/* the engine, while open */
	bool open;
	bool enabled;			/* pmemNs is registered */
	char reason[192];		/* why it is disabled */
	u8 uuid[16];			/* from the info block, for list */
	u32 lbasize;
	struct pmem_device pmem;	/* pmemNs */
};

/*
 * Probe `ns`, whose head holds a BTT info block (or its signature) at
 * `info_off` (4096: BTT 1.1; 0: 2.0): claim it, open the BTT (start-up
 * recovery included) and register pmemNs, or leave it claimed and
 * disabled with the reason. Prints one line (and one per repair).
 */
void nd_btt_probe(struct nd_namespace_io *ns, u64 info_off);

/* The BTT device claiming `ns` (enabled or disabled), or NULL. */
struct nd_btt *nd_btt_of(struct nd_namespace_io *ns);

/*
 * Drop pmemNs, close the BTT and release the claim. Nothing is written.
 * -EBUSY, and nothing changes, while pmemNs is held (pmem_hold).
 */
int nd_btt_detach(struct nd_namespace_io *ns);

/*
 * What create-namespace -m sector checks before anything changes: a sector
 * size Linux accepts and room for an arena (16 MiB after the 4 KiB initial
 * offset). Prints one line and returns -EINVAL / -ENOSPC otherwise.
 */
int nd_btt_prepare(struct nd_namespace_io *ns, u32 lbasize);

/*
 * Write a new BTT 1.1 on the detached namespace `ns` (the first 8 KiB
 * already zeroed, as ndctl does), then probe it. 0 when pmemNs is up.
 */
int nd_btt_create(struct nd_namespace_io *ns, u32 lbasize);

/*
 * check-namespace NS [--repair]: detach whatever `ns` is, run btt_check
 * on its media, probe it again. 0 when clean (or repaired clean).
 */
int nd_btt_check_namespace(struct nd_namespace_io *ns, bool repair);

/* Forget every BTT device (host tests). */
void nd_btt_reset(void);

#endif
