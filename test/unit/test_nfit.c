/*
 * Host tests: the NFIT parser and the nfit/e820 providers on QEMU's
 * tables. The fixtures (test/fixtures/nfit) are checked field by field
 * against the decode in their .txt, and the `list` JSON region by region
 * against what Linux's ndctl printed for the same table; then NFITs as the
 * ACPI walk lists them (a bad checksum, one listed twice, two tables
 * naming one DIMM) and e820 pmem next to them. Crafted subtables are in
 * test_nfit_subtables.c, their DIMMs and regions in test_nfit_register.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "acpi.h"
#include "e820.h"
#include "host.h"
#include "nfit.h"
#include "nfit_tests.h"
#include "nvdimm.h"

/* ---- the fixtures' decode ---- */

/* Whitespace-separated tokens of one line (modified in place). */
static int tokens(char *line, char **tok, int max)
{
	int n = 0;

	for (char *t = strtok(line, " "); t && n < max; t = strtok(NULL, " "))
		tok[n++] = t;
	return n;
}

/* The number after token `key` in a decode line; fails the test when absent. */
static u64 field(char **tok, int n, const char *key, const char *line)
{
	for (int i = 0; i + 1 < n; i++) {
		if (strcmp(tok[i], key) != 0)
			continue;
		char *end;
		u64 v = strtoull(tok[i + 1], &end, 0);
		if (*end == 0)
			return v;
	}
	fail_msg("decode line has no numeric %s: %s", key, line);
	return 0;
}

#define F(key) field(tok, n, key, copy)

static void check_spa_line(char **tok, int n, const char *copy, const struct nfit_spa *s)
{
	assert_non_null(s);
	assert_int_equal(F("len"), NFIT_SPA_LEN);
	assert_int_equal(F("range_index"), s->range_index);
	assert_int_equal(F("base"), s->address);
	assert_int_equal(F("length"), s->length);
	assert_int_equal(F("flags"), s->flags);
	assert_int_equal(F("proximity"), s->proximity_domain);
	assert_int_equal(F("attr"), s->memory_mapping);
	assert_non_null(strstr(copy, "persistent memory"));
	assert_int_equal(s->type, NFIT_SPA_PM);
	assert_false(s->flags & NFIT_SPA_COOKIE_VALID);
}

static void check_memdev_line(char **tok, int n, const char *copy, const struct nfit_memdev *m)
{
	assert_non_null(m);
	assert_int_equal(F("len"), NFIT_MEMDEV_LEN);
	assert_int_equal(F("handle"), m->device_handle);
	assert_int_equal(F("phys_id"), m->physical_id);
	assert_int_equal(F("range_index"), m->range_index);
	assert_int_equal(F("dcr_index"), m->region_index);
	assert_int_equal(F("region_size"), m->region_size);
	assert_int_equal(F("region_offset"), m->region_offset);
	assert_int_equal(F("dpa"), m->address);
	assert_int_equal(F("ways"), m->interleave_ways);
	assert_int_equal(F("flags"), m->flags);
}

static void check_dcr_line(char **tok, int n, const char *copy, const struct nfit_dcr *d)
{
	assert_non_null(d);
	assert_int_equal(F("len"), d->length);
	assert_int_equal(F("dcr_index"), d->region_index);
	assert_int_equal(F("vendor"), d->vendor_id);
	assert_int_equal(F("device"), d->device_id);
	assert_int_equal(F("rev"), d->revision_id);
	assert_int_equal(F("serial"), d->serial_number);
	assert_int_equal(F("format"), d->code);
	assert_int_equal(F("windows"), d->windows);
}

static void check_caps_line(char **tok, int n, const char *copy, const struct nfit_caps *c)
{
	assert_true(c->present);
	assert_int_equal(F("len"), NFIT_CAPS_LEN);
	assert_int_equal(F("highest_valid_bit"), c->highest_capability);
	assert_int_equal(F("capabilities"), c->capabilities);
}

/* The parsed subtable of a kind at a table offset. */
#define AT(arr, nr, off)                                                    \
	({                                                                  \
		typeof(&(arr)[0]) _p = NULL;                                \
		for (u32 _i = 0; _i < (nr); _i++)                           \
			if ((arr)[_i].offset == (off))                      \
				_p = &(arr)[_i];                            \
		_p;                                                         \
	})

