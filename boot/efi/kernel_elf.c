/*
 * Validate the kernel ELF embedded in the EFI image and find its EFI entry
 * through the handover header (include/boot_info.h). Pure: reads the blob,
 * calls nothing in the firmware.
 */
#include "loader.h"
#include "memlayout.h"

#define ET_EXEC 2
#define EM_X86_64 62
#define ELFCLASS64 2
#define ELFDATA2LSB 1

static bool bytes_equal(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* [off, off + len) inside [0, size), without overflow. */
static bool within(u64 off, u64 len, u64 size)
{
	return off <= size && len <= size - off;
}

static int check_header(const struct elf64_ehdr *eh, u64 size, const char **why)
{
	static const u8 magic[4] = { 0x7f, 'E', 'L', 'F' };

	if (size < sizeof(*eh) || !bytes_equal(eh->e_ident, magic, 4))
		*why = "not an ELF file";
	else if (eh->e_ident[4] != ELFCLASS64 || eh->e_ident[5] != ELFDATA2LSB)
		*why = "not a little-endian ELF64 file";
	else if (eh->e_type != ET_EXEC || eh->e_machine != EM_X86_64)
		*why = "not an x86-64 executable";
	else if (eh->e_phentsize != sizeof(struct elf64_phdr) || eh->e_phnum == 0 ||
		 eh->e_phoff % 8 ||
		 !within(eh->e_phoff, (u64)eh->e_phnum * sizeof(struct elf64_phdr), size))
		*why = "program headers missing or outside the file";
	else
		return 0;
	return -1;
}

/*
 * One PT_LOAD: inside the blob, below 4 GiB, after the previous one, and
 * reachable through the boot page tables at its virtual address.
 */
static int check_segment(const struct elf64_phdr *ph, u64 size, u64 prev_end, const char **why)
{
	bool identity = ph->p_vaddr == ph->p_paddr;
	bool kernel_vma = ph->p_vaddr == ph->p_paddr + KERNEL_VMA;

	if (!within(ph->p_offset, ph->p_filesz, size))
		*why = "a segment lies outside the file";
	else if (ph->p_filesz > ph->p_memsz)
		*why = "a segment's file size exceeds its memory size";
	else if (ph->p_paddr >= 4 * GiB || ph->p_memsz > 4 * GiB - ph->p_paddr)
		*why = "a segment does not fit below 4 GiB";
	else if (ph->p_paddr < prev_end)
		*why = "segments overlap or are not sorted by physical address";
	else if (!identity && !(kernel_vma && ph->p_paddr + ph->p_memsz <= 2 * GiB))
		*why = "a segment is neither identity mapped nor at KERNEL_VMA + phys below 2 GiB";
	else
		return 0;
	return -1;
}

/*
 * The handover header: 8-byte aligned (in memory) in the first 32 KiB of the
 * first PT_LOAD. Copied out, since the blob need not keep that alignment.
 */
static bool find_handover(const struct kernel_image *img, struct efi_handover *ho)
{
	const struct elf64_phdr *ph = img->load[0];
	u64 len = MIN(ph->p_filesz, (u64)EFI_HANDOVER_SEARCH);
	u64 off = (8 - ph->p_paddr % 8) % 8;

	for (; off + sizeof(*ho) <= len; off += 8) {
		const u8 *p = img->elf + ph->p_offset + off;
		if (bytes_equal(p, EFI_HANDOVER_MAGIC, 8)) {
			__builtin_memcpy(ho, p, sizeof(*ho));
			return true;
		}
	}
	return false;
}

static bool entry_is_executable(const struct kernel_image *img, u64 entry)
{
	for (u32 i = 0; i < img->nr_load; i++) {
		const struct elf64_phdr *ph = img->load[i];
		if ((ph->p_flags & PF_X) && entry >= ph->p_vaddr &&
		    entry - ph->p_vaddr < ph->p_memsz)
			return true;
	}
	return false;
}

int kernel_elf_check(const u8 *elf, u64 size, struct kernel_image *img, const char **why)
{
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)elf;
	u64 prev_end = 0;

	*img = (struct kernel_image){ .elf = elf, .size = size };
	if (check_header(eh, size, why))
		return -1;
	const struct elf64_phdr *phdr = (const struct elf64_phdr *)(elf + eh->e_phoff);
	for (u16 i = 0; i < eh->e_phnum; i++) {
		const struct elf64_phdr *ph = &phdr[i];
		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		if (img->nr_load == KERNEL_MAX_SEGMENTS) {
			*why = "more than 16 loadable segments";
			return -1;
		}
		if (check_segment(ph, size, prev_end, why))
			return -1;
		prev_end = ph->p_paddr + ph->p_memsz;
		img->load[img->nr_load++] = ph;
	}
	if (img->nr_load == 0) {
		*why = "no loadable segment";
		return -1;
	}
	img->phys_start = ALIGN_DOWN(img->load[0]->p_paddr, PAGE_SIZE);
	img->phys_end = ALIGN_UP(prev_end, PAGE_SIZE);

	struct efi_handover ho;
	if (!find_handover(img, &ho)) {
		*why = "no EFI handover header (\"PMEMKEFI\") in the first 32 KiB";
		return -1;
	}
	if (ho.version != EFI_HANDOVER_VERSION || ho.size < sizeof(ho)) {
		*why = "EFI handover header of an unknown version";
		return -1;
	}
	if (!entry_is_executable(img, ho.entry)) {
		*why = "EFI entry is not inside an executable segment";
		return -1;
	}
	img->entry = ho.entry;
	return 0;
}
