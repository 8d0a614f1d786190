/*
 * Host tests: namespace labels (nvdimm/label.c). The four Linux-written
 * label areas (test/fixtures/linux-6.1-labels-v1.{1,2}-{create,destroy})
 * parse to the live labels Linux used, and nd_lsa_json prints what
 * `ndctl read-labels -j` printed for them (whitespace aside). Then the
 * refusals, one reason each, and the writers (init, encode, index) read
 * back by the parser. Then labelled regions: namespaces from the labels,
 * free extents, create and delete, and a write stopped part-way at every
 * step of a commit (the DIMM keeps the old set). Last, labels across an
 * interleave set: Linux's 4-way set (test/fixtures/synthetic-4way) gives
 * its namespace; a label missing or inconsistent on one DIMM refuses it;
 * create, class change and destroy across the set round-trip, and a stop at
 * any write never leaves half a namespace; a foreign label keeps its space.
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
#define LSA_BIN_OFF 0x5000	/* chunk 3 of the fixtures' .bin: the label area */

static u8 area[LSA_SIZE];
static struct nd_lsa lsa;

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

static void load_area(const char *name)
{
	char path[256];
	size_t n;

	snprintf(path, sizeof(path), "test/fixtures/%s.bin", name);
	char *bin = read_text(path, &n);
	assert_true(n >= LSA_BIN_OFF + LSA_SIZE);
	memcpy(area, bin + LSA_BIN_OFF, LSA_SIZE);
	free(bin);
}

/* JSON without whitespace outside strings. */
static void squeeze(const char *in, char *out, size_t size)
{
	bool str = false;
	size_t o = 0;

	for (const char *p = in; *p && o + 1 < size; p++) {
		if (*p == '"' && (p == in || p[-1] != '\\'))
			str = !str;
		if (!str && (*p == ' ' || *p == '\n' || *p == '\t'))
			continue;
		out[o++] = *p;
	}
	out[o] = 0;
}

/* The line "  read_labels.KEY = [...]" of the fixture's Linux reading. */
static void ndctl_reading(const char *name, const char *key, char *out, size_t size)
{
	char path[256], marker[64];
	size_t n;

	snprintf(path, sizeof(path), "test/fixtures/%s.txt", name);
	char *txt = read_text(path, &n);
	snprintf(marker, sizeof(marker), "  read_labels.%s = ", key);
	char *p = strstr(txt, marker);
	assert_non_null(p);
	p += strlen(marker);
	*strchr(p, '\n') = 0;
	squeeze(p, out, size);
	free(txt);
}

static void check_json(const char *name, const char *key)
{
	static char want[65536], got[65536];

	ndctl_reading(name, key, want, sizeof(want));
	host_console_reset();
	nd_lsa_json(area, LSA_SIZE, "nmem0");
	squeeze(host_console_text(), got, sizeof(got));
	assert_string_equal(got, want);
}

static void uuid_is(const u8 *u, const char *want)
{
	char s[UUID_STR_LEN + 1];

	uuid_to_str(u, s);
	assert_string_equal(s, want);
}

static void test_v1_2_create(void **state)
{
	(void)state;
	load_area("linux-6.1-labels-v1.2-create");
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.label_size, 256);
	assert_int_equal(lsa.index_size, 256);
	assert_int_equal(lsa.current, 0);	/* seq 1 follows seq 3 */
	assert_int_equal(lsa.nslot, 510);
	assert_int_equal(lsa.nr_refused, 0);
	assert_int_equal(lsa.nr_live, 2);
	uuid_is(lsa.live[0].uuid, "8b4bc9ad-92c6-4363-9d4f-6c1d5bd0c76d");
	assert_int_equal(lsa.live[0].dpa, 0);
	assert_int_equal(lsa.live[0].rawsize, 512 * MiB);
	assert_int_equal(nd_label_claim_class(lsa.live[0].abstraction_guid), ND_CLAIM_PFN);
	uuid_is(lsa.live[1].uuid, "efc0fc93-86c4-4b09-a7d3-a13b963a4ae1");
	assert_int_equal(lsa.live[1].dpa, 512 * MiB);
	assert_int_equal(lsa.live[1].lbasize, 4096);
	assert_int_equal(nd_label_claim_class(lsa.live[1].abstraction_guid), ND_CLAIM_BTT2);
	assert_string_equal(nd_claim_class_mode(ND_CLAIM_BTT2), "sector");
	assert_memory_equal(lsa.live[1].type_guid, nd_label_pmem_type_guid, 16);
	check_json("linux-6.1-labels-v1.2-create", "created");
}

