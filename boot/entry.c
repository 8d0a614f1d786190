/*
 * The C side of the two ways into the kernel: the multiboot2 path (parse the
 * MBI) and the GNU-EFI path (copy the loader's struct boot_info). Both bring
 * up the console and the CPU the same way (boot_common_init) and call kmain.
 */
#include <string.h>

#include "arch.h"
#include "cpu_features.h"
#include "kernel.h"
#include "multiboot2.h"
#include "printk.h"
#include "x86.h"

extern char _kernel_phys_start[], _kernel_phys_end[];

static struct boot_info boot_info;

/* Console, CPU features, our GDT (with TSS) and IDT: before anything can fault. */
static void boot_common_init(void)
{
	serial_init();
	cpu_features_init();
	gdt_init();
	idt_init();
}

static __noreturn void boot_finish(struct boot_info *bi)
{
	bi->kernel_start = (u64)_kernel_phys_start;
	bi->kernel_end = (u64)_kernel_phys_end;
	kmain(bi);
}

void multiboot2_entry(u32 magic, u32 mbi_phys);
void multiboot2_entry(u32 magic, u32 mbi_phys)
{
	struct boot_info *bi = &boot_info;

	boot_common_init();
	if (magic != MB2_BOOTLOADER_MAGIC) {
		pr_emerg("boot: bad multiboot2 magic %#x\n", magic);
		arch_exit(EXIT_PANIC);
	}
	/* The boot page tables direct map the first 4 GiB, where the MBI is. */
	if (multiboot2_parse(phys_to_virt(mbi_phys), mbi_phys, bi) < 0)
		arch_exit(EXIT_PANIC);
	boot_finish(bi);
}

/*
 * Make a boot_info copied from the EFI loader safe to use. Its pointers were
 * the loader's, so they are replaced by the kernel's own strings; counts and
 * strings are bounded. The loader is built together with the kernel, so a
 * mismatch means memory corruption or a foreign loader: report and go on
 * with what is valid, except for a wrong path, which means this is no
 * boot_info at all.
 */
static int efi_boot_info_check(struct boot_info *bi)
{
	if (bi->path != BOOT_EFI_STUB) {
		pr_emerg("boot: EFI loader's boot_info has path %d, not %d: not a pmemk loader?\n",
			 bi->path, BOOT_EFI_STUB);
		return -1;
	}
	if (!memchr(bi->cmdline, '\0', sizeof(bi->cmdline))) {
		pr_err("boot: EFI loader's command line is not NUL-terminated; cut\n");
		bi->cmdline[sizeof(bi->cmdline) - 1] = '\0';
		bi->cmdline_truncated = true;
	}
	bi->loader[sizeof(bi->loader) - 1] = '\0';
	if (bi->nr_mem > BOOT_MAX_MEM) {
		pr_err("boot: EFI loader passed %u memory ranges, max %d\n", bi->nr_mem,
		       BOOT_MAX_MEM);
		bi->nr_mem = BOOT_MAX_MEM;
		bi->mem_truncated = true;
	}
	bi->mem_source = "EFI memory map";
	if (bi->nr_reserved > BOOT_MAX_RESERVED) {
		pr_err("boot: EFI loader passed %u reserved ranges, max %d\n",
		       bi->nr_reserved, BOOT_MAX_RESERVED);
		bi->nr_reserved = BOOT_MAX_RESERVED;
	}
	/* The loader reserves its boot page tables: in use until paging_init. */
	for (u32 i = 0; i < bi->nr_reserved; i++)
		bi->reserved[i].what = "EFI loader page tables";
	if (bi->nr_files > BOOT_MAX_FILES) {
		pr_err("boot: EFI loader passed %u boot files, max %d\n", bi->nr_files,
		       BOOT_MAX_FILES);
		bi->nr_files = BOOT_MAX_FILES;
	}
	if (bi->rsdp_len > BOOT_RSDP_MAX) {
		pr_err("boot: EFI loader's RSDP copy is %u bytes, max %d; ignored\n",
		       bi->rsdp_len, BOOT_RSDP_MAX);
		bi->rsdp_len = 0;
	}
	return 0;
}

/*
 * The loader's file pages are EfiLoaderData, RAM to the kernel once boot
 * services are gone: reserve them, whole pages as the loader allocated
 * them. A file that does not fit in the table is dropped rather than left
 * unprotected (boot_files_init checks the names).
 */
static void efi_reserve_files(struct boot_info *bi)
{
	u32 kept = 0;

	for (u32 i = 0; i < bi->nr_files; i++) {
		struct boot_file *f = &bi->files[i];
		if (f->addr >= 4 * GiB || f->size > 4 * GiB - f->addr) {
			pr_err("boot: EFI loader file %u lies outside [0, 4 GiB); dropped\n", i);
			continue;
		}
		if (f->size && bi->nr_reserved >= BOOT_MAX_RESERVED) {
			pr_err("boot: no room to reserve EFI loader file %u; dropped\n", i);
			continue;
		}
		if (f->size)
			bi->reserved[bi->nr_reserved++] = (struct boot_reserved){
				ALIGN_DOWN(f->addr, PAGE_SIZE),
				ALIGN_UP(f->addr + f->size, PAGE_SIZE) - ALIGN_DOWN(f->addr, PAGE_SIZE),
				"EFI loader file"
			};
		bi->files[kept++] = *f;
	}
	bi->nr_files = kept;
}

/*
 * From kernel_efi_entry64 (boot/entry64.S). The loader's boot_info lies
 * below 4 GiB, which the loader's boot page tables direct map. It is copied
 * before anything allocates memory: the loader does not reserve it.
 */
void efi_handover_entry(u64 boot_info_phys);
void efi_handover_entry(u64 boot_info_phys)
{
	struct boot_info *bi = &boot_info;

	boot_common_init();
	if (boot_info_phys == 0 || boot_info_phys > 4 * GiB - sizeof(*bi)) {
		pr_emerg("boot: EFI loader's boot_info at %#llx is outside [0, 4 GiB)\n",
			 boot_info_phys);
		arch_exit(EXIT_PANIC);
	}
	memcpy(bi, phys_to_virt(boot_info_phys), sizeof(*bi));
	if (efi_boot_info_check(bi) < 0)
		arch_exit(EXIT_PANIC);
	/* The hand-off itself: memmap= must not turn it into pmem either. */
	if (bi->nr_reserved < BOOT_MAX_RESERVED)
		bi->reserved[bi->nr_reserved++] = (struct boot_reserved){
			ALIGN_DOWN(boot_info_phys, PAGE_SIZE),
			ALIGN_UP(boot_info_phys + sizeof(*bi), PAGE_SIZE) -
				ALIGN_DOWN(boot_info_phys, PAGE_SIZE),
			"EFI loader boot_info"
		};
	efi_reserve_files(bi);
	if (bi->efi_exit_tries > 1)
		pr_info("boot: EFI loader: ExitBootServices succeeded on try %u "
			"(map key went stale)\n", bi->efi_exit_tries);
	boot_finish(bi);
}
