/*
 * libFuzzer harness: the bad-sector list (nvdimm/badblocks.c) against a
 * bitmap model, over a small sector space so that the list fills up.
 *
 * Input: operations of 4 bytes each, [op, sector lo, sector hi, len]:
 * sector = le16 % SPACE; len 0..255; op & 7 picks one of
 *   0 set, 1 clear, 2 check, 3 range (with room for op >> 3 extents),
 *   4 any of them on a range that wraps past 2^64 (refused, nothing changes).
 *
 * The model: `model`, the sectors set and not cleared since; `extra`, good
 * sectors the list holds because a set on a full list grew a neighbour
 * over them. After every operation the list is well formed (sorted,
 * disjoint, non-adjacent, no empty extent, at most BADBLOCKS_MAX), and its
 * sectors are exactly model | extra: a superset of the model, equal to it
 * unless the full-list merge happened. A set adds exactly its range, except
 * on a full list where it touches no extent: then the neighbour nearest to
 * it (the one before on a tie) grows over the gap, and the count stays. A
 * clear removes exactly its range, or fails with -ENOSPC, changing nothing,
 * when it would split an extent of a full list. check and range answer
 * what the bitmap says (first bad sector; runs clipped and made relative,
 * all counted, at most `max` written; the bad sectors in range).
 *
 * Seeds: test/fuzz/seeds/fuzz_badblocks (test/fuzz/mkseeds.py).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "badblocks.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define SPACE 512 /* sectors an operation starts in */
#define BITS (SPACE + 256) /* where one can end */
#define NONE (~0ull)

static struct badblocks bb;
static bool model[BITS], extra[BITS];

/* The list as a bitmap, checking its shape on the way. */
static void list_bits(bool *bits)
{
	u32 n = badblocks_count(&bb);

	memset(bits, 0, BITS);
	CHECK(n <= BADBLOCKS_MAX);
	for (u32 i = 0; i < n; i++) {
		const struct bb_extent *x = &bb.e[i];
		CHECK(x->len > 0);
		CHECK(x->sector + x->len <= BITS);
		if (i)
			CHECK(bb.e[i - 1].sector + bb.e[i - 1].len < x->sector);
		for (u64 s = x->sector; s < x->sector + x->len; s++)
			bits[s] = true;
	}
}

static void check_against_model(void)
{
	bool bits[BITS];

	list_bits(bits);
	for (u32 s = 0; s < BITS; s++) {
		CHECK(!model[s] || bits[s]); /* never forgets a bad sector */
		CHECK(bits[s] == (model[s] || extra[s]));
	}
}

/* The first set bit of bits in [s, end), or NONE. */
static u64 first_in(const bool *bits, u64 s, u64 end)
{
	for (; s < end && s < BITS; s++)
		if (bits[s])
			return s;
	return NONE;
}

/* The last set bit below s, or NONE. */
static u64 last_below(const bool *bits, u64 s)
{
	while (s--)
		if (bits[s])
			return s;
	return NONE;
}

static void do_set(u64 s, u64 len)
{
	bool before[BITS], after[BITS];
	u32 count = badblocks_count(&bb);

	list_bits(before);
	int rc = badblocks_set(&bb, s, len);
	if (!len) {
		CHECK(rc == -EINVAL);
		return;
	}
	CHECK(rc == 0);
	list_bits(after);
	for (u64 i = s; i < s + len; i++)
		model[i] = true;
	/* Sectors listed now that neither were nor are in the range: the grown gap. */
	u64 g0 = NONE, g1 = 0;
	for (u64 i = 0; i < BITS; i++) {
		CHECK(!before[i] || after[i]);
		if (after[i] && !before[i] && (i < s || i >= s + len)) {
			g0 = g0 == NONE ? i : g0;
			g1 = i + 1;
		}
	}
	if (g0 == NONE)
		return;
	/* Only a full list, and x touched no extent: one gap, to the nearest neighbour. */
	bool touched = (s && before[s - 1]) || first_in(before, s, s + len + 1) != NONE;
	CHECK(count == BADBLOCKS_MAX && !touched);
	CHECK(badblocks_count(&bb) == BADBLOCKS_MAX);
	u64 prev = last_below(before, s), next = first_in(before, s + len, BITS);
	u64 gap_before = prev == NONE ? NONE : s - (prev + 1);
	u64 gap_after = next == NONE ? NONE : next - (s + len);
	if (gap_before <= gap_after)
		CHECK(g0 == prev + 1 && g1 == s);
	else
		CHECK(g0 == s + len && g1 == next);
	for (u64 i = g0; i < g1; i++)
		extra[i] = !model[i];
}

