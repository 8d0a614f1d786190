/*
 * libFuzzer harness: the NFIT parser, then the nfit provider and the
 * nvdimm core on whatever it parsed, then `list` on the result.
 *
 * Input: a whole table when it starts with "NFIT" (the header is then
 * fuzzed too, including a length that disagrees with the input), else the
 * subtables alone, behind a header made to fit them. Seeds:
 * test/fuzz/seeds/fuzz_nfit (the QEMU fixtures in both forms).
 *
 * Checked after every input: the parse's result and counts are within
 * their contracts, every parsed subtable lies inside the table, regions are
 * sorted, disjoint and non-empty with their namespaces covering them, and
 * the JSON `list` prints is balanced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct_map.h"
#include "host.h"
#include "nfit.h"
#include "nvdimm.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                     \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "invariant broken: %s\n", #cond); \
			abort();                                        \
		}                                                       \
	} while (0)

/* Tables are fed to the parser directly; acpi.c still needs the symbol. */
int direct_map_add(u64 pa, u64 len)
{
	(void)pa;
	(void)len;
	return -EINVAL;
}

static struct nfit_table nt;
static u8 table[NFIT_HEADER_LEN + 65536];

static size_t make_table(const u8 *data, size_t size)
{
	if (size >= 4 && !memcmp(data, "NFIT", 4)) {
		size = MIN(size, sizeof(table));
		memcpy(table, data, size);
		return size;
	}
	size = MIN(size, sizeof(table) - NFIT_HEADER_LEN);
	memset(table, 0, NFIT_HEADER_LEN);
	memcpy(table, "NFIT", 4);
	u32 len = (u32)(NFIT_HEADER_LEN + size);
	memcpy(table + 4, &len, 4);
	table[8] = 1;
	memcpy(table + NFIT_HEADER_LEN, data, size);
	return NFIT_HEADER_LEN + size;
}

static void check_parse(int err, size_t len)
{
	CHECK(err == 0 || err == -EINVAL || err == -ENODEV || err == -ENOSPC);
	CHECK(nt.nr_spa <= NFIT_MAX_SPA && nt.nr_memdev <= NFIT_MAX_MEMDEV);
	CHECK(nt.nr_idt <= NFIT_MAX_IDT && nt.nr_smbios <= NFIT_MAX_SMBIOS);
	CHECK(nt.nr_dcr <= NFIT_MAX_DCR && nt.nr_bdw <= NFIT_MAX_BDW);
	CHECK(nt.nr_flush <= NFIT_MAX_FLUSH);
	CHECK(nt.walk.length <= len);
	CHECK((err == -EINVAL) == (nt.walk.truncated || nt.walk.nr_rejected > 0) || err == -ENODEV);
	CHECK(err != -ENOSPC || nt.walk.nr_dropped > 0);
	for (u32 i = 0; i < nt.nr_spa; i++) {
		bool cookie = nt.spa[i].flags & NFIT_SPA_COOKIE_VALID;
		CHECK(nt.spa[i].h.length == (cookie ? NFIT_SPA_COOKIE_LEN : NFIT_SPA_LEN));
		CHECK(nt.spa[i].offset + nt.spa[i].h.length <= nt.walk.length);
		CHECK(cookie || nt.spa[i].location_cookie == 0);
		CHECK(i == 0 || nt.spa[i].offset > nt.spa[i - 1].offset);
	}
	for (u32 i = 0; i < nt.nr_memdev; i++)
		CHECK(nt.memdev[i].offset + NFIT_MEMDEV_LEN <= nt.walk.length);
	for (u32 i = 0; i < nt.nr_dcr; i++)
		CHECK(nt.dcr[i].offset + nt.dcr[i].length <= nt.walk.length);
	for (u32 i = 0; i < nt.nr_flush; i++)
		CHECK(nt.flush[i].offset + NFIT_FLUSH_LEN + 8ULL * nt.flush[i].hint_count <= nt.walk.length);
	for (u32 i = 0; i < nt.nr_idt; i++)
		CHECK(nt.idt[i].offset + NFIT_IDT_LEN + 4ULL * nt.idt[i].line_count <= nt.walk.length);
	for (u32 i = 0; i < nt.nr_smbios; i++)
		CHECK(nt.smbios[i].data_offset + nt.smbios[i].data_length <= nt.walk.length);
	if (nt.caps.present && nt.caps.highest_capability < 31)
		CHECK(!(nt.caps.valid >> (nt.caps.highest_capability + 1)));
}

static void check_regions(void)
{
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		CHECK(r->id == (int)i && r->size > 0 && r->start + r->size > r->start);
		CHECK(i == 0 || nd_region_get(i - 1)->start + nd_region_get(i - 1)->size <= r->start);
		const struct nd_namespace_io *ns = nd_region_namespace(r, 0);
		CHECK(ns && ns->region == r && ns->start == r->start && ns->size == r->size);
		CHECK(r->nr_mappings <= ND_MAX_MAPPINGS);
		CHECK(r->align == nd_region_default_align(r->size, r->nr_mappings));
		for (u32 m = 0; m < r->nr_mappings; m++) {
			CHECK(r->mapping[m].nvdimm != NULL);
			CHECK(r->mapping[m].position >= 0 &&
			      r->mapping[m].position < (int)r->nr_mappings);
		}
	}
}

/* Braces and brackets balance (names and ids never contain them). */
static void check_json(const char *s)
{
	int curly = 0, square = 0;

	for (; *s; s++) {
		curly += (*s == '{') - (*s == '}');
		square += (*s == '[') - (*s == ']');
		CHECK(curly >= 0 && square >= 0);
	}
	CHECK(curly == 0 && square == 0);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	size_t len = make_table(data, size);
	int err;

	host_console_reset();
	err = nfit_parse(table, len, &nt);
	check_parse(err, len);
	if (err == -ENODEV)
		return 0;
	nd_reset();
	nfit_register(&nt, nd_bus_register("nfit"));
	nd_regions_publish();
	check_regions();
	host_console_reset();
	nd_list(ND_LIST_DIMMS | ND_LIST_REGIONS | ND_LIST_NAMESPACES, NULL, NULL);
	check_json(host_console_text());
	return 0;
}
