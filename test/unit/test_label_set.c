/*
 * Host tests: namespace labels across an interleave set (nlabel > 1,
 * nvdimm/namespace_label.c and namespace_label_read.c). Linux's 512 MiB
 * fsdax namespace across the 4-way set of test/fixtures/synthetic-4way
 * (four label areas, v1.1, its NFIT's DIMMs) is found; a label missing or
 * inconsistent on one DIMM (position, cookie, nlabel, rawsize) refuses it
 * with one line; create, class change and destroy across the set
 * round-trip through the DIMMs' areas, position 0 being the commit point,
 * and a stop at any write never leaves half a namespace.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host.h"
#include "nd_label.h"
#include "nd_util.h"
#include "nvdimm.h"

#define LSA_SIZE (128 * 1024)

static int writes, fail_at, tear;	/* write number fail_at stores `tear` bytes, fails */

static char *read_text(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc(*n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *n, f), *n);
	buf[*n] = 0;
	fclose(f);
	return buf;
}

#define SET_DIMMS 4
#define SET_UUID "3888bc1f-eb17-47ac-b3e9-947f0d6c2185"	/* Linux's raw_uuid (linux-6.1.txt) */
#define SET_COOKIE 4333179448401879416ULL		/* its iset_id */
#define FIX_SLOT1 (2 * 256 + 128)			/* v1.1, 128 KiB: the live label, slot 1 */
static u8 set_area[SET_DIMMS][LSA_SIZE];	/* pmemk's copies */
static u8 set_dev[SET_DIMMS][LSA_SIZE];		/* what each DIMM holds */
static u8 set_src[SET_DIMMS][LSA_SIZE];		/* what the next set_region() starts from */
static int set_order[64], set_stopped;		/* DIMM of each write; all writes fail after fail_at */

static int set_write(struct nvdimm *d, u32 off, const void *buf, u32 len)
{
	assert_true(off + len <= LSA_SIZE && d->id < SET_DIMMS);
	if (set_stopped)
		return -EIO;
	if (writes < 64)
		set_order[writes] = d->id;
	if (++writes == fail_at) {
		memcpy(set_dev[d->id] + off, buf, MIN((u32)tear, len));
		set_stopped = 1;
		return -EIO;
	}
	memcpy(set_dev[d->id] + off, buf, len);
	return 0;
}

static const struct nd_label_ops set_ops = { set_write };

/*
 * The 4-way set of test/fixtures/synthetic-4way (its NFIT): four DIMMs of
 * 256 MiB at region offsets k x 4 KiB, a region of 1 GiB at 4 GiB, the
 * label areas taken from set_src.
 */
static struct nd_region *set_region(void)
{
	static const u32 handles[SET_DIMMS] = { 0x1, 0x11, 0x21, 0x101 };
	struct nd_region_desc rd = { .start = 4 * GiB, .size = 1 * GiB, .numa_node = 0,
				     .target_node = 0, .nr_mappings = SET_DIMMS };
	struct nd_bus *bus;

	nd_reset();
	bus = nd_bus_register("nfit");
	for (int k = 0; k < SET_DIMMS; k++) {
		struct nvdimm desc = { .handle = handles[k], .serial = 0x0101005eu + ((u32)k << 24),
				       .vendor_id = 0x8089 };
		struct nvdimm *d = nvdimm_create(bus, &desc);

		memcpy(set_area[k], set_src[k], LSA_SIZE);
		memcpy(set_dev[k], set_src[k], LSA_SIZE);
		d->lsa = set_area[k];
		d->lsa_size = LSA_SIZE;
		d->label_ops = &set_ops;
		rd.mapping[k] = (struct nd_mapping){ d, 0, 256 * MiB, k, (u64)k * 4096 };
	}
	assert_int_equal(nd_region_create(bus, &rd, NULL), 0);
	host_console_reset();
	writes = fail_at = tear = set_stopped = 0;
	nd_regions_publish();
	return nd_region_get(0);
}

/* set_src: Linux's label areas on the DIMMs in `labelled`, blank areas on the others. */
static void set_src_linux(unsigned int labelled)
{
	for (int k = 0; k < SET_DIMMS; k++) {
		char path[128];
		size_t n;

		memset(set_src[k], 0, LSA_SIZE);
		if (!(labelled & (1u << k)))
			continue;
		snprintf(path, sizeof(path), "test/fixtures/synthetic-4way/labels-nmem%d.bin", k);
		char *bin = read_text(path, &n);
		assert_int_equal(n, LSA_SIZE);
		memcpy(set_src[k], bin, LSA_SIZE);
		free(bin);
	}
}

static struct nd_region *interleaved_region(unsigned int labelled)
{
	set_src_linux(labelled);
	return set_region();
}

