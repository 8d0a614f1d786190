/*
 * struct boot_info: the only boot-specific thing the kernel sees. Each entry
 * path (boot/multiboot2.c, later boot/efi/) fills one and calls kmain().
 * Everything here is a copy: the loader's own data may be reused afterwards.
 */
#ifndef PMEMK_BOOT_INFO_H
#define PMEMK_BOOT_INFO_H

#include "types.h"

enum boot_path {
	BOOT_MULTIBOOT2_BIOS,
	BOOT_MULTIBOOT2_EFI,
	BOOT_EFI_STUB,
};

/* A firmware memory range, already converted to an e820 type. */
struct boot_mem_range {
	u64 addr;
	u64 size;
	u32 type;
};

/* A physical range the kernel must not allocate from (loader data). */
struct boot_reserved {
	u64 addr;
	u64 size;
	const char *what;
};

#define BOOT_MAX_MEM 256
#define BOOT_MAX_RESERVED 16
#define BOOT_CMDLINE_MAX 2048
#define BOOT_RSDP_MAX 36
#define BOOT_MAX_FILES 8
#define BOOT_FILE_NAME_MAX 32		/* with the NUL */

/*
 * A file the loader handed over by name: a multiboot2 module whose string is
 * the name (grub.cfg: module2 /boot/keys.psk nbd.psk), or a file the EFI
 * loader read from the directory it was loaded from. The bytes lie in RAM
 * below 4 GiB that the kernel keeps reserved. include/boot_files.h is the
 * kernel's way to them.
 */
struct boot_file {
	char name[BOOT_FILE_NAME_MAX];	/* boot_file_name_ok, NUL-terminated */
	u64 addr;			/* physical */
	u64 size;			/* bytes; may be 0 */
	const u8 *data;			/* kernel-virtual; the kernel sets it, loaders leave it */
};

struct boot_info {
	enum boot_path path;
	char loader[64];		/* boot loader name, if it gave one */
	char cmdline[BOOT_CMDLINE_MAX];
	bool cmdline_truncated;

	u32 nr_mem;
	struct boot_mem_range mem[BOOT_MAX_MEM];
	bool mem_truncated;		/* more firmware ranges than fit */
	const char *mem_source;		/* "multiboot2 mmap", "EFI memory map" */

	u32 nr_reserved;
	struct boot_reserved reserved[BOOT_MAX_RESERVED];

	u8 rsdp[BOOT_RSDP_MAX];	/* copy of the RSDP the loader found */
	u32 rsdp_len;			/* 0: none given, search for it */
	u32 nr_files;
	struct boot_file files[BOOT_MAX_FILES];

	u64 efi_system_table;		/* physical, 0 if not booted by UEFI */
	u64 load_base;			/* where the loader put the image */
	u64 kernel_start, kernel_end;	/* physical extent of the image */
	u32 efi_exit_tries;		/* EFI loader: ExitBootServices calls it took */
};

const char *boot_path_name(enum boot_path path);

/*
 * A boot file's name: 1 to BOOT_FILE_NAME_MAX - 1 bytes of letters, digits,
 * '.', '_' and '-' (no path, no spaces, nothing to escape when printed).
 * len counts the bytes before any NUL. Loaders and the kernel both check it.
 */
static inline bool boot_file_name_ok(const char *s, size_t len)
{
	if (len == 0 || len >= BOOT_FILE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		if (!ok)
			return false;
	}
	return true;
}

/*
 * The EFI handover header: how the GNU-EFI loader (boot/efi/) finds the
 * kernel's 64-bit EFI entry without a symbol table. boot/entry64.S places it
 * in the .boot section right after the multiboot2 header; the loader scans
 * the first EFI_HANDOVER_SEARCH bytes of the image's first PT_LOAD segment
 * at 8-byte steps for the magic. The entry is a virtual address in the
 * kernel image (KERNEL_VMA + phys); it is entered in 64-bit mode on the
 * loader's boot page tables (the same mappings boot/multiboot2.S builds),
 * interrupts off, CS 0x08, data segments 0x10, RDI = physical address of a
 * struct boot_info below 4 GiB. The loader and the kernel come from one build
 * (the kernel is embedded in the loader), so struct boot_info's layout always
 * matches; the version covers this contract only.
 */
#define EFI_HANDOVER_MAGIC "PMEMKEFI"
#define EFI_HANDOVER_VERSION 1
#define EFI_HANDOVER_SEARCH 32768

struct efi_handover {
	char magic[8];		/* EFI_HANDOVER_MAGIC, no NUL */
	u32 version;		/* EFI_HANDOVER_VERSION */
	u32 size;		/* sizeof(struct efi_handover) */
	u64 entry;		/* virtual address of kernel_efi_entry64 */
};

#endif
