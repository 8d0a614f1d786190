/*
 * pmemk-infoblock: read and write pfn info blocks in a namespace backing
 * file, like `ndctl read-infoblock` / `write-infoblock`, from the same
 * nvdimm/pfn_info.c the kernel uses. Tests use it to inspect what the kernel
 * wrote and to corrupt fields on purpose.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nd_pfn_sb.h"
#include "nd_util.h"
#include "params.h"

static const char usage_text[] =
	"usage: pmemk-infoblock COMMAND FILE [options]\n"
	"  read FILE                 print the info block as JSON (exit 0 valid, 1 invalid)\n"
	"  write FILE --mode dev|mem [--align 4K|2M|1G] [--uuid UUID]\n"
	"                            lay out a new block as Linux would and write it\n"
	"  set FILE FIELD=VALUE...   change fields, recompute the checksum\n"
	"                            (--stale-checksum keeps the old one)\n"
	"  zero FILE                 zero the info block (destroy-namespace)\n"
	"options:\n"
	"  --offset BYTES   where the namespace starts in FILE (default 0)\n"
	"  --size BYTES     namespace size (default: FILE size - offset)\n"
	"  --start PHYS     namespace physical base for alignment checks (default 0x100000000)\n"
	"fields: signature uuid parent_uuid flags version_major version_minor dataoff\n"
	"        npfns mode start_pad end_trunc align page_size page_struct_size checksum\n";

struct opts {
	const char *cmd, *file;
	u64 offset, size, start;
	bool have_size, stale;
	enum nd_pfn_mode mode;
	u64 align;
	const char *uuid;
	char **assign;
	int nassign;
};

static __noreturn void usage_error(const char *msg)
{
	if (msg)
		fprintf(stderr, "pmemk-infoblock: %s\n", msg);
	fputs(usage_text, stderr);
	exit(2);
}

static u64 size_arg(const char *name, const char *v)
{
	u64 x;
	const char *end;

	if (!v || parse_size(v, &x, &end) || *end) {
		fprintf(stderr, "pmemk-infoblock: %s: bad number '%s'\n", name, v ? v : "");
		exit(2);
	}
	return x;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static char *assign[64];

	*o = (struct opts){ .start = 0x100000000ULL, .align = 2 * MiB, .assign = assign };
	if (argc < 3)
		usage_error(NULL);
	o->cmd = argv[1];
	o->file = argv[2];
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--offset"))
			o->offset = size_arg(a, v), i++;
		else if (!strcmp(a, "--size"))
			o->size = size_arg(a, v), o->have_size = true, i++;
		else if (!strcmp(a, "--start"))
			o->start = size_arg(a, v), i++;
		else if (!strcmp(a, "--align"))
			o->align = size_arg(a, v), i++;
		else if (!strcmp(a, "--uuid"))
			o->uuid = v, i++;
		else if (!strcmp(a, "--mode")) {
			if (!v || (strcmp(v, "dev") && strcmp(v, "mem")))
				usage_error("--mode takes dev or mem");
			o->mode = !strcmp(v, "dev") ? PFN_MODE_PMEM : PFN_MODE_RAM;
			i++;
		} else if (!strcmp(a, "--stale-checksum"))
			o->stale = true;
		else if (strchr(a, '=') && o->nassign < 64)
			o->assign[o->nassign++] = argv[i];
		else
			usage_error("unknown argument");
	}
}

static int open_ns(const struct opts *o, int flags, struct nd_pfn_geom *g)
{
	struct stat st;
	int fd = open(o->file, flags);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "pmemk-infoblock: %s: %s\n", o->file, strerror(errno));
		exit(2);
	}
	memset(g, 0, sizeof(*g));
	g->start = o->start;
	g->size = o->have_size ? o->size : (u64)st.st_size - o->offset;
	if (o->offset + ND_PFN_SB_OFFSET + ND_PFN_SB_SIZE > (u64)st.st_size) {
		fprintf(stderr, "pmemk-infoblock: %s: too small for an info block\n", o->file);
		exit(2);
	}
	return fd;
}

static void io_block(int fd, const struct opts *o, struct nd_pfn_sb *sb, bool write)
{
	off_t at = (off_t)(o->offset + ND_PFN_SB_OFFSET);
	ssize_t n = write ? pwrite(fd, sb, sizeof(*sb), at) : pread(fd, sb, sizeof(*sb), at);

	if (n != (ssize_t)sizeof(*sb) || (write && fsync(fd))) {
		fprintf(stderr, "pmemk-infoblock: %s %s: %s\n", write ? "writing" : "reading",
			o->file, n < 0 ? strerror(errno) : "short transfer");
		exit(2);
	}
}

static void print_json(const struct nd_pfn_sb *sb, const struct opts *o, int err, const char *why)
{
	char sig[PFN_SIG_LEN + 1], uuid[UUID_STR_LEN + 1], parent[UUID_STR_LEN + 1];

	for (int i = 0; i < PFN_SIG_LEN; i++)
		sig[i] = sb->signature[i] >= ' ' && sb->signature[i] < 127 ? (char)sb->signature[i] : 0;
	sig[PFN_SIG_LEN] = 0;
	uuid_to_str(sb->uuid, uuid);
	uuid_to_str(sb->parent_uuid, parent);
	printf("{\"file\":\"%s\",\"signature\":\"%s\",\"uuid\":\"%s\",\"parent_uuid\":\"%s\","
	       "\"flags\":%u,\"version\":\"%u.%u\",\"dataoff\":%llu,\"npfns\":%llu,\"mode\":%u,"
	       "\"start_pad\":%u,\"end_trunc\":%u,\"align\":%u,\"page_size\":%u,"
	       "\"page_struct_size\":%u,\"checksum\":\"0x%016llx\",\"checksum_ok\":%s,"
	       "\"valid\":%s,\"reason\":\"%s\"}\n",
	       o->file, sig, uuid, parent, sb->flags, sb->version_major, sb->version_minor,
	       sb->dataoff, sb->npfns, sb->mode, sb->start_pad, sb->end_trunc, sb->align,
	       sb->page_size, sb->page_struct_size, sb->checksum,
	       sb->checksum == nd_pfn_sb_checksum(sb) ? "true" : "false", err ? "false" : "true",
	       why ? why : "");
}

static int cmd_read(const struct opts *o)
{
	struct nd_pfn_geom g;
	struct nd_pfn_sb sb;
	struct nd_pfn_layout l;
	const char *why;
	int fd = open_ns(o, O_RDONLY, &g);

	io_block(fd, o, &sb, false);
	close(fd);
	int err = nd_pfn_validate(&sb, &g, &l, &why);
	print_json(&sb, o, err, why);
	return err ? 1 : 0;
}

static u64 rand64(void)
{
	u64 v;
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		v = (u64)time(NULL) * 0x9E3779B97F4A7C15ULL;
	if (fd >= 0)
		close(fd);
	return v;
}

static int cmd_write(const struct opts *o)
{
	struct nd_pfn_geom g;
	struct nd_pfn_sb sb;
	u8 uuid[16];
	const char *why;

	if (!o->mode)
		usage_error("write needs --mode dev|mem");
	if (o->uuid ? uuid_parse(o->uuid, uuid) != 0 : (uuid_gen(uuid, rand64), false))
		usage_error("--uuid: not a uuid");
	int fd = open_ns(o, O_RDWR, &g);
	int err = nd_pfn_init(&sb, &g, o->mode, o->align, uuid, &why);
	if (err) {
		fprintf(stderr, "pmemk-infoblock: %s\n", why);
		return 1;
	}
	io_block(fd, o, &sb, true);
	close(fd);
	print_json(&sb, o, 0, NULL);
	return 0;
}

/* Set one FIELD=VALUE; returns false for an unknown field or bad value. */
static bool set_field(struct nd_pfn_sb *sb, const char *assign)
{
	char name[32];
	const char *v = strchr(assign, '=') + 1;
	size_t n = (size_t)(v - 1 - assign);
	u64 x = 0;
	const char *end = "";

	if (n >= sizeof(name))
		return false;
	memcpy(name, assign, n);
	name[n] = 0;
	if (!strcmp(name, "signature")) {
		memset(sb->signature, 0, PFN_SIG_LEN);
		memcpy(sb->signature, v, MIN(strlen(v), (size_t)PFN_SIG_LEN));
		return true;
	}
	if (!strcmp(name, "uuid"))
		return uuid_parse(v, sb->uuid) == 0;
	if (!strcmp(name, "parent_uuid"))
		return uuid_parse(v, sb->parent_uuid) == 0;
	if (parse_size(v, &x, &end) || *end)
		return false;
#define FIELD(f) if (!strcmp(name, #f)) { sb->f = (__typeof__(sb->f))x; return sb->f == x; }
	FIELD(flags) FIELD(version_major) FIELD(version_minor) FIELD(dataoff) FIELD(npfns)
	FIELD(mode) FIELD(start_pad) FIELD(end_trunc) FIELD(align) FIELD(page_size)
	FIELD(page_struct_size) FIELD(checksum)
#undef FIELD
	return false;
}

