/*
 * `inject-error`, ndctl's verb and flags (ndctl-inject-error(1)): poison
 * 512-byte blocks of a namespace (counted from its start), heal them
 * (--uninject) or show them (--status). QEMU's firmware offers no
 * injection function, so this is the kernel's injector (media_error.h):
 * by default the platform is "notified" and the blocks are listed at once,
 * as ndctl's default; with --no-notify only the next read of them finds
 * them, through a real machine check.
 */
#include <errno.h>
#include <string.h>

#include "media_error.h"
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

/* --status: the namespace's poisoned blocks, as ndctl prints them. */
static void print_status(struct nd_namespace_io *ns)
{
	struct nd_region *r = ns->region;
	struct bb_extent e[BADBLOCKS_MAX];
	u64 first = (ns->start - r->start) >> BADBLOCK_SHIFT;
	u32 n = badblocks_range(&r->poison, first, ns->size >> BADBLOCK_SHIFT, e, BADBLOCKS_MAX,
				NULL);
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
}

/* Inject or uninject [block, block + count) of ns. */
static int apply(const char *cmd, struct nd_namespace_io *ns, const struct inject_args *a)
{
	struct nd_region *r = ns->region;
	u64 block, count = 1, blocks = ns->size >> BADBLOCK_SHIFT;

	if (shell_arg_u64(cmd, "block", a->block, 0, blocks - 1, &block) ||
	    (a->count && shell_arg_u64(cmd, "count", a->count, 1, blocks - block, &count)))
		return -EINVAL;
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
	if (a.status) {
		print_status(ns);
		return 0;
	}
	if (!a.block)
		return shell_arg_error(argv[0], "missing --block");
	return apply(argv[0], ns, &a);
}
SHELL_COMMAND(
	SHELL_NVDIMM, "inject-error", cmd_inject_error, INJECT_USAGE,
	"poison (or heal, -d) 512-byte blocks of a namespace: reads of them fail, a write heals them");
