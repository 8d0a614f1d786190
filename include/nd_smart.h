/*
 * DIMM health: the Intel NVDIMM _DSM family's function 1 (Get SMART and
 * Health Info; UUID 4309ac30-0d11-11e4-9191-0800200c9a66) decoded the way
 * ndctl 76.1 reads it (ndctl/lib/intel.h struct nd_intel_smart, intel.c,
 * util/json-smart.c) and printed as its `list -H` "health" object.
 *
 * The function's output (Intel NVDIMM DSM Interface, "Get SMART and Health
 * Info"; ndctl's struct nd_intel_smart; Linux drivers/acpi/nfit/intel.h):
 *   +0  u32 status (0: success)
 *   +4  the 128-byte payload:
 *       +0 u32 flags: which fields are valid (ND_SMART_V_* below)
 *       +4 reserved[4]
 *       +8 u8 health status: bit 0 non-critical, 1 critical, 2 fatal
 *       +9 u8 spare blocks, percent remaining
 *      +10 u8 percentage of life used
 *      +11 u8 alarm trips: bit 0 spares, 1 media temperature, 2 controller
 *      +12 u16 media temperature, +14 u16 controller temperature: 1/16 C,
 *          bit 15 the sign
 *      +16 u32 unsafe shutdown count
 *      +20 u8 AIT DRAM status, +21 u16 PMIC temperature, +23 reserved[8]
 *      +31 u8 last shutdown status (0 clean)
 *      +32 u32 vendor data size, +36 vendor data[92]
 * Portable: pure functions over a byte image, host-tested and fuzzed.
 */
#ifndef PMEMK_ND_SMART_H
#define PMEMK_ND_SMART_H

#include <stddef.h>

#include "types.h"

#define ND_SMART_PAYLOAD_LEN 128
#define ND_SMART_OUT_LEN (4 + ND_SMART_PAYLOAD_LEN)	/* status + payload */

/* The payload's valid-field flags (ndctl's ND_INTEL_SMART_*_VALID). */
#define ND_SMART_V_HEALTH	(1u << 0)
#define ND_SMART_V_SPARES	(1u << 1)
#define ND_SMART_V_USED		(1u << 2)
#define ND_SMART_V_MTEMP	(1u << 3)
#define ND_SMART_V_CTEMP	(1u << 4)
#define ND_SMART_V_SHUTDOWN_COUNT (1u << 5)
#define ND_SMART_V_ALARM	(1u << 9)
#define ND_SMART_V_SHUTDOWN	(1u << 10)

/* Health status bits; alarm trip bits. */
#define ND_SMART_NON_CRITICAL	(1u << 0)
#define ND_SMART_CRITICAL	(1u << 1)
#define ND_SMART_FATAL		(1u << 2)
#define ND_SMART_SPARE_TRIP	(1u << 0)
#define ND_SMART_MTEMP_TRIP	(1u << 1)
#define ND_SMART_CTEMP_TRIP	(1u << 2)

/* One DIMM's decoded SMART payload. */
struct nd_smart {
	bool known;		/* decoded; false: ndctl's "health_state":"unknown" */
	u32 flags;		/* ND_SMART_V_* */
	u8 health;
	u8 spares;
	u8 life_used;
	u8 alarm_flags;
	u16 media_temp;		/* raw: 1/16 C, bit 15 the sign */
	u16 ctrl_temp;
	u32 shutdown_count;
	u8 shutdown_state;	/* 0 clean, else dirty */
};

/*
 * Decode function 1's output `out` (len bytes: status, then the payload).
 * 0 with *s filled; else s->known is false and a negative errno with a
 * short reason in why[why_len]: -EIO for a non-zero status, -EINVAL for
 * an output too short for the payload.
 */
int nd_smart_decode(const u8 *out, size_t len, struct nd_smart *s, char *why, size_t why_len);

/* ndctl's health_state: "ok", "non-critical", "critical", "fatal"; NULL when not valid. */
const char *nd_smart_health_name(const struct nd_smart *s);

/* A raw temperature as json-c prints ndctl's double: "30.0", "52.5", "-0.0625". */
void nd_smart_temp_str(u16 raw, char buf[16]);

/* Worth a boot line: health valid and not ok, or the last shutdown dirty. */
bool nd_smart_attention(const struct nd_smart *s);

/*
 * One line's summary, "health critical, media 52.5 C, ... shutdown dirty
 * (count 4)", of the valid fields, into buf[n].
 */
void nd_smart_summary(const struct nd_smart *s, char *buf, size_t n);

struct nd_json;
/* "health":{...} with ndctl's keys, order and formatting (util/json-smart.c). */
void nd_smart_json(struct nd_json *j, const struct nd_smart *s);

#endif