/* "@0x028 SPA    len  56  range_index 4 ..." against the parse; returns 1 per line. */
static int check_decode_line(const char *line)
{
	char copy[512], work[512], *tok[64];
	u32 off = (u32)strtoul(line + 1, NULL, 0);
	int n;

	snprintf(copy, sizeof(copy), "%s", line);
	snprintf(work, sizeof(work), "%s", line);
	n = tokens(work, tok, 64);
	assert_true(n > 2);
	if (!strcmp(tok[1], "SPA"))
		check_spa_line(tok, n, copy, AT(nt.spa, nt.nr_spa, off));
	else if (!strcmp(tok[1], "MEMDEV"))
		check_memdev_line(tok, n, copy, AT(nt.memdev, nt.nr_memdev, off));
	else if (!strcmp(tok[1], "DCR"))
		check_dcr_line(tok, n, copy, AT(nt.dcr, nt.nr_dcr, off));
	else if (!strcmp(tok[1], "CAPS"))
		check_caps_line(tok, n, copy, &nt.caps);
	else
		fail_msg("unexpected decode line: %s", line);
	return 1;
}

/* Every decode line, the header line and the subtable counts. */
static void check_decode(const struct fixture *fx)
{
	char line[512];
	int lines = 0, nr_spa = 0, nr_memdev = 0, nr_dcr = 0, nr_caps = 0;
	const char *p = strstr(fx->txt, "\nsubtables");

	assert_non_null(p);
	get_line(p + 1, line, sizeof(line));
	/* "subtables  3: 1 SPA, 1 MEMDEV, 1 DCR[, 1 CAPS]" */
	const char *c;
	if ((c = strstr(line, " SPA")))
		nr_spa = atoi(c - 2);
	if ((c = strstr(line, " MEMDEV")))
		nr_memdev = atoi(c - 2);
	if ((c = strstr(line, " DCR")))
		nr_dcr = atoi(c - 2);
	if ((c = strstr(line, " CAPS")))
		nr_caps = atoi(c - 2);
	assert_int_equal(nt.nr_spa, nr_spa);
	assert_int_equal(nt.nr_memdev, nr_memdev);
	assert_int_equal(nt.nr_dcr, nr_dcr);
	assert_int_equal(nt.caps.present, nr_caps);
	for (p = fx->txt; *p;) {
		p = get_line(p, line, sizeof(line));
		if (line[0] == '@')
			lines += check_decode_line(line);
	}
	assert_int_equal(lines, nr_spa + nr_memdev + nr_dcr + nr_caps);
	assert_non_null(strstr(fx->txt, "header     NFIT rev 1, OEM 'BOCHS ' 'BXPC    '"));
	assert_int_equal(nt.revision, 1);
	assert_string_equal(nt.oem_id, "BOCHS ");
	assert_string_equal(nt.oem_table_id, "BXPC    ");
}

/* ---- ndctl's JSON: blocks of one array, compared as text ---- */

#define MAX_BLOCKS 8

struct blocks {
	int n;
	char text[MAX_BLOCKS][2048];
};

/* The objects of array `key` in pretty-printed JSON (entries at indent 4). */
static void json_blocks(const char *json, const char *key, struct blocks *b)
{
	char want[32], line[512];
	const char *p = json;

	b->n = 0;
	snprintf(want, sizeof(want), "  \"%s\":[", key);
	p = strstr(p, want);
	assert_non_null(p);
	p = get_line(p, line, sizeof(line));
	while (*p) {
		p = get_line(p, line, sizeof(line));
		if (!strncmp(line, "  ]", 3))
			break;
		if (!strcmp(line, "    {")) {
			assert_true(b->n < MAX_BLOCKS);
			b->text[b->n][0] = 0;
		}
		if (!strcmp(line, "    },"))
			line[5] = 0;
		strcat(b->text[b->n], line);
		strcat(b->text[b->n], "\n");
		if (!strcmp(line, "    }"))
			b->n++;
	}
}

/* Replace the first `from` in s (size bytes) by `to`. */
static void replace(char *s, size_t size, const char *from, const char *to)
{
	char *at = strstr(s, from), rest[2048];

	assert_non_null(at);
	snprintf(rest, sizeof(rest), "%s", at + strlen(from));
	snprintf(at, size - (size_t)(at - s), "%s%s", to, rest);
}

static const char *find_block(const struct blocks *b, const char *dev)
{
	for (int i = 0; i < b->n; i++)
		if (strstr(b->text[i], dev))
			return b->text[i];
	fail_msg("no block with %s", dev);
	return NULL;
}

/*
 * Linux numbers regions in table order, we in address order: rename
 * Linux's regionK (and its namespace and pmem device) to ours through the
 * range index both report, then the blocks must be identical.
 */