/* The next boot: what the DIMMs hold now. */
static struct nd_region *set_reboot(void)
{
	memcpy(set_src, set_dev, sizeof(set_src));
	return set_region();
}

/*
 * Issue 33: Linux's 512 MiB fsdax namespace across the 4-way set
 * (synthetic-4way: v1.1 labels, nlabel 4, positions 0..3, iset_id
 * 4333179448401879416) is pmemk's namespace0.0 at the set's start, 512 MiB,
 * with Linux's uuid; nothing is written; the rest of the set is free.
 * Blank label areas give Linux's label-less namespace over the set, and so
 * does nd.labels=off.
 */
static void test_set_linux_labels(void **state)
{
	struct nd_cookie_rec rec[SET_DIMMS];
	char uuid[UUID_STR_LEN + 1];
	struct nd_namespace_io *ns;
	u64 avail, max;

	(void)state;
	for (u32 k = 0; k < SET_DIMMS; k++)
		rec[k] = (struct nd_cookie_rec){ k * 4096, 0x0101005eu + (k << 24), 0x8089, 0, 0 };
	assert_int_equal(nd_label_cookie(rec, SET_DIMMS, false), SET_COOKIE);

	struct nd_region *r = interleaved_region(0xf);
	assert_null(r->closed);
	assert_true(r->labelled);
	assert_int_equal(r->nr_foreign, 0);
	assert_int_equal(r->iset_id, SET_COOKIE);
	assert_int_equal(r->nr_namespaces, 1);
	ns = nd_region_namespace(r, 0);
	assert_string_equal(ns->name, "namespace0.0");
	assert_int_equal(ns->start, 4 * GiB);
	assert_int_equal(ns->size, 512 * MiB);
	assert_true(ns->labelled);
	uuid_to_str(ns->uuid, uuid);
	assert_string_equal(uuid, SET_UUID);
	for (int k = 0; k < SET_DIMMS; k++)
		assert_int_equal(ns->label_slot[k], 1);
	assert_true(host_console_has("nd_label region0: namespace0.0 from nmem0 label slot 1 and 3 more DIMMs (nlabel 4): uuid " SET_UUID ", 512 MiB at dpa 0, raw"));
	assert_false(host_console_has("refused"));
	assert_int_equal(writes, 0);
	nd_region_available(r, &avail, &max);
	assert_int_equal(avail, 512 * MiB);
	assert_int_equal(max, 512 * MiB);
	host_console_reset();
	nd_list(ND_LIST_REGIONS | ND_LIST_NAMESPACES | ND_LIST_DIMMS, NULL, NULL);
	assert_true(host_console_has("\"iset_id\":4333179448401879416"));
	assert_true(host_console_has("\"dimm\":\"nmem3\""));
	assert_true(host_console_has("\"position\":3"));
	assert_false(host_console_has("disabled"));

	/* Blank areas (Linux before init-labels): one label-less namespace over the set. */
	r = interleaved_region(0);
	assert_null(r->closed);
	assert_int_equal(r->nr_namespaces, 1);
	ns = nd_region_namespace(r, 0);
	assert_int_equal(ns->start, 4 * GiB);
	assert_int_equal(ns->size, 1 * GiB);
	assert_false(ns->labelled);

	/* nd.labels=off: the user asked for labels to be ignored. */
	nd_labels_set_enabled(false);
	r = interleaved_region(0xf);
	assert_null(r->closed);
	assert_int_equal(r->nr_namespaces, 1);
	nd_labels_set_enabled(true);
}

/* The region's labels refused: no namespace, nothing free, no create, nothing written. */
static void expect_set_refused(struct nd_region *r, const char *line)
{
	struct nd_namespace_io *ns;
	u8 uuid[16] = { 5 };
	u64 avail, max;

	if (!host_console_has(line))
		print_message("missing line: %s\n", line);
	assert_true(host_console_has(line));
	assert_int_equal(r->nr_namespaces, 0);
	assert_null(nd_region_namespace(r, 0));
	nd_region_available(r, &avail, &max);
	assert_int_equal(avail, 0);
	assert_int_equal(nd_label_namespace_create(r, 16 * MiB, NULL, ND_CLAIM_PFN, 512, uuid, &ns),
			 r->closed ? -ENXIO : -EBUSY);
	assert_int_equal(writes, 0);
}

/* Patch a u16/u64 field of the live label (slot 1, v1.1: no checksum) on DIMM k. */
static void patch_label(int k, u32 field, u64 v, u32 bytes)
{
	for (u32 i = 0; i < bytes; i++)
		set_src[k][FIX_SLOT1 + field + i] = (u8)(v >> (8 * i));
}

/*
 * Labels missing or inconsistent on one DIMM of the set: that namespace
 * is refused with one line naming the DIMM and why, nothing of it exposed,
 * its space kept (no raw namespace, no create); a DIMM of the set with no
 * valid index closes the region.
 */