static void test_v1_2_destroy(void **state)
{
	(void)state;
	load_area("linux-6.1-labels-v1.2-destroy");
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.current, 1);	/* seq 1 follows seq 3 */
	assert_int_equal(lsa.nr_live, 1);
	uuid_is(lsa.live[0].uuid, "efc0fc93-86c4-4b09-a7d3-a13b963a4ae1");
	check_json("linux-6.1-labels-v1.2-destroy", "destroyed");
}

static void test_v1_1_create(void **state)
{
	(void)state;
	load_area("linux-6.1-labels-v1.1-create");
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.label_size, 128);
	assert_int_equal(lsa.nslot, 1020);
	assert_int_equal(lsa.current, 0);
	assert_int_equal(lsa.nr_live, 2);
	uuid_is(lsa.live[0].uuid, "ba03fd3d-ee1b-4105-8a19-844d0ed16402");
	uuid_is(lsa.live[1].uuid, "860b2d3c-faaa-4914-855c-3c99a03db1e0");
	/* v1.1 has no abstraction GUID: the probe decides. */
	assert_int_equal(nd_label_claim_class(lsa.live[1].abstraction_guid), ND_CLAIM_NONE);
	check_json("linux-6.1-labels-v1.1-create", "created");
}

static void test_v1_1_destroy(void **state)
{
	(void)state;
	load_area("linux-6.1-labels-v1.1-destroy");
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.current, 1);
	assert_int_equal(lsa.nr_live, 1);
	uuid_is(lsa.live[0].uuid, "860b2d3c-faaa-4914-855c-3c99a03db1e0");
	check_json("linux-6.1-labels-v1.1-destroy", "destroyed");
}

/* A blank area: no index; ndctl still prints both (empty) blocks and slot 0. */
static void test_blank(void **state)
{
	(void)state;
	memset(area, 0, sizeof(area));
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), -EINVAL);
	assert_int_equal(lsa.current, -1);
	assert_string_equal(lsa.index[0].why, "no NAMESPACE_INDEX signature");
	load_area("linux-6.1-labels-v1.2-create");	/* for the line ... */
	memset(area, 0, sizeof(area));
	check_json("linux-6.1-labels-v1.2-create", "boot");
}

/* A damaged current index: the other one (older) is used, and says why. */
static void test_index_refusals(void **state)
{
	(void)state;
	load_area("linux-6.1-labels-v1.2-create");
	area[100] ^= 1;	/* index 0's bitmap: checksum no longer matches */
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.current, 1);
	assert_string_equal(lsa.index[0].why, "checksum mismatch");
	assert_int_equal(lsa.nr_live, 2);	/* index 1 (seq 3): slots 0 and 1 */
	assert_int_equal(lsa.live[0].flags, ND_LABEL_FLAG_UPDATING);

	load_area("linux-6.1-labels-v1.2-create");
	area[256 + 20] = 0;	/* index 1: seq 0; the checksum is checked first */
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_string_equal(lsa.index[1].why, "checksum mismatch");
	assert_int_equal(lsa.current, 0);

	area[0] = 'X';	/* both gone */
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), -EINVAL);
	assert_string_equal(lsa.index[0].why, "no NAMESPACE_INDEX signature");
}

/* Live labels that are malformed are refused, one reason each; the rest stay. */
static void test_label_refusals(void **state)
{
	(void)state;
	load_area("linux-6.1-labels-v1.2-create");
	area[512 + 256 + 16] = 'x';	/* slot 1's name: checksum now wrong */
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.nr_live, 1);
	assert_int_equal(lsa.nr_refused, 1);
	assert_int_equal(lsa.refused[0].slot, 1);
	assert_string_equal(lsa.refused[0].why, "checksum mismatch");

	load_area("linux-6.1-labels-v1.1-create");
	area[512 + 2 * 128 + 120] = 7;	/* slot 2's slot field (v1.1: no checksum) */
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.nr_live, 1);
	assert_string_equal(lsa.refused[0].why, "slot field does not match its slot");
}

