/*
 * pmemk-crashcheck: judge a namespace backing file after QEMU was killed in
 * the middle of a write of a seq=N pattern (test/qemu/cases/crash.sh), and
 * lay such patterns down from the host. The seq=N words are the shell's
 * (nd_seq_word, nd_util.h): each 8-byte word encodes its block-device
 * offset, so a word is either what was there before (REF), what the write
 * was storing there, or foreign data, and which it is can be told exactly.
 *
 *   check IMAGE REF --range OFF LEN --base DATAOFF --seq N [--update]
 *       Outside the file range [OFF, OFF + LEN) IMAGE must equal REF byte
 *       for byte (the info block at 4 KiB is reported on its own); inside,
 *       each 8-byte word must equal REF's or nd_seq_word(N, offset -
 *       DATAOFF). Prints what it found; exit 0 if so, 1 if not. --update
 *       then copies IMAGE's range into REF: REF is the next write's "before".
 *   fill IMAGE --range OFF LEN --base DATAOFF --seq N
 *       Store seq=N words into the range as `write` in the guest would.
 *   same IMAGE REF [--range OFF LEN]
 *       IMAGE and REF (same size) are identical outside [OFF, OFF + LEN);
 *       ranges that are holes in both (sparse files) are skipped unread.
 *
 * OFF, LEN and DATAOFF are multiples of 8; sizes take K/M/G suffixes.
 * Files are read and written with pread/pwrite in 4 MiB chunks (through
 * the page cache, no fsync: what QEMU maps next sees it, and a crash test
 * needs no more). Built with -O2 and no sanitizers: a crash case reads
 * some 800 MiB per kill.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nd_pfn_sb.h"
#include "nd_util.h"

static const char usage_text[] =
	"usage: pmemk-crashcheck check IMAGE REF --range OFF LEN --base DATAOFF --seq N [--update]\n"
	"       pmemk-crashcheck fill IMAGE --range OFF LEN --base DATAOFF --seq N\n"
	"       pmemk-crashcheck same IMAGE REF [--range OFF LEN]\n";

struct opts {
	const char *cmd, *image, *ref;
	u64 off, len, base, seq;
	bool have_range, have_base, have_seq, update;
};

static __noreturn void usage_error(const char *msg)
{
	if (msg)
		fprintf(stderr, "pmemk-crashcheck: %s\n", msg);
	fputs(usage_text, stderr);
	exit(2);
}

/* A C number with an optional K, M or G suffix. */
static u64 num_arg(const char *name, const char *v)
{
	char *end = NULL;
	u64 x = v ? strtoull(v, &end, 0) : 0;
	int shift = 0;

	if (end && *end)
		shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : -1;
	if (!v || end == v || shift < 0 || (shift && end[1]) || x > (~0ULL >> shift)) {
		fprintf(stderr, "pmemk-crashcheck: %s: bad number '%s'\n", name, v ? v : "");
		exit(2);
	}
	return x << shift;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	int files = 0;

	*o = (struct opts){ 0 };
	if (argc < 3)
		usage_error(NULL);
	o->cmd = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--range") && i + 2 < argc) {
			o->off = num_arg(a, argv[i + 1]);
			o->len = num_arg(a, argv[i + 2]);
			o->have_range = true;
			i += 2;
		} else if (!strcmp(a, "--base") && i + 1 < argc) {
			o->base = num_arg(a, argv[++i]);
			o->have_base = true;
		} else if (!strcmp(a, "--seq") && i + 1 < argc) {
			o->seq = num_arg(a, argv[++i]);
			o->have_seq = true;
		} else if (!strcmp(a, "--update")) {
			o->update = true;
		} else if (a[0] != '-' && files < 2) {
			*(files++ ? &o->ref : &o->image) = a;
		} else {
			usage_error("unknown argument");
		}
	}
	if (!strcmp(o->cmd, "same")) {
		if (!o->ref)
			usage_error("same needs IMAGE and REF");
		return;
	}
	if (!o->image || !o->have_range || !o->have_base || !o->have_seq)
		usage_error("IMAGE, --range, --base and --seq are needed");
	if ((o->off | o->len | o->base) % 8 || o->off < o->base)
		usage_error("OFF, LEN and DATAOFF must be multiples of 8, OFF >= DATAOFF");
}

