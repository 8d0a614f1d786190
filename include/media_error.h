/*
 * Media errors: where the bad-block lists of the regions (badblocks.h) get
 * their entries, and the kernel-side error injector.
 *
 * - A machine check on a pmem address (arch/x86_64/mce.c) reports it with
 *   media_error_notify() from #MC context: no lock, no printing; the
 *   record waits in a small ring until media_errors_drain() (the next read
 *   of that media, the idle loop, `list`) files it in its region's list
 *   with one line.
 * - Injection (`inject-error`, ndctl's verb): QEMU's NVDIMM firmware has no
 *   error-injection function, so the kernel keeps its own list of poisoned
 *   sectors per region. The next machine-check-safe read of one takes a
 *   real machine check (arch_copy_mc_inject: bank registers loaded, vector
 *   18 raised inside the copy), which lists it like any other. A write
 *   covering a whole poisoned sector, or --uninject, heals it. A test and
 *   lab facility: the bytes under it are never really damaged.
 */
#ifndef PMEMK_MEDIA_ERROR_H
#define PMEMK_MEDIA_ERROR_H

#include "media_poison.h"
#include "nvdimm.h"
#include "types.h"

struct nd_region;

/* File the queued records in their regions' lists, one line each. */
void media_errors_drain(void);

/* Records queued and not yet filed (or lost and not yet said): the drain's to clear. */
extern u32 media_errors_pending;

/*
 * Anything listed, poisoned or queued that a read of r must look at?
 * Three loads, inline: every read of pmem asks it (PERFORMANCE "Machine-check-safe reads").
 */
static inline bool media_errors_suspect(const struct nd_region *r)
{
	return r && (badblocks_count(&r->bb) | badblocks_count(&r->poison) |
		     __atomic_load_n(&media_errors_pending, __ATOMIC_ACQUIRE));
}

/*
 * The first listed or poisoned sector (region-relative, 512 bytes) in
 * region sectors [sector, sector + len), after draining the queue: true
 * and *first, or false when they are all good. *poisoned says whether it
 * is only poisoned (not yet listed: the read that meets it takes the
 * machine check).
 */
bool media_errors_first(struct nd_region *r, u64 sector, u64 len, u64 *first, bool *poisoned);

/*
 * A write is about to cover region bytes [off, off + len): the whole
 * sectors it covers are healed (listed and poisoned alike); -EIO when a
 * sector it covers only in part is bad (nothing healed).
 */
int media_errors_write(struct nd_region *r, u64 off, u64 len);

/* Inject (poison) or uninject region sectors [sector, sector + len). */
int media_inject(struct nd_region *r, u64 sector, u64 len);
int media_uninject(struct nd_region *r, u64 sector, u64 len);

/* Machine checks and records seen since boot (tests, list). */
struct media_error_stats {
	u64 notified; /* media_error_notify calls that named pmem */
	u64 filed; /* records filed in a list */
	u64 lost; /* records the full queue dropped (each says so when drained) */
};
extern struct media_error_stats media_error_stats;

#endif
