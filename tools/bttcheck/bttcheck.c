/*
 * pmemk-bttcheck: read a sector-mode (BTT) namespace backing file through
 * its map with pmemk's own BTT code (nvdimm/btt.c, btt_check.c, compiled
 * for the host), and judge it after QEMU was killed in the middle of a
 * write (test/qemu/cases/crash.sh, case_crash_btt_sigkill_during_writes).
 *
 * The data is the shell's seq=G pattern (nd_seq_word, nd_util.h): each
 * 8-byte word encodes G and its byte offset on the block device, so a
 * sector read through the map is "wholly generation G of this LBA", or
 * zero (never written), or wrong, and which wrong can be told: torn (two
 * generations in one sector), another LBA's data (a map entry pointing at
 * the wrong block), or foreign bytes. Generations are 1..254.
 *
 *   fill IMAGE --seq G [--range LBA COUNT]
 *       Write seq=G sectors through the BTT (btt_write, the engine's atomic
 *       write path), the whole device unless --range.
 *   gens IMAGE STATE
 *       Every sector must be one generation (or zero): STATE gets one byte
 *       per LBA, its generation (0: zero).
 *   check IMAGE STATE --range LBA COUNT --seq G [--update]
 *       After a kill during `write DEV LBA COUNT seq=G`: (1) pmemk's
 *       check-namespace (btt_check, no repair) on the image as it is finds
 *       nothing but logged-but-unmapped writes, the ones the next boot
 *       rolls forward; (2) btt_open does that roll-forward, each one a
 *       line; (3) check-namespace is then clean; (4) each sector outside
 *       the range is STATE's generation, each inside STATE's or G, never
 *       torn or another LBA's. --update stores the result into STATE.
 *   pending IMAGE
 *       Exit 0 if a write is logged but not mapped, as check-namespace
 *       finds it (what a kill at this moment leaves to roll forward), 1 if
 *       not, 2 if check-namespace finds anything else. For a test that
 *       stops QEMU (SIGSTOP) at random moments and kills it at such a one.
 *   cmps STATE DEV
 *       The shell commands (`cmp DEV LBA N seq=G; ...`) that check a
 *       device against STATE, one per run of equal generation.
 *   recover IMAGE
 *       Open the BTT in place, as pmemk's boot does: its roll-forward is
 *       stored in IMAGE (the Linux suite sets this against Linux's).
 *   dump IMAGE
 *       The block device's bytes through the map (after the roll-forward
 *       the next boot makes, in this process's copy) to stdout.
 *   where IMAGE LBA
 *       Where LBA's map entry and data block lie in IMAGE (file offsets).
 *   tear IMAGE LBA --seq G
 *       Plant a torn sector: the second half of LBA's block becomes seq=G.
 *   swap IMAGE LBA1 LBA2
 *       Plant two misplaced sectors: exchange their map entries (the
 *       metadata stays consistent; only the data shows it).
 * (tear and swap write IMAGE directly, not through the BTT: they exist to
 * show that check and the guest's cmp catch what they plant.)
 *
 * The image is mapped privately (copy on write) for all but fill, recover,
 * tear and swap:
 * a roll-forward the check makes, as the next boot will, stays in this
 * process. The namespace is the whole file (a label-less QEMU nvdimm); the
 * BTT is found at 4096 (1.1) or 0 (2.0). Exit 0 if all is as said, 1 if
 * not, 2 on a usage or I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btt.h"
#include "host.h"
#include "nd_util.h"

#define GEN_ZERO 0
#define GEN_MAX 254
#define GEN_BAD 255
#define MAX_REPORTS 10

static const char usage_text[] =
	"usage: pmemk-bttcheck fill IMAGE --seq G [--range LBA COUNT]\n"
	"       pmemk-bttcheck gens IMAGE STATE\n"
	"       pmemk-bttcheck check IMAGE STATE --range LBA COUNT --seq G [--update]\n"
	"       pmemk-bttcheck pending IMAGE\n"
	"       pmemk-bttcheck cmps STATE DEV\n"
	"       pmemk-bttcheck recover IMAGE\n"
	"       pmemk-bttcheck dump IMAGE\n"
	"       pmemk-bttcheck where IMAGE LBA\n"
	"       pmemk-bttcheck tear IMAGE LBA --seq G\n"
	"       pmemk-bttcheck swap IMAGE LBA1 LBA2\n";

struct opts {
	const char *cmd, *args[3];
	int nargs;
	u64 lba, count, seq;
	bool have_range, have_seq, update;
};

static __noreturn void usage_error(const char *msg)
{
	if (msg)
		fprintf(stderr, "pmemk-bttcheck: %s\n", msg);
	fputs(usage_text, stderr);
	exit(2);
}

static u64 num_arg(const char *name, const char *v)
{
	char *end = NULL;
	u64 x = v ? strtoull(v, &end, 0) : 0;

	if (!v || end == v || *end) {
		fprintf(stderr, "pmemk-bttcheck: %s: bad number '%s'\n", name, v ? v : "");
		exit(2);
	}
	return x;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ 0 };
	if (argc < 3)
		usage_error(NULL);
	o->cmd = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--range") && i + 2 < argc) {
			o->lba = num_arg(a, argv[i + 1]);
			o->count = num_arg(a, argv[i + 2]);
			o->have_range = true;
			i += 2;
		} else if (!strcmp(a, "--seq") && i + 1 < argc) {
			o->seq = num_arg(a, argv[++i]);
			o->have_seq = true;
		} else if (!strcmp(a, "--update")) {
			o->update = true;
		} else if (a[0] != '-' && o->nargs < 3) {
			o->args[o->nargs++] = a;
		} else {
			usage_error("unknown argument");
		}
	}
	if (o->have_seq && (o->seq < 1 || o->seq > GEN_MAX))
		usage_error("generations are 1..254");
}

/* ---- the image, and the BTT in it ---- */

