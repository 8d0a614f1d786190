/*
 * Host tests: the pfn device layout (nvdimm/pfn_layout.c) against the six
 * info blocks Linux 6.1 wrote (test/fixtures), and its edges: a truncated
 * end, an unaligned start, namespaces too small, 1 GiB align, the map=mem
 * reserve, a block with start_pad as older Linux wrote them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "nd_pfn_layout.h"

#define NS_START 0x100000000ULL /* region0 in every fixture */
#define SECTION (128 * MiB)

static const char *const fixtures[] = {
	"linux-6.1-fsdax-dev-4G",	  "linux-6.1-fsdax-dev-4G-align4K",
	"linux-6.1-fsdax-dev-4G-align1G", "linux-6.1-fsdax-mem-4G",
	"linux-6.1-fsdax-mem-4G-align4K", "linux-6.1-fsdax-mem-4G-align1G",
};

/* One fixture: Linux's block, and what its .txt says about the namespace. */
struct linux_fixture {
	struct nd_pfn_sb sb; /* from the .head.bin at offset 4 KiB */
	char txt[8192];
	u64 start, size; /* the namespace: region0 */
	enum nd_pfn_mode mode; /* what ndctl was asked for */
	u64 align;
	u64 resource, data_size; /* pfn0 in sysfs: where the data starts, its size */
};

static struct linux_fixture fx;

/* What the last lay_out() or place() returned. */
static struct nd_pfn_layout l;
static struct nd_pfn_placement p;
static const char *why;

static int lay_out(u64 start, u64 size, enum nd_pfn_mode mode, u64 align)
{
	return nd_pfn_lay_out(start, size, mode, align, &l, &p, &why);
}

static int place(u64 start, u64 size, const struct nd_pfn_layout *fields)
{
	return nd_pfn_place(start, size, fields, &p, &why);
}

static void read_file(const char *name, const char *ext, long off, void *buf, size_t len,
		      bool exact)
{
	char path[256];

	snprintf(path, sizeof(path), "test/fixtures/%s%s", name, ext);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	size_t n = fread(buf, 1, len, f);
	fclose(f);
	if (exact)
		assert_int_equal(n, len);
	else
		assert_true(n > 0 && n < len);
}

/* The number (any base) that follows `key` in the fixture's text. */
static u64 txt_u64(const char *key)
{
	const char *s = strstr(fx.txt, key);

	if (!s)
		fail_msg("fixture text has no '%s'", key);
	return strtoull(s + strlen(key), NULL, 0);
}

static void load_fixture(const char *name)
{
	memset(&fx, 0, sizeof(fx));
	read_file(name, ".head.bin", ND_PFN_SB_OFFSET, &fx.sb, sizeof(fx.sb), true);
	read_file(name, ".txt", 0, fx.txt, sizeof(fx.txt) - 1, false);
	fx.start = txt_u64("region0 at guest phys ");
	fx.size = txt_u64("backing file size");
	const char *sysfs = strstr(fx.txt, "pfn0 sysfs");
	assert_non_null(sysfs);
	assert_int_equal(
		sscanf(sysfs, "pfn0 sysfs resource=%llx size=%llu", &fx.resource, &fx.data_size),
		2);
	fx.mode = strstr(fx.txt, " -M dev") ? PFN_MODE_PMEM : PFN_MODE_RAM;
	fx.align = strstr(fx.txt, " -a 4K") ? 4 * KiB :
		   strstr(fx.txt, " -a 1G") ? 1 * GiB :
					      2 * MiB;
	assert_int_equal(fx.start, NS_START);
	assert_int_equal(fx.size, 4 * GiB);
	assert_true(strstr(fx.txt, fx.mode == PFN_MODE_PMEM ? "mode=pmem" : "mode=ram"));
}

