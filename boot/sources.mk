portable-y += boot/multiboot2.c
kernel-y += boot/multiboot2.S boot/entry64.S boot/entry.c
# The EFI loader's pure parts (command line, kernel ELF checks, memory map) are unit-tested on the host.
host-y += boot/efi/cmdline.c boot/efi/kernel_elf.c boot/efi/memmap.c
