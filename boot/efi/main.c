/*
 * pmemk's GNU-EFI loader (BOOTX64.EFI): a UEFI application that carries the
 * kernel ELF inside it (payload.S) and starts it through the same struct
 * boot_info as the multiboot2 path. In order: check the embedded kernel,
 * allocate the handoff pages below 4 GiB, pick the command line (load
 * options, else the built-in default), copy the ACPI RSDP, read the boot
 * files beside the image (files.c), load the kernel at its physical
 * addresses, build the boot page tables, exit boot services with the final
 * memory map, convert that map, and jump through the trampoline to
 * the kernel's EFI entry. Every failure before ExitBootServices prints one
 * line and returns to the firmware with nothing left allocated.
 * Design: docs/ARCHITECTURE.md "Boot".
 */
#include <cpuid.h>

#include "firmware.h"

#define HIDDEN __attribute__((visibility("hidden")))
extern const u8 pmemk_kernel_elf[] HIDDEN, pmemk_kernel_elf_end[] HIDDEN;
extern const char pmemk_default_cmdline[] HIDDEN;
extern const u32 pmemk_test_stale_map_key HIDDEN;	/* mkefi.sh --test-stale-map-key */

#define LOADER_NAME "GNU-EFI"
#define BELOW_4G 0xFFFFFFFFULL	/* AllocateMaxAddress: last byte allowed */
#define CR4_LA57 (1ULL << 12)
#define CPUID_EXT_NX (1U << 20)	/* CPUID.80000001H:EDX[20] */

/* The pages the kernel entry reads, all below 4 GiB (identity mapped there). */
struct handoff {
	struct boot_info *bi;
	u64 *pgtables;		/* EFI_PGTABLE_PAGES pages */
	u8 *trampoline;		/* one page of EfiLoaderCode */
};

static UINTN bi_pages(void)
{
	return EFI_SIZE_TO_PAGES(sizeof(struct boot_info));
}

static EFI_STATUS alloc_low(EFI_MEMORY_TYPE type, UINTN pages, void **out)
{
	EFI_PHYSICAL_ADDRESS pa = BELOW_4G;
	EFI_STATUS st = BS->AllocatePages(AllocateMaxAddress, type, pages, &pa);

	if (EFI_ERROR(st))
		return st;
	SetMem((void *)pa, pages * PAGE_SIZE, 0);
	*out = (void *)pa;
	return EFI_SUCCESS;
}

static void handoff_free(struct handoff *h)
{
	if (h->bi)
		efi_files_free(h->bi);
	if (h->bi)
		BS->FreePages((EFI_PHYSICAL_ADDRESS)h->bi, bi_pages());
	if (h->pgtables)
		BS->FreePages((EFI_PHYSICAL_ADDRESS)h->pgtables, EFI_PGTABLE_PAGES);
	if (h->trampoline)
		BS->FreePages((EFI_PHYSICAL_ADDRESS)h->trampoline, 1);
	*h = (struct handoff){ 0 };
}

/* boot_info, boot page tables and trampoline: AllocateMaxAddress below 4 GiB. */
static EFI_STATUS handoff_alloc(struct handoff *h)
{
	EFI_STATUS st;
	u64 tramp_size = (u64)(efi_trampoline_end - efi_trampoline_start);

	if (tramp_size > PAGE_SIZE)
		return EFI_BUFFER_TOO_SMALL;
	st = alloc_low(EfiLoaderData, bi_pages(), (void **)&h->bi);
	if (!EFI_ERROR(st))
		st = alloc_low(EfiLoaderData, EFI_PGTABLE_PAGES, (void **)&h->pgtables);
	if (!EFI_ERROR(st))
		st = alloc_low(EfiLoaderCode, 1, (void **)&h->trampoline);
	if (EFI_ERROR(st)) {
		handoff_free(h);
		return st;
	}
	CopyMem(h->trampoline, (void *)efi_trampoline_start, tramp_size);
	return EFI_SUCCESS;
}

static void copy_string(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* Load options win over the default when they hold any text of their own. */
static void choose_cmdline(EFI_HANDLE image, struct boot_info *bi)
{
	EFI_LOADED_IMAGE *li = NULL;
	enum load_options_kind kind = LOAD_OPTIONS_NONE;

	if (!EFI_ERROR(BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&li)) && li)
		kind = load_options_decode(li->LoadOptions, li->LoadOptionsSize, bi->cmdline,
					   sizeof(bi->cmdline), &bi->cmdline_truncated);
	switch (kind) {
	case LOAD_OPTIONS_UCS2:
	case LOAD_OPTIONS_ASCII:
		Print(L"pmemk: command line from the load options (%a): %a\n",
		      kind == LOAD_OPTIONS_UCS2 ? "UCS-2" : "8-bit", bi->cmdline);
		if (bi->cmdline_truncated)
			Print(L"pmemk: load options longer than %d bytes, cut\n",
			      BOOT_CMDLINE_MAX - 1);
		return;
	case LOAD_OPTIONS_BINARY:
		Print(L"pmemk: load options are not text (%d bytes), ignored\n",
		      (int)li->LoadOptionsSize);
		break;
	case LOAD_OPTIONS_IMAGE_ONLY:
		Print(L"pmemk: load options name only the image\n");
		break;
	case LOAD_OPTIONS_NONE:
		Print(L"pmemk: no load options\n");
		break;
	}
	copy_string(bi->cmdline, sizeof(bi->cmdline), pmemk_default_cmdline);
	Print(L"pmemk: built-in command line: %a\n", bi->cmdline);
}