/* Linux's geometry table (FACTS-2 §3.1). */
static void test_geometry(void **state)
{
	(void)state;
	assert_int_equal(nd_lsa_nslot(128 * 1024, 256), 510);
	assert_int_equal(nd_lsa_nslot(128 * 1024, 128), 1020);
	assert_int_equal(nd_lsa_index_size(256 * 1024, 128), 512);
	assert_int_equal(nd_lsa_nslot(256 * 1024, 128), 2040);
	assert_int_equal(nd_lsa_nslot(1024 * 1024, 256), 4090);
	assert_int_equal(nd_lsa_index_size(1024 * 1024, 256), 768);
	assert_int_equal(nd_lsa_nslot(1024 * 1024, 128), 8172);
	assert_int_equal(nd_lsa_index_size(1024 * 1024, 128), 1280);
	assert_int_equal(nd_lsa_index_size(512, 256), 0);
}

/* QEMU's DIMM in slot 0 and 1 (FACTS-2 §3.2), and the fixtures' cookies. */
static void test_cookies(void **state)
{
	struct nd_cookie_rec r = { 0, 0x123456, 0x8086, 0, 0 };

	(void)state;
	assert_int_equal(nd_label_cookie(&r, 1, false), 0x002468ac00123456ULL);
	assert_int_equal(nd_label_cookie(&r, 1, true), 0x00ba90120012b4dcULL);
	r.serial = 0x123457;
	assert_int_equal(nd_label_cookie(&r, 1, false), 0x002468ae00123457ULL);
	assert_int_equal(nd_label_cookie(&r, 1, true), 0x00ba901c0012b4ddULL);
	assert_int_equal(nd_label_next_seq(3), 1);
	assert_int_equal(nd_label_next_seq(1), 2);
}

/* init as Linux does, then a label and the next index: read back. */
static void test_writers(void **state)
{
	static u8 map[64];
	struct nd_label l = { .flags = 0, .nlabel = 1, .lbasize = 512, .dpa = 16 * MiB,
			      .rawsize = 32 * MiB, .slot = 5 };

	(void)state;
	for (u32 ls = 128; ls <= 256; ls *= 2) {
		assert_int_equal(nd_lsa_init(area, LSA_SIZE, ls), 0);
		assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
		assert_int_equal(lsa.label_size, ls);
		assert_int_equal(lsa.current, 0);	/* seq 3 over seq 2 */
		assert_int_equal(lsa.nr_live, 0);
	}
	/* The init of the v1.2 fixture is what ndctl init-labels wrote: equal index blocks. */
	memset(l.uuid, 0xab, 16);
	strcpy(l.name, "my \"ns\"");
	nd_label_claim_guid(ND_CLAIM_DAX, l.abstraction_guid);
	memcpy(l.type_guid, nd_label_pmem_type_guid, 16);
	nd_label_encode(&lsa, area, &l);
	memcpy(map, area + 72, sizeof(map));
	map[0] &= (u8)~(1u << 5);
	nd_lsa_write_index(&lsa, area, 1, nd_label_next_seq(3), map);
	assert_int_equal(nd_lsa_parse(&lsa, area, LSA_SIZE), 0);
	assert_int_equal(lsa.current, 1);
	assert_int_equal(lsa.nr_live, 1);
	assert_int_equal(lsa.live[0].slot, 5);
	assert_string_equal(lsa.live[0].name, "my \"ns\"");
	assert_int_equal(nd_label_claim_class(lsa.live[0].abstraction_guid), ND_CLAIM_DAX);
	host_console_reset();
	nd_lsa_json(area, LSA_SIZE, "nmem0");
	assert_true(host_console_has("\"name\":\"my \\\"ns\\\"\""));
	assert_true(host_console_has("\"seq\":1"));
}

/* ---- labelled namespaces on a region (nvdimm/namespace_label.c) ---- */

static u8 dev_area[LSA_SIZE];	/* what the DIMM holds */
static int writes, fail_at, tear;	/* write number fail_at stores `tear` bytes, fails */

static int fake_write(struct nvdimm *d, u32 off, const void *buf, u32 len)
{
	(void)d;
	assert_true(off + len <= LSA_SIZE);
	if (++writes == fail_at) {
		memcpy(dev_area + off, buf, MIN((u32)tear, len));
		return -EIO;
	}
	memcpy(dev_area + off, buf, len);
	return 0;
}

