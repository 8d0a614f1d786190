/*
 * Address Range Scrub, clear and error injection: the NVDIMM root device's
 * _DSM (ACPI 6.4 §9.20.7; "NVDIMM Root Device _DSMs", functions 1-4, 7-9;
 * FACTS-4 §3), spoken by the nvdimm core through a narrow transport
 * (struct nd_ars_ops) that a provider registers on its bus: the ACPICA
 * driver on ACPI platforms, a fake firmware in the host tests. The core
 * encodes every input and decodes every output; the transport only moves
 * bytes. Results go into the regions' bad-block lists (badblocks.h), the
 * same lists machine checks fill and reads check.
 *
 * Layouts (little endian, Linux's struct nd_cmd_ars_*):
 *   1 Query ARS Capabilities  in {u64 address, u64 length}
 *                             out {u32 status, u32 max status output,
 *                                  u32 clear unit, u16 flags, u16 reserved}
 *   2 Start ARS               in {u64 address, u64 length, u16 type,
 *                                  u8 flags, u8 reserved[5]}
 *                             out {u32 status, u32 estimated seconds}
 *   3 Query ARS Status        in -
 *                             out {u32 status, u32 output length (from its
 *                                  own field: 44 + 24 n; Linux takes 48 + 24 n
 *                                  too), u64 address, u64 length, u64 restart
 *                                  address, u64 restart length, u16 type,
 *                                  u16 flags, u32 n, n x {u32 handle, u32
 *                                  reserved, u64 address, u64 length}}
 *   4 Clear Uncorrectable Error in {u64 address, u64 length}
 *                             out {u32 status, u32 reserved, u64 cleared}
 *   7 ARS Error Inject        in {u64 address, u64 length, u8 options}
 *                             out {u32 status}
 *   8 ARS Error Inject Clear  in {u64 address, u64 length} out {u32 status}
 *   9 ARS Error Inject Status in - out {u32 status, u32 n, n x {u64
 *                                  address, u64 length}}
 * Status: bits 15:0 the command's (0 success, 1 not supported, 6 ARS busy
 * for a start), bits 31:16 extended. Capabilities' extended bit 1:
 * persistent-memory scrub. ARS status's extended status (Linux's
 * NFIT_ARS_STATUS_*): 0 complete, 1 in progress, 2 none this boot, 3
 * stopped early: with flag bit 0 the output overflowed, and the scrub goes
 * on from the restart address and length.
 */
#ifndef PMEMK_ND_ARS_H
#define PMEMK_ND_ARS_H

#include "types.h"

struct nd_bus;
struct nd_region;

enum {
	ND_ARS_FN_CAP = 1,
	ND_ARS_FN_START = 2,
	ND_ARS_FN_STATUS = 3,
	ND_ARS_FN_CLEAR = 4,
	ND_ARS_FN_INJECT = 7,
	ND_ARS_FN_INJECT_CLEAR = 8,
	ND_ARS_FN_INJECT_STATUS = 9,
};

#define ND_ARS_STATUS_HDR 48 /* the status output before its records */
#define ND_ARS_RECORD 24
#define ND_ARS_OUT_MAX (64 * 1024) /* a larger maximum status output is clamped */

/*
 * The transport: root _DSM function `fn` with `in` (in_len bytes; NULL, 0
 * for none). Copies at most out_max bytes of the output into `out` and
 * returns the output's whole length (more than out_max: cut), or a
 * negative errno after one line. Called under the ARS lock, one at a time.
 */
struct nd_ars_ops {
	int (*call)(u32 fn, const void *in, u32 in_len, void *out, u32 out_max);
};

/* A region's scrub, as the core tracks it (nd_region.ars_state). */
enum nd_ars_state {
	ND_ARS_IDLE,	  /* nothing asked */
	ND_ARS_REQUESTED, /* start-scrub asked; not started yet (another region's ran) */
	ND_ARS_RUNNING,	  /* started; results not collected yet */
};

