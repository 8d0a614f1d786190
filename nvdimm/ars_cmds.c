/*
 * `start-scrub` and `wait-scrub`, ndctl's verbs (ndctl-start-scrub(1),
 * ndctl-wait-scrub(1)) over the firmware's Address Range Scrub (nd_ars.h),
 * per region (ndctl takes buses; here a region, a bus or nothing: all).
 * start-scrub returns at once; wait-scrub waits for each region's scrub
 * (starting one that another region's kept waiting) and lists what it
 * found in the region's bad-block list, as Linux does behind ndctl.
 */
#include <errno.h>
#include <string.h>

#include "badblocks.h"
#include "nd_ars.h"
#include "nvdimm.h"
#include "printk.h"
#include "shell.h"

#define WAIT_SCRUB_MS 30000 /* per region: ndctl waits for ever, a shell should not */

/* Does `name` (a region, a bus, or NULL: all) select r? */
static bool selects(const char *name, const struct nd_region *r)
{
	return !name || !strcmp(name, r->name) || (r->bus && !strcmp(name, r->bus->name));
}

/* The regions `name` selects that have ARS: their count, after a line when none. */
static u32 scrub_regions(const char *cmd, const char *name)
{
	u32 n = 0, named = 0;

	for (u32 i = 0; i < nd_region_count(); i++) {
		struct nd_region *r = nd_region_get(i);
		named += selects(name, r);
		n += selects(name, r) && nd_ars_has(r, ND_ARS_FN_START);
	}
	if (name && !named)
		kprintf("%s: no region or bus %s\n", cmd, name);
	else if (!n)
		kprintf("%s: the firmware offers no Address Range Scrub%s%s\n", cmd,
			name ? " for " : "", name ? name : "");
	return n;
}

static int cmd_start_scrub(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	int rc = 0;

	if (shell_args_max(argc, argv, 2))
		return -EINVAL;
	if (!scrub_regions(argv[0], name))
		return -ENODEV;
	for (u32 i = 0; i < nd_region_count(); i++) {
		struct nd_region *r = nd_region_get(i);
		if (!selects(name, r) || !nd_ars_has(r, ND_ARS_FN_START))
			continue;
		int err = nd_ars_start_region(r);
		if (err == -EBUSY)
			kprintf("%s: scrub requested (the firmware is busy: wait-scrub starts it)\n",
				r->name);
		else if (err)
			kprintf("%s: scrub not started (error %d)\n", r->name, err);
		else
			kprintf("%s: scrub started\n", r->name);
		if (err && err != -EBUSY)
			rc = err;
	}
	return rc;
}
SHELL_COMMAND(SHELL_NVDIMM, "start-scrub", cmd_start_scrub, "start-scrub [regionN|ndbusN]",
	      "start the firmware's Address Range Scrub of a region (all: none named)");

static int cmd_wait_scrub(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	int rc = 0;

	if (shell_args_max(argc, argv, 2))
		return -EINVAL;
	if (!scrub_regions(argv[0], name))
		return -ENODEV;
	for (u32 i = 0; i < nd_region_count(); i++) {
		struct nd_region *r = nd_region_get(i);
		u32 records;
		u64 sectors;
		if (!selects(name, r) || !nd_ars_has(r, ND_ARS_FN_STATUS))
			continue;
		int err = nd_ars_wait(r, WAIT_SCRUB_MS, &records);
		if (err) {
			kprintf("%s: scrub %s (error %d)\n", r->name,
				err == -ETIMEDOUT ? "still running" : "failed", err);
			rc = err;
			continue;
		}
		badblocks_range(&r->bb, 0, r->size >> BADBLOCK_SHIFT, NULL, 0, &sectors);
		kprintf("%s: scrub complete: %u error record%s, %llu bad sector%s listed\n", r->name,
			records, records == 1 ? "" : "s", sectors, sectors == 1 ? "" : "s");
	}
	return rc;
}
SHELL_COMMAND(SHELL_NVDIMM, "wait-scrub", cmd_wait_scrub, "wait-scrub [regionN|ndbusN]",
	      "wait for the Address Range Scrub of a region (all: none named) and list what it found");
