/* Host tests: pfn info blocks against Linux's own (test/fixtures) and every corruption. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "nd_pfn_sb.h"
#include "nd_util.h"

static const struct nd_pfn_geom ns4g = { .start = 0x100000000ULL, .size = 4 * GiB };

struct fixture {
	const char *file;
	enum nd_pfn_mode mode;
	u64 align, dataoff, npfns;
	const char *uuid;
};

/* Values from the fixtures' .txt (ndctl read-infoblock in the Linux guest). */
static const struct fixture fixtures[] = {
	{ "linux-6.1-fsdax-dev-4G", PFN_MODE_PMEM, 2 * MiB, 0x4200000, 1031680,
	  "b7333c6d-4c8b-4e4d-8eb2-eb0b955b498b" },
	{ "linux-6.1-fsdax-dev-4G-align4K", PFN_MODE_PMEM, 4 * KiB, 0x4200000, 1031680,
	  "d021d8fe-eae1-4c63-9a6f-27fb6d119b73" },
	{ "linux-6.1-fsdax-dev-4G-align1G", PFN_MODE_PMEM, 1 * GiB, 0x40000000, 786432,
	  "bc77dc6f-7a2b-4415-91d7-e6d577fa2739" },
	{ "linux-6.1-fsdax-mem-4G", PFN_MODE_RAM, 2 * MiB, 0x200000, 1048064,
	  "ca13f482-6608-47fb-a016-8fe3eed7a494" },
	{ "linux-6.1-fsdax-mem-4G-align4K", PFN_MODE_RAM, 4 * KiB, 0x200000, 1048064,
	  "2ea5d6ac-615f-4ada-a100-bc7045bb9afe" },
	{ "linux-6.1-fsdax-mem-4G-align1G", PFN_MODE_RAM, 1 * GiB, 0x40000000, 786432,
	  "fd85b49f-95bf-46b9-9730-203f2f218613" },
};

static struct nd_pfn_sb sb, made;

static void load(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "test/fixtures/%s.head.bin", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, ND_PFN_SB_OFFSET, SEEK_SET), 0);
	assert_int_equal(fread(&sb, 1, sizeof(sb), f), sizeof(sb));
	fclose(f);
}

static void pfn_linux_fixtures_validate_with_linux_layout(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		const struct fixture *fx = &fixtures[i];
		struct nd_pfn_layout l;
		const char *why;
		char uuid[UUID_STR_LEN + 1];

		load(fx->file);
		assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), 0);
		assert_int_equal(l.mode, fx->mode);
		assert_int_equal(l.align, fx->align);
		assert_int_equal(l.dataoff, fx->dataoff);
		assert_int_equal(l.npfns, fx->npfns);
		assert_int_equal(l.version_minor, 4);
		assert_int_equal(l.page_struct_size, 64);
		uuid_to_str(l.uuid, uuid);
		assert_string_equal(uuid, fx->uuid);
	}
}

/* nd_pfn_init writes what Linux wrote, byte for byte. */
static void pfn_init_reproduces_linux_blocks(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		const struct fixture *fx = &fixtures[i];
		u8 uuid[16];
		const char *why;

		load(fx->file);
		assert_int_equal(uuid_parse(fx->uuid, uuid), 0);
		assert_int_equal(nd_pfn_init(&made, &ns4g, fx->mode, fx->align, uuid, &why), 0);
		if (memcmp(&made, &sb, sizeof(sb)) != 0)
			fail_msg("%s: block differs from Linux's", fx->file);
	}
}

/* Linux's devdax blocks (FACTS-2 §2.1): the same layout under NVDIMM_DAX_INFO. */
static const struct fixture dax_fixtures[] = {
	{ "linux-6.1-devdax-dev-4G-align2M", PFN_MODE_PMEM, 2 * MiB, 0x4200000, 1031680,
	  "28b43fb3-0bf0-44bd-877c-6574b8550bab" },
	{ "linux-6.1-devdax-dev-4G-align1G", PFN_MODE_PMEM, 1 * GiB, 0x40000000, 786432,
	  "cc6f0c07-4fed-444b-b2a3-e4d78eeeb4d5" },
	{ "linux-6.1-devdax-mem-4G-align2M", PFN_MODE_RAM, 2 * MiB, 0x200000, 1048064,
	  "e96f0fa3-eefa-4331-b90c-0b3c72219d00" },
	{ "linux-6.1-devdax-mem-4G-align1G", PFN_MODE_RAM, 1 * GiB, 0x40000000, 786432,
	  "fb1d77dd-8445-4431-abea-5fb238ea4225" },
};

