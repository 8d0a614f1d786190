/*
 * Host tests: namespace labels (nvdimm/label.c). The four Linux-written
 * label areas (test/fixtures/linux-6.1-labels-v1.{1,2}-{create,destroy})
 * parse to the live labels Linux used, and nd_lsa_json prints what
 * `ndctl read-labels -j` printed for them (whitespace aside). Then the
 * refusals, one reason each, and the writers (init, encode, index) read
 * back by the parser. Then labelled regions: namespaces from the labels,
 * free extents, create and delete, and a write stopped part-way at every
 * step of a commit (the DIMM keeps the old set). Last, a label of a 4-way
 * set on a one-DIMM region keeps its space. Labels across an interleave
 * set: test_label_set.c.
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

/*
 * One DIMM whose area holds a label it cannot use (here one of a 4-way set):
 * refused with a line, and its space is not offered for a new namespace.
 */
static u8 foreign_area[LSA_SIZE];

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
	memcpy(foreign_area, bin, LSA_SIZE);
	free(bin);
	d->lsa = foreign_area;
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
		cmocka_unit_test(test_foreign_label_blocks_create),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
