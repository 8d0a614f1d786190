/*
 * The NBD server's exports (nbd-export, nbd.export=): the table of block
 * devices served, each held for as long as it is exported (pmem_hold),
 * where its READ data comes from, the engine's view of it (nbd_pmem.c),
 * and who may open it: the TLS identities its spec lists
 * (DEV[:ro][@ID[+ID...]], nbd_export_spec.c), or anyone. Nothing is
 * served unless configured. nbd-list shows them as text or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nbd_priv.h"
#include "nd_json.h"
#include "net.h"
#include "nvdimm.h"
#include "params.h"
#include "printk.h"

struct srv_export nbd_exports_tab[NBD_MAX_EXPORTS];
int nbd_zero_copy = 1;	/* nbd.zerocopy=: 0 off, 1 on */
static const char *boot_exports;

KERNEL_PARAM_CHOICE("nbd.zerocopy", nbd_zero_copy, 1,
		    "on (default): READ data goes from pmem to the NIC without a copy; off: copied",
		    "off", "on");

/* nbd.test-cache=: enum nbd_wcache_mode, in the order of its words. */
static int test_cache = NBD_WCACHE_OFF;
KERNEL_PARAM_CHOICE("nbd.test-cache", test_cache, NBD_WCACHE_WRITEBACK,
		    "for crash tests only: writeback holds acknowledged WRITEs in 4 MiB of RAM "
		    "until FLUSH or FUA; writeback-ignore-flush (a mutation) loses them in a crash",
		    "off", "writeback", "writeback-ignore-flush");

/*
 * nbd.test-cache= in front of a writable export (include/nbd_wcache.h): a
 * line saying what it puts at risk. Without the memory: served without it.
 */
static void test_cache_wrap(struct srv_export *e)
{
	if (test_cache == NBD_WCACHE_OFF || e->exp.ro)
		return;
	if (nbd_wcache_wrap(&e->wcache, &e->exp, (enum nbd_wcache_mode)test_cache)) {
		pr_err("nbd: %s: no memory for nbd.test-cache, served without it\n", e->name);
		return;
	}
	e->zero_copy = false;
	if (test_cache == NBD_WCACHE_IGNORE_FLUSH) {
		e->how = "copied (nbd.test-cache=writeback-ignore-flush)";
		pr_warn("nbd: %s: nbd.test-cache=writeback-ignore-flush: FLUSH and FUA are "
			"acknowledged without writing back, a crash loses acknowledged writes\n", e->name);
	} else {
		e->how = "copied (nbd.test-cache=writeback)";
		pr_warn("nbd: %s: nbd.test-cache=writeback: acknowledged writes wait in RAM until "
			"FLUSH or FUA (a crash test's server)\n", e->name);
	}
}

static struct srv_export *export_find(const char *name)
{
	for (unsigned int i = 0; i < NBD_MAX_EXPORTS; i++)
		if (nbd_exports_tab[i].used && !strcmp(nbd_exports_tab[i].name, name))
			return &nbd_exports_tab[i];
	return NULL;
}

static const struct nbd_export *tab_lookup(void *arg, const char *name)
{
	(void)arg;
	struct srv_export *e = export_find(name);
	return e ? &e->exp : NULL;
}

static const struct nbd_export *tab_nth(void *arg, unsigned int i)
{
	(void)arg;
	for (unsigned int k = 0; k < NBD_MAX_EXPORTS; k++)
		if (nbd_exports_tab[k].used && i-- == 0)
			return &nbd_exports_tab[k].exp;
	return NULL;
}

/* The engine's may_open: e's identity list, if it has one, names the client. */
static bool tab_may_open(void *arg, const struct nbd_export *e, const char *identity)
{
	(void)arg;
	return nbd_id_list_allows(&srv_export_of(e)->ids, identity);
}

const struct nbd_exports nbd_exports_ops = {
	.lookup = tab_lookup,
	.nth = tab_nth,
	.may_open = tab_may_open,
};

