/*
 * Media errors (media_error.h): the queue a machine check fills without a
 * lock, its draining into the regions' bad-block lists, the kernel's
 * injector, and what a write over bad sectors does.
 */
#include <errno.h>

#include "idle.h"
#include "media_error.h"
#include "nd_ars.h"
#include "nvdimm.h"
#include "printk.h"

struct media_error_stats media_error_stats;

/*
 * Records from #MC context: a slot is claimed by moving `claimed` on
 * (compare-and-swap, only while there is room), filled, then marked full; the drainer takes full slots in claim order. A #MC
 * cannot be interrupted by another on the same CPU (MCIP), and the queue
 * is drained often, so 64 slots are plenty; a record that finds the queue
 * full is counted as lost and said so at the next drain.
 */
#define QUEUE_SLOTS 64

struct queued_error {
	u64 phys, len;
	struct nd_region *region;
	enum media_error_source src;
	u32 full; /* 1 once the fields above are written (atomic) */
};

static struct queued_error queue[QUEUE_SLOTS];
static u64 claimed, drained; /* slots claimed and taken, since boot (atomic) */
u32 media_errors_pending;    /* set by a record, cleared by the drain that files it */

/* The published region holding all of [phys, phys + len), or NULL. Lock-free: regions never go. */
static struct nd_region *region_of(u64 phys, u64 len)
{
	for (u32 i = 0; i < nd_region_count(); i++) {
		struct nd_region *r = nd_region_get(i);
		if (phys >= r->start && len <= r->size && phys - r->start <= r->size - len)
			return r;
	}
	return NULL;
}