/*
 * nd_dax_init writes what ndctl create-namespace -m devdax wrote, byte for
 * byte; nd_dax_validate reads Linux's fields back and nd_pfn_validate says
 * "not mine".
 */
static void dax_init_reproduces_linux_devdax_blocks(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dax_fixtures); i++) {
		const struct fixture *fx = &dax_fixtures[i];
		struct nd_pfn_layout l;
		u8 uuid[16];
		const char *why;

		load(fx->file);
		assert_int_equal(nd_dax_validate(&sb, &ns4g, &l, &why), 0);
		assert_int_equal(l.mode, fx->mode);
		assert_int_equal(l.align, fx->align);
		assert_int_equal(l.dataoff, fx->dataoff);
		assert_int_equal(l.npfns, fx->npfns);
		assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), -ENODEV);
		assert_int_equal(uuid_parse(fx->uuid, uuid), 0);
		assert_int_equal(nd_dax_init(&made, &ns4g, fx->mode, fx->align, uuid, &why), 0);
		if (memcmp(&made, &sb, sizeof(sb)) != 0)
			fail_msg("%s: block differs from Linux's", fx->file);
		/* The fsdax block of the same layout differs in the signature alone (and checksum). */
		assert_int_equal(nd_pfn_init(&made, &ns4g, fx->mode, fx->align, uuid, &why), 0);
		assert_memory_equal(made.signature, PFN_SIG, PFN_SIG_LEN);
		assert_memory_equal((u8 *)&made + 16, (u8 *)&sb + 16, 4088 - 16);
	}
}

/* devdax's own rule: align 4K, 2M or 1G; a 64 KiB one is refused with the reason. */
static void dax_validate_refuses_other_aligns(void **state)
{
	(void)state;
	struct nd_pfn_layout l;
	const char *why;

	load("linux-6.1-devdax-mem-4G-align2M");
	sb.align = 64 * KiB;
	sb.checksum = nd_pfn_sb_checksum(&sb);
	assert_int_equal(nd_dax_validate(&sb, &ns4g, &l, &why), -EOPNOTSUPP);
	assert_string_equal(why, "device-dax align is not 4 KiB, 2 MiB or 1 GiB");
	/* The same field in an fsdax block is Linux's business only if the memmap fits: it does. */
	memcpy(sb.signature, PFN_SIG, PFN_SIG_LEN);
	sb.checksum = nd_pfn_sb_checksum(&sb);
	assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), 0);
	/* A dax block with a bad checksum is nobody's. */
	load("linux-6.1-devdax-dev-4G-align1G");
	sb.npfns++;
	assert_int_equal(nd_dax_validate(&sb, &ns4g, &l, &why), -ENODEV);
	assert_string_equal(why, "info block checksum mismatch");
}

static void pfn_checksum_matches_facts_vectors(void **state)
{
	(void)state;
	memset(&sb, 0, sizeof(sb));
	memcpy(sb.signature, PFN_SIG, 16);
	for (int i = 0; i < 16; i++)
		sb.uuid[i] = (u8)(i + 1);
	sb.version_major = 1;
	sb.version_minor = 4;
	sb.dataoff = 0x1200000;
	sb.npfns = 0x3EE00;
	sb.mode = PFN_MODE_PMEM;
	sb.align = 0x200000;
	sb.page_size = 4096;
	sb.page_struct_size = 64;
	assert_int_equal(nd_pfn_sb_checksum(&sb), 0x119f709e0cbe568eULL);
	sb.dataoff = 0x200000;
	sb.npfns = 0x3FE00;
	sb.mode = PFN_MODE_RAM;
	assert_int_equal(nd_pfn_sb_checksum(&sb), 0x1fde6cb00bbe668dULL);
	sb.checksum = 0x1234;	/* the stored checksum never feeds the sum */
	assert_int_equal(nd_pfn_sb_checksum(&sb), 0x1fde6cb00bbe668dULL);
}

