/*
 * The NBD server's exports (nbd-export, nbd.export=): the table of block
 * devices served, each held for as long as it is exported (pmem_hold),
 * where its READ data comes from, and the engine's view of it
 * (nbd_pmem.c). Nothing is served unless configured.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nbd_priv.h"
#include "net.h"
#include "params.h"
#include "printk.h"

struct srv_export nbd_exports_tab[NBD_MAX_EXPORTS];
int nbd_zero_copy = 1;	/* nbd.zerocopy=: 0 off, 1 on */
static const char *boot_exports;

KERNEL_PARAM_CHOICE("nbd.zerocopy", nbd_zero_copy, 1,
		    "on (default): READ data goes from pmem to the NIC without a copy; off: copied",
		    "off", "on");

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

const struct nbd_exports nbd_exports_ops = { .lookup = tab_lookup, .nth = tab_nth };

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
	return 0;
}

int nbd_export_add(const char *spec)
{
	char name[24];
	size_t n = strcspn(spec, ":");
	bool ro = false;

	if (spec[n]) {
		if (strcmp(spec + n, ":ro")) {
			pr_err("nbd: export %s: only :ro may follow the device name\n", spec);
			return -EINVAL;
		}
		ro = true;
	}
	if (!n || n >= sizeof(name)) {
		pr_err("nbd: export '%s': not a device name\n", spec);
		return -EINVAL;
	}
	memcpy(name, spec, n);
	name[n] = '\0';
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
	memcpy(e->name, name, n + 1);
	nbd_pmem_export(e, ro);
	e->used = true;
	pr_info("nbd: exporting %s (%llu bytes, %s, READ %s)\n", name, dev->size,
		e->exp.ro ? "read-only" : "read-write", e->how);
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
	dax_unmap(&e->map);
	pmem_release(&e->hold);
	e->used = false;
	pr_info("nbd: %s no longer exported\n", name);
	return 0;
}

KERNEL_PARAM_STRING("nbd.export", boot_exports, "DEV[:ro],...",
		    "serve block devices over NBD on port 10809: DEV[:ro],... (e.g. pmem1m:ro)");

void nbd_boot(void)
{
	char spec[64];

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
}

void nbd_exports_list(void)
{
	if (!tab_nth(NULL, 0))
		kprintf("nbd: nothing exported\n");
	for (unsigned int i = 0; i < NBD_MAX_EXPORTS; i++) {
		const struct srv_export *e = &nbd_exports_tab[i];
		if (!e->used)
			continue;
		kprintf("%s %llu bytes %s, READ %s, %u client%s\n", e->name, e->exp.size,
			e->exp.ro ? "ro" : "rw", e->how, e->clients, e->clients == 1 ? "" : "s");
	}
}
