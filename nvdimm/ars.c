/*
 * Address Range Scrub (nd_ars.h): the root _DSM's ARS, clear and injection
 * functions encoded and decoded here, moved by the provider's transport;
 * scrub results into the regions' bad-block lists; clearing a bad range
 * through the firmware before a write lands over it (Linux's
 * nvdimm_clear_poison). Layouts: ACPI 6.4 §9.20.7, FACTS-4 §3.
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "badblocks.h"
#include "nd_ars.h"
#include "nvdimm.h"
#include "params.h"
#include "printk.h"
#include "spinlock.h"
#include "unaligned.h"

#define ARS_EXT_PERSISTENT (1u << 1) /* capabilities: persistent-memory scrub */
#define ARS_TYPE_PERSISTENT 2	     /* start: scrub persistent memory */
#define ARS_START_BUSY 6	     /* start: another scrub is running */
#define ARS_FLAG_OVERFLOW 1	     /* status flags: the output filled up */
#define ARS_MAX_RESTARTS 64	     /* continuations of one scrub before giving up */
#define ARS_BOOT_WAIT_MS 2000

static int ars_boot_off; /* nd.ars=: 0 scrub at boot, 1 not */
KERNEL_PARAM_CHOICE("nd.ars", ars_boot_off, -1,
		    "Address Range Scrub at boot (on, default) or not (off; Linux's nfit.no_init_ars)",
		    "on", "off");

/* One root _DSM call at a time; the status buffer is used under it. */
static struct spinlock ars_lock = SPINLOCK_INIT("ars", LOCK_RANK_ARS);
static u8 status_buf[ND_ARS_OUT_MAX];

/* ---- the status output, pure ---- */

int nd_ars_status_parse(const u8 *buf, u32 len, struct nd_ars_status *st)
{
	memset(st, 0, sizeof(*st));
	if (len < 8)
		return -EINVAL;
	st->status = get_le32(buf);
	st->out_len = get_le32(buf + 4);
	u32 ext = st->status >> 16;
	if ((st->status & 0xffff) || (ext != 0 && ext != 3))
		return 0; /* failed, busy or none: no more fields mean anything */
	if (len < ND_ARS_STATUS_HDR || st->out_len < ND_ARS_STATUS_HDR - 4)
		return -EINVAL;
	st->addr = get_le64(buf + 8);
	st->len = get_le64(buf + 16);
	st->restart_addr = get_le64(buf + 24);
	st->restart_len = get_le64(buf + 32);
	st->type = get_le16(buf + 40);
	st->flags = get_le16(buf + 42);
	st->nrec = get_le32(buf + 44);
	/* What both the buffer and the output length hold (length counts from its own field). */
	u64 end = MIN((u64)len, (u64)st->out_len + 4);
	u64 room = (end - ND_ARS_STATUS_HDR) / ND_ARS_RECORD;
	st->nrec_valid = (u32)MIN((u64)st->nrec, room);
	st->rec = buf + ND_ARS_STATUS_HDR;
	return 0;
}

enum nd_ars_result nd_ars_status_result(const struct nd_ars_status *st)
{
	if (st->status & 0xffff)
		return ND_ARS_FAILED;
	switch (st->status >> 16) {
	case 0:
		return ND_ARS_DONE;
	case 1:
		return ND_ARS_BUSY;
	case 2:
		return ND_ARS_NONE;
	case 3: /* stopped early: the records so far count; overflow means go on */
		return st->flags & ARS_FLAG_OVERFLOW ? ND_ARS_OVERFLOW : ND_ARS_DONE;
	default:
		return ND_ARS_FAILED;
	}
}

bool nd_ars_record_sectors(const struct nd_ars_status *st, u32 i, u64 start, u64 size,
			   u64 *sector, u64 *count)
{
	if (i >= st->nrec_valid)
		return false;
	const u8 *r = st->rec + (u64)i * ND_ARS_RECORD;
	u64 a = get_le64(r + 8), l = get_le64(r + 16);
	if (!l || a + l < a || !size || start + size < start)
		return false;
	u64 s = MAX(a, start), e = MIN(a + l, start + size);
	if (s >= e)
		return false; /* outside the range */
	u64 first = (s - start) >> BADBLOCK_SHIFT;
	u64 last = (e - start - 1) >> BADBLOCK_SHIFT;
	*sector = first;
	*count = last - first + 1;
	return true;
}

