/*
 * Host tests: the SRAT (drivers/acpi_nfit/srat.c, srat.h). Crafted tables:
 * both processor entry kinds and memory ranges, proximity domains numbered
 * in Linux's order (processors first, then memory; disabled and empty
 * entries name no domain), which nodes are online, the nearest online
 * node, the address fallbacks, and bad entries (short, wrapping) skipped
 * with a line. Then QEMU 7.2's tables (test/fixtures/acpi): one node, and
 * two with the nvdimm on node 1, whose NFIT region gets numa_node 0 and
 * target_node 1 as on Linux.
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
#include "srat.h"
#include "unaligned.h"

static u8 tbl[1024];
static size_t tlen;

static void begin(void)
{
	memset(tbl, 0, sizeof(tbl));
	memcpy(tbl, "SRAT", 4);
	tbl[8] = 3;		/* revision 3: 32-bit domains */
	put_le32(tbl + 36, 1);
	tlen = SRAT_HEADER_LEN;
}

static void end(void)
{
	put_le32(tbl + 4, (u32)tlen);
}

static void lapic(u32 pxm, u8 apic, u32 flags)
{
	u8 *e = tbl + tlen;

	e[0] = SRAT_TYPE_LAPIC;
	e[1] = SRAT_LAPIC_LEN;
	e[2] = (u8)pxm;
	e[3] = apic;
	put_le32(e + 4, flags);
	e[9] = (u8)(pxm >> 8);
	e[10] = (u8)(pxm >> 16);
	e[11] = (u8)(pxm >> 24);
	tlen += SRAT_LAPIC_LEN;
}

static void x2apic(u32 pxm, u32 id, u32 flags)
{
	u8 *e = tbl + tlen;

	e[0] = SRAT_TYPE_X2APIC;
	e[1] = SRAT_X2APIC_LEN;
	put_le32(e + 4, pxm);
	put_le32(e + 8, id);
	put_le32(e + 12, flags);
	tlen += SRAT_X2APIC_LEN;
}

static void mem(u32 pxm, u64 base, u64 len, u32 flags)
{
	u8 *e = tbl + tlen;

	e[0] = SRAT_TYPE_MEMORY;
	e[1] = SRAT_MEMORY_LEN;
	put_le32(e + 2, pxm);
	put_le64(e + 8, base);
	put_le64(e + 16, len);
	put_le32(e + 28, flags);
	tlen += SRAT_MEMORY_LEN;
}

static struct srat_info s;

static void srat_numbers_domains_as_linux(void **state)
{
	(void)state;
	begin();
	/* Memory first in the table: its domains still come after the CPUs'. */
	mem(7, 0, 1ULL << 30, SRAT_ENABLED);
	mem(9, 4ULL << 30, 1ULL << 30, SRAT_ENABLED | SRAT_MEM_NON_VOLATILE);
	mem(11, 8ULL << 30, 1ULL << 30, 0);			/* disabled: no domain */
	mem(12, 9ULL << 30, 0, SRAT_ENABLED);			/* empty: no domain */
	mem(5, 6ULL << 30, 2ULL << 30, SRAT_ENABLED | SRAT_MEM_HOTPLUGGABLE);
	lapic(0x30201, 0, SRAT_ENABLED);	/* the domain's high bytes at +9 */
	lapic(3, 1, 0);				/* disabled CPU: no domain */
	x2apic(7, 0x100, SRAT_ENABLED);
	end();
	assert_int_equal(srat_parse(tbl, tlen, &s), 0);
	assert_true(s.present);
	assert_int_equal(s.nr_cpus, 3);
	assert_int_equal(s.nr_mems, 5);
	assert_int_equal(s.nr_nodes, 4);
	assert_int_equal(srat_pxm_to_node(&s, 0x30201), 0);
	assert_int_equal(srat_pxm_to_node(&s, 7), 1);
	assert_int_equal(srat_pxm_to_node(&s, 9), 2);
	assert_int_equal(srat_pxm_to_node(&s, 5), 3);
	assert_int_equal(srat_pxm_to_node(&s, 3), -1);
	assert_int_equal(srat_pxm_to_node(&s, 11), -1);
	assert_int_equal(srat_pxm_to_node(&s, 12), -1);
	/* Online: CPUs' nodes and RAM's; the NVDIMM's and the hot-plug area's are not. */
	assert_true(s.online[0] && s.online[1]);
	assert_false(s.online[2] || s.online[3]);
	assert_int_equal(srat_pxm_to_online_node(&s, 7), 1);
	assert_int_equal(srat_pxm_to_online_node(&s, 9), 0);
	assert_int_equal(srat_pxm_to_online_node(&s, 5), 0);
	assert_int_equal(srat_pxm_to_online_node(&s, 42), -1);
	/* Addresses: RAM's node, else the first RAM range's; any enabled range's, else -1. */
	assert_int_equal(srat_addr_to_node(&s, 4ULL << 30), 1);
	assert_int_equal(srat_addr_to_target_node(&s, 4ULL << 30), 2);
	assert_int_equal(srat_addr_to_target_node(&s, 7ULL << 30), 3);
	assert_int_equal(srat_addr_to_target_node(&s, 8ULL << 30), -1);
	assert_int_equal(srat_addr_to_node(&s, 512ULL << 20), 1);
}

