/*
 * `inject-error`, ndctl's verb and flags (ndctl-inject-error(1)): poison
 * 512-byte blocks of a namespace (counted from its start), take the
 * injection back (--uninject) or show it (--status).
 *
 * When the region's firmware has ARS error injection (root _DSM functions
 * 7/8/9, nd_ars.h; the App Direct platform), that is what is used, as
 * ndctl does: the firmware adds the range to its error list, and a scrub
 * reports it. By default the firmware is asked to notify the OS; pmemk
 * has no ACPI events, so it answers as Linux answers that notification,
 * with a scrub of the region, which lists the blocks; with --no-notify the
 * next start-scrub / wait-scrub lists them. --uninject removes the
 * firmware's injection only: the kernel's list keeps the blocks until a
 * write clears them (ndctl-inject-error(1) says the same of Linux).
 *
 * Without it (QEMU's own NVDIMMs) this is the kernel's injector
 * (media_error.h): by default the blocks are listed at once, as ndctl's
 * notify; with --no-notify only the next read of them finds them, through
 * a real machine check; --uninject heals them.
 */
#include <errno.h>
#include <string.h>

#include "media_error.h"
#include "nd_ars.h"
#include "nd_util.h"
#include "nvdimm.h"
#include "printk.h"
#include "shell.h"

#define INJECT_USAGE                                                                               \
	"inject-error NS -B|--block=N [-n|--count=M] [-d|--uninject] [-t|--status] [-N|--no-notify]"

struct inject_args {
	const char *ns, *block, *count;
	bool uninject, status, no_notify;
};