/* FACTS §1.7 worked examples (namespace at 4 GiB, align 2 MiB). */
static void pfn_init_worked_examples(void **state)
{
	(void)state;
	const struct { u64 size; enum nd_pfn_mode mode; u64 dataoff, npfns, end_trunc; } ex[] = {
		{ 1 * GiB, PFN_MODE_PMEM, 0x1200000, 0x3EE00, 0 },
		{ 1 * GiB, PFN_MODE_RAM, 0x200000, 0x3FE00, 0 },
		{ 1 * GiB - 2 * MiB, PFN_MODE_PMEM, 0x1000000, 0x3EE00, 0 },
		{ 16 * GiB, PFN_MODE_PMEM, 0x10200000, 0x3EFE00, 0 },
		{ 1 * GiB + 1 * MiB, PFN_MODE_PMEM, 0x1200000, 0x3EE00, 0x100000 },
	};
	u8 uuid[16] = { 1 };

	for (size_t i = 0; i < ARRAY_SIZE(ex); i++) {
		struct nd_pfn_geom ns = { .start = 0x100000000ULL, .size = ex[i].size };
		struct nd_pfn_layout l;
		const char *why;

		assert_int_equal(nd_pfn_init(&made, &ns, ex[i].mode, 2 * MiB, uuid, &why), 0);
		assert_int_equal(made.dataoff, ex[i].dataoff);
		assert_int_equal(made.npfns, ex[i].npfns);
		assert_int_equal(made.end_trunc, ex[i].end_trunc);
		assert_int_equal(nd_pfn_validate(&made, &ns, &l, &why), 0);
		assert_int_equal(l.npfns, ex[i].npfns);
	}
}

static void pfn_init_refuses_bad_requests(void **state)
{
	(void)state;
	u8 uuid[16] = { 1 };
	const char *why;
	struct nd_pfn_geom ns = { .start = 0x100000000ULL + 4096, .size = 1 * GiB };

	assert_int_equal(nd_pfn_init(&made, &ns, PFN_MODE_PMEM, 2 * MiB, uuid, &why), -EINVAL);
	assert_string_equal(why, "namespace start not 2 MiB aligned");
	ns.start = 0x100000000ULL;
	assert_int_equal(nd_pfn_init(&made, &ns, PFN_MODE_PMEM, 3 * MiB, uuid, &why), -EINVAL);
	assert_int_equal(nd_pfn_init(&made, &ns, PFN_MODE_NONE, 2 * MiB, uuid, &why), -EINVAL);
	ns.size = 2 * MiB;
	assert_int_equal(nd_pfn_init(&made, &ns, PFN_MODE_PMEM, 2 * MiB, uuid, &why), -ENXIO);
	ns.size = 1 * GiB;
	assert_int_equal(nd_pfn_init(&made, &ns, PFN_MODE_RAM, 1 * GiB, uuid, &why), -ENXIO);
}

/* A corrupted field: with the checksum left stale, and recomputed. */
struct corruption {
	const char *name;
	void (*apply)(struct nd_pfn_sb *);
	int err;
	const char *why;
};

static void c_signature(struct nd_pfn_sb *s) { s->signature[0] = 'X'; }
static void c_dax(struct nd_pfn_sb *s) { memcpy(s->signature, DAX_SIG, 16); }
static void c_parent(struct nd_pfn_sb *s) { s->parent_uuid[3] = 1; }
static void c_major(struct nd_pfn_sb *s) { s->version_major = 2; }
static void c_mode(struct nd_pfn_sb *s) { s->mode = 3; }
static void c_page_size(struct nd_pfn_sb *s) { s->page_size = 65536; }
static void c_struct_size(struct nd_pfn_sb *s) { s->page_struct_size = 32; }
static void c_align(struct nd_pfn_sb *s) { s->align = 3 * 1024 * 1024; }
static void c_align_big(struct nd_pfn_sb *s) { s->align = 0x80000000U; }
static void c_dataoff_misaligned(struct nd_pfn_sb *s) { s->dataoff += 4096; }
static void c_dataoff_past_end(struct nd_pfn_sb *s) { s->dataoff = 8 * GiB; }
static void c_end_trunc(struct nd_pfn_sb *s) { s->end_trunc = 4096; }
static void c_start_pad(struct nd_pfn_sb *s) { s->start_pad = 4096; }

