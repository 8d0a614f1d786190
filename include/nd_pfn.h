/*
 * pfn devices (Linux's nd_pfn, "fsdax" mode): a namespace with an info block
 * gets struct pages, in RAM (map=mem) or carved from the namespace itself
 * (map=dev, through a vmem_altmap), and a block device pmemNm whose sector 0
 * is the info block's dataoff. A valid block brings the device back at every
 * boot; one that cannot be enabled leaves the namespace disabled with the
 * reason, never raw. A BTT (sector mode) is a device of its own, bttN.0
 * (nd_btt.h). A device-dax block (NVDIMM_DAX_INFO) is the same device under
 * another name, daxN.0 (mode devdax): compound pages of its align, a block
 * view of its data named daxN.0 too, and mappings of its pages (nd_dax.h).
 *
 * What probing writes: nothing, except for map=dev on a writable region the
 * struct pages in the namespace's memmap area that differ from the ones
 * pmemk keeps there (none when pmemk had the device up last; all of them the
 * first time after Linux), and before them zeroes for any known bad sector
 * in that area (Linux's nd_pfn_clear_memmap_errors). On a read-only region
 * a map=dev device gets its struct pages in RAM instead and is read-only:
 * nothing is stored at all. A namespace whose info blocks sit on a bad
 * sector is not probed at all (nd_bad_head_claim).
 */
#ifndef PMEMK_ND_PFN_H
#define PMEMK_ND_PFN_H

#include "memremap.h"
#include "nd_pfn_sb.h"
#include "nvdimm.h"
#include "pmem.h"

struct nd_pfn {
	char name[16];			/* pfnN.0 (fsdax), daxN.0 (devdax) */
	enum nd_personality pers;	/* what the namespace holds: fsdax or devdax (else disabled) */
	struct nd_namespace_io *ns;
	struct nd_pfn_layout layout;	/* from the info block */
	bool enabled;
	bool memmap_in_ram;		/* map=mem, or map=dev on a read-only region */
	char reason[128];		/* why it is disabled */
	struct dev_pagemap pgmap;
	struct pmem_device pmem;	/* pmemNm (devdax: its block view daxN.0) while enabled */
	/* What memremap_pages spent on its last bring-up, step by step (benchmarks). */
	struct memremap_stats memmap_stats;
	/* Set when a probe (boot, nd_namespace_probe) brought it up: what it cost. */
	bool probed;
	u64 probe_ns;			/* read, validate, memremap_pages, block device */
	u64 probe_pmem_written;		/* bytes stored to pmem meanwhile (mm.h) */
};

/* What create-namespace asks for. */
struct nd_pfn_request {
	enum nd_pfn_mode mode;		/* PFN_MODE_NONE: back to raw (or sector) */
	bool devdax;			/* -m devdax: NVDIMM_DAX_INFO instead of NVDIMM_PFN_INFO */
	u64 align;
	bool force;
	bool sector;			/* -m sector: a BTT (mode is then NONE) */
	u32 lbasize;			/* its sector size (-l); 0: ndctl's 4096 */
};

/*
 * Bring every published namespace up at boot: a valid pfn or dax info
 * block gives an enabled (or, when it cannot be honoured, disabled) fsdax or
 * devdax device; a BTT a sector device (nd_btt.h); no block (or a bad
 * signature or checksum) a raw pmemN. Writes only what the header comment
 * says. One line per namespace.
 */
void nd_probe_namespaces(void);

/*
 * Reconfigure `ns` (ndctl create-namespace -e): check the request (layout,
 * RAM for map=mem, room for a BTT), tear down what it is now, write a new
 * info block (or zero it for raw; for sector, or when leaving sector, the
 * first 8 KiB are zeroed as ndctl does, then the BTT written), bring the
 * result up. Needs req->force (-EBUSY otherwise, with a message). A failure
 * at any step leaves the namespace's first 8 KiB as they were and the old
 * device up again (a BTT's map and log, written near the end, stay). Bad
 * sectors in the first 8 KiB are zeroed first, which heals them (one line
 * each); a failure leaves them zeroed.
 */
__must_check int nd_namespace_reconfigure(struct nd_namespace_io *ns, const struct nd_pfn_request *req);

/*
 * Probe one namespace as at boot (read-only; prints its line): what
 * nd_probe_namespaces() does for each. The namespace must be detached.
 */
void nd_namespace_probe(struct nd_namespace_io *ns);

/*
 * Let go of whatever `ns` is now: tear down its pfn device (-EBUSY while
 * pages are pinned) and release the claim, or drop the raw block device.
 * Nothing is written; nd_namespace_probe() brings it back.
 */
__must_check int nd_namespace_detach(struct nd_namespace_io *ns);

/*
 * create-namespace -r: a labelled namespace of `size` (0: the largest free
 * extent) named `name` in region r, its label recording the request's
 * claim class, then formatted as the request says (raw: nothing written).
 * A DIMM with a blank label area whose region holds only a raw label-less
 * namespace gets v1.2 labels first. If formatting fails the label is
 * removed again. Prints one line on failure.
 */
int nd_namespace_create_labelled(struct nd_region *r, u64 size, const char *name,
				 const struct nd_pfn_request *req, struct nd_namespace_io **out);

