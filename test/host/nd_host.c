/* Host test support: a machine with one pmem region, up to (or through) the probe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "host.h"
#include "nd_btt.h"
#include "nd_pfn.h"
#include "nvdimm.h"
#include "pmem.h"

struct nd_namespace_io *host_nd_machine(const struct host_nd_machine *m)
{
	host_mm_reboot(1 * GiB, m->ram_size ? m->ram_size : 512 * MiB,
		       m->keep_pmem ? m->ns_start : 0, m->keep_pmem ? m->ns_size : 0);
	nd_reset();
	pmem_reset();
	nd_pfn_reset();
	nd_btt_reset();
	host_console_reset();
	struct nd_bus *bus = nd_bus_register("e820");
	struct nd_region_desc d = { .start = m->ns_start,
				    .size = m->ns_size,
				    .numa_node = -1,
				    .target_node = -1,
				    .ro = m->ro };
	for (u32 i = 0; i < m->hinted_dimms; i++) {
		struct nvdimm desc = { .handle = i + 1,
				       .nr_flush_hints = 1,
				       .flush_hint = { m->hint_base + (u64)i * PAGE_SIZE } };
		d.mapping[d.nr_mappings++] = (struct nd_mapping){
			.nvdimm = nvdimm_create(bus, &desc),
			.size = m->ns_size / m->hinted_dimms,
			.position = (int)i,
		};
	}
	assert_int_equal(nd_region_create(bus, &d, NULL), 0);
	nd_regions_publish();
	struct nd_namespace_io *ns = nd_namespace_find("namespace0.0");
	assert_non_null(ns);
	if (m->probe)
		nd_probe_namespaces();
	return ns;
}

const struct host_nd_kind host_nd_kinds[4] = {
	{ "pmem0", { .mode = PFN_MODE_NONE, .force = true } },
	{ "pmem0s", { .sector = true, .force = true } },
	{ "dax0.0", { .devdax = true, .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true } },
	{ "pmem0m", { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true } },
};