struct image {
	struct nsio m;
	struct btt b;
	u64 size;
};

/* Map IMAGE: shared and writable for fill, else a private copy-on-write view. */
static void image_map(struct image *im, const char *path, bool shared)
{
	struct stat st;
	int fd = open(path, shared ? O_RDWR : O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "pmemk-bttcheck: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	im->size = (u64)st.st_size;
	void *p = mmap(NULL, im->size, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE,
		       fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "pmemk-bttcheck: mmap %s: %s\n", path, strerror(errno));
		exit(2);
	}
	im->m = (struct nsio){ .base = p, .size = im->size };
}

static void image_unmap(struct image *im)
{
	btt_close(&im->b);
	munmap(im->m.base, im->size);
}

/* Where messages go: stdout, but stderr when stdout carries data (dump). */
static FILE *msg_out;

/* Print what pmemk's code said since the last reset, each line indented. */
static void show_console(void)
{
	const char *t = host_console_text();

	while (*t) {
		const char *nl = strchr(t, '\n');
		int n = nl ? (int)(nl - t) : (int)strlen(t);
		fprintf(msg_out, "  | %.*s\n", n, t);
		t += n + (nl != NULL);
	}
	host_console_reset();
}

/* btt_open at 4096 (BTT 1.1), else at 0 (2.0); its lines are shown. */
static void image_open(struct image *im)
{
	static const u8 zero[16];
	char why[192];
	int err = btt_open(&im->b, &im->m, BTT_V1_OFFSET, zero, "btt", why, sizeof(why));

	if (err == -ENODEV || err == -ENXIO)
		err = btt_open(&im->b, &im->m, BTT_V2_OFFSET, zero, "btt", why, sizeof(why));
	show_console();
	if (err) {
		fprintf(msg_out, "bttcheck: no BTT to open: %s (error %d)\n", why, err);
		exit(1);
	}
}

/* ---- what a sector holds ---- */

/* The inverse of nd_seq_word's multiplier mod 2^64 (Newton; the multiplier is odd). */
static u64 seq_mul_inverse(void)
{
	const u64 k = nd_seq_word(0, 1);
	u64 x = k;

	for (int i = 0; i < 6; i++)
		x *= 2 - k * x;
	return x;
}

static u64 word_at(const u8 *p)
{
	u64 w;

	memcpy(&w, p, 8);
	return w;
}