/* A status output, decoded (nd_ars_status_parse). */
struct nd_ars_status {
	u32 status; /* the whole dword */
	u32 out_len;
	u64 addr, len, restart_addr, restart_len;
	u16 type, flags;
	u32 nrec;	/* records the firmware counted */
	u32 nrec_valid; /* of them, those the buffer holds whole */
	const u8 *rec;	/* nrec_valid records of ND_ARS_RECORD bytes */
};

/* What a status says, by Linux's reading (xlat_bus_status). */
enum nd_ars_result {
	ND_ARS_DONE,	 /* complete: the records are final */
	ND_ARS_BUSY,	 /* in progress */
	ND_ARS_NONE,	 /* no scrub this boot */
	ND_ARS_OVERFLOW, /* stopped: output full; go on from the restart range */
	ND_ARS_FAILED,	 /* a command status, or an extended status unknown */
};

/*
 * Decode a status output of `len` bytes. 0 and *st; -EINVAL when it is
 * too short for its status and length, or, when complete or stopped, for
 * the header its length claims. Records beyond the buffer or the output
 * length are not counted in nrec_valid. Pure (fuzzed: fuzz_ars).
 */
int nd_ars_status_parse(const u8 *buf, u32 len, struct nd_ars_status *st);
enum nd_ars_result nd_ars_status_result(const struct nd_ars_status *st);

/*
 * Record i of a parsed status clipped to the range [start, start + size):
 * true and the 512-byte sectors it touches relative to start (*sector,
 * *count); false for a record outside it, empty or wrapping. Pure.
 */
bool nd_ars_record_sectors(const struct nd_ars_status *st, u32 i, u64 start, u64 size,
			   u64 *sector, u64 *count);

/* The provider's transport for `bus` (one bus, one root device). */
void nd_ars_register(struct nd_bus *bus, const struct nd_ars_ops *ops, u64 funcs);

/* Does r's bus offer function fn? */
bool nd_ars_has(const struct nd_region *r, u32 fn);

/*
 * After publication (kmain, through the provider): for each region whose
 * bus has ARS, its capabilities; then the results of a scrub the firmware
 * ran already, else one started and waited for (boot_wait_ms at most,
 * nd.ars=off skips it); the records into the regions' lists. One line per
 * region.
 */
void nd_ars_boot(void);

/*
 * Start a scrub of r (start-scrub): 0; -EBUSY when the firmware runs
 * another (r is then REQUESTED and nd_ars_wait starts it); -ENOTTY when r
 * has no ARS; -EIO after one line.
 */
int nd_ars_start_region(struct nd_region *r);

/*
 * Wait for r's scrub (started, requested, or the firmware's own) for at
 * most timeout_ms, following restarts, and list what it found: 0 and the
 * records that met r in *records; -ETIMEDOUT, -ENOTTY, -EIO.
 */
int nd_ars_wait(struct nd_region *r, u64 timeout_ms, u32 *records);

/*
 * A write is about to cover region bytes [off, off + len), and the listed
 * bad sectors [s0, s1) lie whole inside it: clear them through the
 * firmware (function 4), each listed run grown to the clear unit when the
 * write covers that, else trimmed to it. 0 when every run was cleared (or
 * r's firmware has no clear: the list alone is the record); -EIO when a
 * run cannot be cleared whole (the clear unit reaches past the write, or
 * the firmware cleared less): the caller fails the write. The list itself
 * is the caller's to clear.
 */
int nd_ars_clear_write(struct nd_region *r, u64 off, u64 len, u64 s0, u64 s1);

/* Error injection through functions 7/8/9, [phys, phys + len) of r: 0 or -EIO after one line. */
int nd_ars_inject(struct nd_region *r, u64 phys, u64 len, bool notify);
int nd_ars_uninject(struct nd_region *r, u64 phys, u64 len);
/*
 * The firmware's injected ranges (function 9): up to max into addr/len;
 * returns how many there are, or a negative errno after one line.
 */
int nd_ars_inject_status(struct nd_region *r, u64 *addr, u64 *len, u32 max);

#endif
