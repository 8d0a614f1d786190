/*
 * The Multiple APIC Description Table, signature "APIC" (ACPI 6.4 §5.2.12):
 * the CPUs (local APIC and local x2APIC entries), the I/O APICs, the ISA
 * interrupt source overrides and the local APIC's address. madt_parse() is a pure function of the bytes it is
 * given (no mapping, no heap), so the host tests and the fuzzer run it as
 * is; madt_init() reads the table pmemk's ACPI walk listed.
 */
#ifndef PMEMK_MADT_H
#define PMEMK_MADT_H

#include "subtable.h"
#include "types.h"

/* §5.2.12 table 5.43: 36-byte SDT header, u32 local APIC address, u32 flags. */
#define MADT_HEADER_LEN 44
#define MADT_PCAT_COMPAT (1u << 0)	/* dual 8259s present as well */

/* §5.2.12 table 5.44: entry types pmemk reads. */
enum madt_type {
	MADT_TYPE_LAPIC = 0,
	MADT_TYPE_IOAPIC = 1,
	MADT_TYPE_OVERRIDE = 2,
	MADT_TYPE_LAPIC_ADDR = 5,
	MADT_TYPE_X2APIC = 9,
};

/* Entry lengths (each entry starts with u8 type, u8 length). */
#define MADT_LAPIC_LEN 8	/* §5.2.12.2: u8 UID, u8 APIC ID, u32 flags */
#define MADT_IOAPIC_LEN 12	/* §5.2.12.3: u8 id, u8 0, u32 address, u32 GSI base */
#define MADT_OVERRIDE_LEN 10	/* §5.2.12.5: u8 bus (0 = ISA), u8 source IRQ, u32 GSI, u16 flags */
#define MADT_LAPIC_ADDR_LEN 12	/* §5.2.12.8: u16 0, u64 address */
#define MADT_X2APIC_LEN 16	/* §5.2.12.12: u16 0, u32 x2APIC ID, u32 flags, u32 UID */

/* §5.2.12.2 table 5.47: local (x2)APIC flags. */
#define MADT_CPU_ENABLED (1u << 0)
#define MADT_CPU_ONLINE_CAPABLE (1u << 1)	/* ACPI 6.3: may be enabled later */

#define MADT_MAX_CPUS 256
#define MADT_MAX_IOAPICS 16
#define MADT_MAX_OVERRIDES 16	/* one per ISA IRQ at most */
/* 0xFF is the xAPIC broadcast ID, 0xFFFFFFFF the x2APIC one: never a CPU. */
#define MADT_APIC_ID_BROADCAST 0xFFu
#define MADT_X2APIC_ID_BROADCAST 0xFFFFFFFFu

struct madt_cpu {
	u32 apic_id;
	u32 uid;		/* ACPI processor UID */
	u32 flags;		/* MADT_CPU_* */
	bool x2apic;		/* from a type 9 entry */
	u32 offset;		/* of the entry in the table */
};

struct madt_ioapic {
	u8 id;
	u32 address;
	u32 gsi_base;
	u32 offset;
};

/*
 * An ISA IRQ that does not arrive on the GSI of its number, or not as ISA
 * signals (§5.2.12.5). flags: the MPS INTI flags (table 5.50), bits 1:0
 * polarity, 3:2 trigger mode; 0 in a field means "as the bus says".
 */
struct madt_override {
	u8 irq;
	u32 gsi;
	u16 flags;
	u32 offset;
};

struct madt_info {
	/*
	 * The walk: bytes parsed (min(header length, buffer)), whether it
	 * stopped early, entries rejected (short, bad ID, duplicate, bad
	 * override) and good ones dropped (array full).
	 */
	struct subtable_walk walk;
	u32 flags;		/* MADT_PCAT_COMPAT */
	u64 lapic_address;	/* the header's, or the type 5 override's */
	bool lapic_override;	/* a type 5 entry gave lapic_address */
	u32 nr_cpus;		/* entries kept, enabled or not */
	u32 nr_enabled;		/* of those, with MADT_CPU_ENABLED */
	u32 nr_ioapics;
	u32 nr_overrides;
	u32 nr_other;		/* well framed entries of types not read */
	struct madt_cpu cpu[MADT_MAX_CPUS];
	struct madt_ioapic ioapic[MADT_MAX_IOAPICS];
	struct madt_override override[MADT_MAX_OVERRIDES];
};

/*
 * Parse a MADT of `len` readable bytes into *out (its checksum is the
 * caller's: sdt_map checked it). Each bad entry prints one line and
 * is skipped; framing that leaves no way to the next entry stops the walk
 * with one line, keeping what came before. Returns 0; -ENODEV when it is
 * not a MADT (signature, or shorter than its header); -EINVAL when an entry
 * was rejected or the walk was cut short; -ENOSPC when only drops happened.
 */
int madt_parse(const void *table, size_t len, struct madt_info *out);

/* The kept CPU with `apic_id`, or NULL. */
const struct madt_cpu *madt_find_cpu(const struct madt_info *m, u32 apic_id);

/* What madt_init() found (nr_cpus 0 when there is no usable MADT). */
extern struct madt_info madt;

/*
 * Parse the first MADT of fw_tables into `madt` and print one summary
 * line. Returns 0, or -ENODEV when there is none (one line printed: the
 * machine then runs on the boot CPU alone).
 */
int madt_init(void);

#endif