/* "--block=N" or "-B N" / "--block N": the value, else NULL (not this option). */
static const char *opt_value(int argc, char **argv, int *i, const char *s, const char *l, bool *bad)
{
	size_t n = strlen(l);

	if (!strncmp(argv[*i], l, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (!shell_arg_flag(argv[*i], s, l))
		return NULL;
	const char *v = shell_arg_value(argc, argv, i);
	*bad = !v;
	return v;
}

static int parse(int argc, char **argv, struct inject_args *a)
{
	for (int i = 1; i < argc; i++) {
		bool bad = false;
		const char *v;
		if ((v = opt_value(argc, argv, &i, "-B", "--block", &bad)))
			a->block = v;
		else if ((v = opt_value(argc, argv, &i, "-n", "--count", &bad)))
			a->count = v;
		else if (bad)
			return -EINVAL;
		else if (shell_arg_flag(argv[i], "-d", "--uninject"))
			a->uninject = true;
		else if (shell_arg_flag(argv[i], "-t", "--status"))
			a->status = true;
		else if (shell_arg_flag(argv[i], "-N", "--no-notify"))
			a->no_notify = true;
		else if (argv[i][0] == '-' || a->ns)
			return shell_arg_unexpected(argv[0], argv[i]);
		else
			a->ns = argv[i];
		if (bad)
			return -EINVAL;
	}
	return shell_arg_name(argv[0], "namespace", a->ns);
}

/* Does the region's firmware inject errors (functions 7, 8 and 9)? */
static bool firmware_injects(const struct nd_region *r)
{
	return nd_ars_has(r, ND_ARS_FN_INJECT) && nd_ars_has(r, ND_ARS_FN_INJECT_CLEAR) &&
	       nd_ars_has(r, ND_ARS_FN_INJECT_STATUS);
}

/*
 * The firmware's injected ranges (function 9) that meet ns, as namespace
 * blocks into e (at most max): how many, or a negative errno.
 */
static int firmware_status(struct nd_namespace_io *ns, struct bb_extent *e, u32 max)
{
	u64 addr[BADBLOCKS_MAX], len[BADBLOCKS_MAX];
	int n = nd_ars_inject_status(ns->region, addr, len, BADBLOCKS_MAX);
	u32 k = 0;

	for (int i = 0; i < n && i < BADBLOCKS_MAX && k < max; i++) {
		u64 a = MAX(addr[i], ns->start), b = MIN(addr[i] + len[i], ns->start + ns->size);
		if (!len[i] || addr[i] + len[i] < addr[i] || a >= b)
			continue;
		u64 first = (a - ns->start) >> BADBLOCK_SHIFT;
		e[k++] = (struct bb_extent){ first, ((b - ns->start - 1) >> BADBLOCK_SHIFT) - first + 1 };
	}
	return n < 0 ? n : (int)k;
}

/* --status: the namespace's poisoned blocks, as ndctl prints them. */
static int print_status(struct nd_namespace_io *ns)
{
	struct nd_region *r = ns->region;
	struct bb_extent e[BADBLOCKS_MAX];
	u64 first = (ns->start - r->start) >> BADBLOCK_SHIFT;
	u32 n;
	if (firmware_injects(r)) {
		int k = firmware_status(ns, e, BADBLOCKS_MAX);
		if (k < 0)
			return k;
		n = (u32)k;
	} else {
		n = badblocks_range(&r->poison, first, ns->size >> BADBLOCK_SHIFT, e, BADBLOCKS_MAX,
				    NULL);
	}
	struct nd_json j = { .first = true };

	nd_json_open(&j, NULL, '{');
	nd_json_open(&j, "badblocks", '[');
	for (u32 i = 0; i < n && i < BADBLOCKS_MAX; i++) {
		nd_json_open(&j, NULL, '{');
		nd_json_u64(&j, "block", e[i].sector);
		nd_json_u64(&j, "count", e[i].len);
		nd_json_close(&j, '}');
	}
	nd_json_close(&j, ']');
	nd_json_close(&j, '}');
	return 0;
}

/*
 * Through the firmware: function 7 (8 for --uninject) over the blocks'
 * physical range; with the notification, the scrub that answers it.
 */
static int apply_firmware(const char *cmd, struct nd_namespace_io *ns, const struct inject_args *a,
			  u64 block, u64 count)
{
	struct nd_region *r = ns->region;
	u64 phys = ns->start + (block << BADBLOCK_SHIFT), bytes = count << BADBLOCK_SHIFT;
	u32 records = 0;

	int err = a->uninject ? nd_ars_uninject(r, phys, bytes) :
				nd_ars_inject(r, phys, bytes, !a->no_notify);
	if (err) {
		kprintf("%s %s: the firmware refused (error %d)\n", cmd, ns->name, err);
		return err;
	}
	if (a->uninject) {
		kprintf("%s %s: the firmware's injection at blocks %llu-%llu (%llu bytes at %#llx) removed; listed blocks stay listed until written\n",
			cmd, ns->name, block, block + count - 1, bytes, phys);
		return 0;
	}
	/* No ACPI events here: answer the notification as Linux does, with a scrub. */
	if (!a->no_notify) {
		err = nd_ars_start_region(r);
		if (!err || err == -EBUSY) /* busy: the wait starts it after the running one */
			err = nd_ars_wait(r, 30000, &records);
	}
	kprintf("%s %s: the firmware injected an error at blocks %llu-%llu (%llu bytes at %#llx)%s\n",
		cmd, ns->name, block, block + count - 1, bytes, phys,
		a->no_notify ? "; the next scrub lists them (start-scrub, wait-scrub)" :
		err	     ? "; the scrub answering the notification failed" :
			       "; listed by the scrub answering the notification");
	return err;
}

/* Inject or uninject [block, block + count) of ns. */
static int apply(const char *cmd, struct nd_namespace_io *ns, const struct inject_args *a)
{
	struct nd_region *r = ns->region;
	u64 block, count = 1, blocks = ns->size >> BADBLOCK_SHIFT;

	if (shell_arg_u64(cmd, "block", a->block, 0, blocks - 1, &block) ||
	    (a->count && shell_arg_u64(cmd, "count", a->count, 1, blocks - block, &count)))
		return -EINVAL;
	if (firmware_injects(r))
		return apply_firmware(cmd, ns, a, block, count);
	u64 sector = ((ns->start - r->start) >> BADBLOCK_SHIFT) + block;
	int err = a->uninject ? media_uninject(r, sector, count) : media_inject(r, sector, count);
	if (err) {
		kprintf("%s %s: %s (error %d)\n", cmd, ns->name,
			err == -ENOSPC ? "the list is full" : "failed", err);
		return err;
	}
	if (!a->uninject && !a->no_notify)
		media_error_notify(r->start + (sector << BADBLOCK_SHIFT), count << BADBLOCK_SHIFT,
				   MEDIA_ERR_INJECT);
	media_errors_drain();
	kprintf("%s %s: %s blocks %llu-%llu (%llu bytes at %#llx)%s\n", cmd, ns->name,
		a->uninject ? "healed" : "poisoned", block, block + count - 1,
		count << BADBLOCK_SHIFT, ns->start + (block << BADBLOCK_SHIFT),
		a->uninject || !a->no_notify ? "" :
					       "; the next read of them takes a machine check");
	return 0;
}

static int cmd_inject_error(int argc, char **argv)
{
	struct inject_args a = { 0 };

	if (parse(argc, argv, &a))
		return -EINVAL;
	struct nd_namespace_io *ns = nd_namespace_find(a.ns);
	if (!ns) {
		kprintf("%s: no such namespace (see 'list -N')\n", a.ns);
		return -EINVAL;
	}
	if (a.status)
		return print_status(ns);
	if (!a.block)
		return shell_arg_error(argv[0], "missing --block");
	return apply(argv[0], ns, &a);
}
SHELL_COMMAND(
	SHELL_NVDIMM, "inject-error", cmd_inject_error, INJECT_USAGE,
	"poison (or take back, -d) 512-byte blocks of a namespace, through the firmware when it can: reads of them fail, a write heals them");
