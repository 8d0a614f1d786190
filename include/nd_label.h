/*
 * Namespace labels (nvdimm/label.c): the label storage area (LSA) a DIMM
 * keeps behind its _DSM, as the UEFI 2.7 "NVDIMM Label Protocol" and
 * Linux's drivers/nvdimm/label.h lay it out (FACTS-2 §3.1, FACTS §4.4):
 *
 *   [index block 0][index block 1][slot 0][slot 1] ... [slot nslot-1]
 *
 * Two index blocks, each with a 2-bit sequence number and a free bitmap;
 * the valid one with the newer sequence is current, and its bitmap says
 * which slots hold live labels. v1.1 labels are 128 bytes, v1.2 labels 256
 * (with a type GUID, an abstraction GUID and a checksum).
 *
 * Everything here is pure: it reads and builds byte images of the area.
 * Reading and writing the DIMM is the caller's (drivers/acpica/nvdimm_dsm.c).
 */
#ifndef PMEMK_ND_LABEL_H
#define PMEMK_ND_LABEL_H

#include "types.h"

#define ND_LABEL_INDEX_SIG "NAMESPACE_INDEX"	/* 16 bytes with the NUL */
#define ND_LABEL_INDEX_HDR 72			/* bytes before the free bitmap */
#define ND_LABEL_INDEX_ALIGN 256
#define ND_LABEL_NAME_LEN 64
#define ND_LABEL_MAX_LIVE 64			/* live labels kept per area */

/* Label flags (FACTS-2 §3.1). */
#define ND_LABEL_FLAG_ROLABEL 0x1
#define ND_LABEL_FLAG_LOCAL 0x2
#define ND_LABEL_FLAG_UPDATING 0x8

/* What a namespace's abstraction GUID says it holds (Linux's claim class). */
enum nd_claim_class {
	ND_CLAIM_NONE,		/* all-zero GUID (or a v1.1 label): raw, probe decides */
	ND_CLAIM_PFN,		/* fsdax */
	ND_CLAIM_DAX,		/* devdax */
	ND_CLAIM_BTT,		/* sector, BTT 1.1 */
	ND_CLAIM_BTT2,		/* sector, BTT 2.0 */
	ND_CLAIM_UNKNOWN,
};

/* One index block as read (valid or not: ndctl's read-labels prints both). */
struct nd_label_index {
	char sig[16];		/* NUL-terminated copy */
	u16 major, minor;
	u8 labelsize;		/* raw field: labels of 128 << labelsize bytes (v1.2) */
	u32 seq;
	u32 nslot;
	bool valid;
	const char *why;	/* why it is not valid */
};

/* One label, decoded (v1.1: the GUIDs and checksum are zero). */
struct nd_label {
	u8 uuid[16];
	char name[ND_LABEL_NAME_LEN + 1];
	u32 flags;
	u16 nlabel, position;
	u64 isetcookie, lbasize, dpa, rawsize;
	u32 slot;
	u8 align;
	u8 type_guid[16], abstraction_guid[16];
};

/* A label the current index calls live but that is refused, and why. */
struct nd_label_refusal {
	u32 slot;
	const char *why;
};

/* The parsed area. */
struct nd_lsa {
	u32 size;		/* bytes in the area */
	u32 label_size;		/* 128 or 256 (128 when no index is valid) */
	u32 index_size;		/* bytes per index block, Linux's sizeof_namespace_index */
	struct nd_label_index index[2];
	int current;		/* 0 or 1; -1 when neither index is valid */
	u32 nslot;		/* of the current index */
	u32 nr_live;
	struct nd_label live[ND_LABEL_MAX_LIVE];	/* valid labels in use, by slot */
	u32 nr_refused;
	struct nd_label_refusal refused[ND_LABEL_MAX_LIVE];
};

/*
 * Parse an area of `size` bytes. Always fills *lsa: lsa->current < 0 means
 * no valid index block (an unlabelled DIMM: index[i].why says why each was
 * refused). Labels in use in the current index that are malformed (slot
 * field, checksum, sizes) go to lsa->refused with one reason each; the rest
 * to lsa->live. Returns 0, or -EINVAL when there is no valid index.
 */
int nd_lsa_parse(struct nd_lsa *lsa, const u8 *area, u32 size);

/* Decode the label at byte `off` of the area (label_size bytes). */
void nd_label_decode(struct nd_label *l, const u8 *area, u32 off, u32 label_size);

/* Linux's sizeof_namespace_index for an area and label size (FACTS-2 §3.1). */
u32 nd_lsa_index_size(u32 area_size, u32 label_size);
/* Linux's nvdimm_num_label_slots: slots after the two index blocks. */
u32 nd_lsa_nslot(u32 area_size, u32 label_size);

/* The claim class of an abstraction GUID (16 stored bytes). */
enum nd_claim_class nd_label_claim_class(const u8 guid[16]);
/* The stored bytes of a class's GUID (zero for NONE). */
void nd_label_claim_guid(enum nd_claim_class c, u8 guid[16]);
/* ndctl's mode word for a class: "fsdax", "devdax", "sector", "raw". */
const char *nd_claim_class_mode(enum nd_claim_class c);

/* The pmem SPA range type GUID as a label stores it (FACTS §3.5). */
extern const u8 nd_label_pmem_type_guid[16];

/* One DIMM of an interleave set, for its cookie (FACTS-2 §3.2). */
struct nd_cookie_rec {
	u64 region_offset;	/* NFIT memdev region offset */
	u32 serial;
	u16 vendor, mfg_date;
	u8 mfg_loc;
};

