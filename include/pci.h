/*
 * PCI: enumeration through configuration mechanism #1 (arch_pci_cfg_*),
 * BARs sized by the write-ones probe, the capability list, bridges, bus
 * mastering, and the drivers that claim functions (PCI_DRIVER). Layouts:
 * PCI Local Bus Specification 3.0 §6.1 (type 0 header), PCI-to-PCI Bridge
 * Architecture 1.2 §3.2 (type 1 header), §6.2.1/§6.7 (capabilities, MSI)
 * and PCI 3.0 §6.8 (MSI-X); QEMU's devices in FACTS-2 §5.3.
 *
 * Configuration space is untrusted input: a function whose header, BARs or
 * capability list make no sense gets one line saying what is wrong, keeps
 * what is sane, and enumeration goes on.
 */
#ifndef PMEMK_PCI_H
#define PMEMK_PCI_H

#include "arch.h"
#include "types.h"

/* Type 0/1 header registers (PCI 3.0 §6.1, bridge 1.2 §3.2). */
#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define PCI_STATUS 0x06
#define PCI_REVISION 0x08	/* then prog-if 0x09, subclass 0x0A, class 0x0B */
#define PCI_HEADER_TYPE 0x0E
#define PCI_BAR0 0x10
#define PCI_SUBSYS_VENDOR 0x2C
#define PCI_SUBSYS_ID 0x2E
#define PCI_CAP_PTR 0x34
#define PCI_IRQ_LINE 0x3C
#define PCI_IRQ_PIN 0x3D
#define PCI_PRIMARY_BUS 0x18	/* type 1 */
#define PCI_SECONDARY_BUS 0x19
#define PCI_SUBORDINATE_BUS 0x1A

#define PCI_COMMAND_IO 0x1
#define PCI_COMMAND_MEMORY 0x2
#define PCI_COMMAND_MASTER 0x4
#define PCI_COMMAND_INTX_DISABLE 0x400
#define PCI_STATUS_CAP_LIST 0x10

#define PCI_CAP_ID_PM 0x01
#define PCI_CAP_ID_MSI 0x05
#define PCI_CAP_ID_VNDR 0x09
#define PCI_CAP_ID_EXP 0x10
#define PCI_CAP_ID_MSIX 0x11

/* MSI-X capability (PCI 3.0 §6.8.2) and its table entries (§6.8.2.6-9). */
#define PCI_MSIX_CTL 2			/* message control */
#define PCI_MSIX_CTL_ENABLE 0x8000
#define PCI_MSIX_CTL_MASKALL 0x4000	/* function mask */
#define PCI_MSIX_TABLE 4		/* table offset (bits 31:3) | BIR (bits 2:0) */
#define PCI_MSIX_ENTRY_SIZE 16		/* address low, address high, data, vector control */
#define PCI_MSIX_ENTRY_MASKED 0x1	/* vector control bit 0 */

#define PCI_MAX_FUNCTIONS 64	/* enumeration stops there, with a line */
#define PCI_MAX_CAPS 16		/* capabilities kept per function */
#define PCI_NR_BARS 6

enum pci_bar_type {
	PCI_BAR_NONE,	/* unimplemented, or ignored because it lied */
	PCI_BAR_IO,
	PCI_BAR_MEM32,
	PCI_BAR_MEM64,	/* takes two registers; the second is PCI_BAR_NONE */
};

struct pci_bar {
	enum pci_bar_type type;
	bool prefetch;
	u64 base;	/* as the firmware assigned it */
	u64 size;	/* a power of two, from the write-ones probe */
};

struct pci_cap {
	u8 id;
	u8 off;		/* offset of the capability in configuration space */
};

struct pci_dev {
	u8 bus, dev, fn;
	u8 header_type;		/* bits 6:0: 0 device, 1 PCI-to-PCI bridge, 2 CardBus */
	u16 vendor, device;
	u16 subsys_vendor, subsys_id;
	u8 class_code, subclass, prog_if, revision;
	u8 irq_line, irq_pin;
	u8 secondary_bus, subordinate_bus;	/* bridges */
	unsigned int nr_bars;			/* 6 for type 0, 2 for a bridge, 0 else */
	struct pci_bar bar[PCI_NR_BARS];
	unsigned int nr_caps;
	struct pci_cap cap[PCI_MAX_CAPS];
	u16 msi_vectors;	/* from the MSI capability (0: none) */
	u16 msix_vectors;	/* from the MSI-X capability (0: none) */
	const char *driver;	/* the driver that claimed it, or NULL */
};