/* ---- calls ---- */

void nd_ars_register(struct nd_bus *bus, const struct nd_ars_ops *ops, u64 funcs)
{
	bus->ars = ops;
	bus->ars_funcs = funcs;
}

bool nd_ars_has(const struct nd_region *r, u32 fn)
{
	return r->bus && r->bus->ars && fn < 64 && (r->bus->ars_funcs >> fn & 1);
}

/* Under ars_lock: function fn; the output's length (cut to out_max), or a negative errno. */
static int call(struct nd_region *r, u32 fn, const void *in, u32 in_len, void *out, u32 out_max)
{
	if (!nd_ars_has(r, fn))
		return -ENOTTY;
	int n = r->bus->ars->call(fn, in, in_len, out, out_max);
	if (n < 0)
		return n;
	if (n < 4) {
		pr_err("%s: root _DSM function %u returned %d bytes, no status\n", r->name, fn, n);
		return -EIO;
	}
	return n;
}

static void put_range(u8 *in, u64 addr, u64 len)
{
	put_le64(in, addr);
	put_le64(in + 8, len);
}

/* Under ars_lock: r's capabilities into r->ars_*; 0, -ENOTTY (none), -EIO. */
static int query_cap(struct nd_region *r)
{
	u8 in[16], out[16] = { 0 };

	put_range(in, r->start, r->size);
	int n = call(r, ND_ARS_FN_CAP, in, sizeof(in), out, sizeof(out));
	if (n < 0)
		return n;
	u32 status = get_le32(out), max = get_le32(out + 4), unit = get_le32(out + 8);
	if ((status & 0xffff) == 1 || !((status >> 16) & ARS_EXT_PERSISTENT))
		return -ENOTTY; /* not supported, or not for persistent memory */
	if ((status & 0xffff) || n < 12 || max < ND_ARS_STATUS_HDR) {
		pr_err("%s: ARS capabilities: status %#x, max status output %u: refused\n",
		       r->name, status, max);
		return -EIO;
	}
	r->ars_max_out = MIN(max, (u32)ND_ARS_OUT_MAX);
	/* Linux (nvdimm_clear_poison) clears only with a power-of-two unit. */
	r->ars_clear_unit = nd_ars_has(r, ND_ARS_FN_CLEAR) && unit && !(unit & (unit - 1)) ? unit : 0;
	return 0;
}

/* Under ars_lock: start a scrub of [addr, addr + len); 0, -EBUSY, -EIO. */
static int start_range(struct nd_region *r, u64 addr, u64 len)
{
	u8 in[24] = { 0 }, out[8] = { 0 };

	put_range(in, addr, len);
	put_le16(in + 16, ARS_TYPE_PERSISTENT);
	int n = call(r, ND_ARS_FN_START, in, sizeof(in), out, sizeof(out));
	if (n < 0)
		return n;
	u32 status = get_le32(out) & 0xffff;
	if (status == ARS_START_BUSY)
		return -EBUSY;
	if (status) {
		pr_err("%s: ARS start of [%#llx, +%#llx): status %#x\n", r->name, addr, len,
		       get_le32(out));
		return -EIO;
	}
	return 0;
}

/* Under ars_lock: the status, decoded into *st (over status_buf); a result or -errno. */
static int query_status(struct nd_region *r, struct nd_ars_status *st)
{
	u32 max = r->ars_max_out ? r->ars_max_out : ND_ARS_STATUS_HDR;
	int n = call(r, ND_ARS_FN_STATUS, NULL, 0, status_buf, max);

	if (n < 0)
		return n;
	if ((u32)n > max)
		pr_err("%s: ARS status of %d bytes, more than the %u promised: records past them are lost\n",
		       r->name, n, max);
	if (nd_ars_status_parse(status_buf, MIN((u32)n, max), st)) {
		pr_err("%s: ARS status of %d bytes (length %u): malformed\n", r->name, n,
		       st->out_len);
		return -EIO;
	}
	if (st->nrec_valid < st->nrec)
		pr_err("%s: ARS status counts %u records, holds %u\n", r->name, st->nrec,
		       st->nrec_valid);
	return (int)nd_ars_status_result(st);
}