const struct srv_export *nbd_export_open_to_all(bool writable)
{
	for (unsigned int i = 0; i < NBD_MAX_EXPORTS; i++) {
		const struct srv_export *e = &nbd_exports_tab[i];
		if (e->used && !e->ids.n && (!writable || !e->exp.ro))
			return e;
	}
	return NULL;
}

/*
 * Hold the device for the export and find where its READ data comes from:
 * the direct map (raw, fsdax), the devdax mapping of the whole device
 * (devdax), or nowhere (a BTT's: copied). A line and an error otherwise.
 */
static int export_source(struct srv_export *e, struct pmem_device *dev)
{
	struct nd_pfn *dax = nd_dax_find(dev->name);
	int err;

	snprintf(e->who, sizeof(e->who), "NBD: nbd-unexport %s first", dev->name);
	err = pmem_hold(dev, PMEM_HOLD_EXPORT, e->who, &e->hold);
	if (err) {
		pr_err("nbd: %s is going away, not exported\n", dev->name);
		return err;
	}
	e->dev = dev;
	e->map.slot = -1;
	if (dev->rw) {
		e->how = "copied through the BTT";
	} else if (dax && &dax->pmem == dev) {
		err = dax_map(dax, 0, dev->size, e->who, &e->map);
		if (err) {
			pr_err("nbd: %s: cannot map the devdax device (error %d), not exported\n",
			       dev->name, err);
			pmem_release(&e->hold);
			return err;
		}
		e->base = e->map.kaddr;
		e->how = nbd_zero_copy ? "zero copy from the devdax mapping" : "copied (nbd.zerocopy=off)";
	} else {
		e->base = pmem_read_ref(&e->hold);
		e->how = nbd_zero_copy ? "zero copy" : "copied (nbd.zerocopy=off)";
	}
	e->zero_copy = e->base && nbd_zero_copy;
	return 0;
}

int nbd_export_add(const char *spec)
{
	struct nbd_export_spec sp;
	const char *why;

	if (nbd_export_spec_parse(spec, &sp, &why)) {
		pr_err("nbd: export %s: %s\n", spec, why);
		return -EINVAL;
	}
	const char *name = sp.dev;
	if (export_find(name)) {
		pr_err("nbd: %s is exported already\n", name);
		return -EEXIST;
	}
	struct srv_export *e = NULL;
	for (unsigned int i = 0; i < NBD_MAX_EXPORTS && !e; i++)
		if (!nbd_exports_tab[i].used)
			e = &nbd_exports_tab[i];
	if (!e) {
		pr_err("nbd: %d exports at most\n", NBD_MAX_EXPORTS);
		return -ENOSPC;
	}
	struct pmem_device *dev = pmem_find(name);
	if (!dev) {
		pr_err("nbd: no block device %s\n", name);
		return -ENODEV;
	}
	if (dev->sector_size & (dev->sector_size - 1) || dev->sector_size > 4096) {
		pr_err("nbd: %s: sector size %u is not a power of two up to 4096\n", name,
		       dev->sector_size);
		return -EINVAL;
	}
	memset(e, 0, sizeof(*e));
	int err = export_source(e, dev);
	if (err)
		return err;
	memcpy(e->name, sp.dev, sizeof(e->name));
	e->ids = sp.ids;
	nbd_pmem_export(e, sp.ro);
	test_cache_wrap(e);
	e->used = true;
	char ids[NBD_EXPORT_SPEC_MAX + 1];
	nbd_id_list_format(&e->ids, ids, sizeof(ids));
	if (e->base && (nbd_tls_policy() == NBD_TLS_REQUIRE ||
			(nbd_tls_policy() == NBD_TLS_ON && e->ids.n))) {
		e->how = "copied (only TLS clients, and TLS encrypts a copy)";
		e->zero_copy = false;
	}
	pr_info("nbd: exporting %s (%llu bytes, %s, READ %s%s%s)\n", name, dev->size,
		e->exp.ro ? "read-only" : "read-write", e->how, e->ids.n ? ", for TLS identities " : "",
		ids);
	nbd_listen();	/* without a NIC: a line; the export stays configured */
	return 0;
}

