/* Turn the multiboot2 boot information into struct boot_info. FACTS §5.3-5.5. */
#include <errno.h>
#include <string.h>

#include "e820.h"
#include "multiboot2.h"
#include "printk.h"
#include "unaligned.h"

struct mb2_tag {
	u32 type;
	u32 size;
};

/* Copy a string payload that must be NUL-terminated inside the tag. */
static void copy_string(char *dst, size_t dstlen, const u8 *src, size_t len,
			bool *truncated)
{
	size_t n = strnlen((const char *)src, len);

	if (truncated)
		*truncated = n >= dstlen;
	n = MIN(n, dstlen - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void add_mem(struct boot_info *bi, u64 addr, u64 size, u32 type)
{
	if (size == 0)
		return;
	if (bi->nr_mem >= BOOT_MAX_MEM) {
		bi->mem_truncated = true;
		return;
	}
	bi->mem[bi->nr_mem++] = (struct boot_mem_range){ addr, size, type };
}

/* Tag 6: entries {u64 base, u64 length, u32 type, u32 reserved}. */
static void parse_mmap(struct boot_info *bi, const u8 *p, u32 size)
{
	if (size < 16) {
		pr_err("multiboot2: memory map tag too short (%u bytes)\n", size);
		return;
	}
	u32 esize = get_le32(p + 8);
	if (esize < 24) {
		pr_err("multiboot2: memory map entry size %u < 24, ignoring the map\n", esize);
		return;
	}
	bi->nr_mem = 0;
	bi->mem_source = "multiboot2 mmap";
	/* 64-bit offsets: a u32 one plus an entry size near 4 GiB wraps. */
	for (u64 off = 16; off + 24 <= size; off += esize)
		add_mem(bi, get_le64(p + off), get_le64(p + off + 8), get_le32(p + off + 16));
}

/* Tag 17: raw UEFI descriptors (UEFI 2.10 §7.2, FACTS §6.2). */
static void parse_efi_mmap(struct boot_info *bi, const u8 *p, u32 size)
{
	if (size < 16) {
		pr_err("multiboot2: EFI memory map tag too short (%u bytes)\n", size);
		return;
	}
	u32 dsize = get_le32(p + 8);
	if (dsize < 40) {
		pr_err("multiboot2: EFI descriptor size %u < 40, ignoring the map\n", dsize);
		return;
	}
	bi->nr_mem = 0;
	bi->mem_source = "EFI memory map";
	for (u64 off = 16; off + 40 <= size; off += dsize) {
		const u8 *d = p + off;
		u64 pages = get_le64(d + 24);
		if (pages > (~0ULL >> PAGE_SHIFT))
			continue;
		add_mem(bi, get_le64(d + 8), pages << PAGE_SHIFT,
			e820_type_from_efi(get_le32(d), get_le64(d + 32)));
	}
}

static void parse_rsdp(struct boot_info *bi, const u8 *p, u32 size, bool is_new)
{
	u32 len = size - 8;

	/* A v2 copy wins over a v1 copy, whatever the tag order. */
	if (!is_new && bi->rsdp_len >= 36)
		return;
	if (len > BOOT_RSDP_MAX)
		len = BOOT_RSDP_MAX;
	if (len < 20) {
		pr_err("multiboot2: ACPI RSDP tag too short (%u bytes)\n", size);
		return;
	}
	memcpy(bi->rsdp, p + 8, len);
	bi->rsdp_len = len;
}

/*
 * Tag 3: {u32 mod_start, u32 mod_end, string} (FACTS §5.3). Every module is
 * reserved; one whose string is a boot file name (module2 FILE NAME) is also
 * handed to the kernel as that file, but only if its memory could be
 * reserved. The string is the loader's: bounded by the tag, NUL or not.
 */
static void parse_module(struct boot_info *bi, const u8 *p, u32 size)
{
	if (size < 16)
		return;
	u32 start = get_le32(p + 8), end = get_le32(p + 12);
	bool reserved = false;

	if (end > start && bi->nr_reserved < BOOT_MAX_RESERVED) {
		bi->reserved[bi->nr_reserved++] = (struct boot_reserved){ start, end - start, "module" };
		reserved = true;
	}
	size_t len = strnlen((const char *)p + 16, size - 16);
	if (len == 0)
		return;		/* an unnamed module: reserved only */
	if (!boot_file_name_ok((const char *)p + 16, len)) {
		pr_err("multiboot2: module name is not a boot file name (1-%d of A-Z a-z 0-9 . _ -); "
		       "module ignored\n", BOOT_FILE_NAME_MAX - 1);
		return;
	}
	const char *why = end < start ? "it ends before it starts" :
			  end > start && !reserved ? "no room left to reserve it" :
			  bi->nr_files >= BOOT_MAX_FILES ? "more named modules than fit" : NULL;
	if (why) {
		pr_err("multiboot2: module %.*s ignored: %s\n", (int)len, (const char *)p + 16, why);
		return;
	}
	struct boot_file *f = &bi->files[bi->nr_files++];
	memcpy(f->name, p + 16, len);
	f->name[len] = '\0';
	f->addr = start;
	f->size = end - start;
}

static void parse_tag(struct boot_info *bi, const u8 *p, u32 type, u32 size,
		      bool *efi_mmap_seen)
{
	switch (type) {
	case MB2_TAG_CMDLINE:
		copy_string(bi->cmdline, sizeof(bi->cmdline), p + 8, size - 8,
			    &bi->cmdline_truncated);
		break;
	case MB2_TAG_LOADER_NAME:
		copy_string(bi->loader, sizeof(bi->loader), p + 8, size - 8, NULL);
		break;
	case MB2_TAG_MMAP:
		if (!*efi_mmap_seen)	/* the EFI map is richer (NV attribute) */
			parse_mmap(bi, p, size);
		break;
	case MB2_TAG_EFI_MMAP:
		*efi_mmap_seen = true;
		parse_efi_mmap(bi, p, size);
		break;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:
		parse_rsdp(bi, p, size, type == MB2_TAG_ACPI_NEW);
		break;
	case MB2_TAG_EFI64:
		if (size >= 16) {
			bi->efi_system_table = get_le64(p + 8);
			bi->path = BOOT_MULTIBOOT2_EFI;
		}
		break;
	case MB2_TAG_LOAD_BASE:
		if (size >= 12)
			bi->load_base = get_le32(p + 8);
		break;
	case MB2_TAG_MODULE:
		parse_module(bi, p, size);
		break;
	default:
		break;
	}
}

int multiboot2_parse(const void *mbi, u64 mbi_phys, struct boot_info *bi)
{
	const u8 *base = mbi;
	bool efi_mmap_seen = false;
	u32 total = get_le32(base);

	if (total < 16 || total > MB2_MAX_SIZE) {
		pr_err("multiboot2: boot information size %u is implausible\n", total);
		return -EINVAL;
	}
	bi->path = BOOT_MULTIBOOT2_BIOS;
	if (bi->nr_reserved < BOOT_MAX_RESERVED)
		bi->reserved[bi->nr_reserved++] =
			(struct boot_reserved){ mbi_phys, total, "multiboot2 info" };

	for (u32 off = 8; off + 8 <= total; off = ALIGN_UP(off + get_le32(base + off + 4), 8)) {
		u32 type = get_le32(base + off), size = get_le32(base + off + 4);
		if (type == MB2_TAG_END)
			return 0;
		if (size < 8 || size > total - off) {
			pr_err("multiboot2: tag %u at offset %u has bad size %u, stopping\n",
			       type, off, size);
			return 0;
		}
		parse_tag(bi, base + off, type, size, &efi_mmap_seen);
	}
	pr_err("multiboot2: no end tag within %u bytes\n", total);
	return 0;
}

const char *boot_path_name(enum boot_path path)
{
	switch (path) {
	case BOOT_MULTIBOOT2_BIOS:
		return "multiboot2 (bios)";
	case BOOT_MULTIBOOT2_EFI:
		return "multiboot2 (efi)";
	case BOOT_EFI_STUB:
		return "efi (gnu-efi)";
	}
	return "unknown";
}