/* Open a file read-only or read-write; the range must lie inside it. */
static int open_file(const char *path, bool write, const struct opts *o, u64 *size)
{
	struct stat st;
	int fd = open(path, write ? O_RDWR : O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "pmemk-crashcheck: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	*size = (u64)st.st_size;
	if (o->off + o->len > *size || o->off + o->len < o->off) {
		fprintf(stderr, "pmemk-crashcheck: %s: range past the end (%llu bytes)\n", path,
			*size);
		exit(2);
	}
	return fd;
}

#define CHUNK (4 * MiB)

static void io(int fd, void *buf, size_t n, u64 at, bool write)
{
	ssize_t done = write ? pwrite(fd, buf, n, (off_t)at) : pread(fd, buf, n, (off_t)at);

	if (done != (ssize_t)n) {
		fprintf(stderr, "pmemk-crashcheck: %s at %#llx: %s\n", write ? "write" : "read", at,
			done < 0 ? strerror(errno) : "short");
		exit(2);
	}
}

static u64 word_at(const u8 *p, u64 off)
{
	u64 w;

	memcpy(&w, p + off, 8);
	return w;
}

/* Compare [from, to) of two files by pread; the first difference or `to`. */
static u64 diff_span(int a, int b, u64 from, u64 to)
{
	static u8 x[CHUNK], y[CHUNK];

	for (u64 at = from; at < to;) {
		size_t n = to - at < CHUNK ? (size_t)(to - at) : CHUNK;
		io(a, x, n, at, false);
		io(b, y, n, at, false);
		if (memcmp(x, y, n))
			for (size_t i = 0; i < n; i++)
				if (x[i] != y[i])
					return at + i;
		at += n;
	}
	return to;
}

/* Everything outside the range identical; reports the first difference. */
static bool check_outside(int img, int ref, u64 size, const struct opts *o)
{
	const u64 ib = ND_PFN_SB_OFFSET, ie = ib + ND_PFN_SB_SIZE;
	bool ok = true;

	if (ie <= size) {
		bool same = diff_span(img, ref, ib, ie) == ie;
		printf("crashcheck: info block at %#llx: %s\n", ib, same ? "identical" : "CHANGED");
		ok &= same;
	}
	u64 before = diff_span(img, ref, 0, o->off);
	u64 after = diff_span(img, ref, o->off + o->len, size);
	u64 d = before < o->off ? before : after;
	if (d < size) {
		u8 x, y;
		io(img, &x, 1, d, false);
		io(ref, &y, 1, d, false);
		printf("crashcheck: byte %#llx outside the write changed: %#x, was %#x\n", d, x, y);
		return false;
	}
	printf("crashcheck: %llu bytes outside [%#llx, %#llx) identical\n", size - o->len, o->off,
	       o->off + o->len);
	return ok;
}

/* What the words of the range were found to be. */
struct tally {
	u64 fresh, old, foreign, last_new, first_old;
};

static void tally_chunk(struct tally *t, const u8 *x, const u8 *y, u64 at, size_t n,
			const struct opts *o)
{
	for (size_t i = 0; i < n; i += 8) {
		u64 w = word_at(x, i), was = word_at(y, i), off = at + i;
		u64 want = nd_seq_word(o->seq, off - o->base);
		if (w == want && w != was) {
			t->fresh++;
			t->last_new = off - o->off + 8;
		} else if (w == was) {
			t->old++;
			if (t->first_old == o->len && w != want)
				t->first_old = off - o->off;
		} else if (t->foreign++ < 5) {
			printf("crashcheck: FOREIGN word at %#llx (device offset %#llx): %#018llx, "
			       "old %#018llx, seq=%llu %#018llx\n",
			       off, off - o->base, w, was, o->seq, want);
		}
	}
}

/*
 * Each word of the range old or new; counts and the first few foreign
 * ones. With update (and nothing foreign), REF's range becomes IMAGE's.
 */
static bool check_inside(int img, int ref, const struct opts *o, bool update)
{
	static u8 x[CHUNK], y[CHUNK];
	struct tally t = { .first_old = o->len };

	for (u64 at = o->off; at < o->off + o->len; at += CHUNK) {
		size_t n = o->off + o->len - at < CHUNK ? (size_t)(o->off + o->len - at) : CHUNK;
		io(img, x, n, at, false);
		io(ref, y, n, at, false);
		tally_chunk(&t, x, y, at, n, o);
	}
	printf("crashcheck: %llu words in the write: %llu new (seq=%llu), %llu old, %llu foreign\n",
	       o->len / 8, t.fresh, o->seq, t.old, t.foreign);
	if (t.fresh && t.last_new <= t.first_old)
		printf("crashcheck: new data is a prefix of %llu bytes\n", t.last_new);
	else if (t.fresh)
		printf("crashcheck: new data ends at %#llx, old data from %#llx\n", t.last_new,
		       t.first_old);
	for (u64 at = o->off; update && !t.foreign && at < o->off + o->len; at += CHUNK) {
		size_t n = o->off + o->len - at < CHUNK ? (size_t)(o->off + o->len - at) : CHUNK;
		io(img, x, n, at, false);
		io(ref, x, n, at, true);
	}
	return t.foreign == 0;
}

static int cmd_check(const struct opts *o)
{
	u64 size, ref_size;

	if (!o->ref)
		usage_error("check needs IMAGE and REF");
	int img = open_file(o->image, false, o, &size);
	int ref = open_file(o->ref, o->update, o, &ref_size);
	if (size != ref_size) {
		printf("crashcheck: size %llu, reference %llu\n", size, ref_size);
		return 1;
	}
	bool ok = check_outside(img, ref, size, o);
	ok &= check_inside(img, ref, o, ok && o->update);
	printf("crashcheck: %s\n", ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}

static int cmd_fill(const struct opts *o)
{
	static u8 x[CHUNK];
	u64 size;
	int img = open_file(o->image, true, o, &size);

	for (u64 at = o->off; at < o->off + o->len; at += CHUNK) {
		size_t n = o->off + o->len - at < CHUNK ? (size_t)(o->off + o->len - at) : CHUNK;
		for (size_t i = 0; i < n; i += 8) {
			u64 w = nd_seq_word(o->seq, at + i - o->base);
			memcpy(x + i, &w, 8);
		}
		io(img, x, n, at, true);
	}
	return 0;
}

/* The next byte at or after `at` that is data in fd (not a hole), or `size`. */
static u64 next_data(int fd, u64 at, u64 size)
{
	off_t d = lseek(fd, (off_t)at, SEEK_DATA);

	return d < 0 ? size : (u64)d;
}

static u64 next_hole(int fd, u64 at, u64 size)
{
	off_t h = lseek(fd, (off_t)at, SEEK_HOLE);

	return h < 0 ? size : (u64)h;
}

/* The first difference of [from, to), skipping what is a hole in both. */
static u64 diff_sparse(int a, int b, u64 from, u64 to)
{
	u64 at = from;

	while (at < to) {
		u64 da = next_data(a, at, to), db = next_data(b, at, to);
		at = da < db ? da : db;
		if (at >= to)
			break;
		u64 ha = da == at ? next_hole(a, at, to) : da;
		u64 hb = db == at ? next_hole(b, at, to) : db;
		u64 end = ha > hb ? ha : hb;
		end = end < to ? end : to;
		u64 d = diff_span(a, b, at, end);
		if (d < end)
			return d;
		at = end;
	}
	return to;
}

static int cmd_same(const struct opts *o)
{
	struct stat sa, sb;
	int a = open(o->image, O_RDONLY), b = open(o->ref, O_RDONLY);

	if (a < 0 || b < 0 || fstat(a, &sa) || fstat(b, &sb)) {
		perror("pmemk-crashcheck");
		return 2;
	}
	u64 size = (u64)sa.st_size, off = o->have_range ? o->off : 0;
	u64 end = o->have_range ? o->off + o->len : 0;
	if (sa.st_size != sb.st_size || end > size || end < off) {
		printf("crashcheck: %s and %s differ in size or the range is outside them\n",
		       o->image, o->ref);
		return 1;
	}
	u64 before = diff_sparse(a, b, 0, off), after = diff_sparse(a, b, end, size);
	u64 d = before < off ? before : after;
	if (d < size) {
		printf("crashcheck: %s differs from %s at byte %#llx\n", o->image, o->ref, d);
		return 1;
	}
	printf("crashcheck: %s is %s outside [%#llx, %#llx)\n", o->image, o->ref, off, end);
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
	if (!strcmp(o.cmd, "check"))
		return cmd_check(&o);
	if (!strcmp(o.cmd, "fill"))
		return cmd_fill(&o);
	if (!strcmp(o.cmd, "same"))
		return cmd_same(&o);
	usage_error("unknown command");
}
