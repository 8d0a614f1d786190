/* Multiboot2 boot information (MBI) tags pmemk reads. FACTS §5.3. */
#ifndef PMEMK_MULTIBOOT2_H
#define PMEMK_MULTIBOOT2_H

#include "boot_info.h"

#define MB2_BOOTLOADER_MAGIC 0x36D76289

enum mb2_tag_type {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_EFI_MMAP = 17,
	MB2_TAG_EFI_BS = 18,
	MB2_TAG_LOAD_BASE = 21,
};

/* Largest MBI we accept; GRUB's are a few KiB. */
#define MB2_MAX_SIZE (1U << 20)

/*
 * Parse the MBI at `mbi` (`mbi_phys` is its physical address, recorded as a
 * reserved range) into `bi`. Every length is checked against the MBI's
 * total_size; a malformed tag ends the walk with one message. Returns 0, or
 * -EINVAL if the MBI header itself is unusable.
 */
int multiboot2_parse(const void *mbi, u64 mbi_phys, struct boot_info *bi);

#endif
