/*
 * libFuzzer harness: a DIMM's label storage area (nvdimm/label.c), then a
 * one-DIMM region made of it (nvdimm/namespace_label.c), then `list`; then
 * a 2-way interleave set whose DIMMs hold the input's first and second 128
 * KiB (the first twice when the input is shorter): labels across DIMMs
 * (nvdimm/namespace_label_read.c).
 *
 * Input: the area itself (its size is the input's, rounded down to 4
 * bytes, at most 128 KiB per DIMM). Seeds: test/fuzz/seeds/fuzz_label (the
 * Linux fixtures' areas, v1.1 and v1.2).
 *
 * Checked after every input: the parse's current index and counts are
 * within their contracts, every live label lies inside the DIMM range it
 * claims, the region's namespaces lie inside it without overlapping, and
 * free space plus namespaces never exceed the region.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct_map.h"
#include "host.h"
#include "nd_label.h"
#include "nvdimm.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                     \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "invariant broken: %s\n", #cond); \
			abort();                                        \
		}                                                       \
	} while (0)

#define AREA_MAX (128 * 1024)

/* acpi.c is linked for the NFIT sources; nothing here maps tables. */
int direct_map_add(u64 pa, u64 len)
{
	(void)pa;
	(void)len;
	return -EINVAL;
}

static u8 area[AREA_MAX];
static struct nd_lsa lsa;

/* r's namespaces inside it, apart, each DIMM's share whole pages; free space within bounds. */
static void check_region(struct nd_region *r, u32 ways)
{
	u64 used = 0, avail, max;

	for (u32 i = 0; nd_region_namespace(r, i); i++) {
		const struct nd_namespace_io *ns = nd_region_namespace(r, i);
		CHECK(ns->start >= r->start && ns->start + ns->size <= r->start + r->size);
		CHECK(!ns->labelled || ns->size % (ways * 4096) == 0);
		for (u32 k = 0; k < i; k++) {
			const struct nd_namespace_io *o = nd_region_namespace(r, k);
			CHECK(ns->start + ns->size <= o->start || o->start + o->size <= ns->start);
		}
		used += ns->size;
	}
	CHECK(!r->closed || r->nr_namespaces == 0);
	nd_region_available(r, &avail, &max);
	CHECK(max <= avail && avail + (r->labelled ? used : 0) <= r->size);
}

static u8 area2[2][AREA_MAX];

/* A 2-way set (region offsets 0 and 4 KiB) of the input's two halves. */
static void fuzz_set(const u8 *data, size_t size, u32 n)
{
	u32 n2 = size > AREA_MAX ? (u32)MIN(size - AREA_MAX, (size_t)AREA_MAX) & ~3u : n;
	struct nd_region_desc rd = { .start = 4 * GiB, .size = 512 * MiB, .nr_mappings = 2 };

	memcpy(area2[0], data, n);
	memcpy(area2[1], size > AREA_MAX ? data + AREA_MAX : data, n2);
	nd_reset();
	host_console_reset();
	struct nd_bus *bus = nd_bus_register("nfit");
	for (u32 k = 0; k < 2; k++) {
		struct nvdimm desc = { .handle = 1 + 16 * k, .serial = 0x123456 + k, .vendor_id = 0x8086 };
		struct nvdimm *d = nvdimm_create(bus, &desc);
		d->lsa = area2[k];
		d->lsa_size = k ? n2 : n;
		rd.mapping[k] = (struct nd_mapping){ d, 0, 256 * MiB, (int)k, k * 4096 };
	}
	CHECK(nd_region_create(bus, &rd, NULL) == 0);
	nd_regions_publish();
	check_region(nd_region_get(0), 2);
	nd_list(ND_LIST_REGIONS | ND_LIST_NAMESPACES | ND_LIST_DIMMS, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u32 n = (u32)MIN(size, (size_t)AREA_MAX) & ~3u;
	struct nvdimm desc = { .handle = 1, .serial = 0x123456, .vendor_id = 0x8086 };
	struct nd_region_desc rd = { .start = 4 * GiB, .size = 2 * GiB - 2 * MiB, .nr_mappings = 1 };

	memcpy(area, data, n);
	int err = nd_lsa_parse(&lsa, area, n);
	CHECK(err == 0 || err == -EINVAL);
	CHECK(lsa.current >= -1 && lsa.current <= 1 && (err == 0) == (lsa.current >= 0));
	CHECK(lsa.nr_live <= ND_LABEL_MAX_LIVE && lsa.nr_refused <= ND_LABEL_MAX_LIVE);
	for (u32 i = 0; i < lsa.nr_live; i++)
		CHECK(lsa.live[i].slot < lsa.nslot && lsa.live[i].rawsize &&
		      lsa.live[i].dpa + lsa.live[i].rawsize > lsa.live[i].dpa);
	nd_lsa_json(area, n, "nmem0");

	nd_reset();
	host_console_reset();
	struct nd_bus *bus = nd_bus_register("nfit");
	struct nvdimm *d = nvdimm_create(bus, &desc);
	d->lsa = area;
	d->lsa_size = n;
	rd.mapping[0] = (struct nd_mapping){ d, 0, rd.size, 0, 0 };
	CHECK(nd_region_create(bus, &rd, NULL) == 0);
	nd_regions_publish();
	check_region(nd_region_get(0), 1);
	nd_list(ND_LIST_REGIONS | ND_LIST_NAMESPACES, NULL, NULL);
	fuzz_set(data, size, n);
	return 0;
}
