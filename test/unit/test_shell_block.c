/*
 * Host tests: the block I/O verbs (write, cmp, read, dax, wait-busy) and the
 * struct page commands (memremap, memunmap, memmap-hash, memmap-init,
 * memmap-wait) run as the console runs them (shell_exec), on a 1 GiB pmem
 * region in simulated memory: bad arguments get one line and the usage,
 * good ones do what they say.
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
#include "nd_pfn.h"
#include "pmem.h"
#include "shell.h"

#define NS_START (4 * GiB)
#define NS_SIZE (1 * GiB)

/* A fresh machine: RAM at 1 GiB, one e820 pmem region at 4 GiB, raw: pmem0. */
static int boot(void **state)
{
	struct nd_region_desc d = {
		.start = NS_START, .size = NS_SIZE, .numa_node = -1, .target_node = -1
	};

	(void)state;
	host_mm_reboot(1 * GiB, 512 * MiB, 0, 0);
	nd_reset();
	pmem_reset();
	nd_pfn_reset();
	assert_int_equal(nd_region_create(nd_bus_register("e820"), &d, NULL), 0);
	nd_regions_publish();
	nd_probe_namespaces();
	assert_non_null(pmem_find("pmem0"));
	return 0;
}

#define assert_refused(line, error) assert_true(host_shell_refused(line, error))
#define assert_runs(line) assert_int_equal(host_shell(line), 0)

static const u8 *pmem_at(u64 off)
{
	return phys_to_virt(NS_START + off);
}

static void write_cmp_read_sectors(void **state)
{
	(void)state;
	assert_runs("write pmem0 1 8 pattern=0xA5");
	assert_string_equal(host_console_text(), "write pmem0: 4096 bytes at 0x200\n");
	assert_int_equal(pmem_at(0x200)[0], 0xA5);
	assert_int_equal(pmem_at(0x11ff)[0], 0xA5);
	assert_int_equal(pmem_at(0x1200)[0], 0);
	assert_runs("cmp pmem0 0x1 010 pattern=165");	/* the same, in hex, octal, decimal */
	assert_string_equal(host_console_text(), "cmp pmem0: 4096 bytes at 0x200 match\n");
	assert_int_equal(host_shell("cmp pmem0 0 8 pattern=0xA5"), -EILSEQ);
	assert_string_equal(host_console_text(), "cmp pmem0: mismatch at byte 0 (sector 0)\n");
	assert_runs("write pmem0 16 2 seq=7");
	assert_runs("cmp pmem0 16 2 seq=7");
	assert_int_equal(host_shell("cmp pmem0 16 2 seq=8"), -EILSEQ);
	assert_runs("read pmem0 1 1");
	assert_true(
		host_console_has("00000200: a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 a5\n"));
	assert_true(host_console_has("000003f0: a5"));
	assert_false(host_console_has("00000400:"));	/* one sector */
	/* Past the end: the device says so, no usage (the arguments were fine). */
	assert_int_equal(host_shell("write pmem0 0x200000 1 seq=1"), -ERANGE);
	assert_string_equal(host_console_text(),
			    "write pmem0: request past the end of the device (error -34)\n");
}

