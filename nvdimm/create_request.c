/*
 * create-namespace's request from its words, one parser for every way in:
 * the console (pfn_dev_cmds.c), pmem.create= (create_param.c) and the HTTP
 * API's JSON (net/api_json.c), so they cannot disagree. ndctl's spellings:
 * -m raw|fsdax|memory|devdax|dax|sector, -M mem|dev, -a 4K|2M|1G. Each
 * check says why in one line into a buffer; the console's versions print it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_pfn.h"
#include "nd_pfn_sb.h"
#include "params.h"
#include "printk.h"

/* snprintf into why (len may be 0), then -EINVAL. */
static int refuse(char *why, size_t len, const char *fmt, const char *word)
{
	if (len)
		snprintf(why, len, fmt, word);
	return -EINVAL;
}

int nd_pfn_align_why(const char *s, u64 *align, char *why, size_t len)
{
	const char *end;

	if (parse_size(s, align, &end) || *end ||
	    (*align != PAGE_SIZE && *align != 2 * MiB && *align != 1 * GiB))
		return refuse(why, len, "align '%s': expected 4K, 2M or 1G", s);
	if (!nd_pfn_align_supported(*align)) {
		refuse(why, len, "align '%s': this CPU has no 1 GiB pages (pdpe1gb); use 4K or 2M", s);
		return -EOPNOTSUPP;
	}
	return 0;
}

int nd_pfn_mode_why(const char *m, const char *map, struct nd_pfn_request *req, char *why,
		    size_t len)
{
	if (!strcmp(m, "raw") || !strcmp(m, "sector")) {
		req->mode = PFN_MODE_NONE;
		req->sector = !strcmp(m, "sector");
		if (req->sector && map && *map)
			return refuse(why, len, "map '%s': sector mode has no -M", map);
		return 0;
	}
	/* ndctl's spellings: fsdax or memory, devdax or dax. */
	req->devdax = !strcmp(m, "devdax") || !strcmp(m, "dax");
	if (strcmp(m, "fsdax") && strcmp(m, "memory") && !req->devdax)
		return refuse(why, len, "mode '%s': expected fsdax, devdax, sector or raw", m);
	if (!map || !strcmp(map, "dev"))
		req->mode = PFN_MODE_PMEM;
	else if (!strcmp(map, "mem"))
		req->mode = PFN_MODE_RAM;
	else
		return refuse(why, len, "map '%s': expected mem or dev", map);
	return 0;
}

const char *nd_create_args_why(bool region, bool ns, bool size_or_name,
			       const struct nd_pfn_request *req)
{
	if (req->lbasize && !req->sector)
		return "-l is for -m sector (other modes use the namespace's 512)";
	if (region == ns || (!region && size_or_name))
		return "give -e NS (reconfigure) or -r REGION [-s SIZE] [-n NAME] (new)";
	return NULL;
}

int nd_pfn_parse_align(const char *s, u64 *align)
{
	char why[128];
	int err = nd_pfn_align_why(s, align, why, sizeof(why));

	if (err)
		kprintf("%s\n", why);
	return err;
}

int nd_pfn_parse_mode(const char *m, const char *map, struct nd_pfn_request *req)
{
	char why[128];
	int err = nd_pfn_mode_why(m, map, req, why, sizeof(why));

	if (err)
		kprintf("%s\n", why);
	return err;
}
