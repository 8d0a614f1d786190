/*
 * PCI configuration mechanism #1 (PCI Local Bus 3.0 §3.2.2.3.2; FACTS-2
 * §5.3): the address goes to port 0xCF8 (enable bit 31, bus 23:16, device
 * 15:11, function 10:8, dword offset 7:2), the data is at 0xCFC plus the
 * byte offset within the dword. pmemk has one CPU and no interrupts, so the
 * address/data pair needs no lock.
 */
#include "arch.h"
#include "x86.h"

#define PCI_CONFIG_ADDRESS 0xCF8
#define PCI_CONFIG_DATA 0xCFC

static void select_reg(u8 bus, u8 dev, u8 fn, u8 reg)
{
	outl(PCI_CONFIG_ADDRESS, 0x80000000u | (u32)bus << 16 | (u32)(dev & 31) << 11 |
					 (u32)(fn & 7) << 8 | (reg & 0xFCu));
}

/*
 * A host bridge that implements mechanism #1 keeps the enable bit written
 * to 0xCF8 as a 32-bit register; mechanism #2 machines (none since the
 * 1990s) and machines without PCI do not.
 */
bool arch_pci_cfg_present(void)
{
	u32 old = inl(PCI_CONFIG_ADDRESS);

	outl(PCI_CONFIG_ADDRESS, 0x80000000u);
	bool ok = inl(PCI_CONFIG_ADDRESS) == 0x80000000u;
	outl(PCI_CONFIG_ADDRESS, old);
	return ok;
}

u32 arch_pci_cfg_read(u8 bus, u8 dev, u8 fn, u8 reg, unsigned int width)
{
	select_reg(bus, dev, fn, reg);
	switch (width) {
	case 1:
		return inb(PCI_CONFIG_DATA + (reg & 3));
	case 2:
		return inw(PCI_CONFIG_DATA + (reg & 2));
	default:
		return inl(PCI_CONFIG_DATA);
	}
}

void arch_pci_cfg_write(u8 bus, u8 dev, u8 fn, u8 reg, unsigned int width, u32 val)
{
	select_reg(bus, dev, fn, reg);
	switch (width) {
	case 1:
		outb(PCI_CONFIG_DATA + (reg & 3), (u8)val);
		break;
	case 2:
		outw(PCI_CONFIG_DATA + (reg & 2), (u16)val);
		break;
	default:
		outl(PCI_CONFIG_DATA, val);
		break;
	}
}

/* x86 keeps stores and loads in program order for WB memory: the compiler is all there is to stop. */
void arch_dma_wmb(void)
{
	__asm__ volatile("" ::: "memory");
}

void arch_dma_rmb(void)
{
	__asm__ volatile("" ::: "memory");
}

void arch_dma_mb(void)
{
	__asm__ volatile("mfence" ::: "memory");
}