/* The generation of sector `lba` (device offset off): 1..254, GEN_ZERO, or GEN_BAD. */
static u32 classify(const u8 *s, u32 ss, u64 off)
{
	u64 g = word_at(s) ^ nd_seq_word(0, off);
	bool zero = true;

	for (u32 i = 0; i < ss && zero; i += 8)
		zero = !word_at(s + i);
	if (zero)
		return GEN_ZERO;
	if (g < 1 || g > GEN_MAX)
		return GEN_BAD;
	for (u32 i = 8; i < ss; i += 8)
		if (word_at(s + i) != nd_seq_word(g, off + i))
			return GEN_BAD;
	return (u32)g;
}

/* Why sector `lba` is not one generation of its own: torn, another LBA's, or foreign. */
static void explain(const struct image *im, u64 lba, const u8 *s)
{
	u32 ss = im->b.lbasize;
	u64 off = lba * ss, g0 = word_at(s) ^ nd_seq_word(0, off), kinv = seq_mul_inverse();

	if (g0 >= 1 && g0 <= GEN_MAX) {
		u32 i = 8;
		while (i < ss && word_at(s + i) == nd_seq_word(g0, off + i))
			i += 8;
		if (i >= ss)
			return;	/* whole: classify() would not have called it bad */
		u64 gi = word_at(s + i) ^ nd_seq_word(0, off + i);
		if (gi >= 1 && gi <= GEN_MAX)
			printf("bttcheck: LBA %llu is torn: bytes 0-%u of seq=%llu, byte %u on of seq=%llu\n",
			       lba, i - 1, g0, i, gi);
		else
			printf("bttcheck: LBA %llu: bytes 0-%u of seq=%llu, byte %u on foreign\n", lba,
			       i - 1, g0, i);
		return;
	}
	/* Word 0 of another LBA's sector decodes to that LBA's offset. */
	for (u64 g = 1; g <= GEN_MAX; g++) {
		u64 o = (word_at(s) ^ g) * kinv;
		if (o % ss == 0 && o / ss < im->b.nlba) {
			printf("bttcheck: LBA %llu holds LBA %llu's data (seq=%llu): mapped to the wrong block\n",
			       lba, o / ss, g);
			return;
		}
	}
	printf("bttcheck: LBA %llu holds foreign data (word 0 %#llx)\n", lba, word_at(s));
}

/* Classify every sector into gens[]; explain the first bad ones; count them. */
static u64 read_gens(struct image *im, u8 *gens)
{
	u32 ss = im->b.lbasize;
	u8 *buf = malloc(ss);
	u64 bad = 0;

	if (!buf)
		exit(2);
	for (u64 lba = 0; lba < im->b.nlba; lba++) {
		int err = btt_read(&im->b, lba, buf);
		u32 g = err ? GEN_BAD : classify(buf, ss, lba * ss);
		gens[lba] = (u8)g;
		if (g != GEN_BAD)
			continue;
		if (++bad > MAX_REPORTS)
			continue;
		if (err)
			printf("bttcheck: LBA %llu: read failed (error %d)\n", lba, err);
		else
			explain(im, lba, buf);
	}
	free(buf);
	return bad;
}

/* ---- state files: one byte per LBA ---- */

static u8 *state_read(const char *path, u64 n)
{
	u8 *st = malloc(n ? n : 1);
	FILE *f = fopen(path, "rb");

	if (!st || !f || fread(st, 1, n, f) != n || fgetc(f) != EOF) {
		fprintf(stderr, "pmemk-bttcheck: %s: not a state file of %llu sectors\n", path, n);
		exit(2);
	}
	fclose(f);
	return st;
}

static u64 state_size(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "pmemk-bttcheck: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return (u64)st.st_size;
}

static void state_write(const char *path, const u8 *st, u64 n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(st, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "pmemk-bttcheck: %s: cannot write\n", path);
		exit(2);
	}
}

/* ---- commands ---- */

