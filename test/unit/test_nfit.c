/*
 * Host tests: the NFIT parser and the nfit/e820 providers. The QEMU
 * fixtures (test/fixtures/nfit) are checked field by field against the
 * decode in their .txt, and the `list` JSON region by region against what
 * Linux's ndctl printed for the same table; crafted tables cover every
 * malformed case the parser must survive.
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
#include "boot_info.h"
#include "direct_map.h"
#include "e820.h"
#include "host.h"
#include "memblock.h"
#include "nfit.h"
#include "nvdimm.h"
#include "printk.h"

/* The direct map: simulated memory is all there (test_acpi checks the calls). */
int direct_map_add(u64 pa, u64 len)
{
	return pa + len < pa || pa + len > HOST_PHYS_SIZE ? -EINVAL : 0;
}

static struct nfit_table nt;
static struct boot_info bi;

static int reset(void **state)
{
	(void)state;
	nd_reset();
	memblock_reset();
	memset(&e820_table, 0, sizeof(e820_table));
	memset(&fw_tables, 0, sizeof(fw_tables));
	memset(phys_to_virt(0xe0000), 0, 0x20000);
	host_console_reset();
	return 0;
}

/* ---- fixtures ---- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s (run from the top directory)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

struct fixture {
	const char *name;
	u8 *bin;
	size_t bin_len;
	char *txt;
};

static void load_fixture(struct fixture *fx, const char *name)
{
	char path[128];
	size_t len;

	fx->name = name;
	snprintf(path, sizeof(path), "test/fixtures/nfit/%s.bin", name);
	fx->bin = (u8 *)read_file(path, &fx->bin_len);
	snprintf(path, sizeof(path), "test/fixtures/nfit/%s.txt", name);
	fx->txt = read_file(path, &len);
}

static void free_fixture(struct fixture *fx)
{
	free(fx->bin);
	free(fx->txt);
}

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

/* Copy the line starting at p (without its newline) into buf. */
static const char *get_line(const char *p, char *buf, size_t size)
{
	size_t n = strcspn(p, "\n");

	snprintf(buf, size, "%.*s", (int)MIN(n, size - 1), p);
	return p[n] ? p + n + 1 : p + n;
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

/* Put the NFIT behind a revision 0 RSDP and an RSDT, as SeaBIOS does, and boot it. */
#define NFIT_PA 0x3ffe2000ULL
#define RSDT_PA 0x3ffe0000ULL

static void fix_checksum(u8 *p, size_t len, size_t at)
{
	p[at] = 0;
	p[at] = (u8)(0x100 - sdt_checksum(p, len));
}

static void install_tables(const u64 *tables, u32 n)
{
	u8 *rsdt = phys_to_virt(RSDT_PA), *rsdp = phys_to_virt(0xf5a10);
	struct sdt_header h = { .length = SDT_HEADER_LEN + 4 * n, .revision = 1 };
	u32 addr = RSDT_PA;

	memcpy(h.signature, "RSDT", 4);
	memcpy(rsdt, &h, sizeof(h));
	for (u32 i = 0; i < n; i++) {
		u32 pa = (u32)tables[i];
		memcpy(rsdt + SDT_HEADER_LEN + 4 * i, &pa, 4);
	}
	fix_checksum(rsdt, h.length, offsetof(struct sdt_header, checksum));
	memset(rsdp, 0, 20);
	memcpy(rsdp, "RSD PTR BOCHS ", 14);
	memcpy(rsdp + 16, &addr, 4);
	fix_checksum(rsdp, 20, 8);
}

static void boot_with_nfit(const void *nfit, size_t len)
{
	u64 pa = NFIT_PA;

	memcpy(phys_to_virt(NFIT_PA), nfit, len);
	install_tables(&pa, 1);
	fw_tables_init(&bi);
	nfit_probe();
	e820_pmem_register(&e820_table);
	nvdimm_publish();
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

/* ---- crafted tables ---- */

static const u8 guid_pm[16] = { 0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
				0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb };
static const u8 guid_volatile[16] = { 0x4f, 0x94, 0x05, 0x73, 0xda, 0xfd, 0xe3, 0x44,
				      0xb1, 0x6c, 0x3f, 0x22, 0xd2, 0x52, 0xe5, 0xd0 };

static struct {
	u8 buf[8192];
	u32 len;
} tb;

static void tb_init(void)
{
	memset(&tb, 0, sizeof(tb));
	memcpy(tb.buf, "NFIT", 4);
	tb.buf[8] = 1;
	memcpy(tb.buf + 10, "PMEMK TESTNFIT", 14);
	tb.len = NFIT_HEADER_LEN;
}

static u32 tb_add(const void *sub, u32 len)
{
	u32 off = tb.len;

	assert_true(tb.len + len <= sizeof(tb.buf));
	memcpy(tb.buf + tb.len, sub, len);
	tb.len += len;
	memcpy(tb.buf + 4, &tb.len, 4);
	fix_checksum(tb.buf, tb.len, 9);
	return off;
}

static u32 add_spa(u16 index, u64 base, u64 length, const u8 *guid)
{
	struct nfit_spa s = {
		.h = { NFIT_TYPE_SPA, NFIT_SPA_LEN }, .range_index = index,
		.flags = NFIT_SPA_CONTROL_ONLY | NFIT_SPA_PROXIMITY_VALID, .proximity_domain = 1,
		.address = base, .length = length, .memory_mapping = 0x8008,
	};

	memcpy(s.range_guid, guid, 16);
	return tb_add(&s, NFIT_SPA_LEN);
}

static u32 add_memdev(u32 handle, u16 spa, u16 dcr, u64 size, u64 offset, u16 ways, u16 flags)
{
	struct nfit_memdev m = {
		.h = { NFIT_TYPE_MEMDEV, NFIT_MEMDEV_LEN }, .device_handle = handle,
		.physical_id = (u16)(0x20 + handle), .range_index = spa, .region_index = dcr,
		.region_size = size, .region_offset = offset, .address = 0x1000 * handle,
		.interleave_ways = ways, .flags = flags,
	};

	return tb_add(&m, NFIT_MEMDEV_LEN);
}

static u32 add_dcr(u16 index, u32 serial, u16 len)
{
	struct nfit_dcr d = {
		.h = { NFIT_TYPE_DCR, len }, .region_index = index, .vendor_id = 0x8086,
		.device_id = 1, .revision_id = 1, .serial_number = serial, .code = 0x0201,
	};

	return tb_add(&d, len);
}

static u32 add_raw(u16 type, u16 len, u32 total)
{
	u8 sub[256] = { 0 };

	memcpy(sub, &type, 2);
	memcpy(sub + 2, &len, 2);
	return tb_add(sub, total);
}

/* One DIMM at 4 GiB of `size` bytes, handle 1, as QEMU lays it out. */
static void one_dimm(u64 size)
{
	add_spa(2, 4 * GiB, size, guid_pm);
	add_memdev(1, 2, 3, size, 0, 1, 0);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
}

static void register_tb(void)
{
	nfit_parse(tb.buf, tb.len, &nt);
	nfit_register(&nt, nd_bus_register("nfit"));
	nd_regions_publish();
}

static void nfit_zero_length_subtable_stops_walk(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	u32 off = add_raw(NFIT_TYPE_SPA, 0, 56);
	add_spa(4, 8 * GiB, 1 * GiB, guid_pm);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_true(nt.walk.truncated);
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_memdev, 1);
	assert_int_equal(nt.nr_dcr, 1);
	char msg[96];
	snprintf(msg, sizeof(msg), "nfit: SPA (type 0) at offset %#x has length 0, walk stopped", off);
	assert_true(host_console_has(msg));
	/* What came before still makes a region. */
	register_tb();
	assert_int_equal(nd_region_count(), 1);
}

static void nfit_length_past_end_stops_walk(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	u32 off = add_raw(NFIT_TYPE_MEMDEV, 200, 48);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_int_equal(nt.nr_memdev, 1);
	char msg[128];
	snprintf(msg, sizeof(msg),
		 "nfit: MEMDEV (type 1) at offset %#x: length 200 runs past the table end %#x, walk stopped",
		 off, tb.len);
	assert_true(host_console_has(msg));
}

/* The header says more than the buffer holds: walk what is there. */
static void nfit_truncated_table(void **state)
{
	struct fixture fx;

	(void)state;
	load_fixture(&fx, "two-1G-3G");
	/* Cut inside the second SPA: the first group survives. */
	assert_int_equal(nfit_parse(fx.bin, 0xe0 + 20, &nt), -EINVAL);
	assert_true(host_console_has("nfit: header length 408 but only 244 bytes present"));
	assert_true(host_console_has("nfit: SPA (type 0) at offset 0xe0: length 56 runs past the table end 0xf4"));
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_memdev, 1);
	assert_int_equal(nt.nr_dcr, 1);
	assert_int_equal(nt.spa[0].address, 0x140000000ULL);
	/* Three stray bytes: too few for a subtable header. */
	host_console_reset();
	assert_int_equal(nfit_parse(fx.bin, 0xe0 + 3, &nt), -EINVAL);
	assert_true(host_console_has("nfit: 3 stray bytes at offset 0xe0, walk stopped"));
	/*
	 * Every cut of every length: never a crash, never more than was there.
	 * Each cut is an exact-size heap copy, so ASan sees a read one byte
	 * past it (the whole fixture behind the cut would hide one).
	 */
	for (size_t len = 0; len <= fx.bin_len; len++) {
		u8 *cut = malloc(len ? len : 1);
		assert_non_null(cut);
		memcpy(cut, fx.bin, len);
		int err = nfit_parse(cut, len, &nt);
		free(cut);
		assert_true(err == 0 || err == -EINVAL || err == -ENODEV);
		assert_true(nt.nr_spa <= 2 && nt.nr_memdev <= 2 && nt.nr_dcr <= 2);
		assert_true(nt.walk.length <= len);
	}
	free_fixture(&fx);
}

