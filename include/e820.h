/*
 * The kernel's memory map, in e820 terms (ACPI address range types), built
 * from what the boot loader gave (boot_info) and the memmap= parameters.
 */
#ifndef PMEMK_E820_H
#define PMEMK_E820_H

#include "boot_info.h"
#include "types.h"

enum e820_type {
	E820_TYPE_RAM = 1,
	E820_TYPE_RESERVED = 2,
	E820_TYPE_ACPI = 3,
	E820_TYPE_NVS = 4,
	E820_TYPE_UNUSABLE = 5,
	E820_TYPE_PMEM = 7,	/* ACPI 6.0 persistent memory */
	E820_TYPE_PRAM = 12,	/* legacy persistent memory, memmap=nn!ss */
};

struct e820_entry {
	u64 addr;
	u64 size;
	u32 type;
};

#define E820_MAX_ENTRIES 256

struct e820_table {
	u32 nr;
	struct e820_entry entries[E820_MAX_ENTRIES];
};

/* The kernel's table, valid after e820_init(). */
extern struct e820_table e820_table;

bool e820_is_pmem(u32 type);
const char *e820_type_name(u32 type);

/* Append a range. -EINVAL for size 0 or a range that wraps, -ENOSPC when full. */
int e820_add(struct e820_table *t, u64 addr, u64 size, u32 type);

/*
 * Sort and make the table non-overlapping. Where entries overlap the
 * numerically largest type wins (Linux's rule: reserved beats RAM, pmem beats
 * both); adjacent entries of one type merge, except pmem (7, 12), which stays
 * one entry per range so each becomes its own region.
 */
void e820_sanitize(struct e820_table *t);

#define E820_KEEP_MAX (BOOT_MAX_RESERVED + 2)

/*
 * Memory a `!` spec may not turn into pmem: what the kernel runs from or was
 * handed (the first MiB, its image with the boot page tables and stacks, the
 * loader's information, modules and EFI hand-off data).
 */
struct e820_keep {
	u32 nr;
	struct boot_reserved r[E820_KEEP_MAX];
};

/*
 * Apply one memmap= value (comma-separated specs, Linux syntax:
 * nn!ss nn@ss nn#ss nn$ss nn). Each bad spec prints one line naming it and
 * is skipped; a `!` range that touches a range of *keep (may be NULL) is
 * refused with a line naming both. Returns 0 if every spec applied,
 * -EINVAL otherwise.
 */
int e820_parse_memmap(struct e820_table *t, const char *arg, const struct e820_keep *keep);

/* Print the table Linux-style: "e820: [mem 0x...-0x...] usable". */
void e820_print(const struct e820_table *t, const char *prefix);

/* Convert a UEFI memory type/attribute pair (UEFI 2.10 §7.2) to e820. */
u32 e820_type_from_efi(u32 efi_type, u64 attribute);

/*
 * The e820 pmem provider, run by kmain after the NFIT's: register an "e820"
 * region for each pmem (type 7/12) range of *t that no registered region
 * covers (drivers/e820/e820_pmem.c). A range partly covered is refused with
 * a message. Returns the number of regions added.
 */
int e820_pmem_register(const struct e820_table *t);

/* Build e820_table from boot_info and the memmap= parameters; print it. */
void e820_init(const struct boot_info *bi);

/* Forget the recorded memmap= values and empty e820_table (host tests). */
void e820_reset(void);

#endif