/*
 * destroy-namespace: a label-less namespace becomes raw (its info block
 * zeroed); a labelled one is zeroed the same way, then its label freed and
 * the namespace forgotten. Needs `force` (-EBUSY and a line otherwise).
 */
int nd_namespace_destroy(struct nd_namespace_io *ns, bool force);

/* disable-namespace: detach, and stay without a device until enable. */
int nd_namespace_disable(struct nd_namespace_io *ns);
/*
 * enable-namespace: probe it again (nothing if it was not disabled, by
 * disable-namespace or by a media error in its info blocks).
 */
void nd_namespace_enable(struct nd_namespace_io *ns);

/*
 * Re-read region r's namespaces from its DIMMs' labels: every namespace
 * detached and forgotten, then, with label_size 128 or 256, fresh index
 * blocks written to d (init-labels; d is one of r's DIMMs), then the
 * namespaces rebuilt and probed. A region of several DIMMs comes back
 * closed once d has an index (nd_region_namespaces_init).
 */
int nd_region_relabel(struct nd_region *r, struct nvdimm *d, u32 label_size);

/*
 * A namespace whose info-block area (its first 8 KiB) holds bad sector
 * `sector` (namespace-relative, 512 bytes): claimed disabled with the
 * reason (list: "state":"disabled"), never probed as anything, never raw,
 * one line (nvdimm/namespace_media.c). nd_namespace_detach releases it;
 * nd_bad_head_of says whether ns is held so.
 */
void nd_bad_head_claim(struct nd_namespace_io *ns, u64 sector);
bool nd_bad_head_of(const struct nd_namespace_io *ns);
void nd_bad_head_release(struct nd_namespace_io *ns);

/* The pfn device claiming `ns` (enabled or disabled), or NULL. */
struct nd_pfn *nd_pfn_of(struct nd_namespace_io *ns);

/* Read the namespace's info block (4 KiB at offset 4 KiB) into *sb. */
int nd_pfn_read_sb(struct nd_namespace_io *ns, struct nd_pfn_sb *sb);

/* Apply pmem.create= (after nd_probe_namespaces at boot; nvdimm/create_param.c). */
void nd_apply_create_param(void);

/*
 * ndctl's words for a request (nvdimm/create_request.c, shared by the
 * console, pmem.create= and the HTTP API): -m raw|fsdax|memory|devdax|dax|sector
 * with -M mem|dev (not for sector; NULL: dev), and -a 4K|2M|1G. The _why
 * versions put the one line naming the bad word into why[0..len) (len may
 * be 0) and return -EINVAL (-EOPNOTSUPP: 1G on a CPU without 1 GiB pages);
 * the others print that line.
 */
int nd_pfn_mode_why(const char *mode, const char *map, struct nd_pfn_request *req, char *why,
		    size_t len);
int nd_pfn_align_why(const char *s, u64 *align, char *why, size_t len);
int nd_pfn_parse_mode(const char *mode, const char *map, struct nd_pfn_request *req);
int nd_pfn_parse_align(const char *s, u64 *align);
/*
 * create-namespace's rules across its options, after each parsed: NULL, or
 * why they do not go together (the console prints it after "create-namespace: ").
 * region: -r given; ns: -e given; size_or_name: -s or -n given.
 */
const char *nd_create_args_why(bool region, bool ns, bool size_or_name,
			       const struct nd_pfn_request *req);

/* A devdax device's compound page order for its align: 9 (2 MiB), 18 (1 GiB), 0 (4 KiB). */
unsigned int nd_dax_vmemmap_shift(u64 align);

/* Forget every pfn, BTT and raw device (host tests). */
void nd_pfn_reset(void);
/* Forget every raw device (nvdimm/namespace_devs.c; part of nd_pfn_reset). */
void nd_namespace_devs_reset(void);

/*
 * The pfn device as the namespace lifecycle (namespace_devs.c) drives it
 * (pfn_dev.c). nd_pfn_attach claims ns with an fsdax or devdax device of a
 * validated layout and enables it (a failure leaves it claimed, disabled,
 * with the reason); nd_pfn_attach_disabled claims it disabled, in what the
 * media says it is (`sb` may be NULL), never raw; both print nothing but
 * the disabled line, nd_pfn_print the device's lines. nd_pfn_disable tears
 * an enabled device down: -EBUSY while anyone holds it (pmem_detach's
 * line). nd_pfn_geom_of is the namespace as the info block sees it;
 * nd_pfn_write_sb stores an info block durably; nd_pfn_ram_check refuses,
 * with the numbers in `why`, struct pages in RAM that RAM cannot hold.
 */
struct nd_pfn *nd_pfn_attach(struct nd_namespace_io *ns, enum nd_personality pers,
			     const struct nd_pfn_layout *l);
void nd_pfn_attach_disabled(struct nd_namespace_io *ns, enum nd_personality pers,
			    const struct nd_pfn_sb *sb, const char *fmt, const char *why);
void nd_pfn_print(const struct nd_pfn *pfn);
int nd_pfn_disable(struct nd_pfn *pfn);
struct nd_pfn_geom nd_pfn_geom_of(const struct nd_namespace_io *ns);
int nd_pfn_write_sb(struct nd_namespace_io *ns, const struct nd_pfn_sb *sb);
int nd_pfn_ram_check(struct nd_namespace_io *ns, const struct range *r, bool ro_dev,
		     unsigned int dedup, char *why, size_t n);

#endif
