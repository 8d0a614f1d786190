/*
 * Files the boot loader handed to the kernel by name (struct boot_file in
 * boot_info.h): multiboot2 modules named in grub.cfg, or files the EFI
 * loader read beside BOOTX64.EFI. Their bytes stay in reserved RAM, reached
 * through the direct map. A file that holds a secret is wiped by its user
 * once read (boot_file_wipe); nothing here ever prints a file's content.
 */
#ifndef PMEMK_BOOT_FILES_H
#define PMEMK_BOOT_FILES_H

#include "boot_info.h"
#include "types.h"

/*
 * Take bi's files (kmain, before anything looks one up): check each name
 * again, drop a second file of the same name, set data, and print one line
 * per file kept, "boot: file NAME (N bytes)".
 */
void boot_files_init(const struct boot_info *bi);

/* The file called name, or NULL: none was given, or it was wiped. */
const struct boot_file *boot_file_find(const char *name);

/*
 * Zero the file's bytes in memory (a store the compiler keeps) and forget
 * it: boot_file_find no longer finds it. No-op for a name not given.
 */
void boot_file_wipe(const char *name);

#endif