/* The records of *st that meet r into its list: how many did. */
static u32 list_records(struct nd_region *r, const struct nd_ars_status *st)
{
	u32 n = 0;

	for (u32 i = 0; i < st->nrec_valid; i++) {
		u64 s, c;
		if (nd_ars_record_sectors(st, i, r->start, r->size, &s, &c) &&
		    !badblocks_set(&r->bb, s, c))
			n++;
	}
	return n;
}

/* Does the status's range hold all of r? */
static bool covers(const struct nd_ars_status *st, const struct nd_region *r)
{
	return st->addr <= r->start && st->addr + st->len >= st->addr &&
	       st->addr + st->len >= r->start + r->size;
}

static u64 now_ms(void)
{
	return arch_cycles_to_ns(arch_cycles()) / 1000000;
}

static void wait_1ms(void)
{
	for (u64 t = now_ms(); now_ms() < t + 1;)
		arch_cpu_relax();
}

/*
 * Under ars_lock: poll until the scrub is done (started by the caller for
 * r), following restarts; list the records meeting r, count them into
 * *records. 0, -ETIMEDOUT, -EAGAIN (none), -EIO.
 */
static int collect(struct nd_region *r, u64 timeout_ms, u32 *records)
{
	u64 deadline = now_ms() + timeout_ms;
	struct nd_ars_status st;
	u32 restarts = 0;

	for (;;) {
		int res = query_status(r, &st);
		if (res < 0)
			return res;
		switch ((enum nd_ars_result)res) {
		case ND_ARS_BUSY:
			if (now_ms() >= deadline)
				return -ETIMEDOUT;
			wait_1ms();
			continue;
		case ND_ARS_NONE:
			return -EAGAIN;
		case ND_ARS_FAILED:
			pr_err("%s: ARS status %#x\n", r->name, st.status);
			return -EIO;
		case ND_ARS_DONE:
			*records += list_records(r, &st);
			return 0;
		case ND_ARS_OVERFLOW:
			*records += list_records(r, &st);
			if (++restarts > ARS_MAX_RESTARTS || !st.restart_len) {
				pr_err("%s: ARS output overflowed %u times: the rest is not scrubbed\n",
				       r->name, restarts);
				return -EIO;
			}
			/* Linux's ars_continue: on from where the output filled up. */
			int err = start_range(r, st.restart_addr, st.restart_len);
			if (err)
				return err;
			continue;
		}
	}
}

/* Under ars_lock: start r's scrub (once another one has finished), wait, list. */
static int scrub(struct nd_region *r, u64 timeout_ms, u32 *records)
{
	u64 deadline = now_ms() + timeout_ms;
	int err;

	while ((err = start_range(r, r->start, r->size)) == -EBUSY && now_ms() < deadline)
		wait_1ms();
	if (err)
		return err == -EBUSY ? -ETIMEDOUT : err;
	r->ars_state = ND_ARS_RUNNING;
	err = collect(r, timeout_ms, records);
	if (err != -ETIMEDOUT)
		r->ars_state = ND_ARS_IDLE;
	return err;
}

/* Under ars_lock: the scrub the firmware ran already, if it covers r; else one of ours. */
static int boot_scrub(struct nd_region *r, u32 *records, bool *started)
{
	struct nd_ars_status st;
	int res = query_status(r, &st);

	*started = false;
	if (res < 0)
		return res;
	if (res == ND_ARS_DONE && covers(&st, r)) {
		*records = list_records(r, &st);
		return 0;
	}
	if ((res == ND_ARS_OVERFLOW || res == ND_ARS_BUSY) && covers(&st, r))
		return collect(r, ARS_BOOT_WAIT_MS, records);
	*started = true;
	return scrub(r, ARS_BOOT_WAIT_MS, records);
}

