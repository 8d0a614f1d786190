/*
 * A fake PCI configuration space behind arch_pci_cfg_* for the host tests:
 * functions on buses 0..PCI_FAKE_BUSES-1 with 256 bytes each; the command
 * register, the BARs and an MSI-X capability's enable and mask bits are writable (a BAR keeps only the bits its mask
 * allows, as hardware does), everything else is read-only. Absent
 * functions read as all ones.
 */
#include <string.h>

#include "host.h"

struct pci_fake_fn pci_fake[PCI_FAKE_BUSES][32][8];
bool pci_fake_mechanism = true;
unsigned int pci_fake_sized_while_decoding;
unsigned int pci_fake_reads;

void pci_fake_reset(void)
{
	memset(pci_fake, 0, sizeof(pci_fake));
	pci_fake_mechanism = true;
	pci_fake_sized_while_decoding = 0;
	pci_fake_reads = 0;
}

struct pci_fake_fn *pci_fake_add(u8 bus, u8 dev, u8 fn, u16 vendor, u16 device, u32 class_rev)
{
	struct pci_fake_fn *f = &pci_fake[bus][dev][fn];

	memset(f, 0, sizeof(*f));
	f->present = true;
	memcpy(&f->cfg[0], &vendor, 2);
	memcpy(&f->cfg[2], &device, 2);
	memcpy(&f->cfg[8], &class_rev, 4);
	return f;
}

void pci_fake_bar(struct pci_fake_fn *f, unsigned int i, u32 value, u32 mask)
{
	memcpy(&f->cfg[0x10 + 4 * i], &value, 4);
	f->bar_mask[i] = mask;
}

void pci_fake_cap(struct pci_fake_fn *f, u8 off, u8 id, u8 next, u16 ctl)
{
	f->cfg[off] = id;
	f->cfg[off + 1] = next;
	memcpy(&f->cfg[off + 2], &ctl, 2);
	f->cfg[0x06] |= 0x10;	/* status: capability list */
	if (id == 0x11)
		f->msix_cap = off;
}

static struct pci_fake_fn *lookup(u8 bus, u8 dev, u8 fn)
{
	if (bus >= PCI_FAKE_BUSES || dev >= 32 || fn >= 8 || !pci_fake[bus][dev][fn].present)
		return NULL;
	return &pci_fake[bus][dev][fn];
}

bool arch_pci_cfg_present(void)
{
	return pci_fake_mechanism;
}

u32 arch_pci_cfg_read(u8 bus, u8 dev, u8 fn, u8 reg, unsigned int width)
{
	struct pci_fake_fn *f = lookup(bus, dev, fn);
	u32 v = 0;

	pci_fake_reads++;
	if (!f)
		return width == 4 ? 0xFFFFFFFF : width == 2 ? 0xFFFF : 0xFF;
	memcpy(&v, &f->cfg[reg], width);
	return v;
}

void arch_pci_cfg_write(u8 bus, u8 dev, u8 fn, u8 reg, unsigned int width, u32 val)
{
	struct pci_fake_fn *f = lookup(bus, dev, fn);

	if (!f)
		return;
	if (reg == 0x04 && width >= 2) {
		memcpy(&f->cfg[4], &val, 2);
		return;
	}
	if (reg >= 0x10 && reg < 0x28 && width == 4) {
		unsigned int i = (reg - 0x10u) / 4;
		u32 old;
		memcpy(&old, &f->cfg[reg], 4);
		if (val == 0xFFFFFFFF && (f->cfg[4] & 3))
			pci_fake_sized_while_decoding++;
		u32 nv = (val & f->bar_mask[i]) | (old & ~f->bar_mask[i]);
		if (val == 0xFFFFFFFF && f->bar_lie[i])
			nv = f->bar_lie[i];
		memcpy(&f->cfg[reg], &nv, 4);
		return;
	}
	if (f->msix_cap && reg == f->msix_cap + 2 && width == 2) {
		u16 ctl;
		memcpy(&ctl, &f->cfg[reg], 2);
		ctl = (u16)((ctl & 0x3FFF) | (val & 0xC000));	/* enable, function mask */
		memcpy(&f->cfg[reg], &ctl, 2);
		return;
	}
	f->other_writes++;
}