static void nfit_not_an_nfit(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	assert_int_equal(nfit_parse(tb.buf, 39, &nt), -ENODEV);
	assert_int_equal(nt.nr_spa, 0);
	memcpy(tb.buf, "SSDT", 4);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -ENODEV);
	assert_true(host_console_has("nfit: not an NFIT"));
	memcpy(tb.buf, "NFIT", 4);
	u32 short_len = 20;
	memcpy(tb.buf + 4, &short_len, 4);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_true(host_console_has("nfit: header length 20 is shorter than the header itself"));
	assert_int_equal(nt.nr_spa, 0);
	/* A header length below the buffer: only that much is walked. */
	u32 len = NFIT_HEADER_LEN + NFIT_SPA_LEN;
	memcpy(tb.buf + 4, &len, 4);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_memdev, 0);
}

/* Each type's minimum length, and the ones that grow with their content. */
static void nfit_below_minimum_stops_walk(void **state)
{
	static const struct {
		u16 type, len;
		u32 count_off, count;	/* a count/flags field to set, 0: none */
		u8 count_size;
		const char *msg;
	} cases[] = {
		{ NFIT_TYPE_SPA, 40, 0, 0, 0,
		  "SPA (type 0) at offset 0x28: length 40 below its minimum 56" },
		{ NFIT_TYPE_MEMDEV, 47, 0, 0, 0,
		  "MEMDEV (type 1) at offset 0x28: length 47 below its minimum 48" },
		{ NFIT_TYPE_IDT, 12, 0, 0, 0,
		  "IDT (type 2) at offset 0x28: length 12 below its minimum 16" },
		{ NFIT_TYPE_SMBIOS, 6, 0, 0, 0,
		  "SMBIOS (type 3) at offset 0x28: length 6 below its minimum 8" },
		{ NFIT_TYPE_DCR, 31, 0, 0, 0,
		  "DCR (type 4) at offset 0x28: length 31 below its minimum 32" },
		{ NFIT_TYPE_BDW, 39, 0, 0, 0,
		  "BDW (type 5) at offset 0x28: length 39 below its minimum 40" },
		{ NFIT_TYPE_FLUSH, 12, 0, 0, 0,
		  "FLUSH (type 6) at offset 0x28: length 12 below its minimum 16" },
		{ NFIT_TYPE_CAPS, 12, 0, 0, 0,
		  "CAPS (type 7) at offset 0x28: length 12 below its minimum 16" },
		{ 42, 3, 0, 0, 0,
		  "subtable (type 42) at offset 0x28: length 3 below its minimum 4" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		u8 sub[128] = { 0 };
		tb_init();
		memcpy(sub, &cases[i].type, 2);
		memcpy(sub + 2, &cases[i].len, 2);
		memcpy(sub + cases[i].count_off, &cases[i].count, cases[i].count_size);
		tb_add(sub, cases[i].len);
		add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
		host_console_reset();
		assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
		if (!host_console_has(cases[i].msg))
			fail_msg("case %zu: no \"%s\" in: %s", i, cases[i].msg, host_console_text());
		assert_true(nt.walk.truncated);
		assert_int_equal(nt.nr_spa, 0);
	}
}

/*
 * A subtable whose length frames it but disagrees with its own flags or
 * counts is rejected alone, with one line; the walk goes on to the next
 * (RELIABILITY A.3, A.5). Before, each of these stopped the whole walk, and
 * an interleave table with 0 lines was accepted without a word.
 */
static void nfit_inconsistent_subtable_rejected_walk_goes_on(void **state)
{
	static const struct {
		u16 type, len;
		u32 count_off, count; /* a count/flags field to set */
		u8 count_size;
		const char *msg;
	} cases[] = {
		{ NFIT_TYPE_SPA, 56, 6, NFIT_SPA_COOKIE_VALID, 2,
		  "SPA (type 0) at offset 0x28: length 56, want 64 with the location cookie flag (bit 2), SPA rejected" },
		{ NFIT_TYPE_SPA, 64, 6, 0, 2,
		  "SPA (type 0) at offset 0x28: length 64, want 56 without the location cookie flag (bit 2), SPA rejected" },
		{ NFIT_TYPE_SPA, 72, 6, NFIT_SPA_COOKIE_VALID, 2,
		  "SPA (type 0) at offset 0x28: length 72, want 64 with the location cookie flag (bit 2), SPA rejected" },
		{ NFIT_TYPE_IDT, 16, 8, 0, 4,
		  "IDT (type 2) at offset 0x28: 0 lines, IDT rejected" },
		{ NFIT_TYPE_IDT, 20, 8, 2, 4,
		  "IDT (type 2) at offset 0x28: length 20 too short for 2 lines (24 bytes), IDT rejected" },
		/* 16 + 4 * 0x40000001 is 20 in 32 bits: the count must not wrap the product. */
		{ NFIT_TYPE_IDT, 20, 8, 0x40000001, 4,
		  "IDT (type 2) at offset 0x28: length 20 too short for 1073741825 lines (4294967316 bytes), IDT rejected" },
		{ NFIT_TYPE_DCR, 32, 30, 1, 2,
		  "DCR (type 4) at offset 0x28: length 32 too short for 1 block control windows (80 bytes), DCR rejected" },
		{ NFIT_TYPE_FLUSH, 24, 8, 2, 2,
		  "FLUSH (type 6) at offset 0x28: length 24 too short for 2 hint addresses (32 bytes), FLUSH rejected" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		u8 sub[128] = { 0 };
		tb_init();
		memcpy(sub, &cases[i].type, 2);
		memcpy(sub + 2, &cases[i].len, 2);
		memcpy(sub + cases[i].count_off, &cases[i].count, cases[i].count_size);
		tb_add(sub, cases[i].len);
		one_dimm(1 * GiB);
		host_console_reset();
		assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
		if (!host_console_has(cases[i].msg))
			fail_msg("case %zu: no \"%s\" in: %s", i, cases[i].msg,
				 host_console_text());
		assert_false(nt.walk.truncated);
		assert_int_equal(nt.walk.nr_rejected, 1);
		assert_int_equal(nt.nr_spa, 1); /* the good SPA after it */
		assert_int_equal(nt.spa[0].address, 4 * GiB);
		assert_int_equal(nt.nr_idt + nt.nr_flush, 0);
		assert_int_equal(nt.nr_dcr, 1);
		assert_int_equal(nt.nr_memdev, 1);
		/* One line, and the good DIMM still makes its region. */
		const char *first = strstr(host_console_text(), cases[i].msg);
		assert_null(strstr(first + 1, cases[i].msg));
		nd_reset();
		register_tb();
		assert_int_equal(nd_region_count(), 1);
	}
}

/* Types above 7 are skipped by their length; the walk goes on. */
static void nfit_unknown_types_skipped(void **state)
{
	(void)state;
	tb_init();
	add_raw(8, 12, 12);
	add_raw(0xffff, 4, 4);
	add_raw(0x1234, 100, 100);
	one_dimm(1 * GiB);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_unknown, 3);
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_dcr, 1);
	/* One line each, at a level the default console prints (it was silent). */
	assert_true(host_console_has(
		"nfit: unknown subtable type 8 at offset 0x28 (12 bytes), skipped"));
	assert_true(host_console_has(
		"nfit: unknown subtable type 65535 at offset 0x34 (4 bytes), skipped"));
	assert_true(host_console_has(
		"nfit: unknown subtable type 4660 at offset 0x38 (100 bytes), skipped"));
	assert_true(LOGLEVEL_WARNING < console_loglevel);
}

