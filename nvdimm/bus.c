/*
 * nvdimm buses and DIMMs (Linux's nvdimm_bus and nvdimm): a bus per
 * provider, DIMMs named nmemN in registration order; and nvdimm_publish(),
 * which publishes what the providers registered. The core knows no provider:
 * they call it (nd_bus_register, nvdimm_create, nd_region_create).
 */
#include <stdio.h>
#include <string.h>

#include "nvdimm.h"
#include "printk.h"
#include "shell.h"
#include "spinlock.h"

static struct nd_bus buses[ND_MAX_BUSES];
static u32 nr_buses;
static struct nvdimm dimms[ND_MAX_DIMMS];
static u32 nr_dimms;

struct nd_bus *nd_bus_register(const char *provider)
{
	if (nr_buses >= ND_MAX_BUSES) {
		pr_err("nvdimm: more than %d buses, %s bus not registered\n", ND_MAX_BUSES,
		       provider);
		return NULL;
	}
	struct nd_bus *bus = &buses[nr_buses];
	bus->id = (int)nr_buses++;
	bus->provider = provider;
	snprintf(bus->name, sizeof(bus->name), "ndbus%d", bus->id);
	return bus;
}

/* In the order ndctl prints its keys (ndctl/json.c), so `list` diffs against Linux's. */
const struct nd_dimm_flag_name nd_dimm_flag_names[7] = {
	{ ND_DIMM_MAP_FAILED, "map_fail", "flag_failed_map" },
	{ ND_DIMM_SAVE_FAILED, "save_fail", "flag_failed_save" },
	{ ND_DIMM_NOT_ARMED, "not_armed", "flag_failed_arm" },
	{ ND_DIMM_RESTORE_FAILED, "restore_fail", "flag_failed_restore" },
	{ ND_DIMM_FLUSH_FAILED, "flush_fail", "flag_failed_flush" },
	{ ND_DIMM_SMART_EVENT, "smart_event", "flag_smart_event" },
	{ ND_DIMM_SMART_NOTIFY, "smart_notify", NULL },
};

/* ", save_fail, not_armed": Linux's words for the flags that are set. */
static void print_flags(char *buf, size_t size, u32 flags)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(nd_dimm_flag_names) && len < size; i++)
		if (flags & nd_dimm_flag_names[i].flag)
			len += (size_t)snprintf(buf + len, size - len, ", %s",
						nd_dimm_flag_names[i].sysfs);
}

static void print_dimm(const struct nvdimm *d)
{
	char flags[96], hints[64] = "";

	print_flags(flags, sizeof(flags), d->flags);
	if (d->nr_flush_hints)
		snprintf(hints, sizeof(hints), ", %u flush hint%s at %#llx%s", d->nr_flush_hints,
			 d->nr_flush_hints > 1 ? "s" : "", d->flush_hint[0],
			 d->nr_flush_hints > 1 ? ".." : "");
	pr_info("nvdimm %s: %s handle %#x, phys_id %#x%s%s%s%s\n", d->name, d->bus->name,
		d->handle, d->phys_id, d->has_dcr ? ", id " : "", d->unique_id, flags, hints);
}

struct nvdimm *nvdimm_create(struct nd_bus *bus, const struct nvdimm *desc)
{
	if (nr_dimms >= ND_MAX_DIMMS) {
		pr_err("nvdimm: more than %d DIMMs, handle %#x on %s not registered\n",
		       ND_MAX_DIMMS, desc->handle, bus->name);
		return NULL;
	}
	struct nvdimm *d = &dimms[nr_dimms];
	*d = *desc;
	d->id = (int)nr_dimms++;
	d->bus = bus;
	snprintf(d->name, sizeof(d->name), "nmem%d", d->id);
	print_dimm(d);
	return d;
}

u32 nd_bus_count(void)
{
	return nr_buses;
}

struct nd_bus *nd_bus_get(u32 i)
{
	return i < nr_buses ? &buses[i] : NULL;
}

u32 nvdimm_count(void)
{
	return nr_dimms;
}

struct nvdimm *nvdimm_get(u32 i)
{
	return i < nr_dimms ? &dimms[i] : NULL;
}

struct nvdimm *nvdimm_find(const char *name)
{
	for (u32 i = 0; i < nr_dimms; i++)
		if (strcmp(dimms[i].name, name) == 0)
			return &dimms[i];
	return NULL;
}

void nd_reset(void)
{
	nd_regions_reset();
	nd_namespaces_reset();
	memset(dimms, 0, sizeof(dimms));
	memset(buses, 0, sizeof(buses));
	nr_dimms = 0;
	nr_buses = 0;
}

void nvdimm_publish(void)
{
	nd_regions_publish();
	if (!nd_region_count())
		pr_info("nvdimm: no persistent memory found (no NFIT range, no e820 type 7/12)\n");
}

/* The device model lock (include/nvdimm.h, include/spinlock.h's LOCK_RANK_ND). */
static struct rlock nd_rlock = RLOCK_INIT("nd", LOCK_RANK_ND);

void nd_lock(void)
{
	rlock_lock(&nd_rlock);
}

bool nd_trylock(void)
{
	return rlock_trylock(&nd_rlock);
}

void nd_unlock(void)
{
	rlock_unlock(&nd_rlock);
}

/* Shell commands not marked concurrent run under it (lib/shell.c). */
SHELL_LOCK(nd_lock, nd_trylock, nd_unlock);