/*
 * Enumerate every bus reachable from bus 0 (depth first through bridges,
 * each bus once) and size every BAR with its function's decoding off.
 * Forgets an earlier scan. Returns the number of functions found (0 also
 * when the machine has no mechanism #1, with a line).
 */
unsigned int pci_scan(void);

unsigned int pci_count(void);
struct pci_dev *pci_get(unsigned int i);
/* The nth (from 0) function with this vendor and device id, or NULL. */
struct pci_dev *pci_find(u16 vendor, u16 device, unsigned int nth);

u32 pci_read32(const struct pci_dev *d, u8 reg);
u16 pci_read16(const struct pci_dev *d, u8 reg);
u8 pci_read8(const struct pci_dev *d, u8 reg);
void pci_write32(const struct pci_dev *d, u8 reg, u32 val);
void pci_write16(const struct pci_dev *d, u8 reg, u16 val);

/*
 * The offset of the first capability with this id after offset `after`
 * (0: from the start of the list), from the list pci_scan() kept, or 0.
 */
u8 pci_find_cap(const struct pci_dev *d, u8 id, u8 after);

/* Turn memory decoding (and I/O decoding, bus mastering if asked) on. */
void pci_enable(const struct pci_dev *d, bool io, bool master);

/*
 * Map a memory BAR into the direct map and return its kernel address, or
 * NULL (one line: not a memory BAR, or mapping failed). Write-back as all
 * of the direct map: under QEMU caching does not matter; on hardware the
 * firmware's MTRRs make the 32-bit PCI hole uncached (a BAR above 4 GiB
 * would need a PAT UC mapping, which pmemk does not make yet).
 */
volatile void *pci_map_bar(const struct pci_dev *d, unsigned int bar);

/*
 * Point MSI-X table entry `entry` at the message (addr, data), unmask it,
 * and turn MSI-X on with INTx off (PCI 3.0 §6.8.3.3: the function then
 * signals only through its table). 0, or a negative errno after one line:
 * no MSI-X capability, an entry past the table, a table outside its BAR.
 */
int pci_msix_enable(const struct pci_dev *d, u16 entry, u64 addr, u32 data);

/*
 * Route the function's INTx to the wake-up of the boot CPU's idle halt
 * (pci_intx.c): the pin, the Interrupt Line the firmware programmed, then
 * arch_isa_irq_line and arch_wake_intx; the line comes back masked in
 * *line, and the function's INTx is turned on (Command bit 10 cleared).
 * 0, or: -ENOENT no pin, -EINVAL a bad pin, -ENXIO no IRQ routed, -ENODEV
 * no I/O APIC line, -EOPNOTSUPP the boot CPU does not halt, -EBUSY the
 * line is taken. pci_intx_why says which for a boot line.
 */
int pci_intx_wake(const struct pci_dev *d, struct arch_intx *line);
const char *pci_intx_why(int err);

/* "00:03.0" into buf (at least 8 bytes). */
const char *pci_name(const struct pci_dev *d, char *buf);
/* A short name of the class ("ethernet", "host bridge", ...), or "class". */
const char *pci_class_name(const struct pci_dev *d);

/*
 * A driver for some functions: match() says whether it wants one, probe()
 * sets it up (0, or a negative errno after one line; the function then
 * stays unclaimed). Registered in the pci_drivers section, probed in
 * link order by pci_probe_drivers().
 */
struct pci_driver {
	const char *name;
	bool (*match)(const struct pci_dev *d);
	int (*probe)(struct pci_dev *d);
};

#define PCI_DRIVER(_drv) REGISTER_PTR(pci_drivers, struct pci_driver, _drv, &_drv)
REGISTRY(pci_drivers, struct pci_driver);

/* Offer every unclaimed function to each registered driver. */
void pci_probe_drivers(void);

#endif