static const struct nd_label_ops fake_ops = { fake_write };
static struct nvdimm *dimm0;

/* QEMU's DIMM (serial 0x123456, vendor 0x8086) with a region over 2 GiB - 2 MiB. */
static struct nd_region *labelled_region(const char *fixture)
{
	struct nvdimm desc = { .handle = 1, .serial = 0x123456, .vendor_id = 0x8086 };
	struct nd_region_desc rd = { .start = 4 * GiB, .size = 2 * GiB - 2 * MiB,
				     .numa_node = 0, .target_node = 0, .nr_mappings = 1 };

	nd_reset();
	nd_labels_set_enabled(true);
	struct nd_bus *bus = nd_bus_register("nfit");
	dimm0 = nvdimm_create(bus, &desc);
	load_area(fixture);
	memcpy(dev_area, area, LSA_SIZE);
	dimm0->lsa = area;
	dimm0->lsa_size = LSA_SIZE;
	dimm0->label_ops = &fake_ops;
	rd.mapping[0] = (struct nd_mapping){ dimm0, 0, rd.size, 0, 0 };
	assert_int_equal(nd_region_create(bus, &rd, NULL), 0);
	host_console_reset();
	nd_regions_publish();
	writes = fail_at = tear = 0;
	return nd_region_get(0);
}

static u32 dev_live(void)
{
	static struct nd_lsa d;

	assert_int_equal(nd_lsa_parse(&d, dev_area, LSA_SIZE), 0);
	return d.nr_live;
}

static void test_region_from_labels(void **state)
{
	struct nd_region *r = labelled_region("linux-6.1-labels-v1.2-create");
	u64 avail, max;

	(void)state;
	assert_true(r->labelled);
	assert_int_equal(r->iset_id, 0x00ba90120012b4dcULL);	/* the labels' cookie */
	assert_int_equal(r->nr_namespaces, 2);
	struct nd_namespace_io *a = nd_namespace_find("namespace0.0"), *b = nd_namespace_find("pmem0.1");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->start, 4 * GiB);
	assert_int_equal(a->size, 512 * MiB);
	assert_int_equal(a->claim_class, ND_CLAIM_PFN);
	assert_string_equal(b->name, "namespace0.1");
	assert_int_equal(b->start, 4 * GiB + 512 * MiB);
	assert_int_equal(b->claim_class, ND_CLAIM_BTT2);
	nd_region_available(r, &avail, &max);
	assert_int_equal(avail, 1325400064);	/* ndctl list, the fixture */
	assert_int_equal(max, 1325400064);

	/* Another DIMM serial: another cookie, every label refused with one line. */
	nd_reset();
	r = labelled_region("linux-6.1-labels-v1.1-destroy");
	assert_int_equal(r->nr_namespaces, 1);
	dimm0->serial = 7;
	nd_reset();
	struct nvdimm desc = { .handle = 1, .serial = 7, .vendor_id = 0x8086 };
	struct nd_bus *bus = nd_bus_register("nfit");
	dimm0 = nvdimm_create(bus, &desc);
	dimm0->lsa = area;
	dimm0->lsa_size = LSA_SIZE;
	struct nd_region_desc rd = { .start = 4 * GiB, .size = 2 * GiB - 2 * MiB, .nr_mappings = 1 };
	rd.mapping[0] = (struct nd_mapping){ dimm0, 0, rd.size, 0, 0 };
	assert_int_equal(nd_region_create(bus, &rd, NULL), 0);
	host_console_reset();
	nd_regions_publish();
	assert_true(host_console_has("nmem0 label slot 2 refused: interleave-set cookie is not the region's"));
	assert_int_equal(nd_region_get(0)->nr_namespaces, 0);

	/* nd.labels=off: label-less, one namespace over the region. */
	nd_labels_set_enabled(false);
	nd_reset();
	bus = nd_bus_register("nfit");
	dimm0 = nvdimm_create(bus, &desc);
	dimm0->lsa = area;
	dimm0->lsa_size = LSA_SIZE;
	rd.mapping[0].nvdimm = dimm0;
	assert_int_equal(nd_region_create(bus, &rd, NULL), 0);
	nd_regions_publish();
	assert_false(nd_region_get(0)->labelled);
	assert_int_equal(nd_region_namespace(nd_region_get(0), 0)->size, rd.size);
	nd_labels_set_enabled(true);
}

