/*
 * PCI enumeration (include/pci.h): walk buses from 0 through bridges, read
 * each function's header, size its BARs with decoding off, walk its
 * capability list. Portable: configuration space is reached only through
 * arch_pci_cfg_read/write, which the host tests fake.
 */
#include <errno.h>
#include <stdio.h>

#include "arch.h"
#include "direct_map.h"
#include "pci.h"
#include "printk.h"

static struct pci_dev pci_devs[PCI_MAX_FUNCTIONS];
static unsigned int pci_nr;
static bool pci_full_reported;

u32 pci_read32(const struct pci_dev *d, u8 reg)
{
	return arch_pci_cfg_read(d->bus, d->dev, d->fn, reg & 0xFC, 4);
}

u16 pci_read16(const struct pci_dev *d, u8 reg)
{
	return (u16)arch_pci_cfg_read(d->bus, d->dev, d->fn, reg & 0xFE, 2);
}

u8 pci_read8(const struct pci_dev *d, u8 reg)
{
	return (u8)arch_pci_cfg_read(d->bus, d->dev, d->fn, reg, 1);
}

void pci_write32(const struct pci_dev *d, u8 reg, u32 val)
{
	arch_pci_cfg_write(d->bus, d->dev, d->fn, reg & 0xFC, 4, val);
}

void pci_write16(const struct pci_dev *d, u8 reg, u16 val)
{
	arch_pci_cfg_write(d->bus, d->dev, d->fn, reg & 0xFE, 2, val);
}

const char *pci_name(const struct pci_dev *d, char *buf)
{
	snprintf(buf, 8, "%02x:%02x.%x", d->bus, d->dev & 31, d->fn & 7);
	return buf;
}

/* A mask of writable address bits must be all ones from some bit up (PCI 3.0 §6.2.5.1). */
static bool mask_contiguous(u64 mask)
{
	u64 size = ~mask + 1;	/* the lowest set bit, if the ones above it are all set */

	return mask && (size & (size - 1)) == 0;
}

/*
 * Write all ones to a BAR register and read back what sticks (the size
 * mask, returned), then put its value (*val) back.
 */
static u32 bar_reg_mask(struct pci_dev *d, u8 reg, u32 *val)
{
	u32 mask;

	*val = pci_read32(d, reg);
	pci_write32(d, reg, 0xFFFFFFFF);
	mask = pci_read32(d, reg);
	pci_write32(d, reg, *val);
	return mask;
}

/* An I/O BAR i of value lo and size mask mask_lo: bits 31:2 address. */
static void bar_io(struct pci_dev *d, unsigned int i, u32 lo, u32 mask_lo)
{
	struct pci_bar *b = &d->bar[i];
	/* A 16-bit decoder leaves 31:16 zero. */
	u64 mask = (mask_lo & ~3u) | (mask_lo & 0xFFFF0000u ? 0 : 0xFFFF0000u);
	u64 size = (u32)~mask + 1ULL;
	char name[8];

	if (!mask_contiguous(mask | 0xFFFFFFFF00000000ULL) || size > 256) {
		pr_warn("pci %s: BAR%u I/O size mask 0x%08x makes no sense, BAR ignored\n",
			pci_name(d, name), i, mask_lo);
		return;
	}
	b->type = PCI_BAR_IO;
	b->base = lo & ~3u;
	b->size = size;
}

/*
 * A memory BAR i of value lo and size mask mask_lo, 32-bit or 64-bit (its
 * upper half is sized here too). Returns how many registers it took.
 */
static unsigned int bar_mem(struct pci_dev *d, unsigned int i, u32 lo, u32 mask_lo)
{
	struct pci_bar *b = &d->bar[i];
	u8 reg = (u8)(PCI_BAR0 + 4 * i);
	unsigned int type = (lo >> 1) & 3;	/* 0: 32-bit, 2: 64-bit, 1: below 1 MiB (old) */
	u64 mask, base = lo & ~0xFu;
	u32 hi, mask_hi = 0xFFFFFFFF;
	unsigned int used = 1;
	char name[8];

	if (type == 3) {
		pr_warn("pci %s: BAR%u has the reserved memory type 3, BAR ignored\n",
			pci_name(d, name), i);
		return 1;
	}
	if (type == 2) {
		if (i + 1 >= d->nr_bars) {
			pr_warn("pci %s: BAR%u is 64-bit but has no upper half, BAR ignored\n",
				pci_name(d, name), i);
			return 1;
		}
		mask_hi = bar_reg_mask(d, (u8)(reg + 4), &hi);
		base |= (u64)hi << 32;
		used = 2;
	}
	mask = ((u64)mask_hi << 32) | (mask_lo & ~0xFu);
	if (!mask_contiguous(mask)) {
		pr_warn("pci %s: BAR%u size mask 0x%08x%08x is not a power of two, BAR ignored\n",
			pci_name(d, name), i, mask_hi, mask_lo);
		return used;
	}
	b->size = ~mask + 1;
	if (base & (b->size - 1)) {
		pr_warn("pci %s: BAR%u base 0x%llx is not aligned to its size 0x%llx, BAR ignored\n",
			pci_name(d, name), i, base, b->size);
		b->size = 0;
		return used;
	}
	b->type = type == 2 ? PCI_BAR_MEM64 : PCI_BAR_MEM32;
	b->prefetch = lo & 8;
	b->base = base;
	return used;
}

