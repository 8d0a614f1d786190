/*
 * A PCI function's legacy interrupt (INTx) as the wake-up of the boot
 * CPU's idle halt, for devices without MSI or MSI-X. PCI Local Bus 3.0
 * §6.2.4: Interrupt Pin (0x3D) says which of INTA#-INTD# the function
 * drives (0: none); Interrupt Line (0x3C) is what the firmware wrote there:
 * the ISA IRQ it routed that pin to (0xFF or 0: none). The arch turns that
 * IRQ into an I/O APIC line through the MADT's overrides
 * (arch_isa_irq_line). ACPI's _PRT, which real multi-bridge machines need,
 * is not read: docs/ARCHITECTURE.md, "Polling, then halting".
 */
#include <errno.h>

#include "arch.h"
#include "pci.h"

int pci_intx_wake(const struct pci_dev *d, struct arch_intx *line)
{
	int rc;

	if (!d->irq_pin)
		return -ENOENT;
	if (d->irq_pin > 4)
		return -EINVAL;
	if (!d->irq_line || d->irq_line > 15)
		return -ENXIO;
	if ((rc = arch_isa_irq_line(d->irq_line, line)) || (rc = arch_wake_intx(line)))
		return rc == -EINVAL ? -ENXIO : rc;
	pci_write16(d, PCI_COMMAND, (u16)(pci_read16(d, PCI_COMMAND) & ~PCI_COMMAND_INTX_DISABLE));
	return 0;
}

const char *pci_intx_why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no interrupt pin";
	case -EINVAL:
		return "an interrupt pin past INTD#";
	case -ENXIO:
		return "the firmware routed its INTx to no ISA IRQ";
	case -ENODEV:
		return "no I/O APIC has its line";
	case -EOPNOTSUPP:
		return "the boot CPU does not halt";
	case -EBUSY:
		return "its line is shared with one that signals otherwise";
	default:
		return "INTx not usable";
	}
}