static int cmd_fill(const struct opts *o)
{
	struct image im;

	if (o->nargs != 1 || !o->have_seq)
		usage_error("fill needs IMAGE and --seq");
	image_map(&im, o->args[0], true);
	image_open(&im);
	u64 first = o->have_range ? o->lba : 0, n = o->have_range ? o->count : im.b.nlba;
	if (first > im.b.nlba || n > im.b.nlba - first)
		usage_error("range past the end of the device");
	u32 ss = im.b.lbasize;
	u8 *buf = malloc(ss);
	for (u64 lba = first; buf && lba < first + n; lba++) {
		for (u32 i = 0; i < ss; i += 8) {
			u64 w = nd_seq_word(o->seq, lba * ss + i);
			memcpy(buf + i, &w, 8);
		}
		int err = btt_write(&im.b, lba, buf);
		if (err) {
			printf("bttcheck: write of LBA %llu failed (error %d)\n", lba, err);
			exit(1);
		}
	}
	free(buf);
	int rc = msync(im.m.base, im.size, MS_SYNC) ? 2 : 0;
	image_unmap(&im);
	printf("bttcheck: %llu sectors of %u bytes written with seq=%llu\n", n, ss, o->seq);
	return rc;
}

static int cmd_gens(const struct opts *o)
{
	struct image im;

	if (o->nargs != 2)
		usage_error("gens needs IMAGE and STATE");
	image_map(&im, o->args[0], false);
	image_open(&im);
	u8 *gens = malloc(im.b.nlba);
	if (!gens)
		return 2;
	u64 bad = read_gens(&im, gens);
	state_write(o->args[1], gens, im.b.nlba);
	printf("bttcheck: %llu sectors of %u bytes, %llu not one generation\n", im.b.nlba,
	       im.b.lbasize, bad);
	free(gens);
	image_unmap(&im);
	return bad ? 1 : 0;
}

/* Is `line` one of check-namespace's findings about a logged-but-unmapped write? */
static bool pending_line(const char *line, int *pending, int *dups)
{
	if (strstr(line, "doesn't match map[")) {
		(*pending)++;
		return true;
	}
	/* Until it is rolled forward, the old block is both mapped and free. */
	if (strstr(line, "is referenced by two map/log entries") ||
	    strstr(line, "internal blocks are incorrectly referenced (")) {
		const char *p = strstr(line, "referenced (");
		if (p)
			sscanf(p, "referenced (%d twice", dups);
		return true;
	}
	return strstr(line, "needs to be updated to") || strstr(line, "Run with --repair") ||
	       strstr(line, ": checking arena") || strstr(line, ": found a BTT");
}

/*
 * check-namespace on the image as the kill left it: the only findings
 * allowed are those of a logged-but-unmapped write (ndctl's "log[N].new_map
 * ... doesn't match map[...]", and its old block referenced twice), which
 * the next boot rolls forward. Returns how many, or -1 if anything else was
 * found.
 */
static int check_as_left(struct image *im)
{
	static const u8 zero[16];
	int err = btt_check(&im->m, zero, "btt", false);
	const char *t = host_console_text();
	int pending = 0, dups = 0, other = 0;

	while (*t) {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) : strlen(t);
		char line[256];
		snprintf(line, sizeof(line), "%.*s", (int)MIN(n, sizeof(line) - 1), t);
		if (!pending_line(line, &pending, &dups))
			other++;
		t += n + (nl != NULL);
	}
	show_console();
	if (other || dups != pending || (err && !pending))
		return -1;
	return pending;
}