/* create then delete, each a label write and an index write to the other block. */
static void test_create_delete(void **state)
{
	struct nd_region *r = labelled_region("linux-6.1-labels-v1.2-create");
	struct nd_namespace_io *ns;
	u8 uuid[16] = { 1, 2, 3 };
	u64 avail, max;

	(void)state;
	assert_int_equal(nd_label_namespace_create(r, 5 * MiB, NULL, ND_CLAIM_PFN, 512, uuid, &ns),
			 -EINVAL);
	assert_int_equal(nd_label_namespace_create(r, 2 * GiB, NULL, ND_CLAIM_PFN, 512, uuid, &ns),
			 -ENOSPC);
	assert_int_equal(writes, 0);
	assert_int_equal(nd_label_namespace_create(r, 16 * MiB, "n1", ND_CLAIM_DAX, 512, uuid, &ns), 0);
	assert_int_equal(writes, 2);
	assert_string_equal(ns->name, "namespace0.2");
	assert_int_equal(ns->start, 4 * GiB + 768 * MiB);
	assert_int_equal(ns->label_slot[0], 0);	/* free in the current index (stale copy) */
	assert_int_equal(dev_live(), 3);
	nd_region_available(r, &avail, &max);
	assert_int_equal(avail, 1325400064 - 16 * MiB);
	/* Another mode: the label moves to a free slot with the new GUID, in one commit. */
	assert_int_equal(nd_label_namespace_set_class(ns, ND_CLAIM_DAX, 512), 0);
	assert_int_equal(writes, 2);	/* unchanged: nothing written */
	assert_int_equal(nd_label_namespace_set_class(ns, ND_CLAIM_BTT, 4096), 0);
	assert_int_equal(writes, 4);
	assert_int_equal(ns->label_slot[0], 3);
	static struct nd_lsa d;
	assert_int_equal(nd_lsa_parse(&d, dev_area, LSA_SIZE), 0);
	assert_int_equal(d.nr_live, 3);
	assert_int_equal(d.live[2].slot, 3);
	assert_int_equal(d.live[2].lbasize, 4096);
	assert_int_equal(nd_label_claim_class(d.live[2].abstraction_guid), ND_CLAIM_BTT);
	/* Delete the first: its extent is free again, below the others. */
	struct nd_namespace_io *first = nd_namespace_find("namespace0.0");
	assert_int_equal(nd_label_namespace_delete(first), 0);
	assert_int_equal(dev_live(), 2);
	assert_int_equal(r->nr_namespaces, 2);
	nd_region_available(r, &avail, &max);
	assert_int_equal(avail, 1325400064 - 16 * MiB + 512 * MiB);
	assert_int_equal(max, 1325400064 - 16 * MiB);
	/* The next one goes to DPA 0 and takes the free Y 0. */
	uuid[0] = 9;
	assert_int_equal(nd_label_namespace_create(r, 32 * MiB, NULL, ND_CLAIM_NONE, 512, uuid, &ns), 0);
	assert_string_equal(ns->name, "namespace0.0");
	assert_int_equal(ns->dpa, 0);
}

/*
 * A stop inside a commit (a write that stored only part, then nothing
 * more): the DIMM holds the old set or the new one, for every write and
 * several tear sizes; the in-memory copy stays what the DIMM most likely holds.
 */
