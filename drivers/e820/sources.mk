# drivers/e820: the boot memory map and the "e820" pmem provider (portable:
# kernel and host tests).
portable-y += drivers/e820/e820.c drivers/e820/memmap.c drivers/e820/memmap_fw.c drivers/e820/efi.c drivers/e820/e820_pmem.c
