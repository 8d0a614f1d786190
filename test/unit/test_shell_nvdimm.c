/*
 * Host tests: ndctl's verbs and the devdax commands run as the console runs
 * them (shell_exec), on a region of one DIMM with a blank label area in
 * simulated memory: each refuses bad arguments with one line and its usage,
 * and does what it says with good ones (dax-write and dax-cmp store and
 * load through their mapping, which the host cannot: their bad arguments
 * only; test/qemu/cases/devdax.sh runs them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "memlayout.h"
#include "nd_btt.h"
#include "nd_dax.h"
#include "nd_label.h"
#include "nd_pfn.h"
#include "pmem.h"
#include "shell.h"

#define NS_START (4 * GiB)
#define NS_SIZE (1 * GiB)
#define LSA_SIZE (128 * 1024)

static u8 lsa[LSA_SIZE], dimm_lsa[LSA_SIZE];	/* the kernel's copy, the DIMM's */

static int fake_write(struct nvdimm *d, u32 off, const void *buf, u32 len)
{
	(void)d;
	assert_true(off + len <= LSA_SIZE);
	memcpy(dimm_lsa + off, buf, len);
	return 0;
}

static const struct nd_label_ops fake_ops = { fake_write };

/* A fresh machine: RAM at 1 GiB, an NFIT region of one DIMM (blank labels) at 4 GiB. */
static int boot(void **state)
{
	struct nvdimm desc = { .handle = 1, .serial = 0x123456, .vendor_id = 0x8086 };
	struct nd_region_desc rd = { .start = NS_START,
				     .size = NS_SIZE,
				     .numa_node = -1,
				     .target_node = -1,
				     .nr_mappings = 1 };

	(void)state;
	host_set_leaf_allowed(PG_LEVEL_1G, true);
	host_mm_reboot(1 * GiB, 512 * MiB, 0, 0);
	nd_reset();
	pmem_reset();
	nd_pfn_reset();
	nd_btt_reset();
	dax_map_reset();
	nd_labels_set_enabled(true);
	memset(lsa, 0, sizeof(lsa));
	memset(dimm_lsa, 0, sizeof(dimm_lsa));
	struct nd_bus *bus = nd_bus_register("nfit");
	struct nvdimm *d = nvdimm_create(bus, &desc);
	d->lsa = lsa;
	d->lsa_size = LSA_SIZE;
	d->label_ops = &fake_ops;
	rd.mapping[0] = (struct nd_mapping){ d, 0, NS_SIZE, 0, 0 };
	assert_int_equal(nd_region_create(bus, &rd, NULL), 0);
	nd_regions_publish();
	nd_probe_namespaces();
	assert_non_null(pmem_find("pmem0"));	/* label-less: one raw namespace */
	return 0;
}

/* line is refused with `error` and its usage (host_shell_refused). */
#define assert_refused(line, error) assert_true(host_shell_refused(line, error))

/* Runs and returns 0. */
#define assert_runs(line) assert_int_equal(host_shell(line), 0)

static void list_parses_ndctl_flags(void **state)
{
	(void)state;
	assert_runs("list -R");
	assert_true(host_console_has("\"dev\":\"region0\""));
	assert_false(host_console_has("\"dev\":\"namespace0.0\""));
	assert_runs("list -N -r region0");
	assert_true(host_console_has("\"dev\":\"namespace0.0\""));
	assert_refused("list -X", "list: unknown option '-X'");
	assert_refused("list -RX", "list: unknown option '-RX'");
	assert_refused("list --everything", "list: unknown option '--everything'");
	assert_refused("list -r", "list: -r needs a value");
	assert_refused("list region0", "list: unexpected argument 'region0'");
}