/*
 * SPA ranges that make no region say so, one line each, at a level the
 * default console prints (before: pr_debug, never shown): known non-pmem
 * types as information, an unknown GUID as a warning, and a pmem range with
 * the invalid index 0 (memdevs use 0 for "not mapped": they must not attach).
 */
static void nfit_non_pmem_spa_one_line_each(void **state)
{
	static const u8 guid_vdisk[16] = { 0x5a, 0x53, 0xab, 0x77, 0xfc, 0x45, 0x4b, 0x62,
					   0x55, 0x60, 0xf7, 0xb2, 0x81, 0xd1, 0xf9, 0x6e };
	static const u8 guid_pcd[16] = { 0x88, 0x81, 0x01, 0x08, 0xcd, 0x42, 0x48, 0xbb,
					 0x10, 0x0f, 0x53, 0x87, 0xd5, 0x3d, 0xed, 0x3d };
	static const u8 guid_odd[16] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
					 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 };
	char msg[160];

	(void)state;
	tb_init();
	u32 vol = add_spa(3, 2 * GiB, 1 * GiB, guid_volatile);
	u32 vdisk = add_spa(5, 8 * GiB, 1 * GiB, guid_vdisk);
	u32 pcd = add_spa(6, 9 * GiB, 1 * GiB, guid_pcd);
	u32 odd = add_spa(7, 10 * GiB, 1 * GiB, guid_odd);
	u32 zero = add_spa(0, 11 * GiB, 1 * GiB, guid_pm);
	add_memdev(9, 0, 0, 1 * GiB, 0, 1, 0); /* not mapped to any SPA */
	one_dimm(1 * GiB);
	register_tb();
	assert_int_equal(nd_region_count(), 1);
	assert_int_equal(nd_region_get(0)->start, 4 * GiB);
	snprintf(msg, sizeof(msg),
		 "nfit: SPA range 3 at offset %#x: volatile memory, not a pmem region, skipped",
		 vol);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA range 5 at offset %#x: volatile virtual disk, not a pmem region, skipped",
		vdisk);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA range 6 at offset %#x: persistent virtual CD, not a pmem region, skipped",
		pcd);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA range 7 at offset %#x: unknown range type 04030201-0605-0807-090a-0b0c0d0e0f10, skipped",
		odd);
	assert_true(host_console_has(msg));
	snprintf(msg, sizeof(msg), "nfit: SPA at offset %#x: range index 0 is invalid, ignored",
		 zero);
	assert_true(host_console_has(msg));
	/* The default console_loglevel prints pr_info (and drops pr_debug). */
	assert_true(LOGLEVEL_INFO < console_loglevel && LOGLEVEL_DEBUG >= console_loglevel);
}

