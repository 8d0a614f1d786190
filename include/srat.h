/*
 * The System Resource Affinity Table, signature "SRAT" (ACPI 6.4 §5.2.16):
 * which proximity domain each CPU and each memory range belongs to, and
 * the NUMA node ids Linux makes of them. srat_parse() is a pure function
 * of the bytes it is given (no mapping, no heap), so the host tests and
 * the fuzzer run it as is; srat_init() reads the table pmemk's ACPI walk
 * listed.
 *
 * Proximity domains are 32 bits from SRAT revision 2 on; in a revision 1
 * table (QEMU's) Linux reads 8 bits, and so does pmemk.
 *
 * Node ids as Linux 6.1 gives them (drivers/acpi/numa/srat.c,
 * acpi_numa_init; arch/x86/mm/srat.c): each proximity domain gets the next
 * free node the first time an *enabled* entry names it, all processor
 * affinity entries (types 0 and 2, table order) first, then the memory
 * affinity entries (type 1) of non-zero length. A node is online when an
 * enabled CPU names it or an enabled memory range that is neither
 * hot-pluggable nor non-volatile does (RAM; the device-memory area and
 * NVDIMMs leave their node offline, as on x86 where only memblock memory
 * and CPUs bring a node up). pmemk reads no SLIT: every other node is at
 * the same distance, so "the nearest online node" is the lowest one.
 */
#ifndef PMEMK_SRAT_H
#define PMEMK_SRAT_H

#include "subtable.h"
#include "types.h"

/* §5.2.16 table 5.74: 36-byte SDT header, u32 reserved (1), u64 reserved. */
#define SRAT_HEADER_LEN 48

/* §5.2.16 table 5.75: the entry types pmemk reads. */
enum srat_type {
	SRAT_TYPE_LAPIC = 0,	/* §5.2.16.1 Processor Local APIC/SAPIC Affinity */
	SRAT_TYPE_MEMORY = 1,	/* §5.2.16.2 Memory Affinity */
	SRAT_TYPE_X2APIC = 2,	/* §5.2.16.3 Processor Local x2APIC Affinity */
};

/*
 * Entry lengths (u8 type, u8 length first).
 * LAPIC: +2 u8 proximity domain [7:0], +3 u8 APIC ID, +4 u32 flags, +8 u8
 *   SAPIC EID, +9 u8[3] proximity domain [31:8], +12 u32 clock domain.
 * Memory: +2 u32 proximity domain, +4 u16 0, +8 u64 base, +16 u64 length,
 *   +24 u32 0, +28 u32 flags, +32 u64 0.
 * x2APIC: +2 u16 0, +4 u32 proximity domain, +8 u32 x2APIC ID, +12 u32
 *   flags, +16 u32 clock domain, +20 u32 0.
 */
#define SRAT_LAPIC_LEN 16
#define SRAT_MEMORY_LEN 40
#define SRAT_X2APIC_LEN 24

#define SRAT_ENABLED (1u << 0)		/* both kinds: the entry counts */
#define SRAT_MEM_HOTPLUGGABLE (1u << 1)	/* table 5.80 */
#define SRAT_MEM_NON_VOLATILE (1u << 2)

#define SRAT_MAX_NODES 64
#define SRAT_MAX_CPUS 256
#define SRAT_MAX_MEMS 64

struct srat_mem {
	u64 base;
	u64 length;
	u32 pxm;
	u32 flags;		/* SRAT_ENABLED, SRAT_MEM_* */
	u32 offset;		/* of the entry in the table */
};

struct srat_info {
	struct subtable_walk walk;	/* as madt_info's */
	bool present;		/* a SRAT was parsed: the node rules below apply */
	u32 nr_nodes;		/* node n is proximity domain pxm[n] */
	u32 pxm[SRAT_MAX_NODES];
	bool online[SRAT_MAX_NODES];
	u32 nr_cpus;		/* processor entries kept, enabled or not */
	u32 cpu_pxm[SRAT_MAX_CPUS];
	bool cpu_enabled[SRAT_MAX_CPUS];
	u32 nr_mems;
	struct srat_mem mem[SRAT_MAX_MEMS];
	u32 nr_other;		/* well framed entries of other types */
};

/*
 * Parse a SRAT of `len` readable bytes into *out (the checksum is the
 * caller's) and number its proximity domains. Each bad entry prints one
 * line and is skipped. Returns as madt_parse: 0; -ENODEV not a SRAT;
 * -EINVAL entries rejected or the walk cut short; -ENOSPC only drops
 * (more CPUs, ranges or domains than the arrays hold).
 */
int srat_parse(const void *table, size_t len, struct srat_info *out);

/* Linux's pxm_to_node: the node of proximity domain `pxm`, or -1. */
int srat_pxm_to_node(const struct srat_info *s, u32 pxm);

/*
 * Linux's pxm_to_online_node: that node when online, else the nearest
 * online node (the lowest: no SLIT); -1 when the domain has no node.
 */
int srat_pxm_to_online_node(const struct srat_info *s, u32 pxm);

/*
 * For a range with no proximity domain (x86's memory_add_physaddr_to_nid
 * and phys_to_target_node): the node of the RAM range holding `addr`, else
 * of the first RAM range (0 without one); the node of any enabled range
 * holding it, or -1.
 */
int srat_addr_to_node(const struct srat_info *s, u64 addr);
int srat_addr_to_target_node(const struct srat_info *s, u64 addr);

/* What srat_init() found (present false without a usable SRAT). */
extern struct srat_info srat;

/* Parse the first SRAT of fw_tables into `srat`; one line. -ENODEV when there is none. */
int srat_init(void);

#endif
