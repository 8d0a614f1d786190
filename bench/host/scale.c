/*
 * The vmemmap and layout code at 1 GiB .. 64 TiB on the host (issue 14
 * item 5; docs/PERFORMANCE.md "Scale"): for each size a pfn device is laid
 * out and registered by memremap_pages on the deferred path (page tables,
 * sections, altmap; no struct page stored), then torn down, through
 * host_scale_run (test/host/scale_host.c). Built without sanitizers at -O2
 * (make bench-scale); test_vmemmap_scale checks the same runs' structure.
 *
 *   scale [--out DIR] [--reps N] [--sizes "1 4 16 ..."] [--map dev|mem|both]
 *
 * Sizes in GiB, max = the largest (64 TiB - 64 GiB).
 *
 * Each size boots the fake afresh and registers once cold (first touch of
 * every RAM page it takes) and then N times warm (--reps, default 3).
 * Besides time, the page-table entries each call read (host_pte_reads): the
 * work of its walks and scans, exact where the time is noisy.
 * Prints a Markdown table (also DIR/scale.md) and writes DIR/scale.dat for
 * the plot (tools/bench-scale). Exit 1 if a run fails or does not return
 * to the baseline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "mm.h"
#include "sparse.h"

#define MAX_SIZES 32
/* RAM for a map=dev run: page tables, section table, allocator metadata. */
#define DEV_RAM (1 * GiB)
/* All the simulated physical memory below the device. */
#define MAX_RAM (HOST_PHYS_SIZE - HOST_SCALE_RAM_BASE)

/*
 * The sizes of issue 14 item 5, with 2 TiB (map=mem's largest power of two
 * that fits) and 8 and 32 TiB (where memunmap's cost per GiB stops growing).
 */
static const char *const default_sizes = "1 4 16 64 256 1024 2048 4096 8192 16384 32768 max";

static u64 parse_size(const char *s)
{
	if (!strcmp(s, "max"))
		return HOST_SCALE_MAX_SIZE;
	return strtoull(s, NULL, 10) * GiB;
}

static void size_name(u64 size, char *buf, size_t len)
{
	if (size % (1ULL << 40) == 0)
		snprintf(buf, len, "%llu TiB", size >> 40);
	else if (size >= (1ULL << 40))
		snprintf(buf, len, "%.2f TiB", (double)size / (double)(1ULL << 40));
	else
		snprintf(buf, len, "%llu GiB", size >> 30);
}

/* RAM a map=mem run needs: its struct pages and 1 GiB for the rest; 0 if it does not fit. */
static u64 mem_ram(u64 size)
{
	u64 need = vmemmap_ram_estimate(size / PAGE_SIZE, 0) + DEV_RAM;

	return need <= MAX_RAM ? need : 0;
}

/* One size and map: a cold registration after boot, then `reps` warm ones (their medians). */
static int measure(u64 size, bool dev, int reps, struct host_scale *out)
{
	int err = host_scale_run(size, dev, dev ? DEV_RAM : mem_ram(size), (unsigned int)reps, out);

	if (err)
		fprintf(stderr, "scale: %llu GiB map=%s: error %d\n", size >> 30, dev ? "dev" : "mem",
			err);
	return err;
}

static double ms(u64 ns)
{
	return (double)ns / 1e6;
}

static void row(FILE *f, const struct host_scale *r)
{
	double gib = (double)r->size / (double)GiB, tib = gib / 1024;
	const char *diff = host_mm_snap_diff(r->before, r->after);
	char name[32];

	size_name(r->size, name, sizeof(name));
	fprintf(f,
		"| %s | %s | %.3f | %.3f (%.3f) | %.3f | %.3f | %.3f (%.3f) | %.2f | %.2f | %.0f | %.0f "
		"| %llu | %.1f | %llu (%llu) | %llu | %llu | %llu | %llu | %s |\n",
		name, r->map_dev ? "dev" : "mem", (double)r->layout_ns / 1e3, ms(r->memremap_ns),
		ms(r->cold_ns[0]), ms(r->map_ns), ms(r->sparse_ns), ms(r->memunmap_ns),
		ms(r->cold_ns[3]), (double)r->memremap_ns / 1e3 / gib,
		(double)r->memunmap_ns / 1e3 / gib, (double)r->memremap_pte_reads / gib,
		(double)r->memunmap_pte_reads / gib, r->pgtable_pages, (double)r->pgtable_pages / tib,
		r->sections + r->lazy_sections, r->lazy_sections, r->section_tables >> 10, r->vmemmap_ram >> 20,
		(r->altmap_alloc * PAGE_SIZE) >> 20, r->rss_kib >> 10,
		!diff[0] && !r->left_memmap ? "yes" : diff[0] ? diff : "memmap left");
}

