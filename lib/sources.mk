portable-y += lib/printk.c lib/cmdline.c lib/params.c
kernel-y += lib/syscalls.c