static const struct corruption corruptions[] = {
	{ "signature", c_signature, -ENODEV, "no pfn info block (signature is not NVDIMM_PFN_INFO)" },
	{ "dax signature", c_dax, -ENODEV, "device-dax info block (NVDIMM_DAX_INFO): not an fsdax pfn device" },
	{ "parent_uuid", c_parent, -ENODEV, "parent_uuid does not match the namespace" },
	{ "version_major", c_major, -EOPNOTSUPP, "version_major is not 1" },
	{ "mode", c_mode, -ENXIO, "mode is neither 1 (map=mem) nor 2 (map=dev)" },
	{ "page_size", c_page_size, -EOPNOTSUPP, "page_size larger than this kernel's 4096" },
	{ "page_struct_size", c_struct_size, -EOPNOTSUPP, "page_struct_size smaller than this kernel's 64-byte struct page" },
	{ "align", c_align, -EOPNOTSUPP, "align is not a power of two between 4 KiB and 1 GiB" },
	{ "align 2G", c_align_big, -EOPNOTSUPP, "align is not a power of two between 4 KiB and 1 GiB" },
	{ "dataoff", c_dataoff_misaligned, -EOPNOTSUPP, "dataoff not aligned to align (or to 4 KiB)" },
	{ "dataoff past end", c_dataoff_past_end, -EOPNOTSUPP, "dataoff past the end of the namespace" },
	{ "end_trunc", c_end_trunc, -EOPNOTSUPP, "namespace end - end_trunc not 2 MiB aligned" },
	{ "start_pad", c_start_pad, -EOPNOTSUPP, "dataoff not aligned to align (or to 4 KiB)" },
};

static void pfn_validate_rejects_each_corruption(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(corruptions); i++) {
		const struct corruption *c = &corruptions[i];
		struct nd_pfn_layout l;
		const char *why;

		load("linux-6.1-fsdax-dev-4G");
		c->apply(&sb);
		/* Stale checksum: the block is no longer recognised at all. */
		int err = nd_pfn_validate(&sb, &ns4g, &l, &why);
		if (c->apply != c_signature && c->apply != c_dax) {
			assert_int_equal(err, -ENODEV);
			assert_string_equal(why, "info block checksum mismatch");
		}
		/* Recomputed checksum: the field check itself must fire. */
		sb.checksum = nd_pfn_sb_checksum(&sb);
		err = nd_pfn_validate(&sb, &ns4g, &l, &why);
		if (err != c->err || strcmp(why, c->why) != 0)
			fail_msg("%s: got %d '%s', want %d '%s'", c->name, err, why, c->err, c->why);
	}
}

static void pfn_validate_applies_old_minor_defaults(void **state)
{
	(void)state;
	struct nd_pfn_layout l;
	const char *why;

	load("linux-6.1-fsdax-mem-4G");
	sb.version_minor = 0;	/* no start_pad/end_trunc/align/page sizes */
	sb.align = 0;
	sb.checksum = nd_pfn_sb_checksum(&sb);
	assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), 0);
	assert_int_equal(l.align, 2 * MiB);	/* largest power of two <= dataoff */
	assert_int_equal(l.page_struct_size, 64);
}

static void pfn_validate_accepts_larger_struct_page_reserve(void **state)
{
	(void)state;
	struct nd_pfn_layout l;
	const char *why;

	/* Linux 6.1 with KMSAN reserved 128 bytes per page: readable here. */
	load("linux-6.1-fsdax-dev-4G");
	sb.page_struct_size = 128;
	sb.checksum = nd_pfn_sb_checksum(&sb);
	assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), 0);
}

static void pfn_validate_ram_mode_checks_npfns_and_reserve(void **state)
{
	(void)state;
	struct nd_pfn_layout l;
	const char *why;

	load("linux-6.1-fsdax-mem-4G");
	sb.npfns += 1;
	sb.checksum = nd_pfn_sb_checksum(&sb);
	assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), -EOPNOTSUPP);
	assert_string_equal(why, "npfns runs past the end of the namespace");
	load("linux-6.1-fsdax-mem-4G");
	sb.dataoff = 4096;
	sb.align = 4096;
	sb.checksum = nd_pfn_sb_checksum(&sb);
	assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), -EINVAL);
	assert_string_equal(why, "dataoff inside the 8 KiB info-block reserve");
}

/*
 * Regression (issue 11 item 10): a map=dev block with dataoff 0 or 4096
 * passed validation and failed later, when its altmap did not fit, with a
 * misleading reason. Validation names the field now.
 */
static void pfn_validate_map_dev_dataoff_inside_reserve(void **state)
{
	(void)state;
	struct nd_pfn_layout l;
	const char *why;

	for (u64 off = 0; off <= 4096; off += 4096) {
		load("linux-6.1-fsdax-dev-4G");
		sb.dataoff = off;
		sb.align = 4096;
		sb.checksum = nd_pfn_sb_checksum(&sb);
		assert_int_equal(nd_pfn_validate(&sb, &ns4g, &l, &why), -EINVAL);
		assert_string_equal(why, "dataoff inside the 8 KiB info-block reserve");
	}
}

