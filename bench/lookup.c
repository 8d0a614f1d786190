/*
 * The lookup bench: ns per pfn_to_page (and a load of the page's flags),
 * pfn_t_to_page, a pmem_direct_access and a kmap_pfn round trip (each with its pin), at random
 * pfns of the device.
 */
#include <errno.h>
#include <stdlib.h>

#include "arch.h"
#include "bench.h"
#include "pfn_t.h"
#include "pmem.h"

#define LOOKUP_N 65536

static volatile u64 bench_sink;	/* keeps lookups from being optimised away */

static u64 per_op_milli(u64 t0)
{
	return bench_ns_since(t0) * 1000 / LOOKUP_N;
}

void bench_lookup(struct bench_ctx *c)
{
	struct bench_series to_page = { 0 }, t_to_page = { 0 }, dax = { 0 }, kmap = { 0 };
	struct nd_pfn *pfn = bench_pfn(c);
	u64 *pfns = malloc(LOOKUP_N * sizeof(u64));
	u64 seed = 0x2545F4914F6CDD1DULL, sum = 0;

	if (!pfn || !pfns) {
		free(pfns);
		bench_error(c, "lookup", "no device or no memory", -ENODEV);
		return;
	}
	struct pmem_device *dev = &pfn->pmem;
	u64 first = PFN_DOWN(dev->phys), npfns = PFN_DOWN(dev->size);
	u64 sectors_per_page = PAGE_SIZE / dev->sector_size;
	for (u32 i = 0; i < LOOKUP_N; i++)
		pfns[i] = first + bench_xorshift64(&seed) % npfns;
	for (u32 r = 0; r < c->reps; r++) {
		u64 t0 = arch_cycles();
		for (u32 i = 0; i < LOOKUP_N; i++)
			sum += pfn_to_page(pfns[i])->flags;	/* the address, and the page it names */
		bench_add(&to_page, per_op_milli(t0));

		t0 = arch_cycles();
		for (u32 i = 0; i < LOOKUP_N; i++)
			sum += (u64)pfn_t_to_page(pfn_to_pfn_t(pfns[i], PFN_DEV | PFN_MAP));
		bench_add(&t_to_page, per_op_milli(t0));

		t0 = arch_cycles();
		for (u32 i = 0; i < LOOKUP_N; i++) {
			struct pmem_dax d;
			sum += (u64)pmem_direct_access(dev, (pfns[i] - first) * sectors_per_page, "bench",
						      &d);
			pmem_dax_put(&d);
		}
		bench_add(&dax, per_op_milli(t0));

		t0 = arch_cycles();
		for (u32 i = 0; i < LOOKUP_N; i++) {
			struct kmap km;
			sum += (u64)kmap_pfn(pfn_to_pfn_t(pfns[i], PFN_DEV | PFN_MAP), &km);
			kunmap_pfn(&km);
		}
		bench_add(&kmap, per_op_milli(t0));
	}
	bench_sink = sum;
	free(pfns);
	bench_report(c, "lookup", "pfn_to_page", &to_page, "ns");
	bench_report(c, "lookup", "pfn_t_to_page", &t_to_page, "ns");
	bench_report(c, "lookup", "direct_access", &dax, "ns");
	bench_report(c, "lookup", "kmap_pfn", &kmap, "ns");
}
