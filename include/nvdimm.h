/*
 * The nvdimm core (nvdimm/), Linux's libnvdimm in miniature: buses (one per
 * provider: "nfit", "e820"), DIMMs (nmemN), regions (regionN, one per
 * persistent-memory range) and their namespaces: one label-less namespace_io
 * covering the region (namespaceN.0, block device pmemN), or, when the
 * region's DIMM has a valid label area (nd_label.h), one per label
 * (namespaceN.Y, pmemN.Y). Providers register DIMMs and regions;
 * nd_regions_publish() then numbers the regions in address order, creates
 * their namespaces and prints one line per region. Everything lives in
 * fixed arrays: no heap, pointers stay valid until nd_reset().
 */
#ifndef PMEMK_NVDIMM_H
#define PMEMK_NVDIMM_H

#include "badblocks.h"
#include "nd_json.h"
#include "nsio.h"
#include "types.h"

#define ND_MAX_BUSES 8
#define ND_MAX_DIMMS 64
#define ND_MAX_REGIONS 64
#define ND_MAX_MAPPINGS 16	/* DIMMs interleaved in one region */
#define ND_MAX_FLUSH_HINTS 16
#define ND_MAX_NAMESPACES 64	/* all regions together */

/* Linux's default region alignment (MEMREMAP_COMPAT_ALIGN_MAX). */
#define ND_REGION_ALIGN (16 * MiB)

struct nd_ars_ops;

struct nd_bus {
	int id;			/* ndbusN */
	char name[16];
	const char *provider;	/* "nfit" or "e820" */
	/* The firmware's Address Range Scrub (nd_ars.h); NULL: none. */
	const struct nd_ars_ops *ars;
	u64 ars_funcs;		/* the root _DSM's function bitmap (bit n: function n) */
};

/* What survives a power loss without software help (ndctl's words). */
enum nd_persistence {
	ND_PERSIST_UNKNOWN,	/* "unknown": no platform capabilities */
	ND_PERSIST_MEMCTRL,	/* "memory_controller": ADR, flush the CPU caches */
	ND_PERSIST_CACHE,	/* "cpu_cache": eADR, stores are enough */
};

/*
 * A DIMM's state, in nvdimm's own words: providers translate their firmware's
 * flags (the NFIT memdev state flags) into these once, at registration.
 */
enum nd_dimm_flags {
	ND_DIMM_SAVE_FAILED = 1U << 0,	/* last shutdown's save failed */
	ND_DIMM_RESTORE_FAILED = 1U << 1,	/* last boot's restore failed */
	ND_DIMM_FLUSH_FAILED = 1U << 2,	/* last platform flush failed */
	ND_DIMM_NOT_ARMED = 1U << 3,	/* writes may not persist: its regions are read-only */
	ND_DIMM_SMART_EVENT = 1U << 4,	/* health event observed */
	ND_DIMM_SMART_NOTIFY = 1U << 5,	/* health events are notified */
	ND_DIMM_MAP_FAILED = 1U << 6,	/* the platform could not map it */
};

/* One name per flag: Linux's sysfs word for the boot line and ndctl's JSON key (or NULL). */
struct nd_dimm_flag_name {
	u32 flag;
	const char *sysfs;
	const char *json;
};
extern const struct nd_dimm_flag_name nd_dimm_flag_names[7];

/* One DIMM (Linux's struct nvdimm): identity and state from its provider. */
struct nvdimm {
	int id;			/* nmemN */
	char name[16];
	struct nd_bus *bus;
	u32 handle;		/* NFIT device handle (_ADR) */
	u16 phys_id;		/* SMBIOS type-17 handle */
	bool has_dcr;		/* the fields below come from a control region */
	u16 vendor_id;		/* with the next three: the interleave-set cookie's */
	u8 manufacturing_location;
	u16 manufacturing_date;
	u32 serial;
	char unique_id[24];	/* Linux's "vvvv-ssssssss" (empty without a DCR) */
	u32 flags;		/* enum nd_dimm_flags */
	u32 nr_flush_hints;
	u64 flush_hint[ND_MAX_FLUSH_HINTS];
	/* Its label area, read by the provider before publication (NULL: none). */
	u8 *lsa;
	u32 lsa_size;
	const struct nd_label_ops *label_ops;
	/* Its SMART health through the provider (NULL: none; list -H shows no "health"). */
	const struct nd_smart_ops *smart_ops;
};