/*
 * ACPI 6.4: a 64-byte SPA with the location cookie, next to a 56-byte one
 * without. The crossed combinations reject that SPA only (RELIABILITY A.3).
 */
static void nfit_spa_64_byte_form(void **state)
{
	struct nfit_spa s = {
		.h = { NFIT_TYPE_SPA, NFIT_SPA_COOKIE_LEN }, .range_index = 7,
		.flags = NFIT_SPA_COOKIE_VALID, .address = 0x180000000ULL, .length = 256 * MiB,
		.memory_mapping = 0x8008, .location_cookie = 0x1122334455667788ULL,
	};

	(void)state;
	memcpy(s.range_guid, guid_pm, 16);
	tb_init();
	tb_add(&s, NFIT_SPA_COOKIE_LEN);
	s.flags = 0; /* 64 bytes without the flag: rejected */
	s.range_index = 8;
	s.address += 256 * MiB;
	u32 crossed64 = tb_add(&s, NFIT_SPA_COOKIE_LEN);
	s.flags = NFIT_SPA_COOKIE_VALID; /* 56 bytes with the flag: rejected */
	s.h.length = NFIT_SPA_LEN;
	u32 crossed56 = tb_add(&s, NFIT_SPA_LEN);
	s.flags = 0; /* 56 bytes without the flag */
	s.range_index = 9;
	s.address += 256 * MiB;
	tb_add(&s, NFIT_SPA_LEN);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_int_equal(nt.walk.nr_rejected, 2);
	assert_int_equal(nt.nr_spa, 2);
	assert_true(nt.spa[0].flags & NFIT_SPA_COOKIE_VALID);
	assert_int_equal(nt.spa[0].location_cookie, 0x1122334455667788ULL);
	assert_int_equal(nt.spa[0].type, NFIT_SPA_PM);
	assert_false(nt.spa[1].flags & NFIT_SPA_COOKIE_VALID);
	assert_int_equal(nt.spa[1].range_index, 9);
	assert_int_equal(nt.spa[1].address, 0x1a0000000ULL);
	char msg[160];
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA (type 0) at offset %#x: length 64, want 56 without the location cookie flag (bit 2), SPA rejected",
		crossed64);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA (type 0) at offset %#x: length 56, want 64 with the location cookie flag (bit 2), SPA rejected",
		crossed56);
	assert_true(host_console_has(msg));
	register_tb();
	assert_int_equal(nd_region_count(), 2);
	assert_int_equal(nd_region_get(0)->numa_node, -1);	/* proximity not valid */
}