static void test_commit_crash(void **state)
{
	static const int tears[] = { 0, 1, 8, 72, 100, 255 };
	u8 uuid[16] = { 7 };
	u32 outcomes[2] = { 0, 0 };	/* old, new */
	struct nd_namespace_io *ns;

	(void)state;
	for (int w = 1; w <= 2; w++)
		for (size_t t = 0; t < ARRAY_SIZE(tears); t++) {
			struct nd_region *r = labelled_region("linux-6.1-labels-v1.2-create");
			fail_at = w;
			tear = tears[t];
			assert_int_equal(nd_label_namespace_create(r, 16 * MiB, NULL, ND_CLAIM_PFN, 512,
								   uuid, &ns), -EIO);
			/* The old set, or the new one when the torn index had all that changed. */
			u32 n = dev_live();
			assert_true(n == 2 || (w == 2 && n == 3));
			outcomes[n - 2]++;
			assert_int_equal(r->nr_namespaces, 2);
			/* And the next try works from there. */
			fail_at = 0;
			assert_int_equal(nd_label_namespace_create(r, 16 * MiB, NULL, ND_CLAIM_PFN,
								   512, uuid, &ns), 0);
			assert_int_equal(dev_live(), 3);
			fail_at = writes + 1;	/* the delete's index write */
			assert_int_equal(nd_label_namespace_delete(ns), -EIO);
			n = dev_live();
			assert_true(n == 2 || n == 3);
			outcomes[3 - n]++;
			fail_at = 0;
			assert_int_equal(nd_label_namespace_delete(ns), 0);
			assert_int_equal(dev_live(), 2);
		}
	assert_true(outcomes[0] > 0 && outcomes[1] > 0);	/* the tears fell on both sides */
}

/* ---- labels across an interleave set (nlabel > 1) ---- */

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

	/* Fresh v1.2 index blocks on every DIMM: the v1.2 cookie. */
	memset(set_src, 0, sizeof(set_src));
	for (int k = 0; k < SET_DIMMS; k++)
		assert_int_equal(nd_lsa_init(set_src[k], LSA_SIZE, 256), 0);
	r = set_region();
	assert_true(r->labelled);
	assert_true(r->iset_id != 0 && r->iset_id != SET_COOKIE);	/* the v1.2 cookie */
	uuid[0] = 0x43;
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

/*
 * One DIMM whose area holds a label it cannot use (here one of a 4-way set):
 * refused with a line, and its space is not offered for a new namespace.
 */
static void test_foreign_label_blocks_create(void **state)
{
	struct nd_region_desc rd = { .start = 4 * GiB, .size = 256 * MiB, .nr_mappings = 1 };
	struct nvdimm desc = { .handle = 1, .serial = 0x0101005e, .vendor_id = 0x8089 };
	struct nd_namespace_io *ns;
	u8 uuid[16] = { 6 };
	u64 avail, max;
	size_t n;

	(void)state;
	nd_reset();
	struct nd_bus *bus = nd_bus_register("nfit");
	struct nvdimm *d = nvdimm_create(bus, &desc);
	char *bin = read_text("test/fixtures/synthetic-4way/labels-nmem0.bin", &n);
	memcpy(set_area[0], bin, LSA_SIZE);
	free(bin);
	d->lsa = set_area[0];
	d->lsa_size = LSA_SIZE;
	d->label_ops = &fake_ops;
	rd.mapping[0] = (struct nd_mapping){ d, 0, rd.size, 0, 0 };
	assert_int_equal(nd_region_create(bus, &rd, NULL), 0);
	host_console_reset();
	writes = fail_at = 0;
	nd_regions_publish();
	struct nd_region *r = nd_region_get(0);
	assert_true(r->labelled);
	assert_null(r->closed);
	assert_int_equal(r->nr_namespaces, 0);
	assert_true(r->nr_foreign > 0);
	assert_true(host_console_has("refused: nlabel 4, but region0 is an interleave set of 1 DIMM"));
	assert_true(host_console_has("it cannot use: their space is kept, no namespace is created in region0"));
	nd_region_available(r, &avail, &max);
	assert_int_equal(avail, 0);
	assert_int_equal(nd_label_namespace_create(r, 16 * MiB, NULL, ND_CLAIM_PFN, 512, uuid, &ns),
			 -EBUSY);
	assert_int_equal(writes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_2_create),  cmocka_unit_test(test_v1_2_destroy),
		cmocka_unit_test(test_v1_1_create),  cmocka_unit_test(test_v1_1_destroy),
		cmocka_unit_test(test_blank),	     cmocka_unit_test(test_index_refusals),
		cmocka_unit_test(test_label_refusals), cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_cookies),	     cmocka_unit_test(test_writers),
		cmocka_unit_test(test_region_from_labels), cmocka_unit_test(test_create_delete),
		cmocka_unit_test(test_commit_crash),
		cmocka_unit_test(test_set_linux_labels), cmocka_unit_test(test_set_refusals),
		cmocka_unit_test(test_set_create_roundtrip), cmocka_unit_test(test_set_crash),
		cmocka_unit_test(test_foreign_label_blocks_create),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
