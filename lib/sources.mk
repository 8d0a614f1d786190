portable-y += lib/printk.c lib/print_capture.c lib/nd_json.c lib/metrics.c lib/cpu_time.c lib/cmdline.c lib/params.c lib/nd_util.c lib/spinlock.c lib/workqueue.c \
	lib/boot_files.c lib/psk_file.c lib/api_tokens.c lib/line_budget.c \
	lib/shell.c lib/shell_args.c lib/shell_capture.c
kernel-y += lib/syscalls.c