/*
 * The interleave-set cookie of `n` DIMMs sorted by region offset: Fletcher-64
 * over one record per DIMM, 16 bytes {offset, serial} for v1.1 labels or 48
 * {offset, serial, vendor, date, location} for v1.2 (FACTS-2 §3.2).
 */
u64 nd_label_cookie(const struct nd_cookie_rec *recs, u32 n, bool v1_2);

/* 2-bit sequence numbers: 1 -> 2 -> 3 -> 1 (0 is invalid). */
u32 nd_label_next_seq(u32 seq);

/*
 * Print the area as `ndctl read-labels -j` does (ndctl/dimm.c): both index
 * blocks, then every slot whose slot field equals its position, with the
 * GUIDs when labels are 256 bytes. Through nd_json (pretty, like json-c).
 */
void nd_lsa_json(const u8 *area, u32 size, const char *dev);

/* ---- building new areas (writers) ---- */

/*
 * Fresh index blocks for an area of `size` bytes: both with every slot
 * free, index 0 seq 3 and index 1 seq 2, as Linux and ndctl init-labels do
 * (FACTS-2 §3.3), written to area[0, 2 * nd_lsa_index_size()) (the label
 * slots are not touched: all free). label_size 128 (v1.1) or 256.
 * -EINVAL for another label size, -ENOSPC when the area is too small.
 */
int nd_lsa_init(u8 *area, u32 size, u32 label_size);

/* Encode `l` into its slot (l->slot) of an area whose geometry *lsa has. */
void nd_label_encode(const struct nd_lsa *lsa, u8 *area, const struct nd_label *l);

/*
 * Build index block `which` of `area` from the current one with sequence
 * `seq` and the free bitmap `free_map` (nslot bits, 1 = free), checksummed.
 */
void nd_lsa_write_index(const struct nd_lsa *lsa, u8 *area, int which, u32 seq,
			const u8 *free_map);

/* ---- labelled namespaces (nvdimm/namespace_label.c) ---- */

struct nd_region;
struct nd_namespace_io;
struct nvdimm;

/* nd.labels=: false when labels are to be ignored (then they are not even read). */
bool nd_labels_enabled(void);
void nd_labels_set_enabled(bool on);	/* host tests */

/* r's first DIMM when every DIMM of r has a label area (labels can describe r), else NULL. */
struct nvdimm *nd_region_label_dimm(const struct nd_region *r);

/* by_pos[p] = the mapping index at position p; false when r's positions are not 0..N-1. */
bool nd_region_label_positions(const struct nd_region *r, u32 by_pos[]);

/*
 * The interleave-set cookie labels of r must carry in an area with index
 * *lsa: v1.1 or v1.2 form by its version (FACTS-2 §3.2, UEFI 2.7 §13.19).
 */
u64 nd_region_label_cookie(const struct nd_region *r, const struct nd_lsa *lsa);

/*
 * Make ns, added at the range of a namespace read or created from labels,
 * that namespace: uuid, name, class and sector size from position 0's label
 * l (at mapping mi0), each DIMM's label slot from slot[] (by mapping index).
 * One line.
 */
void nd_namespace_set_label(struct nd_namespace_io *ns, const struct nd_label *l, const u32 *slot,
			    u32 mi0);

/*
 * At publication: divide r into its DIMM's labelled namespaces (one line
 * per namespace, one per refused label), or give it one label-less
 * namespace when it has no label area, no valid index, or labels are off.
 */
void nd_region_namespaces_init(struct nd_region *r);

/*
 * ndctl's available_size and max_available_extent: the free parts of a
 * labelled region between its namespaces, in region-align units, below the
 * region size aligned down. 0 for a label-less region.
 */
void nd_region_available(const struct nd_region *r, u64 *avail, u64 *max_extent);

/*
 * A new labelled namespace of `size` (a multiple of the region align) in
 * the lowest free extent: its label (uuid, name, claim class, lbasize)
 * committed crash-safely (see the file comment), then the namespace added,
 * raw and detached, in *out. Prints one line on failure; nothing changes.
 */
int nd_label_namespace_create(struct nd_region *r, u64 size, const char *name,
			      enum nd_claim_class cls, u32 lbasize, u8 uuid[16],
			      struct nd_namespace_io **out);

/*
 * Record a new claim class and sector size in ns's label (create-namespace
 * -e on a labelled namespace): one commit that writes the updated label
 * into a free slot and frees the old one. 0 when nothing changes.
 */
int nd_label_namespace_set_class(struct nd_namespace_io *ns, enum nd_claim_class cls, u32 lbasize);
/*
 * Are r's labels v1.2 (256-byte labels, with an abstraction GUID)? Then a
 * BTT in one of its labelled namespaces is 2.0 at offset 0 (claim class
 * BTT2), as Linux makes one; else 1.1 at 4 KiB (FACTS-2 §1.1, §3).
 */
bool nd_label_region_v1_2(const struct nd_region *r);

/* Free ns's label (crash-safely) and forget ns (detached, unclaimed). */
int nd_label_namespace_delete(struct nd_namespace_io *ns);

/* Write fresh index blocks (labels of label_size bytes) to d: every slot free. */
int nd_label_init(struct nvdimm *d, u32 label_size);

/* Bit `slot` of a free bitmap (1 = free). */
static inline bool nd_label_slot_free(const u8 *map, u32 slot)
{
	return map[slot / 8] >> (slot % 8) & 1;
}

#endif
