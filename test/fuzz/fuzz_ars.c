/*
 * libFuzzer harness: the ARS status output (nvdimm/ars.c, nd_ars.h; ACPI
 * 6.4 §9.20.7.4), decoded alone and then fed through the boot scrub of a
 * region as the firmware's first answer to Query ARS Status.
 *
 * Input: byte 0 picks the maximum status output the fake firmware's
 * capabilities claim (bit 0: 48 + 8 records, else 64 KiB); the rest is the
 * status output. The fake firmware answers the first status query with it
 * and every later one with "complete, no records" (so restarts and polls
 * end). Seeds: test/fuzz/seeds/fuzz_ars (test/fuzz/mkseeds.py).
 *
 * Checked: the parser never counts a record the buffer or the output
 * length does not hold; a record it clips lies inside the range it was
 * clipped to; after the boot scrub every listed bad sector lies inside
 * the region, and the list is well formed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct_map.h"
#include "host.h"
#include "nd_ars.h"
#include "nvdimm.h"
#include "unaligned.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                     \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "invariant broken: %s\n", #cond); \
			abort();                                        \
		}                                                       \
	} while (0)

#define REGION_START (4 * GiB)
#define REGION_SIZE (2 * GiB - 2 * MiB)

/* acpi.c is linked for the NFIT sources; nothing here maps tables. */
int direct_map_add(u64 pa, u64 len)
{
	(void)pa;
	(void)len;
	return -EINVAL;
}

static const u8 *out_data;
static u32 out_size, max_out, status_calls;

static int fake_call(u32 fn, const void *in, u32 in_len, void *out, u32 out_max)
{
	u8 b[ND_ARS_STATUS_HDR] = { 0 };

	(void)in;
	(void)in_len;
	switch (fn) {
	case ND_ARS_FN_CAP:
		put_le32(b, 2u << 16);
		put_le32(b + 4, max_out);
		put_le32(b + 8, 256);
		memcpy(out, b, MIN(16u, out_max));
		return 16;
	case ND_ARS_FN_START:
		memcpy(out, b, MIN(8u, out_max));
		return 8;
	case ND_ARS_FN_STATUS:
		if (status_calls++ == 0) {
			memcpy(out, out_data, MIN(out_size, out_max));
			return (int)out_size;
		}
		put_le32(b + 4, 44);
		put_le64(b + 8, REGION_START);
		put_le64(b + 16, REGION_SIZE);
		memcpy(out, b, MIN((u32)sizeof(b), out_max));
		return (int)sizeof(b);
	default:
		put_le32(b, 1);
		memcpy(out, b, MIN(4u, out_max));
		return 4;
	}
}

static const struct nd_ars_ops fake_ops = { fake_call };

static void check_parse(const u8 *buf, u32 len)
{
	struct nd_ars_status st;
	int err = nd_ars_status_parse(buf, len, &st);

	CHECK(err == 0 || err == -EINVAL);
	if (err)
		return;
	CHECK(st.nrec_valid <= st.nrec);
	if (st.nrec_valid) {
		u64 end = ND_ARS_STATUS_HDR + (u64)st.nrec_valid * ND_ARS_RECORD;
		CHECK(end <= len && end <= (u64)st.out_len + 4);
	}
	for (u32 i = 0; i <= st.nrec_valid; i++) {
		u64 s, c;
		if (!nd_ars_record_sectors(&st, i, REGION_START, REGION_SIZE, &s, &c))
			continue;
		CHECK(i < st.nrec_valid && c && s + c <= REGION_SIZE >> BADBLOCK_SHIFT);
	}
	(void)nd_ars_status_result(&st);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct nd_region_desc rd = { .start = REGION_START, .size = REGION_SIZE };

	if (!size)
		return 0;
	max_out = data[0] & 1 ? ND_ARS_STATUS_HDR + 8 * ND_ARS_RECORD : ND_ARS_OUT_MAX;
	out_data = data + 1;
	out_size = (u32)MIN(size - 1, (size_t)1 << 20);
	check_parse(out_data, out_size);

	nd_reset();
	host_console_reset();
	struct nd_bus *bus = nd_bus_register("nfit");
	CHECK(nd_region_create(bus, &rd, NULL) == 0);
	nd_regions_publish();
	struct nd_region *r = nd_region_get(0);
	nd_ars_register(bus, &fake_ops, 0x1f);
	status_calls = 0;
	nd_ars_boot();
	u64 prev_end = 0;
	for (u32 i = 0; i < badblocks_count(&r->bb); i++) {
		const struct bb_extent *e = &r->bb.e[i];
		CHECK(e->len && e->sector + e->len <= REGION_SIZE >> BADBLOCK_SHIFT);
		CHECK(i == 0 || e->sector > prev_end);
		prev_end = e->sector + e->len;
	}
	return 0;
}
