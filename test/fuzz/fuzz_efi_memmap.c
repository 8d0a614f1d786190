/*
 * libFuzzer harness: the EFI loader's memory map conversion
 * (boot/efi/memmap.c, efi_memmap_to_boot_info), which turns the UEFI
 * descriptors GetMemoryMap returned into boot_info's e820 ranges.
 *
 * Input: le64 DescriptorSize, then the map (MemoryMapSize = the rest), in
 * an exact-size heap copy so ASan sees any read outside it. Seeds:
 * test/fuzz/seeds/fuzz_efi_memmap (OVMF's map, from GRUB's tag 17 on an
 * OVMF boot under QEMU, and small crafted maps).
 *
 * Checked after every input: the count, no empty range, neighbours of one
 * non-pmem type merged, a range that wraps past 2^64 only where one
 * descriptor did, and, when nothing was truncated, every byte of every
 * whole descriptor accounted for exactly once (the sizes add up).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../boot/efi/loader.h"
#include "e820.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static struct boot_info bi;

/* The range's end (addr + size) is past what a u64 holds. */
static bool wraps(u64 addr, u64 size)
{
	return addr + size < addr;
}

/* What the conversion should have seen: whole descriptors, desc_size apart. */
static void expected(const u8 *map, u64 map_size, u64 desc_size, unsigned __int128 *bytes,
		     u32 *nr_wrapping)
{
	*bytes = 0;
	*nr_wrapping = 0;
	if (desc_size < 40)
		return;
	for (u64 off = 0; map_size >= 40 && off <= map_size - 40; off += desc_size) {
		u64 addr, pages;

		memcpy(&addr, map + off + 8, 8);
		memcpy(&pages, map + off + 24, 8);
		if (pages <= (~0ULL >> PAGE_SHIFT)) {
			*bytes += pages << PAGE_SHIFT;
			*nr_wrapping += wraps(addr, pages << PAGE_SHIFT);
		}
		if (desc_size > map_size - off)
			break;
	}
}

static void check(const u8 *map, u64 map_size, u64 desc_size)
{
	unsigned __int128 want, got = 0;
	u32 nr_wrapping, got_wrapping = 0;

	CHECK(bi.nr_mem <= BOOT_MAX_MEM);
	for (u32 i = 0; i < bi.nr_mem; i++) {
		const struct boot_mem_range *r = &bi.mem[i], *prev = r - 1;

		CHECK(r->size > 0);
		got += r->size;
		got_wrapping += wraps(r->addr, r->size);
		if (i && prev->type == r->type && prev->type != E820_TYPE_PMEM &&
		    prev->type != E820_TYPE_PRAM && !wraps(prev->addr, prev->size) &&
		    !wraps(r->addr, r->size))
			CHECK(prev->addr + prev->size != r->addr);
	}
	if (bi.mem_truncated)
		return;
	expected(map, map_size, desc_size, &want, &nr_wrapping);
	CHECK(got == want);
	CHECK(got_wrapping <= nr_wrapping);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u64 desc_size;

	if (size < 8)
		return 0;
	memcpy(&desc_size, data, 8);
	size -= 8;
	u8 *map = malloc(size ? size : 1);
	if (!map)
		return 0;
	memcpy(map, data + 8, size);
	memset(&bi, 0, sizeof(bi));
	efi_memmap_to_boot_info(map, size, desc_size, &bi);
	check(map, size, desc_size);
	free(map);
	return 0;
}