static void uuid_roundtrip_and_rejects_garbage(void **state)
{
	(void)state;
	u8 u[16];
	char s[UUID_STR_LEN + 1];

	assert_int_equal(uuid_parse("b7333c6d-4c8b-4e4d-8eb2-eb0b955b498b", u), 0);
	assert_int_equal(u[0], 0xb7);
	assert_int_equal(u[15], 0x8b);
	uuid_to_str(u, s);
	assert_string_equal(s, "b7333c6d-4c8b-4e4d-8eb2-eb0b955b498b");
	assert_int_not_equal(uuid_parse("b7333c6d-4c8b-4e4d-8eb2-eb0b955b498", u), 0);
	assert_int_not_equal(uuid_parse("b7333c6dx4c8b-4e4d-8eb2-eb0b955b498b", u), 0);
	assert_int_not_equal(uuid_parse("g7333c6d-4c8b-4e4d-8eb2-eb0b955b498b", u), 0);
}

/* The first `len` bytes of a fixture file (BTT .bin chunk 0 is file offset 0). */
static void load_head(const char *file, u8 *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "test/fixtures/%s", file);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);
}

/* What Linux left, told apart from the first 8 KiB alone, in Linux's order. */
static void identify_linux_personalities(void **state)
{
	(void)state;
	static u8 head[8192];
	struct nd_pfn_geom g = { .start = 0x100000000ULL, .size = 4 * GiB };
	struct nd_pfn_layout l;
	const char *why;

	load_head("linux-6.1-btt-4k-1G.bin", head, sizeof(head));
	assert_int_equal(nd_identify(head, sizeof(head)), ND_PERS_SECTOR);
	head[4096 + 20] ^= 1;	/* a BTT whose checksum fails is not one (Linux: raw) */
	assert_int_equal(nd_identify(head, sizeof(head)), ND_PERS_RAW);
	/* BTT 2.0 sits at offset 0 (labelled namespaces). */
	load_head("linux-6.1-btt-4k-1G.bin", head, sizeof(head));
	memcpy(head, head + 4096, 4096);
	memset(head + 4096, 0, 4096);
	assert_int_equal(nd_identify(head, sizeof(head)), ND_PERS_SECTOR);

	load_head("linux-6.1-devdax-dev-4G-align2M.head.bin", head, sizeof(head));
	assert_int_equal(nd_identify(head, sizeof(head)), ND_PERS_DEVDAX);
	assert_int_equal(nd_dax_validate((const void *)(head + 4096), &g, &l, &why), 0);
	assert_int_equal(l.mode, PFN_MODE_PMEM);
	assert_int_equal(l.align, 2 * MiB);
	assert_int_equal(l.dataoff, 0x4200000);
	assert_int_equal(nd_pfn_validate((const void *)(head + 4096), &g, &l, &why), -ENODEV);

	load_head("linux-6.1-fsdax-dev-4G.head.bin", head, sizeof(head));
	assert_int_equal(nd_identify(head, sizeof(head)), ND_PERS_FSDAX);
	assert_int_equal(nd_identify(head, 4096), ND_PERS_RAW);	/* too short for a block */
	memset(head, 0, sizeof(head));
	assert_int_equal(nd_identify(head, sizeof(head)), ND_PERS_RAW);
	assert_string_equal(nd_personality_name(ND_PERS_SECTOR), "sector");
	assert_string_equal(nd_personality_name(ND_PERS_DEVDAX), "devdax");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pfn_linux_fixtures_validate_with_linux_layout),
		cmocka_unit_test(pfn_init_reproduces_linux_blocks),
		cmocka_unit_test(dax_init_reproduces_linux_devdax_blocks),
		cmocka_unit_test(dax_validate_refuses_other_aligns),
		cmocka_unit_test(pfn_checksum_matches_facts_vectors),
		cmocka_unit_test(pfn_init_worked_examples),
		cmocka_unit_test(pfn_init_refuses_bad_requests),
		cmocka_unit_test(pfn_validate_rejects_each_corruption),
		cmocka_unit_test(pfn_validate_applies_old_minor_defaults),
		cmocka_unit_test(pfn_validate_accepts_larger_struct_page_reserve),
		cmocka_unit_test(pfn_validate_ram_mode_checks_npfns_and_reserve),
		cmocka_unit_test(uuid_roundtrip_and_rejects_garbage),
		cmocka_unit_test(identify_linux_personalities),
		cmocka_unit_test(pfn_validate_map_dev_dataoff_inside_reserve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
