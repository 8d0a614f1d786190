/*
 * Host tests: the bad-sector list (nvdimm/badblocks.c, badblocks.h). Its
 * shape after every change (sorted, disjoint, non-adjacent, no empty
 * extent), merging on set, splitting and trimming on clear, the full-list
 * rule (a new extent grows its nearest neighbour and is never dropped; a
 * split a full list has no slot for fails with -ENOSPC and changes
 * nothing), and the readers: badblocks_check's first bad sector,
 * badblocks_range's clipping, relative offsets and counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "badblocks.h"

static struct badblocks bb;

static int reset(void **state)
{
	(void)state;
	badblocks_init(&bb);
	return 0;
}

/* The list's invariant: sorted, disjoint, non-adjacent, no empty extent. */
static void assert_well_formed(const struct badblocks *b)
{
	assert_true(badblocks_count(b) <= BADBLOCKS_MAX);
	for (u32 i = 0; i < b->count; i++) {
		assert_true(b->e[i].len > 0);
		assert_true(b->e[i].sector + b->e[i].len > b->e[i].sector);
		if (i)
			assert_true(b->e[i - 1].sector + b->e[i - 1].len < b->e[i].sector);
	}
}

/* The list is exactly these n (sector, len) pairs. */
static void assert_extents(const struct badblocks *b, u32 n, const struct bb_extent *want)
{
	assert_well_formed(b);
	assert_int_equal(badblocks_count(b), n);
	for (u32 i = 0; i < n; i++) {
		assert_int_equal(b->e[i].sector, want[i].sector);
		assert_int_equal(b->e[i].len, want[i].len);
	}
}

#define EXTENTS(...)                                                                               \
	(sizeof((struct bb_extent[]){ __VA_ARGS__ }) / sizeof(struct bb_extent)),                  \
		((struct bb_extent[]){ __VA_ARGS__ })

static bool bad(u64 sector)
{
	u64 first = ~0ull;
	bool b = badblocks_check(&bb, sector, 1, &first);

	assert_true(!b || first == sector);
	return b;
}

static void empty_and_wrapping_ranges_are_refused(void **state)
{
	u64 first = 7;
	struct bb_extent out[1];
	u64 sectors = 9;

	(void)state;
	assert_int_equal(badblocks_set(&bb, 10, 0), -EINVAL);
	assert_int_equal(badblocks_set(&bb, ~0ull, 1), -EINVAL);
	assert_int_equal(badblocks_set(&bb, ~0ull - 4, 10), -EINVAL);
	assert_int_equal(badblocks_count(&bb), 0);
	assert_int_equal(badblocks_set(&bb, 10, 5), 0);
	assert_int_equal(badblocks_clear(&bb, 10, 0), -EINVAL);
	assert_int_equal(badblocks_clear(&bb, 12, ~0ull), -EINVAL);
	assert_extents(&bb, EXTENTS({ 10, 5 }));
	assert_false(badblocks_check(&bb, 10, 0, &first));
	assert_false(badblocks_check(&bb, 12, ~0ull, &first));
	assert_int_equal(first, 7);
	assert_int_equal(badblocks_range(&bb, 12, 0, out, 1, &sectors), 0);
	assert_int_equal(sectors, 0);
	/* The last sector that can be named: [~0 - 1, ~0). */
	assert_int_equal(badblocks_set(&bb, ~0ull - 1, 1), 0);
	assert_extents(&bb, EXTENTS({ 10, 5 }, { ~0ull - 1, 1 }));
}

static void set_merges_overlapping_extents(void **state)
{
	(void)state;
	assert_int_equal(badblocks_set(&bb, 10, 5), 0);
	assert_int_equal(badblocks_set(&bb, 12, 10), 0); /* over the tail */
	assert_extents(&bb, EXTENTS({ 10, 12 }));
	assert_int_equal(badblocks_set(&bb, 5, 6), 0); /* over the head */
	assert_extents(&bb, EXTENTS({ 5, 17 }));
	assert_int_equal(badblocks_set(&bb, 7, 2), 0); /* inside: nothing new */
	assert_extents(&bb, EXTENTS({ 5, 17 }));
	assert_int_equal(badblocks_set(&bb, 0, 100), 0); /* around */
	assert_extents(&bb, EXTENTS({ 0, 100 }));
}