static void check_ndctl_json(const struct fixture *fx)
{
	static struct blocks lx, ours;
	const char *json = strstr(fx->txt, "== guest: ndctl list -R -N -D -v ==");

	assert_non_null(json);
	host_console_reset();
	nd_list(ND_LIST_DIMMS | ND_LIST_REGIONS | ND_LIST_NAMESPACES, NULL, NULL);
	json_blocks(json, "dimms", &lx);
	json_blocks(host_console_text(), "dimms", &ours);
	assert_int_equal(lx.n, ours.n);
	for (int i = 0; i < lx.n; i++) {
		char dev[32];
		sscanf(strstr(lx.text[i], "\"dev\":"), "\"dev\":\"%31[^\"]", dev);
		assert_string_equal(lx.text[i], find_block(&ours, dev));
	}
	json_blocks(json, "regions", &lx);
	json_blocks(host_console_text(), "regions", &ours);
	assert_int_equal(lx.n, ours.n);
	for (int i = 0; i < lx.n; i++) {
		char from[64], to[64], key[64];
		int k;
		unsigned int range;
		sscanf(strstr(lx.text[i], "\"dev\":\"region"), "\"dev\":\"region%d", &k);
		snprintf(key, sizeof(key), "region%d.nfit.range_index=", k);
		assert_int_equal(sscanf(strstr(fx->txt, key) + strlen(key), "%u", &range), 1);
		const struct nd_region *r = NULL;
		for (u32 j = 0; j < nd_region_count(); j++)
			if (nd_region_get(j)->range_index == range)
				r = nd_region_get(j);
		assert_non_null(r);
		snprintf(from, sizeof(from), "\"region%d\"", k);
		snprintf(to, sizeof(to), "\"region%d\"", r->id);
		replace(lx.text[i], sizeof(lx.text[i]), from, to);
		snprintf(from, sizeof(from), "\"namespace%d.0\"", k);
		snprintf(to, sizeof(to), "\"namespace%d.0\"", r->id);
		replace(lx.text[i], sizeof(lx.text[i]), from, to);
		snprintf(from, sizeof(from), "\"pmem%d\"", k);
		snprintf(to, sizeof(to), "\"pmem%d\"", r->id);
		replace(lx.text[i], sizeof(lx.text[i]), from, to);
		snprintf(key, sizeof(key), "\"%s\"", r->name);
		assert_string_equal(lx.text[i], find_block(&ours, key));
	}
}

/* /proc/iomem's "Persistent Memory" lines are exactly our regions. */
static void check_iomem(const struct fixture *fx)
{
	const char *p = strstr(fx->txt, "grep -i persistent ==\n");
	char line[256];
	u32 n = 0;

	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	for (;;) {
		unsigned long long start, end;
		p = get_line(p, line, sizeof(line));
		if (sscanf(line, "%llx-%llx : Persistent Memory", &start, &end) != 2)
			break;
		bool found = false;
		for (u32 i = 0; i < nd_region_count(); i++) {
			const struct nd_region *r = nd_region_get(i);
			found |= r->start == start && r->start + r->size - 1 == end;
		}
		assert_true(found);
		n++;
	}
	assert_int_equal(n, nd_region_count());
}

static void fixture_test(void **state)
{
	struct fixture fx;

	load_fixture(&fx, *state);
	assert_int_equal(nfit_parse(fx.bin, fx.bin_len, &nt), 0);
	assert_int_equal(nt.walk.length, fx.bin_len);
	assert_false(nt.walk.truncated);
	check_decode(&fx);
	boot_with_nfit(fx.bin, fx.bin_len);
	assert_int_equal(nd_region_count(), nt.nr_spa);
	for (u32 i = 1; i < nd_region_count(); i++)	/* address order, whatever the table's */
		assert_true(nd_region_get(i - 1)->start < nd_region_get(i)->start);
	check_ndctl_json(&fx);
	check_iomem(&fx);
	free_fixture(&fx);
}

/* ---- NFITs as the ACPI walk lists them ---- */

/* Two NFITs (one bad checksum, one good): the good one registers, the bad is skipped. */
static void nfit_acpi_bad_checksum_table_skipped(void **state)
{
	struct fixture fx;
	u64 t[2] = { NFIT_PA, NFIT_PA + 0x1000 };

	(void)state;
	load_fixture(&fx, "one-1G");
	memcpy(phys_to_virt(t[0]), fx.bin, fx.bin_len);
	((u8 *)phys_to_virt(t[0]))[100] ^= 1;
	memcpy(phys_to_virt(t[1]), fx.bin, fx.bin_len);
	install_tables(t, 2);
	fw_tables_init(&bi);
	nfit_probe();
	e820_pmem_register(&e820_table);
	nvdimm_publish();
	assert_true(host_console_has("ACPI: RSDT entry 0 NFIT at 0x3ffe2000: bad checksum"));
	assert_int_equal(nd_region_count(), 1);
	assert_int_equal(nd_bus_count(), 1);
	free_fixture(&fx);
}

