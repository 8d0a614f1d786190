/*
 * The payload of BOOTX64.EFI: the kernel ELF (stripped, embedded whole) and
 * the built-in default command line. tools/mkefi.sh assembles this once per
 * image with -DPMEMK_KERNEL_ELF='"path"' and -I the directory holding the
 * generated default_cmdline.h (PMEMK_EFI_DEFAULT_CMDLINE, a C-escaped string
 * literal, which gas reads the same way; PMEMK_EFI_TEST_STALE_MAP_KEY, 0
 * except in test images). The section lands in the image's
 * .data (elf_x86_64_efi.lds takes .rodata* there), which mkefi.sh's objcopy
 * keeps and checks.
 */
#include "default_cmdline.h"

	.section .rodata.pmemk_payload, "a"
	.balign 4096
	.globl pmemk_kernel_elf, pmemk_kernel_elf_end, pmemk_default_cmdline
	.globl pmemk_test_stale_map_key
	.hidden pmemk_kernel_elf, pmemk_kernel_elf_end, pmemk_default_cmdline
	.hidden pmemk_test_stale_map_key
pmemk_kernel_elf:
	.incbin PMEMK_KERNEL_ELF
pmemk_kernel_elf_end:
pmemk_default_cmdline:
	.asciz PMEMK_EFI_DEFAULT_CMDLINE
	.balign 4
pmemk_test_stale_map_key:		/* 1 only in test images */
	.long PMEMK_EFI_TEST_STALE_MAP_KEY

	.section .note.GNU-stack, "", @progbits