static int cmd_check(const struct opts *o)
{
	static const u8 zero[16];
	struct image im;
	int rc = 0;

	if (o->nargs != 2 || !o->have_range || !o->have_seq)
		usage_error("check needs IMAGE, STATE, --range and --seq");
	image_map(&im, o->args[0], false);
	int pending = check_as_left(&im);
	if (pending < 0) {
		printf("bttcheck: check-namespace found more than a write to roll forward\n");
		rc = 1;
	}
	image_open(&im);
	if (pending >= 0 && im.b.rolled_forward != (u32)pending) {
		printf("bttcheck: check-namespace saw %d writes to roll forward, the open rolled %u\n",
		       pending, im.b.rolled_forward);
		rc = 1;
	}
	if (btt_check(&im.m, zero, "btt", false)) {
		show_console();
		printf("bttcheck: check-namespace not clean after the roll-forward\n");
		rc = 1;
	}
	host_console_reset();
	u64 n = im.b.nlba;
	if (o->lba > n || o->count > n - o->lba)
		usage_error("range past the end of the device");
	u8 *st = state_read(o->args[1], n), *gens = malloc(n);
	if (!gens)
		return 2;
	u64 bad = read_gens(&im, gens), wrong = 0, fresh = 0, run = 0;
	for (u64 lba = 0; lba < n; lba++) {
		bool inside = lba >= o->lba && lba < o->lba + o->count;
		if (gens[lba] == GEN_BAD)
			continue;
		if (inside && gens[lba] == o->seq) {
			fresh++;
			continue;
		}
		if (gens[lba] == st[lba])
			continue;
		if (++wrong <= MAX_REPORTS)
			printf("bttcheck: LBA %llu is seq=%u, want %u%s\n", lba, gens[lba], st[lba],
			       inside ? " or the write's" : " (outside the write)");
	}
	/* One lane, ascending sectors: the new ones should be the range's first. */
	while (run < o->count && gens[o->lba + run] == o->seq)
		run++;
	bool prefix = fresh && run == fresh;
	printf("bttcheck: %llu sectors of %u bytes checked; in the write [%llu, %llu): %llu new (seq=%llu), %llu old%s; %u rolled forward; %llu torn or misplaced, %llu of a wrong generation\n",
	       n, im.b.lbasize, o->lba, o->lba + o->count, fresh, o->seq, o->count - fresh,
	       fresh && prefix ? ", the new ones a prefix" : "", im.b.rolled_forward, bad, wrong);
	if (bad || wrong)
		rc = 1;
	if (!rc && o->update)
		state_write(o->args[1], gens, n);
	free(st);
	free(gens);
	image_unmap(&im);
	return rc;
}

/* pending IMAGE: is a write logged but not mapped (a kill now would leave one to roll forward)? */
static int cmd_pending(const struct opts *o)
{
	struct image im;

	if (o->nargs != 1)
		usage_error("pending needs IMAGE");
	image_map(&im, o->args[0], false);
	host_console_reset();
	int pending = check_as_left(&im);
	munmap(im.m.base, im.size);
	if (pending < 0)
		return 2;
	printf("bttcheck: %d logged but not mapped\n", pending);
	return pending ? 0 : 1;
}

static int cmd_cmps(const struct opts *o)
{
	if (o->nargs != 2)
		usage_error("cmps needs STATE and DEV");
	u64 n = state_size(o->args[0]);
	u8 *st = state_read(o->args[0], n);

	for (u64 lba = 0, end; lba < n; lba = end) {
		for (end = lba + 1; end < n && st[end] == st[lba];)
			end++;
		if (st[lba] == GEN_ZERO)
			printf("cmp %s %llu %llu pattern=0; ", o->args[1], lba, end - lba);
		else
			printf("cmp %s %llu %llu seq=%u; ", o->args[1], lba, end - lba, st[lba]);
	}
	printf("\n");
	free(st);
	return 0;
}

/* recover IMAGE: open the BTT in place, as pmemk's boot does: its roll-forward is stored. */
static int cmd_recover(const struct opts *o)
{
	struct image im;

	if (o->nargs != 1)
		usage_error("recover needs IMAGE");
	image_map(&im, o->args[0], true);
	image_open(&im);
	printf("bttcheck: %u rolled forward\n", im.b.rolled_forward);
	int rc = msync(im.m.base, im.size, MS_SYNC) ? 2 : 0;
	image_unmap(&im);
	return rc;
}

/* dump IMAGE: the block device's bytes, sector by sector through the map, to stdout. */
static int cmd_dump(const struct opts *o)
{
	struct image im;

	if (o->nargs != 1)
		usage_error("dump needs IMAGE");
	msg_out = stderr;
	image_map(&im, o->args[0], false);
	image_open(&im);
	u8 *buf = malloc(im.b.lbasize);
	for (u64 lba = 0; buf && lba < im.b.nlba; lba++) {
		int err = btt_read(&im.b, lba, buf);
		if (err) {
			fprintf(stderr, "pmemk-bttcheck: LBA %llu: read failed (error %d)\n", lba, err);
			return 1;
		}
		if (fwrite(buf, 1, im.b.lbasize, stdout) != im.b.lbasize)
			return 2;
	}
	free(buf);
	image_unmap(&im);
	return fflush(stdout) ? 2 : 0;
}