static struct nd_pfn_layout fields_of(const struct nd_pfn_sb *sb)
{
	return (struct nd_pfn_layout){.mode = (enum nd_pfn_mode)sb->mode,
				      .align = sb->align,
				      .dataoff = sb->dataoff,
				      .npfns = sb->npfns,
				      .start_pad = sb->start_pad,
				      .end_trunc = sb->end_trunc};
}

/*
 * The altmap of a map=dev placement: 2 MiB aligned base, reserve and free
 * ending exactly at the data, up to the range's last pfn, and room for a
 * 2 MiB memmap block per section wholly in the range (mm/vmemmap.c's rule)
 * with the alignment padding the allocator adds (FACTS §2.2).
 */
static void check_altmap(void)
{
	struct vmem_altmap a = p.altmap;
	u64 pfn;

	assert_int_equal(a.base_pfn % (2 * MiB / PAGE_SIZE), 0);
	assert_int_equal(a.base_pfn, PFN_DOWN(p.range.start));
	assert_int_equal(a.base_pfn + a.reserve + a.free, PFN_DOWN(p.data));
	assert_int_equal(a.end_pfn, PFN_DOWN(p.range.end));
	assert_int_equal(a.alloc + a.align, 0);
	for (u64 s = ALIGN_UP(p.range.start, SECTION); s + SECTION <= p.range.end + 1; s += SECTION)
		assert_int_equal(altmap_alloc_block(&a, 2 * MiB, &pfn), 0);
	assert_true(altmap_next_pfn(&a) <= PFN_DOWN(p.data));
}

static void check_same_placement(const struct nd_pfn_placement *a, const struct nd_pfn_placement *b)
{
	assert_int_equal(a->range.start, b->range.start);
	assert_int_equal(a->range.end, b->range.end);
	assert_int_equal(a->data, b->data);
	assert_int_equal(a->data_size, b->data_size);
	assert_int_equal(a->npfns, b->npfns);
	assert_memory_equal(&a->altmap, &b->altmap, sizeof(a->altmap));
}

/* A new layout for each fixture's request is the one Linux wrote. */
static void layout_matches_linux_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		load_fixture(fixtures[i]);
		why = "unset";
		assert_int_equal(lay_out(fx.start, fx.size, fx.mode, fx.align), 0);
		assert_null(why);
		/* The info block's fields. */
		assert_int_equal(l.mode, fx.sb.mode);
		assert_int_equal(l.dataoff, fx.sb.dataoff);
		assert_int_equal(l.npfns, fx.sb.npfns);
		assert_int_equal(l.start_pad, fx.sb.start_pad);
		assert_int_equal(l.end_trunc, fx.sb.end_trunc);
		assert_int_equal(l.align, fx.sb.align);
		assert_int_equal(l.page_size, fx.sb.page_size);
		assert_int_equal(l.page_struct_size, fx.sb.page_struct_size);
		assert_int_equal(l.version_minor, fx.sb.version_minor);
		/* Where Linux put the data (sysfs resource= and size=). */
		assert_int_equal(p.data, fx.resource);
		assert_int_equal(p.data_size, fx.data_size);
		assert_int_equal(p.npfns, fx.sb.npfns);
		assert_int_equal(p.range.start, fx.start + fx.sb.start_pad);
		assert_int_equal(p.range.end, fx.start + fx.size - fx.sb.end_trunc - 1);
		if (fx.mode == PFN_MODE_PMEM) {
			check_altmap();
			assert_int_equal(p.altmap.reserve, 2);
		} else {
			assert_int_equal(p.altmap.base_pfn + p.altmap.reserve + p.altmap.free, 0);
		}
		/* Bringing Linux's block up places it the same way. */
		struct nd_pfn_placement new = p;
		struct nd_pfn_layout media = fields_of(&fx.sb);
		assert_int_equal(place(fx.start, fx.size, &media), 0);
		check_same_placement(&new, &p);
	}
}

