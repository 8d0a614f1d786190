/* lspci: the functions pci_scan() found, with their BARs and capabilities. */
#include <errno.h>
#include <string.h>

#include "pci.h"
#include "printk.h"
#include "shell.h"

static const char *cap_name(u8 id)
{
	switch (id) {
	case PCI_CAP_ID_PM:
		return "PM";
	case PCI_CAP_ID_MSI:
		return "MSI";
	case PCI_CAP_ID_VNDR:
		return "vendor";
	case PCI_CAP_ID_EXP:
		return "PCIe";
	case PCI_CAP_ID_MSIX:
		return "MSI-X";
	default:
		return NULL;
	}
}

static void print_size(u64 size)
{
	if (size >= MiB && !(size % MiB))
		kprintf("%lluM", size / MiB);
	else if (size >= KiB && !(size % KiB))
		kprintf("%lluK", size / KiB);
	else
		kprintf("%llu", size);
}

static void print_bars(const struct pci_dev *d)
{
	static const char *const types[] = { "none", "io", "mem32", "mem64" };

	for (unsigned int i = 0; i < d->nr_bars; i++) {
		const struct pci_bar *b = &d->bar[i];
		if (b->type == PCI_BAR_NONE)
			continue;
		kprintf("        BAR%u %s%s 0x%llx size ", i, types[b->type],
			b->prefetch ? " prefetchable" : "", b->base);
		print_size(b->size);
		kprintf("\n");
	}
}

static void print_caps(const struct pci_dev *d)
{
	if (!d->nr_caps)
		return;
	kprintf("        caps:");
	for (unsigned int i = 0; i < d->nr_caps; i++) {
		const char *n = cap_name(d->cap[i].id);
		if (n)
			kprintf(" %s", n);
		else
			kprintf(" 0x%02x", d->cap[i].id);
		if (d->cap[i].id == PCI_CAP_ID_MSI)
			kprintf("(%u vectors)", d->msi_vectors);
		else if (d->cap[i].id == PCI_CAP_ID_MSIX)
			kprintf("(%u vectors)", d->msix_vectors);
		kprintf("@%02x", d->cap[i].off);
	}
	kprintf("\n");
}

static int cmd_lspci(int argc, char **argv)
{
	bool verbose = argc > 1 && shell_arg_flag(argv[1], "-v", NULL);

	if (shell_args_max(argc, argv, verbose ? 2 : 1))
		return -EINVAL;
	for (unsigned int i = 0; i < pci_count(); i++) {
		const struct pci_dev *d = pci_get(i);
		char name[8];
		kprintf("%s %04x:%04x class %02x%02x %s rev %02x", pci_name(d, name), d->vendor,
			d->device, d->class_code, d->subclass, pci_class_name(d), d->revision);
		if ((d->header_type & 0x7F) == 1)
			kprintf(" bridge to bus %02x-%02x", d->secondary_bus, d->subordinate_bus);
		if (d->driver)
			kprintf(" driver %s", d->driver);
		kprintf("\n");
		if (verbose) {
			print_bars(d);
			print_caps(d);
		}
	}
	if (!pci_count())
		kprintf("lspci: no PCI functions\n");
	return 0;
}
SHELL_COMMAND(SHELL_NET, "lspci", cmd_lspci, "lspci [-v]",
	      "PCI functions (bus:dev.fn vendor:device class); -v: BARs and capabilities");
