/*
 * Put the embedded kernel where it is linked to run: each PT_LOAD segment at
 * its p_paddr, pages from AllocatePages(AllocateAddress, EfiLoaderData)
 * (UEFI 2.10 §7.2). The kernel is not relocatable, so if the firmware owns
 * any of those pages the load fails (cleanly: nothing stays allocated).
 */
#include "firmware.h"

/*
 * The page range [start, end) a segment needs beyond what the previous
 * segments already got: segments are sorted and disjoint (kernel_elf_check)
 * but two may share a page.
 */
static void segment_pages(const struct kernel_image *img, u32 i, u64 *start, u64 *end)
{
	const struct elf64_phdr *ph = img->load[i];

	*start = ALIGN_DOWN(ph->p_paddr, PAGE_SIZE);
	*end = ALIGN_UP(ph->p_paddr + ph->p_memsz, PAGE_SIZE);
	if (i > 0) {
		const struct elf64_phdr *prev = img->load[i - 1];
		*start = MAX(*start, ALIGN_UP(prev->p_paddr + prev->p_memsz, PAGE_SIZE));
	}
}

static void free_segments(const struct kernel_image *img, u32 n)
{
	for (u32 i = 0; i < n; i++) {
		u64 start, end;
		segment_pages(img, i, &start, &end);
		if (end > start)
			BS->FreePages(start, (end - start) >> PAGE_SHIFT);
	}
}

EFI_STATUS kernel_load(const struct kernel_image *img, u64 *bad_addr)
{
	for (u32 i = 0; i < img->nr_load; i++) {
		const struct elf64_phdr *ph = img->load[i];
		u64 start, end;

		segment_pages(img, i, &start, &end);
		if (end > start) {
			EFI_PHYSICAL_ADDRESS pa = start;
			EFI_STATUS st = BS->AllocatePages(AllocateAddress, EfiLoaderData,
							  (end - start) >> PAGE_SHIFT, &pa);
			if (EFI_ERROR(st)) {
				*bad_addr = start;
				free_segments(img, i);
				return st;
			}
		}
		/* Boot services identity map all memory (UEFI 2.10 §2.3.4). */
		u8 *dst = (u8 *)ph->p_paddr;
		CopyMem(dst, (void *)(img->elf + ph->p_offset), ph->p_filesz);
		SetMem(dst + ph->p_filesz, ph->p_memsz - ph->p_filesz, 0);
	}
	return EFI_SUCCESS;
}

void kernel_unload(const struct kernel_image *img)
{
	free_segments(img, img->nr_load);
}