/* The 32-byte DCR (no block control windows) next to the 80-byte one. */
static void nfit_dcr_32_byte_form(void **state)
{
	(void)state;
	tb_init();
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(1, 2, 3, 1 * GiB, 0, 1, 0);
	add_dcr(3, 0xaabbccdd, NFIT_DCR_SHORT_LEN);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_dcr, 1);
	assert_int_equal(nt.dcr[0].length, NFIT_DCR_SHORT_LEN);
	assert_int_equal(nt.dcr[0].serial_number, 0xaabbccdd);
	assert_int_equal(nt.dcr[0].code, 0x0201);
	assert_int_equal(nt.dcr[0].window_size, 0);
	register_tb();
	assert_string_equal(nvdimm_get(0)->unique_id, "8680-ddccbbaa");
}

/* A full DCR with windows, its block data window, interleave and SMBIOS. */
static void nfit_block_window_structures(void **state)
{
	struct nfit_dcr d = {
		.h = { NFIT_TYPE_DCR, NFIT_DCR_LEN }, .region_index = 5, .vendor_id = 0x8086,
		.valid_fields = NFIT_DCR_MFG_VALID, .manufacturing_location = 0xa5,
		.manufacturing_date = 0x1234, .serial_number = 0x01020304, .code = 0x0201,
		.windows = 2, .window_size = 0x2000, .command_offset = 0x100, .command_size = 8,
		.status_offset = 0x200, .status_size = 4, .flags = 1,
	};
	struct nfit_bdw b = {
		.h = { NFIT_TYPE_BDW, NFIT_BDW_LEN }, .region_index = 5, .windows = 2,
		.window_offset = 0x1000, .size = 0x2000, .capacity = 1 * GiB, .start_address = 0x40000,
	};
	u8 idt[NFIT_IDT_LEN + 12] = { NFIT_TYPE_IDT, 0, sizeof(idt), 0, 9, 0, 0, 0, 3, 0, 0, 0,
				      0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0 };
	u8 smbios[NFIT_SMBIOS_LEN + 5] = { NFIT_TYPE_SMBIOS, 0, sizeof(smbios), 0, 0, 0, 0, 0,
					   17, 0x28, 1, 2, 3 };

	(void)state;
	tb_init();
	tb_add(&d, NFIT_DCR_LEN);
	tb_add(&b, NFIT_BDW_LEN);
	u32 idt_off = tb_add(idt, sizeof(idt));
	u32 smbios_off = tb_add(smbios, sizeof(smbios));
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(7, 2, 5, 1 * GiB, 0, 1, 0);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.dcr[0].windows, 2);
	assert_int_equal(nt.dcr[0].status_offset, 0x200);
	assert_int_equal(nt.dcr[0].flags, 1);
	assert_int_equal(nt.bdw[0].capacity, 1 * GiB);
	assert_int_equal(nt.bdw[0].start_address, 0x40000);
	assert_int_equal(nt.idt[0].offset, idt_off);
	assert_int_equal(nt.idt[0].interleave_index, 9);
	assert_int_equal(nt.idt[0].line_count, 3);
	assert_int_equal(nt.idt[0].line_size, 256);
	assert_int_equal(nt.idt[0].line_offset[1], 2);
	assert_int_equal(nt.idt[0].line_offset[2], 1);
	assert_int_equal(nt.smbios[0].data_offset, smbios_off + 8);
	assert_int_equal(nt.smbios[0].data_length, 5);
	register_tb();
	/* Linux's id with the manufacturing fields: vendor-location-date-serial. */
	assert_string_equal(nvdimm_get(0)->unique_id, "8680-a5-3412-04030201");
}

