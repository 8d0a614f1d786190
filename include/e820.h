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
 * refused with a line naming both; one over ACPI data or ACPI NVS is
 * trimmed clear of them with one line (e820_clear_of), or refused with one
 * line when nothing usable is left. The `!` ranges applied are recorded for
 * e820_memmap_spare_firmware(). Returns 0 if every spec applied (a trimmed
 * one included), -EINVAL otherwise.
 */
int e820_parse_memmap(struct e820_table *t, const char *arg, const struct e820_keep *keep);

/*
 * Of [*start, *start + *size), the largest part that touches none of the n
 * ranges of fw, the lowest one on a tie. Each range of fw that overlaps it
 * is first widened to 2 MiB when *start and *size are both 2 MiB aligned,
 * else to 4 KiB, so the part keeps the alignment the whole had (pfn devices
 * need 2 MiB). Returns how many ranges of fw overlap it (0: *start and *size
 * unchanged), the lowest of them in *first (NULL if none); the part is
 * stored in *start and *size, a size of 0 when nothing is left.
 */
u32 e820_clear_of(u64 *start, u64 *size, const struct boot_reserved *fw, u32 n,
		  const struct boot_reserved **first);

/*
 * Once the firmware's tables are known (kmain, after fw_tables_init; fw: the
 * n ranges they occupy): each `!` range the last e820_parse_memmap() applied
 * to *t that holds any of them is trimmed to its largest part clear of them
 * (e820_clear_of) with one line, or, with nothing usable left, refused with
 * one line. What a range loses becomes reserved: its RAM was kept from the
 * allocator at boot and is not given back. Then one warning per firmware
 * reserved range a `!` range still covers. Call once. Returns how many `!`
 * ranges were trimmed or refused.
 */
u32 e820_memmap_spare_firmware(struct e820_table *t, const struct boot_reserved *fw, u32 n);

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