static void boot_region(struct nd_region *r)
{
	u32 records = 0;
	bool started;
	u64 sectors;

	if (query_cap(r))
		return;
	if (ars_boot_off) {
		pr_info("%s: Address Range Scrub: not at boot (nd.ars=off); clear unit %u bytes\n",
			r->name, r->ars_clear_unit);
		return;
	}
	int err = boot_scrub(r, &records, &started);
	badblocks_range(&r->bb, 0, r->size >> BADBLOCK_SHIFT, NULL, 0, &sectors);
	if (err)
		pr_err("%s: Address Range Scrub at boot failed (error %d)\n", r->name, err);
	else
		pr_info("%s: Address Range Scrub (%s): %u error record%s, %llu bad sector%s listed; clear unit %u bytes\n",
			r->name, started ? "started at boot" : "the firmware's", records,
			records == 1 ? "" : "s", sectors, sectors == 1 ? "" : "s", r->ars_clear_unit);
}

void nd_ars_boot(void)
{
	for (u32 i = 0; i < nd_region_count(); i++) {
		struct nd_region *r = nd_region_get(i);
		if (!nd_ars_has(r, ND_ARS_FN_CAP))
			continue;
		spin_lock(&ars_lock);
		boot_region(r);
		spin_unlock(&ars_lock);
	}
}

/* Under ars_lock: r's capabilities, asked once. */
static int ensure_cap(struct nd_region *r)
{
	if (r->ars_max_out)
		return 0;
	if (!nd_ars_has(r, ND_ARS_FN_CAP) || !nd_ars_has(r, ND_ARS_FN_START) ||
	    !nd_ars_has(r, ND_ARS_FN_STATUS))
		return -ENOTTY;
	return query_cap(r);
}

int nd_ars_start_region(struct nd_region *r)
{
	spin_lock(&ars_lock);
	int err = ensure_cap(r);
	if (!err) {
		err = start_range(r, r->start, r->size);
		r->ars_state = err == -EBUSY ? ND_ARS_REQUESTED : err ? ND_ARS_IDLE : ND_ARS_RUNNING;
	}
	spin_unlock(&ars_lock);
	return err;
}

int nd_ars_wait(struct nd_region *r, u64 timeout_ms, u32 *records)
{
	*records = 0;
	spin_lock(&ars_lock);
	int err = ensure_cap(r);
	if (!err && r->ars_state == ND_ARS_REQUESTED)
		err = scrub(r, timeout_ms, records);
	else if (!err) {
		/* Ours running, or the firmware's last scrub: its results (none yet: start one). */
		err = collect(r, timeout_ms, records);
		if (err == -EAGAIN)
			err = scrub(r, timeout_ms, records);
		else if (err != -ETIMEDOUT)
			r->ars_state = ND_ARS_IDLE;
	}
	spin_unlock(&ars_lock);
	return err;
}

/* ---- clear on write ---- */

/* Under ars_lock: clear [addr, addr + len) (region offsets); the bytes cleared, or -EIO. */
static int clear_range(struct nd_region *r, u64 off, u64 len, u64 *cleared)
{
	u8 in[16], out[16] = { 0 };

	put_range(in, r->start + off, len);
	int n = call(r, ND_ARS_FN_CLEAR, in, sizeof(in), out, sizeof(out));
	if (n < 0)
		return n;
	*cleared = n >= 16 ? get_le64(out + 8) : 0;
	if (get_le32(out) & 0xffff) {
		pr_err("%s: clear uncorrectable error [%#llx, +%#llx): status %#x\n", r->name,
		       r->start + off, len, get_le32(out));
		return -EIO;
	}
	return 0;
}

/*
 * The bytes to clear for the bad run [a, b) (region offsets) of a write
 * over [off, end): grown to the clear unit when the write covers that,
 * else trimmed to it; false when what is left does not hold the run.
 */
static bool clear_span(u64 a, u64 b, u64 off, u64 end, u64 unit, u64 *ca, u64 *cb)
{
	u64 ga = a & ~(unit - 1), gb = (b + unit - 1) & ~(unit - 1);

	if (ga >= off && gb <= end) {
		*ca = ga;
		*cb = gb;
		return true;
	}
	*ca = (a + unit - 1) & ~(unit - 1);
	*cb = b & ~(unit - 1);
	return false; /* trimmed: part of the run stays bad */
}

