/*
 * The pfn device layout, the one place of its arithmetic: where the info
 * block's 8 KiB reserve, the memmap, the altmap and the data lie in a
 * namespace, for a new device (Linux's nd_pfn_init, FACTS §1.7) and for a
 * validated block (Linux's __nvdimm_setup_pfn, FACTS §1.8). Pure functions.
 */
#include <errno.h>
#include <string.h>

#include "nd_pfn_layout.h"
#include "nd_util.h"

#define PAGES_PER_SUBSECTION_2M (ND_PFN_COMPAT_ALIGN / PAGE_SIZE)

/*
 * Linux's init_altmap_base/init_altmap_reserve: the altmap starts at the
 * subsection holding the range's first pfn, and its reserve covers the info
 * block and the pages from that subsection's start to the range. The rounding
 * is 0 on x86, where nd_pfn_place has checked the range is 2 MiB aligned.
 */
static struct vmem_altmap pfn_altmap(const struct range *r, u64 dataoff)
{
	u64 first = PFN_DOWN(r->start);
	u64 base_pfn = ALIGN_DOWN(first, PAGES_PER_SUBSECTION_2M);

	return (struct vmem_altmap){
		.base_pfn = base_pfn,
		.end_pfn = PFN_DOWN(r->end),
		.reserve = PFN_DOWN(ND_INFO_BLOCK_RESERVE) + (first - base_pfn),
		.free = PFN_DOWN(dataoff - ND_INFO_BLOCK_RESERVE),
	};
}

int nd_pfn_place(u64 start, u64 size, const struct nd_pfn_layout *l, struct nd_pfn_placement *p,
		 const char **why)
{
	u64 end = start + size; /* exclusive */

	memset(p, 0, sizeof(*p));
	if (!IS_ALIGNED(start + l->start_pad, ND_PFN_COMPAT_ALIGN))
		REJECT(-EOPNOTSUPP, "namespace start + start_pad not 2 MiB aligned");
	if ((u64)l->start_pad + l->end_trunc >= size ||
	    !IS_ALIGNED(end - l->end_trunc, ND_PFN_COMPAT_ALIGN))
		REJECT(-EOPNOTSUPP, "namespace end - end_trunc not 2 MiB aligned");
	struct range r = {start + l->start_pad, end - l->end_trunc - 1};
	if (l->dataoff >= range_len(&r))
		REJECT(-EOPNOTSUPP, "dataoff past the end of the mapped range");
	/* Linux refuses this for map=mem; for map=dev its altmap free would wrap. */
	if (l->dataoff < ND_INFO_BLOCK_RESERVE)
		REJECT(-EINVAL, "dataoff inside the 8 KiB info-block reserve");

	p->range = r;
	p->data = r.start + l->dataoff;
	p->data_size = r.end + 1 - p->data;
	p->npfns = PFN_DOWN(p->data_size);
	if (l->mode == PFN_MODE_PMEM)
		p->altmap = pfn_altmap(&r, l->dataoff);
	*why = NULL;
	return 0;
}

/*
 * Linux's nd_pfn_init: data starts at the first multiple of A = max(align,
 * 2 MiB) past the 8 KiB reserve and, for map=dev, past 64 bytes of memmap
 * for every page of the namespace after the reserve (an over-estimate:
 * MAX_STRUCT_PAGE_SIZE, FACTS §1.9). nd_pfn_lay_out cuts the end back to a
 * multiple of A (end_trunc).
 */
static u64 pfn_new_dataoff(u64 start, u64 size, enum nd_pfn_mode mode, u64 a)
{
	u64 npfns0 = PFN_DOWN(size - ND_INFO_BLOCK_RESERVE);
	u64 memmap = mode == PFN_MODE_PMEM ? MAX_STRUCT_PAGE_SIZE * npfns0 : 0;

	return ALIGN_UP(start + ND_INFO_BLOCK_RESERVE + memmap, a) - start;
}

int nd_pfn_lay_out(u64 start, u64 size, enum nd_pfn_mode mode, u64 align, struct nd_pfn_layout *l,
		   struct nd_pfn_placement *p, const char **why)
{
	memset(l, 0, sizeof(*l));
	memset(p, 0, sizeof(*p));
	if (mode != PFN_MODE_RAM && mode != PFN_MODE_PMEM)
		REJECT(-EINVAL, "mode must be mem or dev");
	if (!nd_pfn_align_supported(align))
		REJECT(-EINVAL, "align must be 4K, 2M or 1G");
	if (!IS_ALIGNED(start, ND_PFN_COMPAT_ALIGN))
		REJECT(-EINVAL, "namespace start not 2 MiB aligned");
	if (size <= ND_INFO_BLOCK_RESERVE)
		REJECT(-ENXIO, "namespace too small for an info block");

	u64 a = MAX(align, ND_PFN_COMPAT_ALIGN);
	u64 end_trunc = start + size - ALIGN_DOWN(start + size, a);
	u64 dataoff = pfn_new_dataoff(start, size, mode, a);

	/* Linux tests only the second: the first keeps it from wrapping. */
	if (end_trunc >= size || dataoff >= size - end_trunc)
		REJECT(-ENXIO, "namespace too small: unable to satisfy the requested alignment");

	struct nd_pfn_layout n = {
		.mode = mode,
		.align = align, /* the requested align, not A (FACTS §1.7 step 10) */
		.dataoff = dataoff,
		.end_trunc = (u32)end_trunc,
		.version_minor = 4,
		.page_size = PAGE_SIZE,
		.page_struct_size = MAX_STRUCT_PAGE_SIZE,
	};
	int err = nd_pfn_place(start, size, &n, p, why);
	if (err)
		return err;
	n.npfns = p->npfns;
	*l = n;
	return 0;
}