static void test_set_refusals(void **state)
{
	struct nd_region *r;

	(void)state;
	/* nmem3's area blank: closed. */
	r = interleaved_region(0x7);
	assert_non_null(r->closed);
	expect_set_refused(r, "nd_label region0: disabled, no namespace: 3 of its 4 DIMMs hold a label index, nmem3 has no valid label index");
	host_console_reset();
	nd_list(ND_LIST_REGIONS | ND_LIST_NAMESPACES, NULL, NULL);
	assert_true(host_console_has("\"state\":\"disabled\""));
	assert_false(host_console_has("namespace0.0"));

	/* nmem2 initialised afresh (its label gone). */
	set_src_linux(0xf);
	memset(set_src[2], 0, LSA_SIZE);
	assert_int_equal(nd_lsa_init(set_src[2], LSA_SIZE, 128), 0);
	r = set_region();
	assert_null(r->closed);
	expect_set_refused(r, "nd_label region0: namespace " SET_UUID " refused, not exposed: nmem2 holds no label of it (3 of 4 DIMMs do)");

	/* Position 0's gone: what an interrupted create or destroy leaves. */
	set_src_linux(0xf);
	memset(set_src[0], 0, LSA_SIZE);
	assert_int_equal(nd_lsa_init(set_src[0], LSA_SIZE, 128), 0);
	expect_set_refused(set_region(), "nmem0 holds no label of it (3 of 4 DIMMs do; position 0's is missing: an interrupted create or destroy)");

	/* A wrong position, cookie, nlabel; a rawsize not the others'. */
	set_src_linux(0xf);
	patch_label(1, 86, 3, 2);
	expect_set_refused(set_region(), "nd_label region0: nmem1 label slot 1 refused: position 3, but nmem1 is at position 1 of the set");
	assert_false(host_console_has("not exposed"));	/* one line says it */
	set_src_linux(0xf);
	patch_label(3, 88, SET_COOKIE + 1, 8);
	expect_set_refused(set_region(), "nd_label region0: nmem3 label slot 1 refused: interleave-set cookie is not the region's");
	set_src_linux(0xf);
	patch_label(2, 84, 2, 2);
	expect_set_refused(set_region(), "nd_label region0: nmem2 label slot 1 refused: nlabel 2, but region0 is an interleave set of 4 DIMMs");
	set_src_linux(0xf);
	patch_label(2, 112, 64 * MiB, 8);
	expect_set_refused(set_region(), "refused, not exposed: nmem2 has a label (dpa 0, rawsize 0x4000000) unlike position 0's (dpa 0, rawsize 0x8000000)");
}

/* The set's labels on the DIMMs now: live labels of DIMM k. */
static u32 set_live(int k)
{
	static struct nd_lsa d;

	assert_int_equal(nd_lsa_parse(&d, set_dev[k], LSA_SIZE), 0);
	return d.nr_live;
}

/*
 * pmemk creates a 256 MiB namespace across the set after Linux's: one
 * label per DIMM (nlabel 4, its position, the set's cookie, dpa 128 MiB,
 * rawsize 64 MiB), position 0 last; the next boot finds both; destroy
 * frees position 0 first and every DIMM's label. Blank areas first get
 * index blocks on every DIMM.
 */
static void test_set_create_roundtrip(void **state)
{
	static struct nd_lsa d;
	struct nd_namespace_io *ns;
	u8 uuid[16] = { 0x42, 1, 2, 3 };

	(void)state;
	struct nd_region *r = interleaved_region(0xf);
	assert_int_equal(nd_label_namespace_create(r, 100 * MiB, NULL, ND_CLAIM_PFN, 512, uuid, &ns),
			 -EINVAL);
	assert_int_equal(nd_label_namespace_create(r, 256 * MiB, "set", ND_CLAIM_PFN, 512, uuid, &ns), 0);
	assert_int_equal(writes, 8);
	for (int w = 0; w < 8; w++)
		assert_int_equal(set_order[w], 3 - w / 2);	/* positions 3, 2, 1, then 0 */
	assert_int_equal(ns->start, 4 * GiB + 512 * MiB);
	assert_int_equal(ns->size, 256 * MiB);
	for (int k = 0; k < SET_DIMMS; k++) {
		assert_int_equal(nd_lsa_parse(&d, set_dev[k], LSA_SIZE), 0);
		assert_int_equal(d.nr_live, 2);
		const struct nd_label *l = d.live[0].slot == ns->label_slot[k] ? &d.live[0] : &d.live[1];
		assert_int_equal(l->slot, ns->label_slot[k]);
		assert_memory_equal(l->uuid, uuid, 16);
		assert_int_equal(l->nlabel, 4);
		assert_int_equal(l->position, k);
		assert_int_equal(l->isetcookie, SET_COOKIE);
		assert_int_equal(l->dpa, 128 * MiB);
		assert_int_equal(l->rawsize, 64 * MiB);
	}
	r = set_reboot();
	assert_int_equal(r->nr_namespaces, 2);
	assert_int_equal(r->nr_foreign, 0);
	ns = nd_region_namespace(r, 1);
	assert_int_equal(ns->start, 4 * GiB + 512 * MiB);
	assert_int_equal(ns->size, 256 * MiB);
	assert_memory_equal(ns->uuid, uuid, 16);
	assert_string_equal(ns->alt_name, "set");
	/* A class change: every DIMM's label, position 0 last. */
	assert_int_equal(nd_label_namespace_set_class(ns, ND_CLAIM_DAX, 4096), 0);
	assert_int_equal(writes, 8);
	assert_int_equal(set_order[6], 0);
	r = set_reboot();
	ns = nd_region_namespace(r, 1);
	assert_non_null(ns);
	assert_int_equal(nd_label_namespace_delete(ns), 0);
	assert_int_equal(set_order[0], 0);	/* position 0 first */
	for (int k = 0; k < SET_DIMMS; k++)
		assert_int_equal(set_live(k), 1);
	r = set_reboot();
	assert_int_equal(r->nr_namespaces, 1);
	assert_int_equal(r->nr_foreign, 0);
}

