/*
 * The loader's calls into UEFI boot services (load.c, exit.c), for main.c.
 * Only these files and main.c include gnu-efi's headers.
 */
#ifndef PMEMK_EFI_FIRMWARE_H
#define PMEMK_EFI_FIRMWARE_H

#include <efi.h>
#include <efilib.h>

#include "loader.h"

/*
 * Allocate every PT_LOAD segment's pages at its physical address
 * (AllocatePages AllocateAddress, EfiLoaderData; UEFI 2.10 §7.2), copy the
 * file part and zero the rest (bss). On failure nothing stays allocated and
 * *bad_addr is the page that could not be had.
 */
EFI_STATUS kernel_load(const struct kernel_image *img, u64 *bad_addr);
/* Give the pages back (a later step failed before ExitBootServices). */
void kernel_unload(const struct kernel_image *img);

/* A buffer for the final memory map and what GetMemoryMap returned in it. */
struct efi_mmap {
	void *buf;
	UINTN buf_size;
	UINTN size;
	UINTN key;
	UINTN desc_size;
	UINT32 desc_version;
	u32 tries;		/* ExitBootServices calls made */
};

/*
 * Allocate m->buf: the current map's size plus room for the descriptors
 * that this and any later allocation may split off. Last allocation before
 * efi_exit_boot_services.
 */
EFI_STATUS efi_mmap_prepare(struct efi_mmap *m);

/*
 * GetMemoryMap into m->buf, then ExitBootServices with its key; when the key
 * went stale (EFI_INVALID_PARAMETER) do both again, calling nothing else in
 * between. On EFI_SUCCESS boot services are gone and m holds the final map.
 * test_stale_key makes the first key stale on purpose (a test image only).
 */
EFI_STATUS efi_exit_boot_services(EFI_HANDLE image, struct efi_mmap *m, bool test_stale_key);

/*
 * Read the known boot files (files.c) from the image's directory on its
 * device into EfiLoaderData pages below 4 GiB and list them in bi->files.
 * Missing files are skipped silently; other failures print one line each.
 */
void efi_files_load(EFI_HANDLE image, struct boot_info *bi);
/* Zero and free what efi_files_load got (a later step failed). */
void efi_files_free(struct boot_info *bi);

#endif