/*
 * Size one BAR register (and its upper half for a 64-bit BAR) by writing
 * all ones and reading back what sticks; the caller has turned decoding off.
 * Returns how many registers the BAR took (1 or 2).
 */
static unsigned int bar_probe(struct pci_dev *d, unsigned int i)
{
	u32 lo, mask_lo;

	d->bar[i] = (struct pci_bar){ PCI_BAR_NONE, false, 0, 0 };
	mask_lo = bar_reg_mask(d, (u8)(PCI_BAR0 + 4 * i), &lo);
	if (mask_lo == 0 || mask_lo == 0xFFFFFFFF)
		return 1;	/* unimplemented (0), or nothing answered */
	if (lo & 1) {
		bar_io(d, i, lo, mask_lo);
		return 1;
	}
	return bar_mem(d, i, lo, mask_lo);
}

/* Size every BAR with I/O and memory decoding off, then restore the command register. */
static void bars_probe(struct pci_dev *d)
{
	u16 cmd = pci_read16(d, PCI_COMMAND);

	pci_write16(d, PCI_COMMAND, cmd & (u16)~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (unsigned int i = 0; i < d->nr_bars;)
		i += bar_probe(d, i);
	pci_write16(d, PCI_COMMAND, cmd);
}

static void cap_note(struct pci_dev *d, u8 id, u8 off)
{
	u16 ctl = pci_read16(d, (u8)(off + 2));

	if (id == PCI_CAP_ID_MSI)
		d->msi_vectors = (u16)(1u << ((ctl >> 1) & 7));	/* multiple message capable */
	else if (id == PCI_CAP_ID_MSIX)
		d->msix_vectors = (u16)((ctl & 0x7FF) + 1);		/* table size N-1 */
	if (d->nr_caps < PCI_MAX_CAPS)
		d->cap[d->nr_caps] = (struct pci_cap){ id, off };
	d->nr_caps++;
}

/*
 * Walk the capability list (PCI 3.0 §6.7): pointers are dword aligned
 * (the low two bits are reserved) and lie in [0x40, 0xFC]. A pointer out
 * of range or one seen before (a loop) ends the walk with a line; what came
 * before is kept.
 */
static void caps_walk(struct pci_dev *d)
{
	u64 seen = 0;	/* one bit per dword of [0x40, 0x100) */
	char name[8];

	if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAP_LIST) || (d->header_type & 0x7F) > 1)
		return;
	for (u8 p = pci_read8(d, PCI_CAP_PTR) & 0xFC; p;) {
		if (p < 0x40) {
			pr_warn("pci %s: capability pointer 0x%02x points into the header, list cut\n",
				pci_name(d, name), p);
			return;
		}
		unsigned int slot = (p - 0x40u) / 4;
		if (seen & (1ULL << slot)) {
			pr_warn("pci %s: capability list loops back to 0x%02x, list cut\n",
				pci_name(d, name), p);
			return;
		}
		seen |= 1ULL << slot;
		cap_note(d, pci_read8(d, p), p);
		p = pci_read8(d, (u8)(p + 1)) & 0xFC;
	}
	if (d->nr_caps > PCI_MAX_CAPS) {
		pr_warn("pci %s: %u capabilities, only the first %u kept\n", pci_name(d, name),
			d->nr_caps, PCI_MAX_CAPS);
		d->nr_caps = PCI_MAX_CAPS;
	}
}