int nd_ars_clear_write(struct nd_region *r, u64 off, u64 len, u64 s0, u64 s1)
{
	struct bb_extent e[BADBLOCKS_MAX];
	u64 unit = r->ars_clear_unit, end = off + len;

	if (!unit || s1 <= s0)
		return 0;
	u32 n = MIN(badblocks_range(&r->bb, s0, s1 - s0, e, BADBLOCKS_MAX, NULL),
		    (u32)BADBLOCKS_MAX);
	int err = 0;
	spin_lock(&ars_lock);
	for (u32 i = 0; i < n && !err; i++) {
		u64 a = (s0 + e[i].sector) << BADBLOCK_SHIFT, b = a + (e[i].len << BADBLOCK_SHIFT);
		u64 ca, cb, cleared = 0;
		if (!clear_span(a, b, off, end, unit, &ca, &cb)) {
			pr_err("%s: bad sectors %llu-%llu: the write does not cover their clear unit (%llu bytes): not cleared\n",
			       r->name, a >> BADBLOCK_SHIFT, (b >> BADBLOCK_SHIFT) - 1, unit);
			err = -EIO;
			break;
		}
		err = clear_range(r, ca, cb - ca, &cleared);
		if (!err && cleared < cb - ca) {
			pr_err("%s: the firmware cleared %llu of %llu bytes at %#llx\n", r->name,
			       cleared, cb - ca, r->start + ca);
			err = -EIO;
		}
	}
	spin_unlock(&ars_lock);
	return err;
}

/* ---- injection ---- */

int nd_ars_inject(struct nd_region *r, u64 phys, u64 len, bool notify)
{
	u8 in[17], out[4] = { 0 };

	put_range(in, phys, len);
	in[16] = notify ? 1 : 0; /* option bit 0: notify the OS */
	spin_lock(&ars_lock);
	int n = call(r, ND_ARS_FN_INJECT, in, sizeof(in), out, sizeof(out));
	spin_unlock(&ars_lock);
	if (n < 0)
		return n;
	if (get_le32(out) & 0xffff) {
		pr_err("%s: ARS error inject [%#llx, +%#llx): status %#x\n", r->name, phys, len,
		       get_le32(out));
		return -EIO;
	}
	return 0;
}

int nd_ars_uninject(struct nd_region *r, u64 phys, u64 len)
{
	u8 in[16], out[4] = { 0 };

	put_range(in, phys, len);
	spin_lock(&ars_lock);
	int n = call(r, ND_ARS_FN_INJECT_CLEAR, in, sizeof(in), out, sizeof(out));
	spin_unlock(&ars_lock);
	if (n < 0)
		return n;
	if (get_le32(out) & 0xffff) {
		pr_err("%s: ARS error inject clear [%#llx, +%#llx): status %#x\n", r->name, phys,
		       len, get_le32(out));
		return -EIO;
	}
	return 0;
}

int nd_ars_inject_status(struct nd_region *r, u64 *addr, u64 *len, u32 max)
{
	static u8 out[8 + 16 * 256];

	spin_lock(&ars_lock);
	int n = call(r, ND_ARS_FN_INJECT_STATUS, NULL, 0, out, sizeof(out));
	u32 count = 0;
	if (n >= 8 && !(get_le32(out) & 0xffff)) {
		u32 have = (u32)(MIN((u32)n, (u32)sizeof(out)) - 8) / 16;
		count = MIN(get_le32(out + 4), have);
		for (u32 i = 0; i < count && i < max; i++) {
			addr[i] = get_le64(out + 8 + 16 * i);
			len[i] = get_le64(out + 16 + 16 * i);
		}
	} else if (n >= 4) {
		pr_err("%s: ARS error inject status: status %#x\n", r->name, get_le32(out));
		n = -EIO;
	}
	spin_unlock(&ars_lock);
	return n < 0 ? n : (int)count;
}