/* Where LBA's map entry and its data block are in the image (file offsets). */
struct place {
	u32 arena, entry, block;
	u64 map_at, data_at;
};

static struct place locate(const struct image *im, u64 lba)
{
	const struct btt_arena *a = im->b.arenas;
	struct place p;

	if (lba >= im->b.nlba)
		usage_error("LBA past the end of the device");
	while (lba >= a->first_lba + a->g.external_nlba)
		a++;
	u32 premap = (u32)(lba - a->first_lba);
	p.arena = (u32)(a - im->b.arenas);
	p.map_at = a->base + a->g.mapoff + (u64)premap * 4;
	memcpy(&p.entry, im->m.base + p.map_at, 4);
	p.block = btt_map_block(p.entry, premap);
	p.data_at = a->base + a->g.dataoff + (u64)p.block * a->g.internal_lbasize;
	return p;
}

static int cmd_where(const struct opts *o)
{
	struct image im;

	if (o->nargs != 2)
		usage_error("where needs IMAGE and LBA");
	u64 lba = num_arg("LBA", o->args[1]);
	image_map(&im, o->args[0], false);
	image_open(&im);
	struct place p = locate(&im, lba);
	printf("lba %llu arena %u map_off %llu entry %#x block %u data_off %llu size %u\n", lba,
	       p.arena, p.map_at, p.entry, p.block, p.data_at, im.b.lbasize);
	image_unmap(&im);
	return 0;
}

/* tear IMAGE LBA --seq G: the second half of LBA's block becomes seq=G (a torn sector). */
static int cmd_tear(const struct opts *o)
{
	struct image im;

	if (o->nargs != 2 || !o->have_seq)
		usage_error("tear needs IMAGE, LBA and --seq");
	u64 lba = num_arg("LBA", o->args[1]);
	image_map(&im, o->args[0], true);
	image_open(&im);
	struct place p = locate(&im, lba);
	u32 ss = im.b.lbasize, half = ss / 2 / 8 * 8;
	for (u32 i = half; i < ss; i += 8) {
		u64 w = nd_seq_word(o->seq, lba * ss + i);
		memcpy(im.m.base + p.data_at + i, &w, 8);
	}
	printf("bttcheck: LBA %llu: bytes %u-%u of block %u now seq=%llu\n", lba, half, ss - 1,
	       p.block, o->seq);
	image_unmap(&im);
	return 0;
}

/* swap IMAGE LBA1 LBA2: exchange the two map entries (each LBA reads the other's block). */
static int cmd_swap(const struct opts *o)
{
	struct image im;

	if (o->nargs != 3)
		usage_error("swap needs IMAGE, LBA1 and LBA2");
	u64 l1 = num_arg("LBA1", o->args[1]), l2 = num_arg("LBA2", o->args[2]);
	image_map(&im, o->args[0], true);
	image_open(&im);
	struct place p1 = locate(&im, l1), p2 = locate(&im, l2);
	memcpy(im.m.base + p1.map_at, &p2.entry, 4);
	memcpy(im.m.base + p2.map_at, &p1.entry, 4);
	printf("bttcheck: map entries of LBAs %llu and %llu swapped (%#x, %#x)\n", l1, l2, p1.entry,
	       p2.entry);
	image_unmap(&im);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* lines in order with pmemk's, whatever exits */
	msg_out = stdout;
	parse_args(argc, argv, &o);
	if (!strcmp(o.cmd, "fill"))
		return cmd_fill(&o);
	if (!strcmp(o.cmd, "gens"))
		return cmd_gens(&o);
	if (!strcmp(o.cmd, "check"))
		return cmd_check(&o);
	if (!strcmp(o.cmd, "pending"))
		return cmd_pending(&o);
	if (!strcmp(o.cmd, "cmps"))
		return cmd_cmps(&o);
	if (!strcmp(o.cmd, "where"))
		return cmd_where(&o);
	if (!strcmp(o.cmd, "recover"))
		return cmd_recover(&o);
	if (!strcmp(o.cmd, "dump"))
		return cmd_dump(&o);
	if (!strcmp(o.cmd, "tear"))
		return cmd_tear(&o);
	if (!strcmp(o.cmd, "swap"))
		return cmd_swap(&o);
	usage_error("unknown command");
}