/* Flush hints attach to their DIMM; more than the cap keep the first ones. */
static void nfit_flush_hints(void **state)
{
	u8 f[NFIT_FLUSH_LEN + 8 * 20] = { NFIT_TYPE_FLUSH, 0, NFIT_FLUSH_LEN + 16, 0, 1, 0, 0, 0,
					  2, 0 };
	u64 hint;

	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	for (int i = 0; i < 20; i++) {
		hint = 0xfed00000ULL + 0x1000 * (u64)i;
		memcpy(f + NFIT_FLUSH_LEN + 8 * i, &hint, 8);
	}
	tb_add(f, NFIT_FLUSH_LEN + 16);	/* handle 1, two hints */
	f[2] = NFIT_FLUSH_LEN + 8 * 20;
	f[4] = 9;
	f[8] = 20;
	tb_add(f, NFIT_FLUSH_LEN + 8 * 20);	/* handle 9 (no such DIMM), 20 hints */
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_flush, 2);
	assert_int_equal(nt.flush[0].hint_count, 2);
	assert_int_equal(nt.flush[0].hint[1], 0xfed01000ULL);
	assert_int_equal(nt.flush[1].hint_count, 20);
	assert_int_equal(nt.flush[1].hint[15], 0xfed0f000ULL);
	assert_true(host_console_has("20 hint addresses, keeping the first 16"));
	register_tb();
	const struct nvdimm *d = nvdimm_get(0);
	assert_int_equal(d->nr_flush_hints, 2);
	assert_int_equal(d->flush_hint[0], 0xfed00000ULL);
	assert_int_equal(d->flush_hint[1], 0xfed01000ULL);
	assert_true(host_console_has("nvdimm nmem0: ndbus0 handle 0x1, phys_id 0x21, id 8680-56341200, 2 flush hints at 0xfed00000.."));
	assert_true(host_console_has("nfit: FLUSH at offset"));
	assert_true(host_console_has("no memdev has handle 0x9, ignored"));
}

/* Two DIMMs interleaved in one SPA range: one region, two mappings in offset order. */
static void nfit_interleave_two_way(void **state)
{
	(void)state;
	tb_init();
	add_spa(1, 8 * GiB, 2 * GiB, guid_pm);
	add_memdev(0x101, 1, 2, 1 * GiB, 256, 2, 0);	/* second in the interleave */
	add_memdev(0x001, 1, 3, 1 * GiB, 0, 2, 0);
	add_dcr(2, 0x11, NFIT_DCR_LEN);
	add_dcr(3, 0x22, NFIT_DCR_LEN);
	register_tb();
	assert_int_equal(nvdimm_count(), 2);
	assert_int_equal(nvdimm_get(0)->handle, 0x001);	/* nmemN in handle order */
	assert_int_equal(nvdimm_get(1)->handle, 0x101);
	assert_int_equal(nd_region_count(), 1);
	const struct nd_region *r = nd_region_get(0);
	assert_int_equal(r->nr_mappings, 2);
	assert_int_equal(r->size, 2 * GiB);
	assert_int_equal(r->align, 16 * MiB);
	assert_ptr_equal(r->mapping[0].nvdimm, nvdimm_get(1));
	assert_int_equal(r->mapping[0].position, 1);
	assert_int_equal(r->mapping[0].start, 0x101000);
	assert_int_equal(r->mapping[0].size, 1 * GiB);
	assert_int_equal(r->mapping[1].position, 0);
	assert_true(host_console_has("nd_region region0: [mem 0x200000000-0x27fffffff] nfit pmem, 2 dimms (handles 0x101, 0x1), persistence unknown"));
	assert_false(host_console_has("-way interleave"));
}

/* Three ways: 16 MiB is not a multiple of 3, so the region align is 48 MiB. */
static void nfit_interleave_three_way_align(void **state)
{
	(void)state;
	tb_init();
	add_spa(1, 8 * GiB, 3 * GiB, guid_pm);
	for (u32 h = 1; h <= 3; h++)
		add_memdev(h, 1, 0, 1 * GiB, (h - 1) * 4096, 4, 0);	/* the table says 4 ways */
	register_tb();
	assert_int_equal(nd_region_get(0)->align, 48 * MiB);
	assert_true(host_console_has("nfit: SPA range 1: handle 0x1 says 4-way interleave, 3 DIMMs map it"));
	assert_true(host_console_has("nfit: DIMM handle 0x1: no control region 0, no id"));
	assert_false(nvdimm_get(0)->has_dcr);
}

/* Overlapping SPA ranges: the later one is rejected with a line. */
static void nfit_overlapping_spa_rejected(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	add_spa(4, 4 * GiB + 512 * MiB, 1 * GiB, guid_pm);
	add_spa(6, 6 * GiB, 1 * GiB, guid_pm);
	register_tb();
	assert_int_equal(nd_region_count(), 2);
	assert_int_equal(nd_region_get(0)->start, 4 * GiB);
	assert_int_equal(nd_region_get(1)->start, 6 * GiB);
	assert_true(host_console_has("nd_region: nfit [mem 0x120000000-0x15fffffff] overlaps nfit [mem 0x100000000-0x13fffffff], rejected"));
}