int nbd_export_remove(const char *name)
{
	struct srv_export *e = export_find(name);

	if (!e) {
		pr_err("nbd: %s is not exported\n", name);
		return -ENOENT;
	}
	if (e->clients) {
		pr_err("nbd: %s: busy: exported to %u client%s\n", name, e->clients,
		       e->clients == 1 ? "" : "s");
		return -EBUSY;
	}
	/* Clients still haggling hold no pointer to it; connected ones are counted above. */
	if (e->wcache.mode != NBD_WCACHE_OFF && nbd_wcache_unwrap(&e->wcache))
		pr_err("nbd: %s: writing back nbd.test-cache failed: data lost\n", name);
	dax_unmap(&e->map);
	pmem_release(&e->hold);
	e->used = false;
	pr_info("nbd: %s no longer exported\n", name);
	return 0;
}

KERNEL_PARAM_STRING("nbd.export", boot_exports, "DEV[:ro][@ID[+ID...]],...",
		    "serve block devices over NBD on port 10809: DEV[:ro][@ID[+ID...]],... (e.g. "
		    "pmem1m:ro, pmem1@alice+bob: only those TLS identities may open it)");

void nbd_boot(void)
{
	char spec[NBD_EXPORT_SPEC_MAX + 1];

	for (const char *p = boot_exports; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n < sizeof(spec)) {
			memcpy(spec, p, n);
			spec[n] = '\0';
			nbd_export_add(spec);
		} else {
			pr_err("nbd.export: entry longer than %zu characters ignored\n", sizeof(spec) - 1);
		}
		p += n + (p[n] == ',');
	}
	nbd_tls_warn_open();
}

void nbd_exports_list(void)
{
	if (!tab_nth(NULL, 0))
		kprintf("nbd: nothing exported\n");
	for (unsigned int i = 0; i < NBD_MAX_EXPORTS; i++) {
		const struct srv_export *e = &nbd_exports_tab[i];
		if (!e->used)
			continue;
		char ids[NBD_EXPORT_SPEC_MAX + 1];
		nbd_id_list_format(&e->ids, ids, sizeof(ids));
		kprintf("%s %llu bytes %s, READ %s, %u client%s%s%s\n", e->name, e->exp.size,
			e->exp.ro ? "ro" : "rw", e->how, e->clients, e->clients == 1 ? "" : "s",
			e->ids.n ? ", for TLS identities " : "", ids);
		const struct nbd_wcache *wc = &e->wcache;
		if (wc->mode != NBD_WCACHE_OFF)
			kprintf("%s test cache: %u writes held now, %llu held, %llu written back, "
				"%llu flushes ignored\n", e->name, wc->n, wc->held, wc->written_back,
				wc->flushes_ignored);
	}
}

/* What its device is, in list -N's words: "raw", "fsdax", "devdax" or "sector". */
static const char *export_mode(const struct srv_export *e)
{
	struct nd_ns_view v;

	if (!e->dev->ns)
		return "raw";
	nd_lock();	/* recursive: nbd-list and metrics run under it already */
	nd_namespace_view(e->dev->ns, &v);
	nd_unlock();
	return v.mode;
}

void nbd_exports_json(struct nd_json *j)
{
	nd_json_open(j, "exports", '[');
	for (unsigned int i = 0; i < NBD_MAX_EXPORTS; i++) {
		const struct srv_export *e = &nbd_exports_tab[i];
		if (!e->used)
			continue;
		nd_json_open(j, NULL, '{');
		nd_json_str(j, "export", e->name);
		nd_json_str(j, "device", e->dev->name);
		nd_json_str(j, "mode", export_mode(e));
		nd_json_u64(j, "size", e->exp.size);
		nd_json_bool(j, "readonly", e->exp.ro);
		nd_json_bool(j, "zero_copy", e->zero_copy);
		if (e->ids.n) {
			nd_json_open(j, "identities", '[');
			for (unsigned int k = 0; k < e->ids.n; k++)
				nd_json_str(j, NULL, e->ids.id[k]);
			nd_json_close(j, ']');
		}
		nd_json_u64(j, "clients", e->clients);
		nd_json_close(j, '}');
	}
	nd_json_close(j, ']');
}