/* A DIMM's share of a region: DPA range and interleave position. */
struct nd_mapping {
	struct nvdimm *nvdimm;
	u64 start;		/* DIMM physical address */
	u64 size;
	int position;
	u64 region_offset;	/* NFIT memdev region offset (the interleave-set cookie) */
};

struct nd_json;
struct nd_namespace_io;
struct dev_pagemap;

/*
 * What a namespace is now, in `list -N`'s words (nd_namespace_view): for
 * figures that name a namespace elsewhere (`metrics`, nbd-list -j).
 */
struct nd_ns_view {
	const char *mode;	/* "raw", "fsdax", "devdax" or "sector" */
	const char *map;	/* fsdax, devdax: "mem" or "dev"; else NULL */
	const char *device;	/* its block device (devdax: daxN.0); NULL while disabled */
	u64 size;		/* list's "size": the device's bytes (0 while a claim is disabled) */
	const struct dev_pagemap *pgmap;	/* its struct pages; NULL: none */
};

/*
 * How the core writes a DIMM's label area: through its provider (the
 * NVDIMM _DSM function 6 on ACPI platforms). Writes `len` bytes at `off`;
 * 0, or a negative errno after one line.
 */
struct nd_label_ops {
	int (*write)(struct nvdimm *d, u32 off, const void *buf, u32 len);
};

struct nd_smart;
/*
 * How the core reads a DIMM's health: the provider asks the firmware (the
 * Intel _DSM function 1 on ACPI platforms) and decodes the answer with
 * nd_smart_decode. 0 with *s filled, else a negative errno after one line
 * and s->known false.
 */
struct nd_smart_ops {
	int (*read)(struct nvdimm *d, struct nd_smart *s);
};

/* What a device claiming a namespace (pfn, later btt) tells `list`. */
struct nd_claim_ops {
	const char *name;	/* "pfn" */
	/* Write the namespace's fields after "dev" (else the raw ones are shown). */
	void (*list_json)(const struct nd_namespace_io *ns, struct nd_json *j);
	/*
	 * Where its data lies, for `list -M` (ndctl's badblocks): physical
	 * start and size; *count_only when offsets into it mean nothing (a
	 * BTT's). NULL: the whole namespace.
	 */
	void (*media_span)(const struct nd_namespace_io *ns, u64 *start, u64 *size, bool *count_only);
	/* Fill in the view from the fields list_json prints them from (NULL: raw, disabled). */
	void (*view)(const struct nd_namespace_io *ns, struct nd_ns_view *v);
};

/*
 * A namespace: label-less covering its whole region (Linux's
 * nd_namespace_io), or a labelled one (Linux's nd_namespace_pmem) whose
 * label gives uuid, name, DPA range and claim class.
 */
struct nd_namespace_io {
	char name[24];		/* namespaceN.Y */
	char blockdev[16];	/* pmemN (Y = 0), pmemN.Y */
	struct nd_region *region;
	int id;			/* Y */
	u64 start;		/* physical */
	u64 size;
	u32 sector_size;
	void *claim;		/* the device that owns it, NULL when raw */
	const struct nd_claim_ops *claim_ops;
	bool disabled;		/* disable-namespace: no device until enable-namespace */
	struct nsio io;		/* its media, once nd_namespace_map made it (size 0 before) */
	/* Labelled namespaces only. */
	bool labelled;
	u8 uuid[16];
	char alt_name[65];
	u64 dpa;
	u32 claim_class;	/* enum nd_claim_class (nd_label.h) */
	u32 label_slot[ND_MAX_MAPPINGS];	/* by mapping index: each DIMM's label */
};

