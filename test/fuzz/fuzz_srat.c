/*
 * libFuzzer harness: the SRAT parser (drivers/acpi_nfit/srat.c) over any
 * bytes. The input is the table's entries; the harness puts the 48-byte
 * header (signature, length) in front. Invariants: the parse never reads
 * past the bytes given (ASan), every node's proximity domain is distinct
 * and maps back to it, online nodes are numbered ones, the online-node and
 * address lookups return a node that exists or -1, and kept ranges never
 * wrap.
 *
 * Seeds: test/fuzz/seeds/fuzz_srat (test/fuzz/mkseeds.py).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srat.h"
#include "unaligned.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* acpi.c (linked for srat_init's fw_table_find) needs the symbol; nothing maps here. */
int direct_map_add(u64 pa, u64 len);
int direct_map_add(u64 pa, u64 len)
{
	(void)pa;
	(void)len;
	return -EINVAL;
}

static struct srat_info s;

static bool node_or_none(int n)
{
	return n == -1 || (n >= 0 && (u32)n < s.nr_nodes);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	size_t len = SRAT_HEADER_LEN + size;
	u8 *t;

	if (size > 1 << 16)
		return 0;
	t = malloc(len);
	if (!t)
		return 0;
	memset(t, 0, SRAT_HEADER_LEN);
	memcpy(t, "SRAT", 4);
	put_le32(t + 4, (u32)len);
	memcpy(t + SRAT_HEADER_LEN, data, size);
	srat_parse(t, len, &s);
	CHECK(s.present && s.nr_nodes <= SRAT_MAX_NODES && s.nr_mems <= SRAT_MAX_MEMS);
	for (u32 n = 0; n < SRAT_MAX_NODES; n++) {
		CHECK(!s.online[n] || n < s.nr_nodes);
		if (n < s.nr_nodes) {
			CHECK(srat_pxm_to_node(&s, s.pxm[n]) == (int)n);
			CHECK(node_or_none(srat_pxm_to_online_node(&s, s.pxm[n])));
		}
	}
	for (u32 i = 0; i < s.nr_mems; i++) {
		CHECK(s.mem[i].base + s.mem[i].length >= s.mem[i].base);
		CHECK(node_or_none(srat_addr_to_target_node(&s, s.mem[i].base)));
		CHECK(srat_addr_to_node(&s, s.mem[i].base) == 0 ||
		      node_or_none(srat_addr_to_node(&s, s.mem[i].base)));
	}
	free(t);
	return 0;
}
