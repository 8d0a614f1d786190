/*
 * Host tests: namespace labels (nvdimm/label.c). The four Linux-written
 * label areas (test/fixtures/linux-6.1-labels-v1.{1,2}-{create,destroy})
 * parse to the live labels Linux used, and nd_lsa_json prints what
 * `ndctl read-labels -j` printed for them (whitespace aside). Then the
 * refusals, one reason each, and the writers (init, encode, index) read
 * back by the parser.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_2_create),  cmocka_unit_test(test_v1_2_destroy),
		cmocka_unit_test(test_v1_1_create),  cmocka_unit_test(test_v1_1_destroy),
		cmocka_unit_test(test_blank),	     cmocka_unit_test(test_index_refusals),
		cmocka_unit_test(test_label_refusals), cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_cookies),	     cmocka_unit_test(test_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