/* Fresh v1.2 index blocks on every DIMM: the v1.2 cookie, a create, the next boot. */
static void test_set_v1_2(void **state)
{
	struct nd_namespace_io *ns;
	u8 uuid[16] = { 0x43 };
	struct nd_region *r;

	(void)state;
	memset(set_src, 0, sizeof(set_src));
	for (int k = 0; k < SET_DIMMS; k++)
		assert_int_equal(nd_lsa_init(set_src[k], LSA_SIZE, 256), 0);
	r = set_region();
	assert_true(r->labelled);
	assert_true(r->iset_id != 0 && r->iset_id != SET_COOKIE);	/* the v1.2 cookie */
	assert_int_equal(nd_label_namespace_create(r, 512 * MiB, NULL, ND_CLAIM_PFN, 512, uuid, &ns), 0);
	r = set_reboot();
	assert_int_equal(r->nr_namespaces, 1);
	assert_int_equal(nd_region_namespace(r, 0)->size, 512 * MiB);
	assert_int_equal(r->nr_foreign, 0);
}

/*
 * A stop at every write of a create and of a destroy across the set (a
 * torn write, then nothing more reaches any DIMM): the next boot finds the
 * old namespaces, or the new set whole, or refuses the leftover labels
 * (no position 0) with one line; never a namespace missing a DIMM's label.
 */
static void test_set_crash(void **state)
{
	static const int tears[] = { 0, 72 };
	u8 uuid[16] = { 0x44 };
	struct nd_namespace_io *ns;
	u32 whole = 0, refused = 0;

	(void)state;
	for (int w = 1; w <= 8; w++)
		for (size_t t = 0; t < ARRAY_SIZE(tears); t++) {
			struct nd_region *r = interleaved_region(0xf);
			fail_at = w;
			tear = tears[t];
			assert_int_equal(nd_label_namespace_create(r, 256 * MiB, NULL, ND_CLAIM_PFN, 512,
								   uuid, &ns), -EIO);
			r = set_reboot();
			if (r->nr_namespaces == 2) {
				whole++;
				assert_int_equal(r->nr_foreign, 0);
			} else {
				assert_int_equal(r->nr_namespaces, 1);
				assert_int_equal(nd_region_namespace(r, 0)->size, 512 * MiB);
				if (r->nr_foreign) {
					refused++;
					assert_true(host_console_has("position 0's is missing: an interrupted create or destroy"));
				}
			}
		}
	assert_true(refused > 0);
	/* Destroy Linux's namespace, stopped at each write. */
	for (int w = 1; w <= 8; w++) {
		struct nd_region *r = interleaved_region(0xf);
		fail_at = w;
		int err = nd_label_namespace_delete(nd_region_namespace(r, 0));
		assert_true(err == -EIO || err == 0);
		r = set_reboot();
		if (r->nr_namespaces == 1) {
			assert_int_equal(r->nr_foreign, 0);
			assert_int_equal(nd_region_namespace(r, 0)->size, 512 * MiB);
		} else {
			assert_int_equal(r->nr_namespaces, 0);
			assert_true(r->nr_foreign == 0 || host_console_has("position 0's is missing"));
		}
	}
	(void)whole;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_linux_labels),     cmocka_unit_test(test_set_refusals),
		cmocka_unit_test(test_set_create_roundtrip), cmocka_unit_test(test_set_v1_2),
		cmocka_unit_test(test_set_crash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