static void set_merges_adjacent_extents(void **state)
{
	(void)state;
	assert_int_equal(badblocks_set(&bb, 10, 5), 0);
	assert_int_equal(badblocks_set(&bb, 15, 5), 0); /* just after */
	assert_extents(&bb, EXTENTS({ 10, 10 }));
	assert_int_equal(badblocks_set(&bb, 5, 5), 0); /* just before */
	assert_extents(&bb, EXTENTS({ 5, 15 }));
	assert_int_equal(badblocks_set(&bb, 21, 1), 0); /* one good sector between */
	assert_extents(&bb, EXTENTS({ 5, 15 }, { 21, 1 }));
	assert_int_equal(badblocks_set(&bb, 20, 1), 0); /* the gap: one extent again */
	assert_extents(&bb, EXTENTS({ 5, 17 }));
}

static void set_swallows_every_extent_it_touches(void **state)
{
	(void)state;
	for (u64 s = 0; s <= 20; s += 2)
		assert_int_equal(badblocks_set(&bb, s, 1), 0);
	assert_int_equal(badblocks_count(&bb), 11);
	assert_well_formed(&bb);
	assert_int_equal(badblocks_set(&bb, 100, 1), 0);
	assert_int_equal(badblocks_set(&bb, 1, 19), 0);
	assert_extents(&bb, EXTENTS({ 0, 21 }, { 100, 1 }));
}

static void clear_splits_an_extent(void **state)
{
	(void)state;
	assert_int_equal(badblocks_set(&bb, 100, 50), 0);
	assert_int_equal(badblocks_clear(&bb, 110, 10), 0);
	assert_extents(&bb, EXTENTS({ 100, 10 }, { 120, 30 }));
	assert_true(bad(109));
	assert_false(bad(110));
	assert_false(bad(119));
	assert_true(bad(120));
	/* One sector out of the middle of a one-gap extent. */
	assert_int_equal(badblocks_clear(&bb, 121, 1), 0);
	assert_extents(&bb, EXTENTS({ 100, 10 }, { 120, 1 }, { 122, 28 }));
}

static void clear_trims_partial_extents(void **state)
{
	(void)state;
	assert_int_equal(badblocks_set(&bb, 10, 10), 0);
	assert_int_equal(badblocks_set(&bb, 30, 10), 0);
	assert_int_equal(badblocks_set(&bb, 50, 10), 0);
	assert_int_equal(badblocks_set(&bb, 70, 10), 0);
	/* A tail, a whole extent and a head at once. */
	assert_int_equal(badblocks_clear(&bb, 15, 40), 0);
	assert_extents(&bb, EXTENTS({ 10, 5 }, { 55, 5 }, { 70, 10 }));
	/* Only the head; only the tail. */
	assert_int_equal(badblocks_clear(&bb, 60, 12), 0);
	assert_extents(&bb, EXTENTS({ 10, 5 }, { 55, 5 }, { 72, 8 }));
	assert_int_equal(badblocks_clear(&bb, 78, 100), 0);
	assert_extents(&bb, EXTENTS({ 10, 5 }, { 55, 5 }, { 72, 6 }));
	/* Just outside an extent on either side: nothing changes. */
	assert_int_equal(badblocks_clear(&bb, 5, 5), 0);
	assert_int_equal(badblocks_clear(&bb, 15, 40), 0);
	assert_extents(&bb, EXTENTS({ 10, 5 }, { 55, 5 }, { 72, 6 }));
	/* Exactly one extent. */
	assert_int_equal(badblocks_clear(&bb, 55, 5), 0);
	assert_extents(&bb, EXTENTS({ 10, 5 }, { 72, 6 }));
	/* Everything. */
	assert_int_equal(badblocks_clear(&bb, 0, 1000), 0);
	assert_int_equal(badblocks_count(&bb), 0);
	assert_int_equal(badblocks_clear(&bb, 0, 1000), 0);
}

