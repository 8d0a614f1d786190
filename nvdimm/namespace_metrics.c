/*
 * The namespaces' metric families (include/metrics.h): every namespace
 * `list -N` shows, in its order, named and described as it shows them
 * (nd_namespace_view), and how far the struct page init of those with
 * struct pages has come.
 */
#include "memremap.h"
#include "metrics.h"
#include "nvdimm.h"

typedef void (*ns_sample_fn)(const struct nd_namespace_io *ns, const struct nd_ns_view *v);

/* fn for each namespace in list -N's order: by region, then Y. */
static void each_namespace(ns_sample_fn fn)
{
	for (u32 r = 0; r < nd_region_count(); r++) {
		const struct nd_region *region = nd_region_get(r);
		for (u32 i = 0; nd_region_namespace(region, i); i++) {
			const struct nd_namespace_io *ns = nd_region_namespace(region, i);
			struct nd_ns_view v;
			nd_namespace_view(ns, &v);
			fn(ns, &v);
		}
	}
}

static void size_sample(const struct nd_namespace_io *ns, const struct nd_ns_view *v)
{
	metric_sample("pmemk_namespace_size_bytes",
		      METRIC_LABELS({ "namespace", ns->name }, { "mode", v->mode },
				    { "device", v->device }),
		      v->size, 0);
}

static void info_sample(const struct nd_namespace_io *ns, const struct nd_ns_view *v)
{
	metric_sample("pmemk_namespace_info",
		      METRIC_LABELS({ "namespace", ns->name }, { "mode", v->mode }, { "map", v->map },
				    { "device", v->device }),
		      1, 0);
}

/* 1 once every struct page is stored, and when their init was not deferred. */
static void memmap_sample(const struct nd_namespace_io *ns, const struct nd_ns_view *v)
{
	struct memmap_progress p;

	if (!v->pgmap)
		return;
	memmap_progress(v->pgmap, &p);
	u64 ppm = p.sections && p.ready < p.sections ? p.ready * 1000000 / p.sections : 1000000;
	metric_sample("pmemk_memmap_init_ratio", METRIC_LABELS({ "namespace", ns->name }), ppm, 6);
}

/* Under the lock `list` relies on (a shell command holds it already; it is recursive). */
static void namespace_metrics(void)
{
	nd_lock();
	metric_family("pmemk_namespace_size_bytes", METRIC_GAUGE,
		      "Bytes of a namespace's device, as list -N's size (0 while disabled).");
	each_namespace(size_sample);
	metric_family("pmemk_namespace_info", METRIC_GAUGE,
		      "Always 1: what each namespace is (mode; map for fsdax and devdax; its device).");
	each_namespace(info_sample);
	metric_family("pmemk_memmap_init_ratio", METRIC_GAUGE,
		      "Share of a namespace's struct pages initialised, 0 to 1 (deferred init); "
		      "only namespaces with struct pages.");
	each_namespace(memmap_sample);
	nd_unlock();
}
METRICS_SOURCE(namespace_metrics);
