/*
 * Host tests: BTT lanes with threads as CPUs (host_set_cpu_id). Writers on
 * four lanes hammer the same few sectors while readers on two more lanes
 * read them: every sector a reader sees is wholly one write (the read
 * tracking table keeps a writer off a block being read; the map lock keeps
 * two writers of one sector from losing a block), and afterwards the BTT
 * is consistent (btt_check clean) and reads the same after a re-open
 * (the free list rebuilt from the log).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pthread.h>

#include "btt.h"
#include "host.h"

#define MEDIA_SIZE (24 * MiB)
#define LBASIZE 4096u
#define HOT_LBAS 16u		/* the sectors everyone writes: contention on purpose */
#define WRITERS 4
#define READERS 2
#define WRITES_EACH 10000

static struct nsio m;
static struct btt bt;
static const u8 uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const u8 parent[16];
static volatile int writers_left;
static u32 torn_reads, bad_reads;

/* A sector of one write: every word says writer, generation and LBA. */
static void fill(u64 *w, u32 writer, u32 gen, u64 lba)
{
	u64 v = (u64)writer << 56 | (u64)gen << 24 | lba;

	for (u32 i = 0; i < LBASIZE / 8; i++)
		w[i] = v;
}

/* 0 when `w` is wholly one write of `lba` (or never written: zeroes), else -1. */
static int whole(const u64 *w, u64 lba)
{
	for (u32 i = 1; i < LBASIZE / 8; i++)
		if (w[i] != w[0])
			return -1;
	return w[0] == 0 || (w[0] & 0xffffff) == lba ? 0 : -1;
}

struct worker {
	pthread_t t;
	u32 cpu;
	u32 seed;
};

static void *writer(void *arg)
{
	struct worker *me = arg;
	u64 *buf = malloc(LBASIZE);

	host_set_cpu_id(me->cpu);
	for (u32 gen = 1; gen <= WRITES_EACH; gen++) {
		u64 lba = rand_r(&me->seed) % HOT_LBAS;
		fill(buf, me->cpu, gen, lba);
		assert_int_equal(btt_write(&bt, lba, buf), 0);
	}
	free(buf);
	__atomic_fetch_sub(&writers_left, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *reader(void *arg)
{
	struct worker *me = arg;
	u64 *buf = malloc(LBASIZE);

	host_set_cpu_id(me->cpu);
	while (__atomic_load_n(&writers_left, __ATOMIC_SEQ_CST)) {
		u64 lba = rand_r(&me->seed) % HOT_LBAS;
		if (btt_read(&bt, lba, buf))
			__atomic_fetch_add(&bad_reads, 1, __ATOMIC_SEQ_CST);
		else if (whole(buf, lba))
			__atomic_fetch_add(&torn_reads, 1, __ATOMIC_SEQ_CST);
	}
	free(buf);
	return NULL;
}

static void open_btt(void)
{
	char why[160];

	assert_int_equal(btt_open(&bt, &m, BTT_V1_OFFSET, parent, "btt0.0", why, sizeof(why)), 0);
}

static void btt_lanes_concurrent_writers_and_readers(void **state)
{
	(void)state;
	m = (struct nsio){ .base = calloc(1, MEDIA_SIZE), .size = MEDIA_SIZE, .cpu_cache = true };
	assert_non_null(m.base);
	assert_int_equal(btt_format(&m, BTT_V1_OFFSET, LBASIZE, uuid, parent), 0);
	open_btt();
	assert_int_equal(bt.nr_lanes, BTT_LANES);

	struct worker w[WRITERS + READERS];
	writers_left = WRITERS;
	for (u32 i = 0; i < WRITERS + READERS; i++) {
		w[i] = (struct worker){ .cpu = i + 1, .seed = 1234 + i };
		assert_int_equal(pthread_create(&w[i].t, NULL, i < WRITERS ? writer : reader, &w[i]), 0);
	}
	for (u32 i = 0; i < WRITERS + READERS; i++)
		pthread_join(w[i].t, NULL);
	assert_int_equal(bad_reads, 0);
	assert_int_equal(torn_reads, 0);

	/* Every hot sector whole; the same after a re-open; the BTT consistent. */
	u64 *before = malloc(HOT_LBAS * LBASIZE), *after = malloc(HOT_LBAS * LBASIZE);
	for (u64 lba = 0; lba < HOT_LBAS; lba++) {
		assert_int_equal(btt_read(&bt, lba, (u8 *)before + lba * LBASIZE), 0);
		assert_int_equal(whole(before + lba * LBASIZE / 8, lba), 0);
		assert_int_not_equal(before[lba * LBASIZE / 8], 0);
	}
	btt_close(&bt);
	assert_int_equal(btt_check(&m, parent, "btt0.0", false), 0);
	open_btt();
	for (u64 lba = 0; lba < HOT_LBAS; lba++)
		assert_int_equal(btt_read(&bt, lba, (u8 *)after + lba * LBASIZE), 0);
	assert_memory_equal(before, after, HOT_LBAS * LBASIZE);
	btt_close(&bt);
	free(before);
	free(after);
	free(m.base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(btt_lanes_concurrent_writers_and_readers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