/* Fill the list: BADBLOCKS_MAX one-sector extents at base, base + step, ... */
static void fill(u64 base, u64 step, u64 len)
{
	for (u64 i = 0; i < BADBLOCKS_MAX; i++)
		assert_int_equal(badblocks_set(&bb, base + i * step, len), 0);
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX);
	assert_well_formed(&bb);
}

static void a_full_list_grows_the_nearest_neighbour(void **state)
{
	u64 last = 1000 + (BADBLOCKS_MAX - 1) * 10; /* [1000,1001), [1010,1011), ... */

	(void)state;
	fill(1000, 10, 1);
	/* Nearer the one before (gaps 2 and 6): it grows over the gap. */
	assert_int_equal(badblocks_set(&bb, 1003, 1), 0);
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX);
	assert_int_equal(bb.e[0].sector, 1000);
	assert_int_equal(bb.e[0].len, 4);
	assert_true(bad(1001) && bad(1002)); /* good sectors now listed bad */
	/* Nearer the one after (gaps 7 and 1): it grows down to it. */
	assert_int_equal(badblocks_set(&bb, 1018, 1), 0);
	assert_int_equal(bb.e[1].sector, 1010);
	assert_int_equal(bb.e[1].len, 1);
	assert_int_equal(bb.e[2].sector, 1018);
	assert_int_equal(bb.e[2].len, 3);
	/* A tie (gaps 3 and 3) goes to the one before. */
	assert_int_equal(badblocks_set(&bb, 1024, 3), 0);
	assert_int_equal(bb.e[2].sector, 1018);
	assert_int_equal(bb.e[2].len, 9);
	assert_int_equal(bb.e[3].sector, 1030);
	assert_int_equal(bb.e[3].len, 1);
	/* Before the first and after the last: the only neighbour. */
	assert_int_equal(badblocks_set(&bb, 900, 2), 0);
	assert_int_equal(bb.e[0].sector, 900);
	assert_int_equal(bb.e[0].len, 104);
	assert_int_equal(badblocks_set(&bb, last + 50, 5), 0);
	assert_int_equal(bb.e[BADBLOCKS_MAX - 1].sector, last);
	assert_int_equal(bb.e[BADBLOCKS_MAX - 1].len, 55);
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX);
	assert_well_formed(&bb);
	/* Never dropped: each sector set is still bad. */
	assert_true(bad(1003) && bad(1018) && bad(1026) && bad(900) && bad(last + 54));
	/* A new extent that touches one merges as usual, full or not. */
	assert_int_equal(badblocks_set(&bb, 1027, 3), 0);
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX - 1);
	assert_int_equal(bb.e[2].sector, 1018);
	assert_int_equal(bb.e[2].len, 13);
	assert_well_formed(&bb);
}

static void a_split_in_a_full_list_fails_and_leaves_the_range_bad(void **state)
{
	struct badblocks before;

	(void)state;
	fill(0, 10, 5); /* [0,5), [10,15), ... */
	memcpy(&before, &bb, sizeof(bb));
	assert_int_equal(badblocks_clear(&bb, 11, 2), -ENOSPC);
	assert_memory_equal(bb.e, before.e, sizeof(bb.e));
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX);
	assert_true(bad(11) && bad(12));
	/* What needs no new slot still works on a full list: a head, a tail, a whole extent. */
	assert_int_equal(badblocks_clear(&bb, 10, 2), 0);
	assert_int_equal(bb.e[1].sector, 12);
	assert_int_equal(bb.e[1].len, 3);
	assert_int_equal(badblocks_clear(&bb, 23, 2), 0);
	assert_int_equal(bb.e[2].len, 3);
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX);
	assert_int_equal(badblocks_clear(&bb, 30, 5), 0);
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX - 1);
	/* With a slot free the split goes through. */
	assert_int_equal(badblocks_clear(&bb, 41, 2), 0);
	assert_int_equal(badblocks_count(&bb), BADBLOCKS_MAX);
	assert_false(bad(41) || bad(42));
	assert_true(bad(40) && bad(43));
	assert_well_formed(&bb);
}

