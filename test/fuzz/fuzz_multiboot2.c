/*
 * libFuzzer harness: the multiboot2 boot information (boot/multiboot2.c),
 * then the e820 table the kernel builds from it (e820_init, no memmap=).
 *
 * Input: the MBI itself. It is parsed from an exact-size heap copy, so ASan
 * sees a read one byte past it: when the input's total_size (first u32) is
 * at least 4 and fits the input, the copy is that long; otherwise
 * total_size is set to the input's length. Seeds: test/fuzz/seeds/
 * fuzz_multiboot2 (GRUB's MBIs from SeaBIOS and OVMF boots under QEMU, and
 * MBIs built per FACTS §5.3).
 *
 * Checked after every input: the return value, every count within its
 * array, the strings terminated, the RSDP copy 0 or 20..36 bytes, the MBI
 * itself the first reserved range, and the e820 table sorted and disjoint.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e820.h"
#include "host.h"
#include "multiboot2.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define MBI_PHYS 0x100148ULL /* where GRUB put it on SeaBIOS (FACTS §5.2) */

static struct boot_info bi;

static void check_boot_info(int err, u32 total)
{
	bool plausible = total >= 16 && total <= MB2_MAX_SIZE;

	CHECK(err == 0 || err == -EINVAL);
	CHECK((err == 0) == plausible);
	CHECK(bi.nr_mem <= BOOT_MAX_MEM);
	CHECK(bi.nr_reserved <= BOOT_MAX_RESERVED);
	CHECK(memchr(bi.cmdline, 0, sizeof(bi.cmdline)) != NULL);
	CHECK(memchr(bi.loader, 0, sizeof(bi.loader)) != NULL);
	CHECK(bi.rsdp_len == 0 || (bi.rsdp_len >= 20 && bi.rsdp_len <= BOOT_RSDP_MAX));
	for (u32 i = 0; i < bi.nr_mem; i++)
		CHECK(bi.mem[i].size > 0);
	if (err)
		return;
	CHECK(bi.nr_reserved >= 1);
	CHECK(bi.reserved[0].addr == MBI_PHYS && bi.reserved[0].size == total);
	for (u32 i = 1; i < bi.nr_reserved; i++)
		CHECK(bi.reserved[i].size > 0);
}

static void check_e820(void)
{
	const struct e820_table *t = &e820_table;

	CHECK(t->nr <= E820_MAX_ENTRIES);
	for (u32 i = 0; i < t->nr; i++) {
		CHECK(t->entries[i].size > 0);
		CHECK(i == 0 ||
		      t->entries[i - 1].addr + t->entries[i - 1].size <= t->entries[i].addr);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u32 total;
	size_t len = size;

	if (size < 4 || size > MB2_MAX_SIZE)
		return 0;
	memcpy(&total, data, 4);
	if (total >= 4 && total <= size)
		len = total;
	u8 *mbi = malloc(len);
	if (!mbi)
		return 0;
	memcpy(mbi, data, len);
	if (len != total) {
		total = (u32)len;
		memcpy(mbi, &total, 4);
	}
	host_console_reset();
	memset(&bi, 0, sizeof(bi));
	int err = multiboot2_parse(mbi, MBI_PHYS, &bi);
	free(mbi);
	check_boot_info(err, total);
	if (err)
		return 0;
	memset(&e820_table, 0, sizeof(e820_table));
	e820_init(&bi);
	check_e820();
	return 0;
}
