portable-y += boot/multiboot2.c
kernel-y += boot/multiboot2.S boot/entry64.S boot/entry.c
