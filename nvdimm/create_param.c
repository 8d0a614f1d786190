/*
 * pmem.create=: unattended namespace configuration at boot, applied after
 * the probe brought back what the media holds (an appliance's firmware
 * formats its namespaces with it, and a reboot changes nothing).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_btt.h"
#include "nd_pfn.h"
#include "params.h"
#include "printk.h"

/* pmem.create=NS:MODE[:MAP[:ALIGN[:force]]][,...]: unattended configuration at boot. */
static const char *create_param;

KERNEL_PARAM_STRING("pmem.create", create_param, "NS:fsdax|devdax[:dev|mem[:ALIGN[:force]]]",
		    "configure namespaces at boot: NS:fsdax|devdax|sector|raw[:dev|mem[:4K|2M|1G[:force]]],...");

/* Already what was asked for? Then an unattended boot changes nothing. */
static bool already_configured(struct nd_namespace_io *ns, const struct nd_pfn_request *req)
{
	struct nd_pfn *pfn = nd_pfn_of(ns);

	if (req->sector) {
		struct nd_btt *b = nd_btt_of(ns);
		return b && b->enabled && b->lbasize == ND_BTT_DEFAULT_LBASIZE;
	}
	if (req->mode == PFN_MODE_NONE)
		return !ns->claim; /* raw (a namespace disabled by a media error is not) */
	return pfn && pfn->pers == (req->devdax ? ND_PERS_DEVDAX : ND_PERS_FSDAX) && pfn->enabled && pfn->layout.mode == req->mode &&
	       pfn->layout.align == req->align;
}

static void apply_create_spec(char *spec)
{
	char *f[5] = { 0 };
	int n = 0;
	struct nd_pfn_request req = { .align = 2 * MiB };

	for (char *s = spec; s && n < 5; n++) {
		f[n] = s;
		s = strchr(s, ':');
		if (s)
			*s++ = '\0';
	}
	struct nd_namespace_io *ns = f[0] ? nd_namespace_find(f[0]) : NULL;
	if (!ns || !f[1] || nd_pfn_parse_mode(f[1], f[2], &req) || (f[3] && *f[3] && nd_pfn_parse_align(f[3], &req.align)) ||
	    (f[4] && strcmp(f[4], "force"))) {
		pr_err("pmem.create=%s: expected NS:fsdax|devdax|sector|raw[:dev|mem[:ALIGN[:force]]] for an existing namespace\n",
		       f[0] ? f[0] : "");
		return;
	}
	if (already_configured(ns, &req)) {
		pr_info("pmem.create: %s already configured\n", ns->name);
		return;
	}
	/* A raw namespace may be formatted unattended; anything else needs :force. */
	bool raw = !ns->claim; /* not one whose info blocks are unreadable */
	req.force = (f[4] != NULL) || (raw && (req.mode != PFN_MODE_NONE || req.sector));
	int err = nd_namespace_reconfigure(ns, &req);	/* says why when it fails */
	if (err)
		pr_err("pmem.create: %s not configured (error %d)\n", ns->name, err);
}

void nd_apply_create_param(void)
{
	char buf[256];

	if (!create_param)
		return;
	strncpy(buf, create_param, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (char *spec = strtok(buf, ","); spec; spec = strtok(NULL, ","))
		apply_create_spec(spec);
}
