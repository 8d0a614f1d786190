/*
 * The UEFI memory map, as ExitBootServices left it, into boot_info's e820
 * ranges. Types through e820_type_from_efi (drivers/e820/efi.c: loader and
 * boot services memory become RAM, EfiPersistentMemory and EFI_MEMORY_NV
 * become pmem type 7), exactly as the multiboot2 path converts GRUB's copy of
 * the same map (boot/multiboot2.c, tag 17). Pure.
 */
#include "e820.h"
#include "loader.h"

/* EFI_MEMORY_DESCRIPTOR, UEFI 2.10 §7.2 (FACTS §6.2): offsets in version 1. */
#define DESC_TYPE 0
#define DESC_PHYS_START 8
#define DESC_NR_PAGES 24
#define DESC_ATTRIBUTE 32
#define DESC_MIN_SIZE 40

static u64 rd64(const u8 *p)
{
	u64 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static u32 rd32(const u8 *p)
{
	u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Whether [addr, addr + size) continues `last`. A range whose end wraps past
 * 2^64 is never merged, before or after: merging would wrap the sum or lose
 * the good half when e820_add drops the wrapping range.
 */
static bool continues(const struct boot_mem_range *last, u64 addr, u64 size, u32 type)
{
	bool pmem = type == E820_TYPE_PMEM || type == E820_TYPE_PRAM;

	return last && last->type == type && !pmem && last->addr + last->size >= last->addr &&
	       last->addr + last->size == addr && addr + size >= addr;
}

/*
 * Firmware maps have hundreds of descriptors where most neighbours are
 * "RAM" once converted; merging them keeps boot_info's 256 entries enough.
 * e820_sanitize would merge them the same way later. pmem is never merged,
 * so each pmem descriptor stays its own range (e820.h's rule; e820_is_pmem
 * lives in drivers/e820/e820.c, which the loader does not link).
 */
static void add_range(struct boot_info *bi, u64 addr, u64 size, u32 type)
{
	struct boot_mem_range *last = bi->nr_mem ? &bi->mem[bi->nr_mem - 1] : NULL;

	if (size == 0)
		return;
	if (continues(last, addr, size, type)) {
		last->size += size;
		return;
	}
	if (bi->nr_mem == BOOT_MAX_MEM) {
		bi->mem_truncated = true;
		return;
	}
	bi->mem[bi->nr_mem++] = (struct boot_mem_range){ addr, size, type };
}

void efi_memmap_to_boot_info(const void *map, u64 map_size, u64 desc_size, struct boot_info *bi)
{
	const u8 *p = map;

	if (desc_size < DESC_MIN_SIZE || map_size < DESC_MIN_SIZE)
		return;
	/* Checked steps: off + desc_size may not wrap (a huge size ends the walk). */
	for (u64 off = 0; off <= map_size - DESC_MIN_SIZE; off += desc_size) {
		const u8 *d = p + off;
		u64 pages = rd64(d + DESC_NR_PAGES);
		u32 type = e820_type_from_efi(rd32(d + DESC_TYPE), rd64(d + DESC_ATTRIBUTE));

		if (pages <= (~0ULL >> PAGE_SHIFT))
			add_range(bi, rd64(d + DESC_PHYS_START), pages << PAGE_SHIFT, type);
		if (desc_size > map_size - off)
			break;
	}
}