/* What a provider describes; nd_region_create() copies it. */
struct nd_region_desc {
	u64 start;
	u64 size;
	int numa_node;		/* -1: unknown */
	int target_node;
	enum nd_persistence persistence;
	bool ro;
	u16 range_index;	/* the NFIT SPA range index, 0 otherwise */
	u32 nr_mappings;
	struct nd_mapping mapping[ND_MAX_MAPPINGS];
};

struct nd_region {
	int id;			/* regionN; -1 until published */
	char name[16];
	struct nd_bus *bus;
	u64 start;
	u64 size;
	u64 align;
	int numa_node;
	int target_node;
	enum nd_persistence persistence;
	bool ro;
	u16 range_index;
	u32 nr_mappings;
	struct nd_mapping mapping[ND_MAX_MAPPINGS];
	u32 nr_namespaces;		/* valid once published */
	bool labelled;			/* its namespaces come from its DIMM's labels */
	u64 iset_id;			/* the cookie its labels carry (labelled only) */
	/*
	 * Labels pmemk cannot use (nd_label.h): `closed` says why the region
	 * has no namespace at all (an interleave set whose DIMMs hold labels:
	 * never opened raw over another system's namespaces); `nr_foreign` counts
	 * live labels of a labelled region that made no namespace: their
	 * space is not known to be free, so no namespace is created there.
	 */
	const char *closed;
	u32 nr_foreign;
	u64 flush_hint_writes;		/* by nsio_flush, all DIMMs (tests, stats) */
	struct badblocks bb;		/* bad sectors, region-relative (media_error.h) */
	struct badblocks poison;	/* sectors the kernel's injector poisoned */
	/* Address Range Scrub of its SPA range (nd_ars.h), from the capabilities. */
	u32 ars_max_out;		/* largest status output; 0: no ARS here */
	u32 ars_clear_unit;		/* bytes; 0: no clear through the firmware */
	u32 ars_state;			/* enum nd_ars_state */
};

/* nvdimm/bus.c */

/* A new bus for `provider` (a string that outlives it). NULL when full (printed). */
struct nd_bus *nd_bus_register(const char *provider);

/*
 * Register a DIMM described by *desc on `bus` (copied; id, name and bus are
 * filled in). Names follow registration order: providers register in handle
 * order. NULL when full (printed).
 */
struct nvdimm *nvdimm_create(struct nd_bus *bus, const struct nvdimm *desc);

u32 nd_bus_count(void);
struct nd_bus *nd_bus_get(u32 i);
u32 nvdimm_count(void);
struct nvdimm *nvdimm_get(u32 i);
struct nvdimm *nvdimm_find(const char *name);

/* Forget every bus, DIMM, region and namespace (host tests, fuzzer). */
void nd_reset(void);
/* The regions' part of nd_reset() (nvdimm/region.c). */
void nd_regions_reset(void);

/*
 * After the providers registered (kmain: the NFIT first, then e820 for what
 * it does not cover): publish the regions, or say that there is no pmem.
 */
void nvdimm_publish(void);

/* nvdimm/region.c */

/*
 * Register a region. Returns 0 and *out (may be NULL), or -EINVAL for an
 * empty, wrapping or not 4 KiB aligned range or too many mappings, -EBUSY
 * when any part of it is a registered region or System RAM (memblock),
 * -ENOSPC when full. Each failure prints one line naming the range.
 */
int nd_region_create(struct nd_bus *bus, const struct nd_region_desc *desc,
		     struct nd_region **out);

/* The registered region overlapping [start, start+size), or NULL. */
struct nd_region *nd_region_overlapping(u64 start, u64 size);

/*
 * Number the unpublished regions regionN in address order (after the
 * published ones), give each its namespace_io and print one line per
 * region. Idempotent.
 */
void nd_regions_publish(void);

/* Published regions in id order (= address order); NULL past the end. */
u32 nd_region_count(void);
struct nd_region *nd_region_get(u32 i);
struct nd_region *nd_region_find(const char *name);

/* Linux's default_align(): 16 MiB (4 KiB below that size), times mappings if needed. */
u64 nd_region_default_align(u64 size, u32 nr_mappings);