/* Does one extent of the list lie strictly around [s, s + len)? */
static bool would_split(u64 s, u64 len)
{
	for (u32 i = 0; i < badblocks_count(&bb); i++)
		if (bb.e[i].sector < s && bb.e[i].sector + bb.e[i].len > s + len)
			return true;
	return false;
}

static void do_clear(u64 s, u64 len)
{
	struct badblocks copy;
	u32 count = badblocks_count(&bb);
	bool split = len && would_split(s, len);

	memcpy(&copy, &bb, sizeof(bb));
	int rc = badblocks_clear(&bb, s, len);
	if (!len) {
		CHECK(rc == -EINVAL);
		return;
	}
	if (rc == -ENOSPC) {
		CHECK(count == BADBLOCKS_MAX && split);
		CHECK(badblocks_count(&bb) == count);
		CHECK(!memcmp(bb.e, copy.e, sizeof(bb.e)));
		return;
	}
	CHECK(rc == 0);
	CHECK(!(count == BADBLOCKS_MAX && split));
	for (u64 i = s; i < s + len; i++)
		model[i] = extra[i] = false;
}

static void do_check(u64 s, u64 len)
{
	bool bits[BITS];
	u64 first = 12345;
	bool bad = badblocks_check(&bb, s, len, &first);

	list_bits(bits);
	u64 want = len ? first_in(bits, s, s + len) : NONE;
	CHECK(bad == (want != NONE));
	CHECK(first == (bad ? want : 12345));
}

static void do_range(u64 s, u64 len, u32 max)
{
	bool bits[BITS];
	struct bb_extent out[32];
	u64 sectors = 12345;

	memset(out, 0xA5, sizeof(out));
	list_bits(bits);
	u32 n = badblocks_range(&bb, s, len, out, max, &sectors);
	u32 runs = 0;
	u64 total = 0;
	for (u64 i = s; len && i < s + len; i++) {
		if (!bits[i])
			continue;
		total++;
		if (i == s || !bits[i - 1]) { /* a run starts here */
			u64 e = i;
			while (e < s + len && bits[e])
				e++;
			if (runs < max)
				CHECK(out[runs].sector == i - s && out[runs].len == e - i);
			runs++;
		}
	}
	CHECK(n == runs);
	CHECK(sectors == total);
	for (u32 i = max; i < 32; i++) /* nothing past the room given */
		CHECK(out[i].sector == 0xA5A5A5A5A5A5A5A5ull);
}

/* A range that wraps past 2^64: every operation refuses it, nothing changes. */
static void do_wrapping(u64 k, u64 len, u32 which)
{
	struct badblocks copy;
	u64 s = ~0ull - k % 8, first = 7, sectors = 7;
	struct bb_extent out[1];

	len = len % 8 + k % 8 + 1; /* past the end */
	memcpy(&copy, &bb, sizeof(bb));
	switch (which % 4) {
	case 0:
		CHECK(badblocks_set(&bb, s, len) == -EINVAL);
		break;
	case 1:
		CHECK(badblocks_clear(&bb, s, len) == -EINVAL);
		break;
	case 2:
		CHECK(!badblocks_check(&bb, s, len, &first) && first == 7);
		break;
	default:
		CHECK(badblocks_range(&bb, s, len, out, 1, &sectors) == 0 && sectors == 0);
	}
	CHECK(badblocks_count(&bb) == copy.count);
	CHECK(!memcmp(bb.e, copy.e, sizeof(bb.e)));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	badblocks_init(&bb);
	memset(model, 0, sizeof(model));
	memset(extra, 0, sizeof(extra));
	for (size_t at = 0; at + 4 <= size; at += 4) {
		const u8 *op = data + at;
		u64 s = (u64)(op[1] | op[2] << 8) % SPACE, len = op[3];
		switch (op[0] & 7) {
		case 0:
			do_set(s, len);
			break;
		case 1:
			do_clear(s, len);
			break;
		case 2:
			do_check(s, len);
			break;
		case 3:
			do_range(s, len, op[0] >> 3);
			break;
		case 4:
			do_wrapping(s, len, op[0] >> 3);
			break;
		default:
			break;
		}
		check_against_model();
	}
	return 0;
}