static struct pci_dev *fn_add(u8 bus, u8 dev, u8 fn, u32 id)
{
	if (pci_nr == PCI_MAX_FUNCTIONS) {
		if (!pci_full_reported)
			pr_warn("pci: more than %u functions, %02x:%02x.%x and later ignored\n",
				PCI_MAX_FUNCTIONS, bus, dev, fn);
		pci_full_reported = true;
		return NULL;
	}
	struct pci_dev *d = &pci_devs[pci_nr++];
	*d = (struct pci_dev){ .bus = bus, .dev = dev, .fn = fn };
	d->vendor = (u16)id;
	d->device = (u16)(id >> 16);
	u32 cls = pci_read32(d, PCI_REVISION);
	d->revision = (u8)cls;
	d->prog_if = (u8)(cls >> 8);
	d->subclass = (u8)(cls >> 16);
	d->class_code = (u8)(cls >> 24);
	d->header_type = pci_read8(d, PCI_HEADER_TYPE);
	return d;
}

static void fn_read_header(struct pci_dev *d)
{
	char name[8];

	switch (d->header_type & 0x7F) {
	case 0:
		d->nr_bars = 6;
		d->subsys_vendor = pci_read16(d, PCI_SUBSYS_VENDOR);
		d->subsys_id = pci_read16(d, PCI_SUBSYS_ID);
		break;
	case 1:
		d->nr_bars = 2;
		d->secondary_bus = pci_read8(d, PCI_SECONDARY_BUS);
		d->subordinate_bus = pci_read8(d, PCI_SUBORDINATE_BUS);
		break;
	case 2:
		break;	/* CardBus: listed, nothing more */
	default:
		pr_warn("pci %s: unknown header type 0x%02x, BARs and capabilities not read\n",
			pci_name(d, name), d->header_type);
		return;
	}
	d->irq_line = pci_read8(d, PCI_IRQ_LINE);
	d->irq_pin = pci_read8(d, PCI_IRQ_PIN);
	bars_probe(d);
	caps_walk(d);
}

static void bus_scan(u8 bus, u32 *visited);

/* A bridge leads to its secondary bus; scan it unless it is bogus or seen. */
static void bridge_follow(const struct pci_dev *d, u32 *visited)
{
	u8 sec = d->secondary_bus;
	char name[8];

	if (sec <= d->bus) {
		if (sec)
			pr_warn("pci %s: bridge to bus %02x, not above its own bus %02x, not followed\n",
				pci_name(d, name), sec, d->bus);
		return;		/* 0: the firmware left it unconfigured */
	}
	if (visited[sec / 32] & (1u << (sec % 32))) {
		pr_warn("pci %s: bridge to bus %02x, which was scanned already, not followed\n",
			pci_name(d, name), sec);
		return;
	}
	bus_scan(sec, visited);
}

/*
 * Scan one bus: function 0 of each device, the others if function 0 says
 * multi-function (header type bit 7). Recursion depth is bounded by the 256
 * bus numbers (secondary > primary, each bus once).
 */
static void bus_scan(u8 bus, u32 *visited)
{
	visited[bus / 32] |= 1u << (bus % 32);
	for (u8 dev = 0; dev < 32; dev++) {
		for (u8 fn = 0; fn < 8; fn++) {
			u32 id = arch_pci_cfg_read(bus, dev, fn, PCI_VENDOR_ID, 4);
			if ((id & 0xFFFF) == 0xFFFF || (id & 0xFFFF) == 0) {
				if (fn == 0)
					break;
				continue;
			}
			struct pci_dev *d = fn_add(bus, dev, fn, id);
			if (!d)
				return;
			fn_read_header(d);
			bool multi = d->header_type & 0x80;
			if ((d->header_type & 0x7F) == 1)
				bridge_follow(d, visited);
			if (fn == 0 && !multi)
				break;
		}
	}
}

unsigned int pci_scan(void)
{
	u32 visited[256 / 32] = { 0 };

	pci_nr = 0;
	pci_full_reported = false;
	if (!arch_pci_cfg_present()) {
		pr_info("pci: no configuration mechanism #1, no PCI\n");
		return 0;
	}
	bus_scan(0, visited);
	return pci_nr;
}

unsigned int pci_count(void)
{
	return pci_nr;
}

struct pci_dev *pci_get(unsigned int i)
{
	return i < pci_nr ? &pci_devs[i] : NULL;
}

struct pci_dev *pci_find(u16 vendor, u16 device, unsigned int nth)
{
	for (unsigned int i = 0; i < pci_nr; i++)
		if (pci_devs[i].vendor == vendor && pci_devs[i].device == device && nth-- == 0)
			return &pci_devs[i];
	return NULL;
}

u8 pci_find_cap(const struct pci_dev *d, u8 id, u8 after)
{
	bool past = after == 0;

	for (unsigned int i = 0; i < d->nr_caps; i++) {
		if (past && d->cap[i].id == id)
			return d->cap[i].off;
		if (d->cap[i].off == after)
			past = true;
	}
	return 0;
}