static int cmd_set(const struct opts *o)
{
	struct nd_pfn_geom g;
	struct nd_pfn_sb sb;
	struct nd_pfn_layout l;
	const char *why;
	bool explicit_sum = false;
	int fd = open_ns(o, O_RDWR, &g);

	if (!o->nassign)
		usage_error("set needs FIELD=VALUE");
	io_block(fd, o, &sb, false);
	for (int i = 0; i < o->nassign; i++) {
		if (!set_field(&sb, o->assign[i])) {
			fprintf(stderr, "pmemk-infoblock: cannot set '%s'\n", o->assign[i]);
			return 2;
		}
		explicit_sum |= !strncmp(o->assign[i], "checksum=", 9);
	}
	if (!o->stale && !explicit_sum)
		sb.checksum = nd_pfn_sb_checksum(&sb);
	io_block(fd, o, &sb, true);
	close(fd);
	int err = nd_pfn_validate(&sb, &g, &l, &why);
	print_json(&sb, o, err, why);
	return 0;
}

static int cmd_zero(const struct opts *o)
{
	struct nd_pfn_geom g;
	struct nd_pfn_sb sb;
	int fd = open_ns(o, O_RDWR, &g);

	memset(&sb, 0, sizeof(sb));
	io_block(fd, o, &sb, true);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	parse_args(argc, argv, &o);
	if (!strcmp(o.cmd, "read"))
		return cmd_read(&o);
	if (!strcmp(o.cmd, "write"))
		return cmd_write(&o);
	if (!strcmp(o.cmd, "set"))
		return cmd_set(&o);
	if (!strcmp(o.cmd, "zero"))
		return cmd_zero(&o);
	usage_error("unknown command");
}