/* FACTS §1.8 worked check: 1 GiB map=dev at 4 GiB. */
static void layout_facts_1_8_altmap(void **state)
{
	(void)state;
	assert_int_equal(lay_out(NS_START, 1 * GiB, PFN_MODE_PMEM, 2 * MiB), 0);
	assert_int_equal(l.dataoff, 0x1200000);
	assert_int_equal(p.altmap.base_pfn, 0x100000);
	assert_int_equal(p.altmap.reserve, 2);
	assert_int_equal(p.altmap.free, 0x11fe);
	assert_int_equal(p.altmap.end_pfn, 0x13ffff);
	check_altmap();
}

/* An end that is not 2 MiB aligned is cut off (end_trunc), not refused. */
static void layout_truncates_unaligned_end(void **state)
{
	(void)state;
	assert_int_equal(lay_out(NS_START, 1 * GiB + 1 * MiB, PFN_MODE_PMEM, 4 * KiB), 0);
	assert_int_equal(l.end_trunc, 1 * MiB);
	assert_int_equal(l.dataoff, 0x1200000);
	assert_int_equal(l.npfns, 0x3ee00);
	assert_int_equal(p.range.end, NS_START + 1 * GiB - 1);
	assert_int_equal(p.data + p.data_size, NS_START + 1 * GiB);
	check_altmap();
	assert_int_equal(lay_out(NS_START, 1 * GiB + 1 * MiB, PFN_MODE_RAM, 2 * MiB), 0);
	assert_int_equal(l.end_trunc, 1 * MiB);
	assert_int_equal(l.npfns, PFN_DOWN(1 * GiB - 2 * MiB));
}

static void layout_refuses_unaligned_start(void **state)
{
	(void)state;
	assert_int_equal(lay_out(NS_START + 1 * MiB, 1 * GiB, PFN_MODE_PMEM, 2 * MiB), -EINVAL);
	assert_string_equal(why, "namespace start not 2 MiB aligned");
	assert_int_equal(l.dataoff + p.data + p.altmap.free, 0); /* zeroed */
}

static void layout_refuses_namespaces_too_small(void **state)
{
	(void)state;
	assert_int_equal(lay_out(NS_START, 8 * KiB, PFN_MODE_RAM, 4 * KiB), -ENXIO);
	assert_string_equal(why, "namespace too small for an info block");
	/* 2 MiB: the data would start at its end. */
	assert_int_equal(lay_out(NS_START, 2 * MiB, PFN_MODE_PMEM, 2 * MiB), -ENXIO);
	assert_string_equal(why, "namespace too small: unable to satisfy the requested alignment");
	assert_int_equal(lay_out(NS_START, 4 * MiB, PFN_MODE_PMEM, 2 * MiB), 0);
	assert_int_equal(l.dataoff, 2 * MiB);
	assert_int_equal(l.npfns, 512);
	/* 1 GiB align on 1 GiB: nothing left after the first 1 GiB boundary. */
	assert_int_equal(lay_out(NS_START, 1 * GiB, PFN_MODE_RAM, 1 * GiB), -ENXIO);
	/* 1 GiB align on 256 MiB between two 1 GiB boundaries: end_trunc would pass the start. */
	assert_int_equal(lay_out(NS_START + 512 * MiB, 256 * MiB, PFN_MODE_RAM, 1 * GiB), -ENXIO);
	assert_int_equal(lay_out(NS_START, 1 * GiB, PFN_MODE_NONE, 2 * MiB), -EINVAL);
	assert_int_equal(lay_out(NS_START, 1 * GiB, PFN_MODE_PMEM, 8 * KiB), -EINVAL);
}

/* 1 GiB align on 4 GiB that starts half way between two 1 GiB boundaries. */
static void layout_1g_align_on_4g(void **state)
{
	u64 start = NS_START + 512 * MiB;

	(void)state;
	for (int dev = 0; dev < 2; dev++) {
		enum nd_pfn_mode mode = dev ? PFN_MODE_PMEM : PFN_MODE_RAM;

		assert_int_equal(lay_out(start, 4 * GiB, mode, 1 * GiB), 0);
		assert_int_equal(l.align, 1 * GiB);
		assert_int_equal(l.dataoff, 512 * MiB);
		assert_int_equal(l.end_trunc, 512 * MiB);
		assert_int_equal(l.npfns, PFN_DOWN(3 * GiB));
		assert_int_equal(p.data, NS_START + 1 * GiB);
		assert_int_equal(p.range.end, NS_START + 4 * GiB - 1);
		if (dev)
			check_altmap();
	}
}