const char *nd_persistence_name(enum nd_persistence p);

/* nvdimm/namespace.c */

/* Give a just-published region its namespace_io covering it whole. */
void nd_namespace_io_init(struct nd_region *region);

/*
 * A new namespace namespaceR.id of `region` at [start, start+size), raw.
 * NULL when the table is full (printed).
 */
struct nd_namespace_io *nd_namespace_add(struct nd_region *region, int id, u64 start, u64 size);
/*
 * Map the namespace and make its media path (ns->io); idempotent. Every
 * read and store of its bytes goes through ns->io or a view of it.
 * -ENOMEM when the direct map cannot grow.
 */
__must_check int nd_namespace_map(struct nd_namespace_io *ns);
/* Forget a namespace (detached, unclaimed). */
void nd_namespace_remove(struct nd_namespace_io *ns);
/* The lowest Y no namespace of the region has. */
int nd_namespace_free_id(const struct nd_region *region);
/* The region's i-th namespace in Y order, or NULL. */
struct nd_namespace_io *nd_region_namespace(const struct nd_region *region, u32 i);
/* A namespace's index in the table (0..ND_MAX_NAMESPACES-1): per-namespace device slots. */
int nd_namespace_index(const struct nd_namespace_io *ns);
/* Forget all namespaces (nd_reset). */
void nd_namespaces_reset(void);

/* Namespaces in region order, then Y: first with NULL, NULL past the last. */
struct nd_namespace_io *nd_namespace_next(struct nd_namespace_io *prev);
#define for_each_nd_namespace(ns) \
	for (struct nd_namespace_io *ns = nd_namespace_next(NULL); ns; ns = nd_namespace_next(ns))

/* What ns is now (struct nd_ns_view), under the device model lock (nd_lock). */
void nd_namespace_view(const struct nd_namespace_io *ns, struct nd_ns_view *v);

/* By name ("namespace0.0") or block device ("pmem0"); NULL if none. */
struct nd_namespace_io *nd_namespace_find(const char *name);

/*
 * Claim a namespace for `owner` (one owner at a time). -EBUSY if another
 * owner has it, -EROFS if its region is read-only and `write` is set.
 */
int nd_namespace_claim(struct nd_namespace_io *ns, void *owner,
		       const struct nd_claim_ops *ops, bool write);
/* Release a claim; -EINVAL if `owner` does not hold it. */
int nd_namespace_release(struct nd_namespace_io *ns, void *owner);

/* nvdimm/list.c: ndctl-style JSON through lib/nd_json.c (include/nd_json.h). */
/* "raw_uuid" (the label's uuid) of a labelled namespace; nothing for a label-less one. */
void nd_namespace_raw_uuid_json(const struct nd_namespace_io *ns, struct nd_json *j);
/* ndctl's numa_node and target_node fields (each left out when negative). */
void nd_node_json(struct nd_json *j, int numa_node, int target_node);

#define ND_LIST_DIMMS (1 << 0)
#define ND_LIST_REGIONS (1 << 1)
#define ND_LIST_NAMESPACES (1 << 2)
#define ND_LIST_MEDIA_ERRORS (1 << 3)	/* -M: badblock_count and badblocks */
#define ND_LIST_HEALTH (1 << 4)	/* -H: each DIMM's "health" (nd_smart.h) */

/*
 * Print what `ndctl list` prints for `what` (ND_LIST_*), optionally only
 * for one region or DIMM (NULL: all). Nothing is printed when nothing
 * matches, as ndctl does.
 */
void nd_list(unsigned int what, const char *region, const char *dimm);

/*
 * The device model lock (recursive; LOCK_RANK_ND, include/spinlock.h):
 * held by whoever reads or changes the buses, DIMMs, regions, namespaces,
 * claims and the devices on them (pfn, BTT, devdax), and the shell's tables
 * of them. The shell takes it around every command that is not
 * SHELL_COMMAND_CONCURRENT; boot runs on one CPU before anything else can.
 */
void nd_lock(void);
bool nd_trylock(void);	/* take it if free (or held here): true */
void nd_unlock(void);

#endif
