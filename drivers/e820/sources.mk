# drivers/e820: the boot memory map (portable: kernel and host tests).
portable-y += drivers/e820/e820.c drivers/e820/memmap.c drivers/e820/efi.c