/* map=mem: data past the 8 KiB reserve rounded up to 2 MiB; no altmap. */
static void layout_map_mem_reserve(void **state)
{
	(void)state;
	assert_int_equal(lay_out(NS_START, 1 * GiB, PFN_MODE_RAM, 4 * KiB), 0);
	assert_int_equal(l.dataoff, 2 * MiB);
	assert_int_equal(l.align, 4 * KiB);
	assert_int_equal(p.altmap.reserve + p.altmap.free + p.altmap.base_pfn, 0);
	/* A block may put the data right after the reserve, never inside it. */
	l.dataoff = 8 * KiB;
	assert_int_equal(place(NS_START, 1 * GiB, &l), 0);
	assert_int_equal(p.data, NS_START + 8 * KiB);
	l.dataoff = 4 * KiB;
	assert_int_equal(place(NS_START, 1 * GiB, &l), -EINVAL);
	assert_string_equal(why, "dataoff inside the 8 KiB info-block reserve");
	l.mode = PFN_MODE_PMEM; /* the altmap's free would wrap */
	assert_int_equal(place(NS_START, 1 * GiB, &l), -EINVAL);
}

/* A block written by an older Linux, with start_pad: placed from its fields. */
static void place_block_with_start_pad(void **state)
{
	struct nd_pfn_layout old = {.mode = PFN_MODE_PMEM,
				    .align = 2 * MiB,
				    .dataoff = 0x1200000,
				    .start_pad = 1 * MiB,
				    .end_trunc = 1 * MiB};

	(void)state;
	assert_int_equal(place(NS_START + 1 * MiB, 1 * GiB, &old), 0);
	assert_int_equal(p.range.start, NS_START + 2 * MiB);
	assert_int_equal(p.range.end, NS_START + 1 * GiB - 1);
	assert_int_equal(p.data, NS_START + 20 * MiB);
	assert_int_equal(p.npfns, PFN_DOWN(1 * GiB - 20 * MiB));
	assert_int_equal(p.altmap.reserve, 2);
	assert_int_equal(p.altmap.free, 0x11fe);
	check_altmap();
	/* Misplaced ends and a dataoff past the range are refused. */
	old.start_pad = 4 * KiB;
	assert_int_equal(place(NS_START + 1 * MiB, 1 * GiB, &old), -EOPNOTSUPP);
	assert_string_equal(why, "namespace start + start_pad not 2 MiB aligned");
	old.start_pad = 1 * MiB;
	old.end_trunc = 0;
	assert_int_equal(place(NS_START + 1 * MiB, 1 * GiB, &old), -EOPNOTSUPP);
	assert_string_equal(why, "namespace end - end_trunc not 2 MiB aligned");
	old.end_trunc = 1 * MiB;
	old.dataoff = 1 * GiB - 2 * MiB;
	assert_int_equal(place(NS_START + 1 * MiB, 1 * GiB, &old), -EOPNOTSUPP);
	assert_string_equal(why, "dataoff past the end of the mapped range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_matches_linux_fixtures),
		cmocka_unit_test(layout_facts_1_8_altmap),
		cmocka_unit_test(layout_truncates_unaligned_end),
		cmocka_unit_test(layout_refuses_unaligned_start),
		cmocka_unit_test(layout_refuses_namespaces_too_small),
		cmocka_unit_test(layout_1g_align_on_4g),
		cmocka_unit_test(layout_map_mem_reserve),
		cmocka_unit_test(place_block_with_start_pad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