static void header(FILE *f)
{
	fprintf(f, "| size | map | layout µs | memremap ms (cold) | direct map ms | sections+vmemmap ms "
		   "| memunmap ms (cold) | memremap µs/GiB | memunmap µs/GiB "
		   "| memremap entry reads/GiB | memunmap entry reads/GiB | page-table pages "
		   "| per TiB | sections (of them lazy) | section table KiB | vmemmap RAM MiB | altmap MiB "
		   "| RSS growth MiB | back to baseline |\n");
	fprintf(f, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
}

int main(int argc, char **argv)
{
	const char *out = NULL, *sizes = default_sizes, *maps = "both";
	struct host_scale res[2 * MAX_SIZES];
	u64 size[MAX_SIZES];
	int reps = 3, n = 0, nres = 0, bad = 0;
	char skipped[1024] = "";
	FILE *md = NULL, *dat = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = argv[++i];
		else if (!strcmp(argv[i], "--map") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "dev") || !strcmp(argv[i + 1], "mem") ||
			  !strcmp(argv[i + 1], "both")))
			maps = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--out DIR] [--reps N] [--sizes \"1 4 ... max\"] [--map dev|mem|both]\n",
				argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > HOST_SCALE_MAX_REPS) {
		fprintf(stderr, "scale: --reps must be 1..%d\n", HOST_SCALE_MAX_REPS);
		return 2;
	}
	char *list = strdup(sizes);
	for (char *tok = strtok(list, " ,"); tok && n < MAX_SIZES; tok = strtok(NULL, " ,")) {
		size[n] = parse_size(tok);
		if (!size[n] || size[n] > HOST_SCALE_MAX_SIZE || size[n] % GiB) {
			fprintf(stderr, "scale: size %s: whole GiB from 1 up to %llu (max)\n", tok,
				HOST_SCALE_MAX_SIZE >> 30);
			return 2;
		}
		n++;
	}
	free(list);

	for (int i = 0; i < n; i++)
		for (int dev = 1; dev >= 0; dev--) {
			char name[32];

			size_name(size[i], name, sizeof(name));
			if (strcmp(maps, "both") && strcmp(maps, dev ? "dev" : "mem"))
				continue;
			if (!dev && !mem_ram(size[i])) {
				size_t len = strlen(skipped);
				snprintf(skipped + len, sizeof(skipped) - len, "%s%s", len ? ", " : "", name);
				continue;
			}
			fprintf(stderr, "scale: %s map=%s ...\n", name, dev ? "dev" : "mem");
			if (measure(size[i], dev, reps, &res[nres]))
				return 1;
			const struct host_scale *r = &res[nres++];
			if (!r->deferred || r->pages_init || r->left_memmap ||
			    host_mm_snap_diff(r->before, r->after)[0]) {
				fprintf(stderr, "scale: %s map=%s: %s\n", name, dev ? "dev" : "mem",
					!r->deferred || r->pages_init ? "struct pages were initialised"
								       : "not back to the baseline");
				bad = 1;
			}
		}

	if (out) {
		char path[512];

		snprintf(path, sizeof(path), "%s/scale.md", out);
		md = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/scale.dat", out);
		dat = fopen(path, "w");
		if (!md || !dat) {
			perror(path);
			return 1;
		}
	}
	for (FILE *f = stdout; f; f = f == stdout ? md : NULL) {
		fprintf(f, "Device at %llu GiB, 2 MiB align, deferred struct page init (none stored); "
			   "times: median of %d warm runs in one boot, in parentheses the cold first "
			   "one; -O2 host build.\n\n",
			HOST_SCALE_BASE >> 30, reps);
		header(f);
		for (int i = 0; i < nres; i++)
			row(f, &res[i]);
		if (skipped[0])
			fprintf(f, "\nmap=mem not run at %s: its struct pages need more RAM than the "
				   "host fake's %llu GiB of simulated physical memory.\n",
				skipped, HOST_PHYS_SIZE >> 30);
	}
	if (dat) {
		fprintf(dat, "# size_gib dev(0/1) memremap_ms memunmap_ms map_ms sparse_ms pgtable_pages "
			     "cold_memremap_ms cold_memunmap_ms\n");
		for (int dev = 1; dev >= 0; dev--) {
			for (int i = 0; i < nres; i++)
				if (res[i].map_dev == dev)
					fprintf(dat, "%llu %d %.3f %.3f %.3f %.3f %llu %.3f %.3f\n",
						res[i].size >> 30, dev, ms(res[i].memremap_ns),
						ms(res[i].memunmap_ns), ms(res[i].map_ns),
						ms(res[i].sparse_ns), res[i].pgtable_pages,
						ms(res[i].cold_ns[0]), ms(res[i].cold_ns[3]));
			fprintf(dat, "\n\n");	/* one gnuplot index per map */
		}
		fclose(dat);
	}
	if (md)
		fclose(md);
	return bad;
}