/* An NFIT listed twice in the RSDT is parsed once: one DIMM per handle. */
static void nfit_listed_twice_registers_once(void **state)
{
	struct fixture fx;
	u64 t[2] = { NFIT_PA, NFIT_PA };

	(void)state;
	load_fixture(&fx, "one-1G");
	memcpy(phys_to_virt(NFIT_PA), fx.bin, fx.bin_len);
	install_tables(t, 2);
	fw_tables_init(&bi);
	nfit_probe();
	nvdimm_publish();
	assert_true(
		host_console_has("ACPI: RSDT entry 1 at 0x3ffe2000: NFIT already listed, skipped"));
	assert_int_equal(nd_bus_count(), 1);
	assert_int_equal(nvdimm_count(), 1);
	assert_int_equal(nd_region_count(), 1);
	free_fixture(&fx);
}

/*
 * A second NFIT naming a DIMM handle the first registered is refused whole
 * (one line); a third with its own handles registers. Before, the second
 * made another DIMM with handle 0x1.
 */
static void nfit_second_table_with_taken_handle_refused(void **state)
{
	struct fixture fx;
	u64 t[3] = { NFIT_PA, NFIT_PA + 0x1000, NFIT_PA + 0x2000 };

	(void)state;
	load_fixture(&fx, "one-1G");
	memcpy(phys_to_virt(t[0]), fx.bin, fx.bin_len);
	tb_init();
	add_spa(2, 8 * GiB, 256 * MiB, guid_pm);
	add_memdev(0x20, 2, 3, 256 * MiB, 0, 1, 0);
	add_dcr(3, 0xabcd, NFIT_DCR_LEN);
	add_spa(4, 9 * GiB, 256 * MiB, guid_pm);
	add_memdev(0x1, 4, 3, 256 * MiB, 0, 1, 0); /* QEMU's DIMM's handle */
	memcpy(phys_to_virt(t[1]), tb.buf, tb.len);
	tb_init();
	add_spa(2, 10 * GiB, 256 * MiB, guid_pm);
	add_memdev(0x30, 2, 3, 256 * MiB, 0, 1, 0);
	add_dcr(3, 0xabce, NFIT_DCR_LEN);
	memcpy(phys_to_virt(t[2]), tb.buf, tb.len);
	install_tables(t, 3);
	fw_tables_init(&bi);
	nfit_probe();
	nvdimm_publish();
	assert_true(host_console_has(
		"nfit: NFIT at 0x3ffe3000: DIMM handle 0x1 is already nmem0 from an earlier NFIT, this table refused"));
	assert_int_equal(nd_bus_count(), 2);
	assert_int_equal(nvdimm_count(), 2);
	assert_int_equal(nvdimm_get(0)->handle, 0x1);
	assert_int_equal(nvdimm_get(1)->handle, 0x30);
	assert_int_equal(nd_region_count(), 2);
	assert_int_equal(nd_region_get(1)->start, 10 * GiB);
	free_fixture(&fx);
}

/* ---- e820 pmem next to the NFIT ---- */

static void nfit_and_e820_three_regions_no_duplicates(void **state)
{
	struct fixture fx;

	(void)state;
	load_fixture(&fx, "two-1G-3G");
	e820_add(&e820_table, 0, 0x9fc00, E820_TYPE_RAM);
	e820_add(&e820_table, 0x100000, 0x3ff00000, E820_TYPE_RAM);
	e820_add(&e820_table, 0x40000000, 512 * MiB, E820_TYPE_PRAM);
	e820_add(&e820_table, 0x100000000ULL, 1 * GiB, E820_TYPE_PMEM);	/* = the NFIT's */
	boot_with_nfit(fx.bin, fx.bin_len);
	assert_int_equal(nd_region_count(), 3);
	assert_string_equal(nd_region_get(0)->bus->provider, "e820");
	assert_int_equal(nd_region_get(0)->start, 0x40000000);
	assert_int_equal(nd_region_get(0)->size, 512 * MiB);
	assert_int_equal(nd_region_get(0)->nr_mappings, 0);
	assert_string_equal(nd_region_get(1)->bus->provider, "nfit");
	assert_int_equal(nd_region_get(1)->start, 0x100000000ULL);
	assert_int_equal(nd_region_get(2)->start, 0x140000000ULL);
	assert_true(host_console_has("e820: [mem 0x100000000-0x13fffffff] persistent (type 7) is already an nfit region"));
	assert_true(host_console_has("nd_region region0: [mem 0x40000000-0x5fffffff] e820 pmem, no dimms, persistence unknown"));
	assert_true(host_console_has("nd_region region1: [mem 0x100000000-0x13fffffff] nfit pmem, 1 dimm (handle 0x1), persistence unknown"));
	assert_true(host_console_has("nd_region region2: [mem 0x140000000-0x1ffffffff] nfit pmem, 1 dimm (handle 0x2), persistence unknown"));
	free_fixture(&fx);
}

