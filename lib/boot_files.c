/* The kernel's table of named boot files (include/boot_files.h). */
#include <string.h>

#include "arch.h"
#include "boot_files.h"
#include "memzero.h"
#include "printk.h"

static struct boot_file files[BOOT_MAX_FILES];
static u32 nr_files;

static struct boot_file *find(const char *name)
{
	for (u32 i = 0; i < nr_files; i++)
		if (strcmp(files[i].name, name) == 0)
			return &files[i];
	return NULL;
}

/* One entry of the loader's table: kept, or one line saying why not. */
static void take(const struct boot_file *f)
{
	size_t len = strnlen(f->name, sizeof(f->name));

	if (!boot_file_name_ok(f->name, len)) {
		pr_err("boot: a boot file has no usable name; ignored\n");
		return;
	}
	if (find(f->name)) {
		pr_err("boot: file %s given twice; the first one is kept\n", f->name);
		return;
	}
	if (f->addr + f->size < f->addr || f->addr + f->size > 4 * GiB) {
		pr_err("boot: file %s lies outside [0, 4 GiB); ignored\n", f->name);
		return;
	}
	struct boot_file *k = &files[nr_files++];
	*k = *f;
	k->data = phys_to_virt(f->addr);
	pr_info("boot: file %s (%llu bytes)\n", k->name, k->size);
}

void boot_files_init(const struct boot_info *bi)
{
	u32 n = MIN(bi->nr_files, (u32)BOOT_MAX_FILES);

	nr_files = 0;
	for (u32 i = 0; i < n; i++)
		take(&bi->files[i]);
}

const struct boot_file *boot_file_find(const char *name)
{
	return find(name);
}

void boot_file_wipe(const char *name)
{
	struct boot_file *f = find(name);

	if (!f)
		return;
	memzero_explicit(phys_to_virt(f->addr), f->size);
	/* Keep the table dense: the last entry takes this one's place. */
	*f = files[--nr_files];
	memset(&files[nr_files], 0, sizeof(files[nr_files]));
}