void pci_enable(const struct pci_dev *d, bool io, bool master)
{
	u16 cmd = pci_read16(d, PCI_COMMAND) | PCI_COMMAND_MEMORY;

	if (io)
		cmd |= PCI_COMMAND_IO;
	if (master)
		cmd |= PCI_COMMAND_MASTER;
	pci_write16(d, PCI_COMMAND, cmd);
}

volatile void *pci_map_bar(const struct pci_dev *d, unsigned int bar)
{
	char name[8];

	if (bar >= d->nr_bars ||
	    (d->bar[bar].type != PCI_BAR_MEM32 && d->bar[bar].type != PCI_BAR_MEM64)) {
		pr_err("pci %s: BAR%u is not a memory BAR\n", pci_name(d, name), bar);
		return NULL;
	}
	const struct pci_bar *b = &d->bar[bar];
	if (b->base == 0) {
		pr_err("pci %s: BAR%u was given no address by the firmware\n", pci_name(d, name), bar);
		return NULL;
	}
	int rc = direct_map_add(b->base, b->size);
	if (rc) {
		pr_err("pci %s: BAR%u [mem 0x%llx-0x%llx] cannot be mapped (%d)\n", pci_name(d, name),
		       bar, b->base, b->base + b->size - 1, rc);
		return NULL;
	}
	return phys_to_virt(b->base);
}

int pci_msix_enable(const struct pci_dev *d, u16 entry, u64 addr, u32 data)
{
	u8 cap = pci_find_cap(d, PCI_CAP_ID_MSIX, 0);
	char name[8];

	if (!cap)
		return -ENODEV;
	if (entry >= d->msix_vectors) {
		pr_err("pci %s: MSI-X entry %u past its %u-entry table\n", pci_name(d, name), entry,
		       d->msix_vectors);
		return -EINVAL;
	}
	u32 table = pci_read32(d, (u8)(cap + PCI_MSIX_TABLE));
	unsigned int bir = table & 7;
	u64 off = table & ~7u;
	u64 end = off + (u64)d->msix_vectors * PCI_MSIX_ENTRY_SIZE;
	if (bir >= d->nr_bars || end > d->bar[bir].size) {
		pr_err("pci %s: MSI-X table at BAR%u+%#llx, %u entries, is not inside a BAR\n",
		       pci_name(d, name), bir, off, d->msix_vectors);
		return -EINVAL;
	}
	volatile u8 *base = pci_map_bar(d, bir);
	if (!base)
		return -ENOMEM;
	volatile u32 *e = (volatile u32 *)(base + off + (u64)entry * PCI_MSIX_ENTRY_SIZE);
	u16 ctl = pci_read16(d, (u8)(cap + PCI_MSIX_CTL));
	/* Function masked while the entry changes: no half-written message goes out. */
	pci_write16(d, (u8)(cap + PCI_MSIX_CTL), ctl | PCI_MSIX_CTL_ENABLE | PCI_MSIX_CTL_MASKALL);
	e[0] = (u32)addr;
	e[1] = (u32)(addr >> 32);
	e[2] = data;
	e[3] = 0;	/* unmasked */
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
	pci_write16(d, (u8)(cap + PCI_MSIX_CTL),
		    (u16)((ctl | PCI_MSIX_CTL_ENABLE) & ~PCI_MSIX_CTL_MASKALL));
	return 0;
}

const char *pci_class_name(const struct pci_dev *d)
{
	static const struct {
		u8 cls, sub;
		const char *name;
	} names[] = {
		{ 0x01, 0x01, "IDE" },	    { 0x01, 0x06, "SATA" },	{ 0x01, 0x08, "NVMe" },
		{ 0x02, 0x00, "ethernet" }, { 0x03, 0x00, "VGA" },	{ 0x05, 0x80, "memory" },
		{ 0x06, 0x00, "host bridge" }, { 0x06, 0x01, "ISA bridge" },
		{ 0x06, 0x04, "PCI bridge" },	{ 0x06, 0x80, "bridge" },
		{ 0x0C, 0x03, "USB" },	    { 0x0C, 0x05, "SMBus" },	{ 0x00, 0xFF, "other" },
	};
	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].cls == d->class_code && names[i].sub == d->subclass)
			return names[i].name;
	return "class";
}

void pci_probe_drivers(void)
{
	for (unsigned int i = 0; i < pci_nr; i++) {
		struct pci_dev *d = &pci_devs[i];
		for_each_registered(pci_drivers, drv) {
			if (d->driver || !(*drv)->match(d))
				continue;
			if ((*drv)->probe(d) == 0)
				d->driver = (*drv)->name;
		}
	}
}
