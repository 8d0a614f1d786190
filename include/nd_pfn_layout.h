/*
 * Where a pfn device puts things in its namespace: the 8 KiB info-block
 * reserve, the memmap (64 bytes of struct page per page, map=dev only), the
 * data, the range memremap_pages() maps and the vmem_altmap that places the
 * struct pages. This is the compatibility contract with Linux (FACTS §1.7,
 * §1.8), computed in one place, nvdimm/pfn_layout.c: a new device is laid out
 * with nd_pfn_lay_out(), a validated block is placed with nd_pfn_place(), and
 * the first calls the second.
 */
#ifndef PMEMK_ND_PFN_LAYOUT_H
#define PMEMK_ND_PFN_LAYOUT_H

#include "memremap.h"
#include "nd_pfn_sb.h"

/* What an info block's fields mean in physical addresses. */
struct nd_pfn_placement {
	struct range range; /* mapped: [start + start_pad, end - end_trunc] */
	u64 data; /* physical address of data byte 0: range.start + dataoff */
	u64 data_size; /* range end - data: the block device's capacity */
	u64 npfns; /* data pages, data_size / 4 KiB */
	struct vmem_altmap altmap; /* map=dev: where the memmap goes; all zero for map=mem */
};

/*
 * Place a block's layout in the namespace [start, start + size), as Linux's
 * __nvdimm_setup_pfn does (FACTS §1.8): the mapped range, the data and, for
 * l->mode map=dev, the altmap (base_pfn = the range's first pfn rounded down
 * to a 2 MiB subsection, reserve = 8 KiB + that rounding in pages, free =
 * (dataoff - 8 KiB) / 4 KiB, end_pfn = the range's last pfn). Reads l's mode,
 * start_pad, end_trunc and dataoff only (from media: possibly written by an
 * older Linux). Checks what the arithmetic needs, with nd_pfn_validate's
 * reasons (FACTS §1.6 rules 15-17): -EOPNOTSUPP when start + start_pad or
 * end - end_trunc is not 2 MiB aligned or dataoff is not inside the range,
 * -EINVAL when dataoff lies inside the 8 KiB reserve. *p is zeroed on error.
 */
int nd_pfn_place(u64 start, u64 size, const struct nd_pfn_layout *l, struct nd_pfn_placement *p,
		 const char **why);

/*
 * Lay out a new pfn device on the namespace [start, start + size) as Linux's
 * nd_pfn_init does (FACTS §1.7): fills *l with what the info block records
 * (mode, the requested align, dataoff, npfns, end_trunc, start_pad 0,
 * version 1.4, page size 4096, struct page size 64; uuid left zero) and *p by
 * nd_pfn_place(). -EINVAL for a bad mode, an unsupported align or a start not
 * 2 MiB aligned; -ENXIO when the namespace is too small for the layout.
 * *l and *p are zeroed on error.
 */
int nd_pfn_lay_out(u64 start, u64 size, enum nd_pfn_mode mode, u64 align, struct nd_pfn_layout *l,
		   struct nd_pfn_placement *p, const char **why);

#endif