static void srat_skips_bad_entries_with_a_line(void **state)
{
	(void)state;
	begin();
	lapic(0, 0, SRAT_ENABLED);
	mem(1, ~0ULL - 4095, 8192, SRAT_ENABLED);	/* wraps */
	tbl[tlen] = SRAT_TYPE_MEMORY;			/* 16 bytes: shorter than its 40 */
	tbl[tlen + 1] = 16;
	tlen += 16;
	tbl[tlen] = 0x7f;				/* unknown type, framed */
	tbl[tlen + 1] = 8;
	tlen += 8;
	mem(2, 1ULL << 32, 1ULL << 30, SRAT_ENABLED);
	end();
	host_console_reset();
	assert_int_equal(srat_parse(tbl, tlen, &s), -EINVAL);
	assert_true(host_console_has("srat: memory affinity at offset 0x40: [0xfffffffffffff000, +0x2000) wraps, skipped"));
	assert_int_equal(s.walk.nr_rejected, 2);
	assert_int_equal(s.nr_other, 1);
	assert_int_equal(s.nr_mems, 1);
	assert_int_equal(s.nr_nodes, 2);
	assert_int_equal(srat_pxm_to_node(&s, 2), 1);
	/* Not a SRAT; a header cut short. */
	memcpy(tbl, "APIC", 4);
	assert_int_equal(srat_parse(tbl, tlen, &s), -ENODEV);
	assert_false(s.present);
	memcpy(tbl, "SRAT", 4);
	assert_int_equal(srat_parse(tbl, 20, &s), -ENODEV);
	/* A length that runs past the end stops the walk, keeping what came before. */
	begin();
	lapic(4, 0, SRAT_ENABLED);
	mem(4, 0, 1ULL << 30, SRAT_ENABLED);
	tbl[tlen - SRAT_MEMORY_LEN + 1] = 200;
	end();
	assert_int_equal(srat_parse(tbl, tlen, &s), -EINVAL);
	assert_true(s.walk.truncated);
	assert_int_equal(s.nr_nodes, 1);
}

/* A revision 1 table: Linux takes the low 8 bits of every domain, and so do we. */
static void srat_revision_1_domains_are_8_bits(void **state)
{
	(void)state;
	begin();
	tbl[8] = 1;
	lapic(0x30201, 0, SRAT_ENABLED);
	x2apic(0x105, 1, SRAT_ENABLED);		/* x2APIC entries are ACPI 4: 32 bits */
	mem(0x202, 0, 1ULL << 30, SRAT_ENABLED);
	end();
	assert_int_equal(srat_parse(tbl, tlen, &s), 0);
	assert_int_equal(s.nr_nodes, 3);
	assert_int_equal(srat_pxm_to_node(&s, 1), 0);		/* 0x30201's low byte */
	assert_int_equal(srat_pxm_to_node(&s, 0x105), 1);
	assert_int_equal(srat_pxm_to_node(&s, 2), 2);		/* 0x202's low byte */
	assert_int_equal(srat_pxm_to_node(&s, 0x202), -1);
}

static u8 *read_fixture(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	u8 *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s (run from the top directory)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* QEMU 7.2 with its automatic node: everything in domain 0, node 0. */
static void srat_qemu_one_node(void **state)
{
	size_t len;
	u8 *t = read_fixture("test/fixtures/acpi/qemu-7.2-seabios/SRAT-0x3ffe0ec2.bin", &len);

	(void)state;
	assert_int_equal(srat_parse(t, len, &s), 0);
	assert_int_equal(s.nr_cpus, 1);
	assert_int_equal(s.nr_mems, 4);
	assert_int_equal(s.nr_nodes, 1);
	assert_true(s.online[0]);
	assert_int_equal(srat_pxm_to_online_node(&s, 0), 0);
	assert_int_equal(srat_pxm_to_node(&s, 0), 0);
	free(t);
}

/*
 * QEMU 7.2, -numa node 0 (RAM, CPU) and node 1 (the nvdimm): node 1 is
 * offline, so the region's numa_node is 0 and its target_node 1, what
 * Linux reports for a pmem node without CPUs or RAM.
 */
static void srat_qemu_nvdimm_on_node_1(void **state)
{
	size_t len, nlen;
	u8 *t = read_fixture("test/fixtures/acpi/qemu-7.2-numa/SRAT-0x3ffe0ec2.bin", &len);
	u8 *nfit = read_fixture("test/fixtures/acpi/qemu-7.2-numa/NFIT-0x3ffe13cd.bin", &nlen);
	u32 spa_flags = get_le16(nfit + 40 + 6), spa_pxm = get_le32(nfit + 40 + 12);

	(void)state;
	assert_int_equal(srat_parse(t, len, &s), 0);
	assert_int_equal(s.nr_cpus, 1);
	assert_int_equal(s.nr_mems, 5);
	assert_int_equal(s.nr_nodes, 2);
	assert_true(s.online[0]);
	assert_false(s.online[1]);
	assert_int_equal(spa_flags & 2, 2);	/* ACPI 6.4 §5.2.25.2: proximity domain valid */
	assert_int_equal(spa_pxm, 1);
	assert_int_equal(srat_pxm_to_online_node(&s, spa_pxm), 0);
	assert_int_equal(srat_pxm_to_node(&s, spa_pxm), 1);
	assert_int_equal(srat_addr_to_target_node(&s, get_le64(nfit + 40 + 32)), 1);
	free(t);
	free(nfit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(srat_numbers_domains_as_linux),
		cmocka_unit_test(srat_skips_bad_entries_with_a_line),
		cmocka_unit_test(srat_revision_1_domains_are_8_bits),
		cmocka_unit_test(srat_qemu_one_node),
		cmocka_unit_test(srat_qemu_nvdimm_on_node_1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