/* Bad SPAs: zero length, wrapping, duplicate index, non-pmem types. */
static void nfit_spa_rejections(void **state)
{
	(void)state;
	tb_init();
	u32 zero = add_spa(2, 4 * GiB, 0, guid_pm);
	add_spa(3, ~0ULL - 4095, 8192, guid_pm);
	add_spa(4, 5 * GiB, 1 * GiB, guid_pm);
	u32 dup = add_spa(4, 7 * GiB, 1 * GiB, guid_pm);
	add_spa(5, 9 * GiB, 1 * GiB, guid_volatile);
	add_memdev(1, 11, 0, 1 * GiB, 0, 1, 0);	/* an SPA index that does not exist */
	register_tb();
	assert_int_equal(nd_region_count(), 1);
	assert_int_equal(nd_region_get(0)->start, 5 * GiB);
	assert_int_equal(nt.spa[4].type, NFIT_SPA_VOLATILE);
	char msg[128];
	snprintf(msg, sizeof(msg), "nfit: SPA range 2 at offset %#x: base 0x100000000 length 0, ignored", zero);
	assert_true(host_console_has(msg));
	assert_true(host_console_has("nfit: SPA range 3 at offset"));
	snprintf(msg, sizeof(msg), "nfit: SPA at offset %#x: range index 4 already used, ignored", dup);
	assert_true(host_console_has(msg));
	assert_true(host_console_has("(handle 0x1): no SPA range 11"));
}

/* A DIMM not armed makes its region read-only; ndctl's flags show on the DIMM. */
static void nfit_not_armed_region_read_only(void **state)
{
	(void)state;
	tb_init();
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(1, 2, 3, 1 * GiB, 0, 1,
		   NFIT_MEM_NOT_ARMED | NFIT_MEM_FLUSH_FAILED | NFIT_MEM_HEALTH_OBSERVED);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
	register_tb();
	const struct nd_region *r = nd_region_get(0);
	assert_true(r->ro);
	assert_true(host_console_has("nfit: SPA range 2: nmem0 (handle 0x1) not armed, region read-only"));
	assert_true(host_console_has("persistence unknown, read-only"));
	assert_true(host_console_has(", not_armed, flush_fail, smart_event"));
	struct nd_namespace_io *ns = nd_namespace_find("namespace0.0");
	int owner;
	assert_int_equal(nd_namespace_claim(ns, &owner, NULL, true), -EROFS);
	assert_int_equal(nd_namespace_claim(ns, &owner, NULL, false), 0);
	host_console_reset();
	nd_list(ND_LIST_DIMMS, NULL, NULL);
	assert_true(host_console_has("\"flag_failed_arm\":true"));
	assert_true(host_console_has("\"flag_failed_flush\":true"));
	assert_true(host_console_has("\"flag_smart_event\":true"));
	assert_false(host_console_has("flag_failed_save"));
}

/*
 * Regression (issue 11 item 2): an SPA range inside usable RAM became a
 * writable raw pmem device over kernel memory. Any overlap with RAM, and a
 * range not 4 KiB aligned, is refused with a line each; the rest registers.
 */
static void nfit_spa_over_ram_or_unaligned_refused(void **state)
{
	(void)state;
	memblock_add(0, 2 * GiB);
	tb_init();
	add_spa(1, 2 * GiB - 4096, 1 * GiB, guid_pm);	/* last RAM page */
	add_spa(2, 3 * GiB + 512, 64 * MiB, guid_pm);	/* not 4 KiB aligned */
	add_spa(3, 4 * GiB, 1 * GiB, guid_pm);		/* fine */
	add_memdev(1, 1, 3, 1 * GiB, 0, 1, 0);
	add_memdev(2, 2, 3, 64 * MiB, 0, 1, 0);
	add_memdev(3, 3, 3, 1 * GiB, 0, 1, 0);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
	register_tb();
	assert_int_equal(nd_region_count(), 1);
	assert_int_equal(nd_region_get(0)->start, 4 * GiB);
	assert_true(host_console_has("nd_region: nfit [mem 0x7ffff000-0xbfffefff] overlaps System RAM [mem 0-0x7fffffff], rejected"));
	assert_true(host_console_has("nd_region: nfit [mem 0xc0000200-0xc40001ff] is not 4 KiB aligned, rejected"));
	assert_null(nd_namespace_find("pmem1"));
}

/* Every NFIT state flag becomes nvdimm's own, once; reserved bits become nothing. */
static void nfit_state_flags_translated(void **state)
{
	(void)state;
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_SAVE_FAILED), ND_DIMM_SAVE_FAILED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_RESTORE_FAILED), ND_DIMM_RESTORE_FAILED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_FLUSH_FAILED), ND_DIMM_FLUSH_FAILED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_NOT_ARMED), ND_DIMM_NOT_ARMED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_HEALTH_OBSERVED), ND_DIMM_SMART_EVENT);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_HEALTH_ENABLED), ND_DIMM_SMART_NOTIFY);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_MAP_FAILED), ND_DIMM_MAP_FAILED);
	assert_int_equal(nfit_dimm_flags(0xff80), 0);
	/* The boot line and ndctl's JSON name each flag once. */
	tb_init();
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(1, 2, 3, 1 * GiB, 0, 1, NFIT_MEM_MAP_FAILED | NFIT_MEM_HEALTH_ENABLED);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
	register_tb();
	assert_true(host_console_has(", map_fail, smart_notify"));
	host_console_reset();
	nd_list(ND_LIST_DIMMS, NULL, NULL);
	assert_true(host_console_has("\"flag_failed_map\":true"));
	assert_false(host_console_has("notify"));
}