static void create_namespace_refuses_bad_options(void **state)
{
	static const char *const bad[][2] = {
		{ "create-namespace -f -e namespace0.0 -m sector -l 512x",
		  "create-namespace: sector size '512x': not a number" },
		{ "create-namespace -f -e namespace0.0 -m sector -l 0",
		  "create-namespace: sector size '0': not in 1..4294967295" },
		{ "create-namespace -f -e namespace0.0 -m sector -l 4294967296",
		  "create-namespace: sector size '4294967296': not in 1..4294967295" },
		{ "create-namespace -r region0 -s 16Mx",
		  "create-namespace: size '16Mx': not a size (a number, then K, M, G, T, P or E)" },
		{ "create-namespace -r region0 -s 0",
		  "create-namespace: size '0': must be at least 1" },
		{ "create-namespace -r region0 -s", "create-namespace: -s needs a value" },
		{ "create-namespace -e", "create-namespace: -e needs a value" },
		{ "create-namespace -q -e namespace0.0", "create-namespace: unknown option '-q'" },
		{ "create-namespace namespace0.0",
		  "create-namespace: unexpected argument 'namespace0.0'" },
		{ "create-namespace -f -e namespace0.0 -a 3M",
		  "align '3M': expected 4K, 2M or 1G" },
		{ "create-namespace -f -e namespace0.0 -a 2Mx",
		  "align '2Mx': expected 4K, 2M or 1G" },
		{ "create-namespace -f -e namespace0.0 -m bogus",
		  "mode 'bogus': expected fsdax, devdax, sector or raw" },
		{ "create-namespace -f -e namespace0.0 -l 512",
		  "create-namespace: -l is for -m sector (other modes use the namespace's 512)" },
		{ "create-namespace -m fsdax",
		  "create-namespace: give -e NS (reconfigure) or -r REGION [-s SIZE] [-n NAME] (new)" },
		{ "create-namespace -e namespace0.0 -s 16M",
		  "create-namespace: give -e NS (reconfigure) or -r REGION [-s SIZE] [-n NAME] (new)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_refused(bad[i][0], bad[i][1]);
	assert_non_null(pmem_find("pmem0"));	/* nothing changed */
	assert_int_equal(lsa[0] | dimm_lsa[0], 0);
	/* A name that is not there: one line of its own, no usage. */
	assert_int_equal(host_shell("create-namespace -f -e namespace9.0"), -EINVAL);
	assert_string_equal(host_console_text(),
			    "namespace9.0: no such namespace (see 'list -N')\n");
}

/* -e: fsdax map=dev, then sector with 4096-byte sectors, then raw again. */
static void create_namespace_reconfigures(void **state)
{
	(void)state;
	assert_runs("create-namespace -f -e namespace0.0 -m fsdax -M dev -a 0x200000");
	assert_true(host_console_has("\"mode\":\"fsdax\""));
	assert_true(host_console_has("\"map\":\"dev\""));
	assert_non_null(pmem_find("pmem0m"));
	assert_runs("read-infoblock namespace0.0");
	assert_true(host_console_has("\"signature\":\"NVDIMM_PFN_INFO\""));
	assert_true(host_console_has("\"valid\":true"));
	assert_runs(
		"create-namespace --force --reconfig namespace0.0 --mode sector --sector-size 4096");
	assert_true(host_console_has("\"sector_size\":4096"));
	assert_non_null(pmem_find("pmem0s"));
	assert_runs("check-namespace namespace0.0");
	assert_true(host_console_has("\nchecked 1 namespace\n"));
	assert_runs("check-namespace --repair namespace0.0");
	assert_runs("create-namespace -f -e namespace0.0 -m raw");
	assert_non_null(pmem_find("pmem0"));
}

/* metrics' line for namespace0.0 in family `family` (the console's text), or "". */
static const char *ns_metric(const char *family, char *buf, size_t len)
{
	char key[96];

	snprintf(key, sizeof(key), "\n%s{namespace=\"namespace0.0\"", family);
	const char *p = strstr(host_console_text(), key);
	snprintf(buf, len, "%.*s", p ? (int)strcspn(p + 1, "\n") : 0, p ? p + 1 : "");
	return buf;
}

/* metrics names namespace0.0 in each mode as list -N does (nd_namespace_view). */
static void metrics_name_each_mode_as_list_does(void **state)
{
	static const struct {
		const char *create, *info, *dev;
		bool pages;
	} modes[] = {
		{ NULL, "mode=\"raw\",map=\"\",device=\"pmem0\"", "pmem0", false },
		{ "-m fsdax -M mem", "mode=\"fsdax\",map=\"mem\",device=\"pmem0m\"", "pmem0m", true },
		{ "-m devdax -M dev", "mode=\"devdax\",map=\"dev\",device=\"dax0.0\"", "dax0.0", true },
		{ "-m sector", "mode=\"sector\",map=\"\",device=\"pmem0s\"", "pmem0s", false },
	};
	char line[256], want[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		if (modes[i].create) {
			snprintf(line, sizeof(line), "create-namespace -f -e namespace0.0 %s",
				 modes[i].create);
			assert_runs(line);
		}
		assert_runs("metrics");
		snprintf(want, sizeof(want), "pmemk_namespace_info{namespace=\"namespace0.0\",%s} 1",
			 modes[i].info);
		assert_string_equal(ns_metric("pmemk_namespace_info", line, sizeof(line)), want);
		snprintf(want, sizeof(want), "device=\"%s\"} %llu", modes[i].dev,
			 pmem_find(modes[i].dev)->size);
		assert_non_null(strstr(ns_metric("pmemk_namespace_size_bytes", line, sizeof(line)), want));
		ns_metric("pmemk_memmap_init_ratio", line, sizeof(line));
		assert_int_equal(line[0] != '\0', modes[i].pages);
		if (modes[i].pages)
			assert_string_equal(line, "pmemk_memmap_init_ratio{namespace=\"namespace0.0\"} 1.000000");
	}
	/* Disabled: no device, size 0 as list's. */
	assert_runs("disable-namespace namespace0.0");
	assert_runs("metrics");
	assert_non_null(strstr(ns_metric("pmemk_namespace_info", line, sizeof(line)), "device=\"\"} 1"));
}

/*
 * list -M in ndctl's units for each mode: 512-byte sectors from the
 * namespace start (raw), from the data start after the info block and
 * struct pages (fsdax, devdax: Linux's pfn and dax resources), the count
 * alone for a BTT; and inject-error's own refusals.
 */
static void list_media_errors_in_each_modes_units(void **state)
{
	(void)state;
	assert_refused("inject-error namespace0.0", "inject-error: missing --block");
	assert_refused("inject-error namespace0.0 --block=2097152",
		       "inject-error: block '2097152': not in 0..2097151");
	assert_runs("inject-error namespace0.0 --block=100 --count=2");
	assert_runs("list -N -M");
	assert_true(host_console_has("\"badblock_count\":2,"));
	assert_true(host_console_has("\"offset\":100,"));
	assert_true(host_console_has("\"length\":2,"));
	assert_true(host_console_has("\"nmem0\""));
	assert_runs("list -N");	/* without -M: the count alone */
	assert_true(host_console_has("\"badblock_count\":2\n"));
	assert_false(host_console_has("\"badblocks\""));
	assert_runs("inject-error namespace0.0 --block=100 --count=2 --uninject");
	assert_runs("list -N -M");
	assert_false(host_console_has("badblock"));

	assert_runs("create-namespace -f -e namespace0.0 -m fsdax -M dev -a 0x200000");
	u64 data = (pmem_find("pmem0m")->phys - NS_START) >> 9;
	char line[96];
	snprintf(line, sizeof(line), "inject-error namespace0.0 --block=%llu --count=3", data + 5);
	assert_runs(line);
	assert_runs("list -N -M");
	assert_true(host_console_has("\"badblock_count\":3,"));
	assert_true(host_console_has("\"offset\":5,"));
	snprintf(line, sizeof(line), "inject-error namespace0.0 --block=%llu --count=3 -d", data + 5);
	assert_runs(line);

	assert_runs("create-namespace -f -e namespace0.0 -m sector -l 4096");
	assert_runs("inject-error namespace0.0 --block=40000 --count=4");
	assert_runs("list -N -M");
	assert_true(host_console_has("\"badblock_count\":4\n"));
	assert_false(host_console_has("\"badblocks\""));
}

static void namespace_verbs_take_one_namespace(void **state)
{
	static const char *const verbs[] = { "destroy-namespace", "disable-namespace",
					     "enable-namespace", "read-infoblock",
					     "check-namespace" };
	char line[96], error[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		snprintf(line, sizeof(line), "%s", verbs[i]);
		snprintf(error, sizeof(error), "%s: missing namespace", verbs[i]);
		assert_refused(line, error);
		snprintf(line, sizeof(line), "%s namespace0.0 namespace0.1", verbs[i]);
		snprintf(error, sizeof(error), "%s: unexpected argument 'namespace0.1'", verbs[i]);
		assert_refused(line, error);
		snprintf(line, sizeof(line), "%s --all namespace0.0", verbs[i]);
		snprintf(error, sizeof(error), "%s: unknown option '--all'", verbs[i]);
		assert_refused(line, error);
	}
	assert_refused("check-namespace -f namespace0.0", "check-namespace: unknown option '-f'");
	assert_refused("disable-namespace -f namespace0.0",
		       "disable-namespace: unknown option '-f'");
	assert_non_null(pmem_find("pmem0"));
}

static void disable_enable_destroy_namespace(void **state)
{
	(void)state;
	assert_runs("disable-namespace namespace0.0");
	assert_string_equal(host_console_text(), "disabled 1 namespace\n");
	assert_null(pmem_find("pmem0"));
	assert_runs("enable-namespace namespace0.0");
	assert_true(host_console_has("\nenabled 1 namespace\n"));
	assert_non_null(pmem_find("pmem0"));
	assert_runs("create-namespace -f -e namespace0.0 -m fsdax -M mem");
	assert_non_null(pmem_find("pmem0m"));
	assert_runs("destroy-namespace --force namespace0.0");
	assert_true(host_console_has("\ndestroyed 1 namespace\n"));
	assert_non_null(pmem_find("pmem0"));	/* label-less: raw again */
	assert_int_equal(host_shell("destroy-namespace -f namespace7.0"), -EINVAL);
	assert_string_equal(host_console_text(),
			    "namespace7.0: no such namespace (see 'list -N')\n");
}

/* init-labels, then labelled namespaces made with -r and destroyed. */
static void init_labels_and_labelled_namespaces(void **state)
{
	(void)state;
	assert_refused("init-labels", "init-labels: missing DIMM");
	assert_refused("init-labels nmem0 -V 1.3",
		       "init-labels: label version '1.3': expected 1.1 or 1.2");
	assert_refused("init-labels nmem0 -V", "init-labels: -V needs a value");
	assert_refused("init-labels -x nmem0", "init-labels: unknown option '-x'");
	assert_refused("init-labels nmem0 nmem1", "init-labels: unexpected argument 'nmem1'");
	assert_int_equal(host_shell("init-labels nmem9"), -EINVAL);
	assert_string_equal(host_console_text(), "nmem9: no such DIMM (see 'list -D')\n");
	assert_int_equal(dimm_lsa[0], 0);	/* nothing written */

	assert_runs("init-labels nmem0 --label-version 1.2");
	assert_true(host_console_has("initialized 1 nmem\n"));
	static struct nd_lsa parsed;
	assert_int_equal(nd_lsa_parse(&parsed, dimm_lsa, LSA_SIZE), 0);
	assert_int_equal(parsed.label_size, 256);
	assert_int_equal(parsed.nr_live, 0);
	assert_int_equal(host_shell("init-labels nmem0"), -EBUSY);	/* -f to overwrite */
	assert_runs("init-labels -f nmem0 -V 1.1");
	assert_int_equal(nd_lsa_parse(&parsed, dimm_lsa, LSA_SIZE), 0);
	assert_int_equal(parsed.label_size, 128);

	assert_runs("create-namespace -r region0 -s 64M -n first -m fsdax");
	assert_true(host_console_has("\"name\":\"first\""));
	assert_runs("create-namespace -r 0 --size 0x2000000 -m sector -l 512");
	assert_true(host_console_has("\"mode\":\"sector\""));
	assert_int_equal(nd_lsa_parse(&parsed, dimm_lsa, LSA_SIZE), 0);
	assert_int_equal(parsed.nr_live, 2);
	assert_int_equal(host_shell("create-namespace -r region7 -s 16M"), -EINVAL);
	assert_string_equal(host_console_text(), "region7: no such region (see 'list -R')\n");
	assert_runs("destroy-namespace -f namespace0.1");
	assert_int_equal(nd_lsa_parse(&parsed, dimm_lsa, LSA_SIZE), 0);
	assert_int_equal(parsed.nr_live, 1);
}

/* devdax: daxctl list, and dax-map / dax-write / dax-cmp / dax-unmap by mapping number. */
static void devdax_commands(void **state)
{
	(void)state;
	assert_runs("create-namespace -f -e namespace0.0 -m devdax -M mem -a 2M");
	assert_runs("daxctl list");
	assert_true(host_console_has("\"chardev\":\"dax0.0\""));
	assert_refused("daxctl", "daxctl: missing verb");
	assert_refused("daxctl show", "daxctl: verb 'show': expected list");
	assert_refused("daxctl list -u", "daxctl: unknown option '-u'");

	assert_refused("dax-map dax0.0 0x200000x 0x200000",
		       "dax-map: offset '0x200000x': not a number");
	assert_refused("dax-map dax0.0 0", "dax-map: missing length");
	assert_refused("dax-map dax0.0 0 2M", "dax-map: length '2M': not a number");
	assert_refused("dax-map dax0.0 0 0x200000 1", "dax-map: unexpected argument '1'");
	assert_refused("dax-map", "dax-map: missing device");
	assert_int_equal(host_shell("dax-map dax9.0 0 0x200000"), -ENODEV);
	assert_runs("dax-map dax0.0 0 0x400000");
	assert_true(host_console_has("dax-map dax0.0: mapping 0: offset 0 length 0x400000 at "));
	assert_true(host_console_has(", 2 MiB pages (page tables: 2 MiB leaf -> 0x"));

	assert_refused("dax-write 0 0 4096", "dax-write: missing pattern");
	assert_refused("dax-write 0 0 4096 pattern=0x100",
		       "dax-write: pattern 'pattern=0x100': expected pattern=0xNN or seq=N");
	assert_refused("dax-write 0 0 4096 seq=1x",
		       "dax-write: pattern 'seq=1x': expected pattern=0xNN or seq=N");
	assert_refused("dax-write x 0 4096 seq=1", "dax-write: mapping 'x': not a number");
	assert_refused("dax-write 0 8y 4096 seq=1", "dax-write: offset '8y': not a number");
	assert_refused("dax-cmp 0 0 0 seq=1", "dax-cmp: length '0': must be at least 1");
	assert_refused("dax-cmp 0 0 8 seq=1 x", "dax-cmp: unexpected argument 'x'");
	assert_int_equal(host_shell("dax-write 5 0 8 seq=1"), -EINVAL);
	assert_string_equal(host_console_text(),
			    "'5': no such dax mapping (dax-map prints its number)\n");

	/* The range is checked before any byte moves (the host cannot store through the mapping). */
	assert_int_equal(host_shell("dax-write 0 0x400000 8 seq=1"), -EINVAL);
	assert_string_equal(
		host_console_text(),
		"dax-write: offset 0x400000 length 8: not 8-byte multiples inside the mapping\n");

	assert_refused("dax-unmap 0x", "dax-unmap: mapping '0x': not a number");
	assert_refused("dax-unmap", "dax-unmap: missing mapping");
	assert_refused("dax-unmap 0 1", "dax-unmap: unexpected argument '1'");
	assert_runs("dax-unmap 0");
	assert_string_equal(host_console_text(), "dax-unmap dax0.0: mapping 0 unmapped\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(list_parses_ndctl_flags, boot),
		cmocka_unit_test_setup(create_namespace_refuses_bad_options, boot),
		cmocka_unit_test_setup(create_namespace_reconfigures, boot),
		cmocka_unit_test_setup(metrics_name_each_mode_as_list_does, boot),
		cmocka_unit_test_setup(list_media_errors_in_each_modes_units, boot),
		cmocka_unit_test_setup(namespace_verbs_take_one_namespace, boot),
		cmocka_unit_test_setup(disable_enable_destroy_namespace, boot),
		cmocka_unit_test_setup(init_labels_and_labelled_namespaces, boot),
		cmocka_unit_test_setup(devdax_commands, boot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