bool media_error_notify(u64 phys, u64 len, enum media_error_source src)
{
	struct nd_region *r = len ? region_of(phys, len) : NULL;

	if (!r)
		return false;
	__atomic_fetch_add(&media_error_stats.notified, 1, __ATOMIC_RELAXED);
	/* Claim a slot only while the queue has room: a claimed slot is always filled. */
	u64 slot = __atomic_load_n(&claimed, __ATOMIC_ACQUIRE);
	do {
		if (slot - __atomic_load_n(&drained, __ATOMIC_ACQUIRE) >= QUEUE_SLOTS) {
			__atomic_fetch_add(&media_error_stats.lost, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&media_errors_pending, 1, __ATOMIC_RELEASE);
			return true;
		}
	} while (!__atomic_compare_exchange_n(&claimed, &slot, slot + 1, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	struct queued_error *q = &queue[slot % QUEUE_SLOTS];
	*q = (struct queued_error){ .phys = phys, .len = len, .region = r, .src = src };
	__atomic_store_n(&q->full, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&media_errors_pending, 1, __ATOMIC_RELEASE);
	return true;
}

static const char *source_name(enum media_error_source src)
{
	switch (src) {
	case MEDIA_ERR_MCE_SYNC:
		return "machine check on a read";
	case MEDIA_ERR_MCE_ASYNC:
		return "machine check (scrub)";
	default:
		return "injected";
	}
}

/* One record into its region's list: the 512-byte sectors it touches. */
static void file_record(const struct queued_error *q)
{
	struct nd_region *r = q->region;
	u64 off = q->phys - r->start;
	u64 first = off >> BADBLOCK_SHIFT;
	u64 last = (off + q->len - 1) >> BADBLOCK_SHIFT;

	/* A machine check on a sector makes it bad whether or not it was injected. */
	badblocks_set(&r->bb, first, last - first + 1);
	__atomic_fetch_add(&media_error_stats.filed, 1, __ATOMIC_RELAXED);
	pr_err("%s: media error at %#llx (%llu bytes), sectors %llu-%llu: %s, listed\n", r->name,
	       q->phys, q->len, first, last, source_name(q->src));
}

static u64 lost_said;

void media_errors_drain(void)
{
	static struct spinlock drain_lock = SPINLOCK_INIT("media-errors", LOCK_RANK_MEDIA_ERRORS);

	if (!__atomic_load_n(&media_errors_pending, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&drain_lock);
	/* Cleared first: a record made meanwhile sets it again and is seen. */
	__atomic_store_n(&media_errors_pending, 0, __ATOMIC_SEQ_CST);
	for (;;) {
		u64 slot = __atomic_load_n(&drained, __ATOMIC_ACQUIRE);
		struct queued_error *q = &queue[slot % QUEUE_SLOTS];
		if (slot == __atomic_load_n(&claimed, __ATOMIC_ACQUIRE) ||
		    !__atomic_load_n(&q->full, __ATOMIC_ACQUIRE))
			break; /* empty, or its writer is still filling it */
		struct queued_error copy = *q;
		__atomic_store_n(&q->full, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&drained, slot + 1, __ATOMIC_RELEASE);
		file_record(&copy);
	}
	/* A slot still being filled on another CPU: the next read or idle pass files it. */
	if (__atomic_load_n(&drained, __ATOMIC_ACQUIRE) != __atomic_load_n(&claimed, __ATOMIC_ACQUIRE))
		__atomic_store_n(&media_errors_pending, 1, __ATOMIC_RELEASE);
	u64 lost = __atomic_load_n(&media_error_stats.lost, __ATOMIC_RELAXED);
	if (lost != lost_said) {
		pr_err("media errors: %llu machine-check records lost while the queue was full\n",
		       lost - lost_said);
		lost_said = lost;
	}
	spin_unlock(&drain_lock);
}

/* Machine checks that a scrub raised are filed while the machine is idle. */
static bool drain_when_idle(void)
{
	media_errors_drain(); /* one load when nothing is pending */
	return false;	      /* it never has more to do at once */
}
IDLE_WORK(drain_when_idle, IDLE_BOOT_CPU);


bool media_errors_first(struct nd_region *r, u64 sector, u64 len, u64 *first, bool *poisoned)
{
	u64 listed = ~0ull, injected = ~0ull;

	media_errors_drain();
	bool bad = badblocks_check(&r->bb, sector, len, &listed);
	bool pois = badblocks_check(&r->poison, sector, len, &injected);
	if (!bad && !pois)
		return false;
	*first = MIN(listed, injected);
	*poisoned = injected < listed;
	return true;
}

/* Is region sector s bad (listed or poisoned)? */
static bool sector_bad(struct nd_region *r, u64 s)
{
	u64 first;
	bool poisoned;

	return media_errors_first(r, s, 1, &first, &poisoned);
}

int media_errors_write(struct nd_region *r, u64 off, u64 len)
{
	u64 head = off >> BADBLOCK_SHIFT, end = off + len;
	u64 tail = (end - 1) >> BADBLOCK_SHIFT;
	u64 whole0 = (off + (1u << BADBLOCK_SHIFT) - 1) >> BADBLOCK_SHIFT;
	u64 whole1 = end >> BADBLOCK_SHIFT; /* whole sectors: [whole0, whole1) */

	if (!len)
		return 0;
	/* A sector covered only in part cannot be healed: its other bytes are lost. */
	if ((off & 511) && sector_bad(r, head))
		return -EIO;
	if ((end & 511) && sector_bad(r, tail))
		return -EIO;
	if (whole1 <= whole0)
		return 0;
	/*
	 * Healed before the write lands (Linux's nvdimm_clear_poison, then the
	 * copy): first through the firmware, when it can clear (nd_ars.h; it
	 * keeps its own error list, which the next scrub would report again);
	 * a range it cannot clear whole fails the write and stays listed.
	 * Then the injector's list: when a split finds no room in either, the
	 * range is still listed bad (a full poison list changes nothing; a
	 * full bad-block list keeps it listed).
	 */
	if (nd_ars_clear_write(r, off, len, whole0, whole1))
		return -EIO;
	if (badblocks_clear(&r->poison, whole0, whole1 - whole0) ||
	    badblocks_clear(&r->bb, whole0, whole1 - whole0))
		return -EIO; /* a split the full list has no room for: still bad */
	return 0;
}

int media_inject(struct nd_region *r, u64 sector, u64 len)
{
	if (!len || sector >= r->size >> BADBLOCK_SHIFT ||
	    len > (r->size >> BADBLOCK_SHIFT) - sector)
		return -ERANGE;
	return badblocks_set(&r->poison, sector, len);
}

int media_uninject(struct nd_region *r, u64 sector, u64 len)
{
	if (!len || sector >= r->size >> BADBLOCK_SHIFT ||
	    len > (r->size >> BADBLOCK_SHIFT) - sector)
		return -ERANGE;
	media_errors_drain();
	/* The bytes were never damaged: the listed copies of the injection go too. */
	int err = badblocks_clear(&r->poison, sector, len);
	return err ? err : badblocks_clear(&r->bb, sector, len);
}