static void check_answers_the_first_bad_sector(void **state)
{
	u64 first = 0;

	(void)state;
	assert_false(badblocks_check(&bb, 0, 1000, &first)); /* empty */
	assert_int_equal(badblocks_set(&bb, 10, 10), 0);
	assert_int_equal(badblocks_set(&bb, 30, 10), 0);
	assert_false(badblocks_check(&bb, 0, 10, &first));
	assert_true(badblocks_check(&bb, 0, 11, &first));
	assert_int_equal(first, 10);
	assert_true(badblocks_check(&bb, 15, 100, &first));
	assert_int_equal(first, 15);
	assert_false(badblocks_check(&bb, 20, 10, &first));
	assert_true(badblocks_check(&bb, 20, 11, &first));
	assert_int_equal(first, 30);
	assert_true(badblocks_check(&bb, 39, 1, &first));
	assert_int_equal(first, 39);
	assert_false(badblocks_check(&bb, 40, 1000, &first));
}

static void range_clips_to_the_window_and_counts(void **state)
{
	struct bb_extent out[4];
	u64 sectors = 0;

	(void)state;
	assert_int_equal(badblocks_set(&bb, 10, 10), 0);
	assert_int_equal(badblocks_set(&bb, 30, 10), 0);
	assert_int_equal(badblocks_set(&bb, 50, 10), 0);
	/* [15, 55): a tail, a whole extent, a head; offsets from 15. */
	memset(out, 0xEE, sizeof(out));
	assert_int_equal(badblocks_range(&bb, 15, 40, out, 4, &sectors), 3);
	assert_int_equal(sectors, 5 + 10 + 5);
	assert_int_equal(out[0].sector, 0);
	assert_int_equal(out[0].len, 5);
	assert_int_equal(out[1].sector, 15);
	assert_int_equal(out[1].len, 10);
	assert_int_equal(out[2].sector, 35);
	assert_int_equal(out[2].len, 5);
	assert_int_equal(out[3].sector, 0xEEEEEEEEEEEEEEEEull); /* not one more */
	/* Room for one: all are counted, one is written. */
	memset(out, 0xEE, sizeof(out));
	assert_int_equal(badblocks_range(&bb, 0, 1000, out, 1, &sectors), 3);
	assert_int_equal(sectors, 30);
	assert_int_equal(out[0].sector, 10);
	assert_int_equal(out[0].len, 10);
	assert_int_equal(out[1].sector, 0xEEEEEEEEEEEEEEEEull);
	/* Inside one extent; between two; no count wanted; no room at all. */
	assert_int_equal(badblocks_range(&bb, 32, 3, out, 4, &sectors), 1);
	assert_int_equal(out[0].sector, 0);
	assert_int_equal(out[0].len, 3);
	assert_int_equal(sectors, 3);
	assert_int_equal(badblocks_range(&bb, 20, 10, out, 4, &sectors), 0);
	assert_int_equal(sectors, 0);
	assert_int_equal(badblocks_range(&bb, 0, 60, out, 4, NULL), 3);
	assert_int_equal(badblocks_range(&bb, 0, 60, NULL, 0, &sectors), 3);
	assert_int_equal(sectors, 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(empty_and_wrapping_ranges_are_refused, reset),
		cmocka_unit_test_setup(set_merges_overlapping_extents, reset),
		cmocka_unit_test_setup(set_merges_adjacent_extents, reset),
		cmocka_unit_test_setup(set_swallows_every_extent_it_touches, reset),
		cmocka_unit_test_setup(clear_splits_an_extent, reset),
		cmocka_unit_test_setup(clear_trims_partial_extents, reset),
		cmocka_unit_test_setup(a_full_list_grows_the_nearest_neighbour, reset),
		cmocka_unit_test_setup(a_split_in_a_full_list_fails_and_leaves_the_range_bad,
				       reset),
		cmocka_unit_test_setup(check_answers_the_first_bad_sector, reset),
		cmocka_unit_test_setup(range_clips_to_the_window_and_counts, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