static void sector_io_refuses_bad_arguments(void **state)
{
	static const char *const bad[][2] = {
		{ "write", "write: missing device" },
		{ "write pmem0", "write: missing sector" },
		{ "write pmem0 0", "write: missing count" },
		{ "write pmem0 0 8", "write: missing pattern" },
		{ "write pmem0 1x 8 pattern=0xA5", "write: sector '1x': not a number" },
		{ "write pmem0 -1 8 pattern=0xA5", "write: sector '-1': not a number" },
		{ "write pmem0 0 8x pattern=0xA5", "write: count '8x': not a number" },
		{ "write pmem0 0 0 pattern=0xA5", "write: count '0': must be at least 1" },
		{ "write pmem0 0 8 pattern=0x100",
		  "write: pattern 'pattern=0x100': expected pattern=0xNN or seq=N" },
		{ "write pmem0 0 8 pattern=",
		  "write: pattern 'pattern=': expected pattern=0xNN or seq=N" },
		{ "write pmem0 0 8 seq=-1",
		  "write: pattern 'seq=-1': expected pattern=0xNN or seq=N" },
		{ "write pmem0 0 8 fill=1",
		  "write: pattern 'fill=1': expected pattern=0xNN or seq=N" },
		{ "write pmem0 0 8 seq=1 now", "write: unexpected argument 'now'" },
		{ "write -f pmem0 0 8 seq=1", "write: device '-f': not a name" },
		{ "write pmem0 0x100000000000000 1 seq=1",
		  "write: sector '0x100000000000000' or count '1': beyond 2^64 bytes" },
		{ "cmp pmem0 0 8", "cmp: missing pattern" },
		{ "cmp pmem0 0 8 pattern=0xA5 -v", "cmp: unknown option '-v'" },
		{ "cmp pmem0 0 18446744073709551616 seq=1",
		  "cmp: count '18446744073709551616': too large" },
		{ "read pmem0 0", "read: missing count" },
		{ "read pmem0 0 1 2", "read: unexpected argument '2'" },
		{ "read pmem0 0x 1", "read: sector '0x': not a number" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_refused(bad[i][0], bad[i][1]);
	assert_int_equal(host_phys_hash(NS_START, NS_SIZE), host_phys_hash(NS_START, 0));
	/* A device that is not there: one line of its own. */
	assert_int_equal(host_shell("write pmem9 0 1 seq=1"), -EINVAL);
	assert_string_equal(host_console_text(), "pmem9: no such block device\n");
}

static void dax_and_wait_busy(void **state)
{
	(void)state;
	assert_runs("dax pmem0 8 1");
	assert_true(host_console_has("dax pmem0: sector 8 at pfn 0x100001"));
	assert_runs("dax pmem0 8 1 hold");
	assert_true(host_console_has("dax pmem0: address held until 'dax put'\n"));
	assert_refused("dax pmem0 8 1 keep", "dax: option 'keep': expected hold");
	assert_refused("dax pmem0 8", "dax: missing count");
	assert_refused("dax pmem0 8 1 hold 2", "dax: unexpected argument '2'");
	assert_refused("dax put all", "dax: unexpected argument 'all'");
	assert_runs("dax put");
	assert_string_equal(host_console_text(), "dax: 1 held address given back\n");

	assert_refused("wait-busy", "wait-busy: missing device");
	assert_refused("wait-busy pmem0 pmem1", "wait-busy: unexpected argument 'pmem1'");
	struct pmem_hold h;	/* as another CPU's write would */
	assert_int_equal(pmem_hold_name("pmem0", PMEM_HOLD_IO, "write on CPU 1", &h), 0);
	assert_runs("wait-busy pmem0");
	assert_string_equal(host_console_text(), "wait-busy pmem0: held by 1\n");
	pmem_release(&h);
}

static void memremap_and_memunmap(void **state)
{
	static const char *const bad[][2] = {
		{ "memremap", "memremap: missing start" },
		{ "memremap 4Gx 64M mem -f",
		  "memremap: start '4Gx': not a size (a number, then K, M, G, T, P or E)" },
		{ "memremap 4G 0 mem -f", "memremap: size '0': must be at least 1" },
		{ "memremap 4G 64M", "memremap: missing map" },
		{ "memremap 4G 64M both -f", "memremap: map 'both': expected mem or dev" },
		{ "memremap 4G 64M mem -x", "memremap: unknown option '-x'" },
		{ "memremap 4G 64M mem 2m", "memremap: unexpected argument '2m'" },
		{ "memunmap", "memunmap: missing start" },
		{ "memunmap 0x100000000 1", "memunmap: unexpected argument '1'" },
		{ "memunmap 0x1000000z",
		  "memunmap: start '0x1000000z': not a size (a number, then K, M, G, T, P or E)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_refused(bad[i][0], bad[i][1]);
	assert_non_null(pmem_find("pmem0"));
	assert_runs("memremap 4G 64M dev -f");
	assert_true(host_console_has("memremap: [mem 0x100000000-0x103ffffff] map=dev: "));
	assert_null(pmem_find("pmem0"));	/* claimed */
	assert_int_equal(host_shell("memunmap 0x100200000"), -ENOENT);
	assert_runs("memunmap 0x100000000");
	assert_true(host_console_has("\nmemunmap: [mem 0x100000000-0x103ffffff] removed\n"));
	assert_non_null(pmem_find("pmem0"));
	assert_runs("memremap 0x100000000 0x4000000 mem 4k -f");
	assert_true(host_console_has("memremap: [mem 0x100000000-0x103ffffff] map=mem: "));
	assert_runs("memunmap 4G");
}

/* memmap-hash, memmap-init, memmap-wait on an fsdax device's struct pages. */
static void memmap_commands(void **state)
{
	(void)state;
	assert_runs("create-namespace -f -e namespace0.0 -m fsdax -M mem");
	assert_runs("memmap-hash pmem0m");
	assert_true(host_console_has("memmap-hash: pmem0m pfns 262144 hash "));
	assert_runs("memmap-init pmem0m cpus=1..2 reps=2");
	assert_true(host_console_has("memmap-init: pmem0m cpus 1 of 1 pages 262144 "));
	assert_true(host_console_has("memmap-init: pmem0m cpus 1 of 2 pages 262144 "));
	assert_runs("memmap-init pmem0m cpus=0x1 rewrite");
	assert_runs("memmap-wait pmem0m");
	assert_true(host_console_has("memmap-wait: pmem0m"));
	static const char *const bad[][2] = {
		{ "memmap-init", "memmap-init: missing device" },
		{ "memmap-init pmem0m cpus=x", "memmap-init: cpus 'x': not a number" },
		{ "memmap-init pmem0m cpus=", "memmap-init: cpus '': not a number" },
		{ "memmap-init pmem0m cpus=2..1",
		  "memmap-init: cpus '2..1': expected N or A..B (A <= B)" },
		{ "memmap-init pmem0m cpus=1..2x",
		  "memmap-init: cpus '1..2x': expected N or A..B (A <= B)" },
		{ "memmap-init pmem0m cpus=..2",
		  "memmap-init: cpus '..2': expected N or A..B (A <= B)" },
		{ "memmap-init pmem0m reps=0", "memmap-init: reps '0': not in 1..100" },
		{ "memmap-init pmem0m reps=101", "memmap-init: reps '101': not in 1..100" },
		{ "memmap-init pmem0m fast", "memmap-init: unexpected argument 'fast'" },
		{ "memmap-hash", "memmap-hash: missing device" },
		{ "memmap-hash pmem0m x", "memmap-hash: unexpected argument 'x'" },
		{ "memmap-wait -v pmem0m", "memmap-wait: device '-v': not a name" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_refused(bad[i][0], bad[i][1]);
	assert_int_equal(host_shell("memmap-hash pmem9"), -ENODEV);
	assert_string_equal(
		host_console_text(),
		"memmap-hash: pmem9 is not a block device with struct pages (see 'list')\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(write_cmp_read_sectors, boot),
		cmocka_unit_test_setup(sector_io_refuses_bad_arguments, boot),
		cmocka_unit_test_setup(dax_and_wait_busy, boot),
		cmocka_unit_test_setup(memremap_and_memunmap, boot),
		cmocka_unit_test_setup(memmap_commands, boot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