static const u8 *config_table(EFI_SYSTEM_TABLE *st, EFI_GUID guid)
{
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (CompareGuid(&st->ConfigurationTable[i].VendorGuid, &guid) == 0)
			return st->ConfigurationTable[i].VendorTable;
	return NULL;
}

/* The ACPI 2.0+ RSDP, else the ACPI 1.0 one (UEFI 2.10 §4.6). */
static void find_rsdp(EFI_SYSTEM_TABLE *st, struct boot_info *bi)
{
	const u8 *rsdp = config_table(st, (EFI_GUID)ACPI_20_TABLE_GUID);
	const char *why;

	if (!rsdp)
		rsdp = config_table(st, (EFI_GUID)ACPI_TABLE_GUID);
	if (!rsdp) {
		Print(L"pmemk: no ACPI RSDP in the configuration table; the kernel will search\n");
		return;
	}
	if (rsdp_copy(rsdp, bi, &why))
		Print(L"pmemk: RSDP at %lx ignored: %a\n", (u64)rsdp, why);
}

static void fill_boot_info(EFI_HANDLE image, EFI_SYSTEM_TABLE *st, const struct handoff *h,
			   const struct kernel_image *img)
{
	struct boot_info *bi = h->bi;

	bi->path = BOOT_EFI_STUB;
	copy_string(bi->loader, sizeof(bi->loader), LOADER_NAME);
	choose_cmdline(image, bi);
	find_rsdp(st, bi);
	efi_files_load(image, bi);
	bi->efi_system_table = (u64)st;
	bi->load_base = img->phys_start;
	/*
	 * The boot page tables stay live until the kernel's paging_init, and
	 * memblock allocates top-down below 4 GiB, where they are: reserve
	 * them. boot_info itself needs no entry (the kernel copies it before
	 * anything allocates), nor does the trampoline page (its GDT is
	 * replaced by gdt_init first). The kernel names the entry; a loader
	 * pointer would mean nothing there.
	 */
	bi->reserved[0] = (struct boot_reserved){ (u64)h->pgtables,
						  EFI_PGTABLE_PAGES * PAGE_SIZE, NULL };
	bi->nr_reserved = 1;
}

static u64 read_cr4(void)
{
	u64 v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static bool cpu_has_nx(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & CPUID_EXT_NX);
}

/* Checks that need no allocation; prints the reason on failure. */
static int preflight(struct kernel_image *img)
{
	const char *why;

	if (kernel_elf_check(pmemk_kernel_elf, (u64)(pmemk_kernel_elf_end - pmemk_kernel_elf),
			     img, &why)) {
		Print(L"pmemk: the embedded kernel is unusable: %a\n", why);
		return -1;
	}
	/* Our 4-level tables cannot be loaded while the CPU walks 5 levels. */
	if (read_cr4() & CR4_LA57) {
		Print(L"pmemk: the firmware runs 5-level paging (CR4.LA57); pmemk needs 4-level\n");
		return -1;
	}
	return 0;
}

/* Print a failed step and undo what was done so far. */
static EFI_STATUS fail(const CHAR16 *what, EFI_STATUS st, struct handoff *h,
		       const struct kernel_image *loaded)
{
	Print(L"pmemk: %s failed: %r\n", what, st);
	if (loaded)
		kernel_unload(loaded);
	handoff_free(h);
	return st;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st);
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	struct kernel_image img;
	struct handoff h = { 0 };
	struct efi_mmap map = { 0 };
	EFI_STATUS status;
	u64 bad;

	InitializeLib(image, st);
	Print(L"pmemk: EFI loader\n");
	if (preflight(&img))
		return EFI_LOAD_ERROR;
	status = handoff_alloc(&h);
	if (EFI_ERROR(status))
		return fail(L"allocating the handoff pages below 4 GiB", status, &h, NULL);
	fill_boot_info(image, st, &h, &img);

	status = kernel_load(&img, &bad);
	if (EFI_ERROR(status)) {
		/* Not relocatable: the firmware owns a page the kernel needs. */
		Print(L"pmemk: loading the kernel at [%lx, %lx) failed at page %lx: %r\n",
		      img.phys_start, img.phys_end, bad, status);
		handoff_free(&h);
		return status;
	}
	u64 cr3 = efi_build_pgtables(h.pgtables);
	Print(L"pmemk: kernel at [%lx, %lx), entry %lx; exiting boot services\n",
	      img.phys_start, img.phys_end, img.entry);

	status = efi_mmap_prepare(&map);
	if (EFI_ERROR(status))
		return fail(L"sizing the memory map", status, &h, &img);
	status = efi_exit_boot_services(image, &map, pmemk_test_stale_map_key != 0);
	if (EFI_ERROR(status)) {
		/* Boot services may be half gone: no output, no freeing. */
		return status;
	}
	__asm__ volatile("cli");
	h.bi->efi_exit_tries = map.tries;
	efi_memmap_to_boot_info(map.buf, map.size, map.desc_size, h.bi);
	((efi_trampoline_fn)h.trampoline)((u64)h.bi, cr3, img.entry, cpu_has_nx());
}
