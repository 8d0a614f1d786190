/*
 * The GNU-EFI loader's internal interfaces (boot/efi/, docs/ARCHITECTURE.md
 * "Boot"). The pure parts (the kernel ELF check, load-option decoding, boot
 * page tables, memory-map conversion) take plain buffers and no UEFI types;
 * main.c, load.c, rsdp.c and exit.c are the ones that talk to the firmware.
 */
#ifndef PMEMK_EFI_LOADER_H
#define PMEMK_EFI_LOADER_H

#include "boot_info.h"
#include "types.h"

/* ELF64 (System V gABI §4, x86-64 psABI): only the fields we check. */
struct elf64_ehdr {
	u8 e_ident[16];
	u16 e_type;
	u16 e_machine;
	u32 e_version;
	u64 e_entry;
	u64 e_phoff;
	u64 e_shoff;
	u32 e_flags;
	u16 e_ehsize;
	u16 e_phentsize;
	u16 e_phnum;
	u16 e_shentsize;
	u16 e_shnum;
	u16 e_shstrndx;
};

struct elf64_phdr {
	u32 p_type;
	u32 p_flags;
	u64 p_offset;
	u64 p_vaddr;
	u64 p_paddr;
	u64 p_filesz;
	u64 p_memsz;
	u64 p_align;
};

#define PT_LOAD 1
#define PF_X 1
#define KERNEL_MAX_SEGMENTS 16

/* The embedded kernel after kernel_elf_check: every field is validated. */
struct kernel_image {
	const u8 *elf;
	u64 size;
	const struct elf64_phdr *load[KERNEL_MAX_SEGMENTS];	/* PT_LOAD, by p_paddr */
	u32 nr_load;
	u64 entry;		/* virtual, from the handover header */
	u64 phys_start;		/* lowest p_paddr, page aligned down */
	u64 phys_end;		/* highest p_paddr + p_memsz, page aligned up */
};

/*
 * Validate the embedded kernel: ELF64 little-endian x86-64 executable, every
 * PT_LOAD inside the blob, sorted by physical address without overlap, below
 * 4 GiB, mapped the way the boot page tables map it (identity, or
 * KERNEL_VMA + phys below 2 GiB), and a handover header (include/boot_info.h)
 * whose entry lies in an executable segment. Returns 0, or -1 with *why set
 * to a one-line reason. Reads only; the blob may be any bytes.
 */
int kernel_elf_check(const u8 *elf, u64 size, struct kernel_image *img, const char **why);

/* Where the command line came from (load_options_decode). */
enum load_options_kind {
	LOAD_OPTIONS_NONE,	/* none, or only NULs: use the built-in default */
	LOAD_OPTIONS_IMAGE_ONLY,	/* just the image's own path: use the default */
	LOAD_OPTIONS_UCS2,	/* UCS-2 text (UEFI shell, efibootmgr -u, iPXE) */
	LOAD_OPTIONS_ASCII,	/* 8-bit text (efibootmgr without -u) */
	LOAD_OPTIONS_BINARY,	/* not printable text (e.g. EDK2's auto boot option GUID) */
};

/*
 * Turn an image's LoadOptions (UEFI 2.10 §9.1) into a kernel command line.
 * Accepted: UCS-2 or 8-bit text of printable ASCII and tabs up to the first
 * NUL or the end. A first word ending in ".efi" (any case; may be quoted) is
 * the image path the UEFI shell and iPXE put first and is dropped. For
 * UCS2/ASCII, out holds the rest (non-empty, NUL-terminated, at most
 * outlen - 1 bytes; *truncated says it was cut); otherwise out is "".
 */
enum load_options_kind load_options_decode(const void *data, u32 size, char *out,
					   size_t outlen, bool *truncated);

/*
 * The boot page tables, the same mappings boot/multiboot2.S builds:
 * PML4[0] and PML4[PAGE_OFFSET] -> identity of [0, 4 GiB) with 2 MiB pages,
 * PML4[511] / PDPT[510, 511] -> KERNEL_VMA + [0, 2 GiB). tables: the
 * physical (= current virtual) address of EFI_PGTABLE_PAGES zeroed pages.
 * Returns the CR3 value.
 */
#define EFI_PGTABLE_PAGES 7
u64 efi_build_pgtables(u64 *tables);

/*
 * Append UEFI memory descriptors (UEFI 2.10 §7.2 GetMemoryMap: desc_size
 * apart, version 1 layout) to bi->mem as e820 ranges (e820_type_from_efi),
 * merging neighbours of one non-pmem type; pmem ranges stay one per
 * descriptor as on the multiboot2 path. Sets mem_truncated when full.
 */
void efi_memmap_to_boot_info(const void *map, u64 map_size, u64 desc_size, struct boot_info *bi);

/*
 * Copy the RSDP at rsdp (from the configuration table: readable, at least 20
 * bytes, 36 when its revision is 2 or more) into bi. Returns 0, or -1 with
 * *why set when it has no "RSD PTR " signature.
 */
int rsdp_copy(const u8 *rsdp, struct boot_info *bi, const char **why);

/* boot/efi/trampoline.S: position-independent, copied to a page below 4 GiB. */
extern const u8 efi_trampoline_start[], efi_trampoline_end[];
typedef void (*efi_trampoline_fn)(u64 boot_info_phys, u64 cr3, u64 entry, u64 nx)
	__attribute__((noreturn));

#endif