/* §5.2.25.9: bits above the highest valid one are ignored; bit 0 wins. */
static void nfit_platform_capabilities(void **state)
{
	static const struct {
		u8 highest;
		u32 caps;
		enum nd_persistence want;
	} cases[] = {
		{ 1, 3, ND_PERSIST_CACHE }, { 1, 2, ND_PERSIST_MEMCTRL }, { 0, 2, ND_PERSIST_UNKNOWN },
		{ 0, 3, ND_PERSIST_CACHE }, { 31, 0x80000002, ND_PERSIST_MEMCTRL },
		{ 255, 1, ND_PERSIST_CACHE }, { 2, 4, ND_PERSIST_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nfit_caps c = { .h = { NFIT_TYPE_CAPS, NFIT_CAPS_LEN },
					    .highest_capability = cases[i].highest,
					    .capabilities = cases[i].caps };
		tb_init();
		tb_add(&c, NFIT_CAPS_LEN);
		c.capabilities = 1;
		tb_add(&c, NFIT_CAPS_LEN);	/* a second one is ignored */
		assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -ENOSPC);
		assert_int_equal(nt.caps.capabilities, cases[i].caps);
		assert_int_equal(nfit_caps_persistence(&nt.caps), cases[i].want);
	}
	assert_true(host_console_has("nfit: second CAPS at offset 0x38 ignored"));
}

/* Full arrays drop the rest with one line per type; the walk goes on. */
static void nfit_arrays_full(void **state)
{
	(void)state;
	tb_init();
	for (u16 i = 0; i < NFIT_MAX_SPA + 3; i++)
		add_spa((u16)(i + 1), 4 * GiB + (u64)i * GiB, 1 * GiB, guid_pm);
	add_dcr(3, 1, NFIT_DCR_SHORT_LEN);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -ENOSPC);
	assert_int_equal(nt.nr_spa, NFIT_MAX_SPA);
	assert_int_equal(nt.walk.nr_dropped, 3);
	assert_int_equal(nt.nr_dcr, 1);
	assert_true(host_console_has("nfit: more than 32 SPA subtables, the rest dropped"));
	const char *first = strstr(host_console_text(), "more than 32 SPA");
	assert_null(strstr(first + 1, "more than 32 SPA"));
	register_tb();
	assert_int_equal(nd_region_count(), NFIT_MAX_SPA);
}

static void nfit_spa_type_names(void **state)
{
	(void)state;
	assert_int_equal(nfit_spa_type_from_guid(guid_pm), NFIT_SPA_PM);
	assert_string_equal(nfit_spa_type_name(NFIT_SPA_PM), "persistent memory");
	assert_string_equal(nfit_spa_type_name(NFIT_SPA_UNKNOWN), "unknown range type");
	u8 other[16] = { 1 };
	assert_int_equal(nfit_spa_type_from_guid(other), NFIT_SPA_UNKNOWN);
}

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

#define FIXTURE(id, file) { "nfit_fixture_" id "_matches_linux", fixture_test, reset, NULL, file }

int main(void)
{
	const struct CMUnitTest tests[] = {
		FIXTURE("one_1G", "one-1G"),
		FIXTURE("two_1G_3G", "two-1G-3G"),
		FIXTURE("four_512M", "four-512M"),
		FIXTURE("label_128K", "label-128K"),
		FIXTURE("persist_cpu", "persist-cpu"),
		FIXTURE("persist_memctrl", "persist-memctrl"),
		cmocka_unit_test_setup(nfit_zero_length_subtable_stops_walk, reset),
		cmocka_unit_test_setup(nfit_length_past_end_stops_walk, reset),
		cmocka_unit_test_setup(nfit_truncated_table, reset),
		cmocka_unit_test_setup(nfit_not_an_nfit, reset),
		cmocka_unit_test_setup(nfit_below_minimum_stops_walk, reset),
		cmocka_unit_test_setup(nfit_inconsistent_subtable_rejected_walk_goes_on, reset),
		cmocka_unit_test_setup(nfit_unknown_types_skipped, reset),
		cmocka_unit_test_setup(nfit_non_pmem_spa_one_line_each, reset),
		cmocka_unit_test_setup(nfit_spa_64_byte_form, reset),
		cmocka_unit_test_setup(nfit_dcr_32_byte_form, reset),
		cmocka_unit_test_setup(nfit_block_window_structures, reset),
		cmocka_unit_test_setup(nfit_flush_hints, reset),
		cmocka_unit_test_setup(nfit_interleave_two_way, reset),
		cmocka_unit_test_setup(nfit_interleave_three_way_align, reset),
		cmocka_unit_test_setup(nfit_overlapping_spa_rejected, reset),
		cmocka_unit_test_setup(nfit_spa_rejections, reset),
		cmocka_unit_test_setup(nfit_not_armed_region_read_only, reset),
		cmocka_unit_test_setup(nfit_state_flags_translated, reset),
		cmocka_unit_test_setup(nfit_spa_over_ram_or_unaligned_refused, reset),
		cmocka_unit_test_setup(nfit_platform_capabilities, reset),
		cmocka_unit_test_setup(nfit_arrays_full, reset),
		cmocka_unit_test_setup(nfit_spa_type_names, reset),
		cmocka_unit_test_setup(nfit_acpi_bad_checksum_table_skipped, reset),
		cmocka_unit_test_setup(nfit_listed_twice_registers_once, reset),
		cmocka_unit_test_setup(nfit_second_table_with_taken_handle_refused, reset),
		cmocka_unit_test_setup(nfit_and_e820_three_regions_no_duplicates, reset),
		cmocka_unit_test_setup(e820_partly_covered_range_refused, reset),
		cmocka_unit_test_setup(e820_only_without_acpi, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