/* An e820 range only partly inside an NFIT range is refused, not split. */
static void e820_partly_covered_range_refused(void **state)
{
	struct fixture fx;

	(void)state;
	load_fixture(&fx, "one-1G");
	e820_add(&e820_table, 0x13ff00000ULL, 2 * MiB, E820_TYPE_PRAM);
	e820_add(&e820_table, 0x200000000ULL, 4 * MiB, E820_TYPE_PRAM);
	boot_with_nfit(fx.bin, fx.bin_len);
	assert_int_equal(nd_region_count(), 2);
	assert_true(host_console_has("nd_region: e820 [mem 0x13ff00000-0x1400fffff] overlaps nfit [mem 0x100000000-0x13fffffff], rejected"));
	/* Below 16 MiB the region align is a page, as in Linux. */
	assert_int_equal(nd_region_get(1)->align, PAGE_SIZE);
	free_fixture(&fx);
}

/* Without any ACPI tables e820 pmem is still found. */
static void e820_only_without_acpi(void **state)
{
	(void)state;
	e820_add(&e820_table, 0x40000000, 512 * MiB, E820_TYPE_PRAM);
	fw_tables_init(&bi);
	nfit_probe();
	e820_pmem_register(&e820_table);
	nvdimm_publish();
	assert_true(host_console_has("ACPI: no RSDP found"));
	assert_int_equal(nd_region_count(), 1);
	assert_string_equal(nd_bus_get(0)->provider, "e820");
	host_console_reset();
	nd_list(ND_LIST_REGIONS | ND_LIST_NAMESPACES, NULL, NULL);
	assert_string_equal(host_console_text(),
			    "[\n"
			    "  {\n"
			    "    \"dev\":\"region0\",\n"
			    "    \"size\":536870912,\n"
			    "    \"align\":16777216,\n"
			    "    \"available_size\":0,\n"
			    "    \"max_available_extent\":0,\n"
			    "    \"type\":\"pmem\",\n"
			    "    \"numa_node\":0,\n"
			    "    \"target_node\":0,\n"
			    "    \"persistence_domain\":\"unknown\",\n"
			    "    \"namespaces\":[\n"
			    "      {\n"
			    "        \"dev\":\"namespace0.0\",\n"
			    "        \"mode\":\"raw\",\n"
			    "        \"size\":536870912,\n"
			    "        \"sector_size\":512,\n"
			    "        \"blockdev\":\"pmem0\",\n"
			    "        \"numa_node\":0,\n"
			    "        \"target_node\":0\n"
			    "      }\n"
			    "    ]\n"
			    "  }\n"
			    "]\n");
}

#define FIXTURE(id, file)                                                                  \
	{ "nfit_fixture_" id "_matches_linux", fixture_test, nfit_test_reset, NULL, file }

int main(void)
{
	const struct CMUnitTest tests[] = {
		FIXTURE("one_1G", "one-1G"),
		FIXTURE("two_1G_3G", "two-1G-3G"),
		FIXTURE("four_512M", "four-512M"),
		FIXTURE("label_128K", "label-128K"),
		FIXTURE("persist_cpu", "persist-cpu"),
		FIXTURE("persist_memctrl", "persist-memctrl"),
		cmocka_unit_test_setup(nfit_acpi_bad_checksum_table_skipped, nfit_test_reset),
		cmocka_unit_test_setup(nfit_listed_twice_registers_once, nfit_test_reset),
		cmocka_unit_test_setup(nfit_second_table_with_taken_handle_refused,
				       nfit_test_reset),
		cmocka_unit_test_setup(nfit_and_e820_three_regions_no_duplicates, nfit_test_reset),
		cmocka_unit_test_setup(e820_partly_covered_range_refused, nfit_test_reset),
		cmocka_unit_test_setup(e820_only_without_acpi, nfit_test_reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
