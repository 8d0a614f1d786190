/*
 * What the BTT host tests share (test_btt.c, test_btt_check.c,
 * test_btt_device.c; defined in btt_tests.c): a simulated machine with one
 * 1 GiB pmem namespace, sector I/O on its BTT device pmem0s, ndctl's
 * check-namespace on it, and a BTT of 16 written sectors.
 */
#ifndef PMEMK_TEST_BTT_TESTS_H
#define PMEMK_TEST_BTT_TESTS_H

#include "nvdimm.h"
#include "pmem.h"
#include "types.h"

#define NS_START (4 * GiB)
#define NS_SIZE (1 * GiB)

extern struct nd_namespace_io *ns;	/* the namespace of the last machine() */
extern bool region_ro;			/* the next machine's region is read-only */

/* A fresh machine up to the probe: RAM at 1 GiB, one e820 pmem region at 4 GiB. */
void machine(bool keep_pmem);
/* machine(), then the namespaces probed. */
void boot(bool keep_pmem);
/* The namespace's byte at off, in simulated memory. */
u8 *media(u64 off);
/* A hash of the whole namespace. */
u64 ns_hash(void);
/* cmocka setup: a writable region, booted with the namespace's media cleared. */
int btt_test_setup(void **state);

/* The BTT's block device; fails the test when there is none. */
struct pmem_device *pmem0s(void);
/* One sector of pmem0s in or out; failures fail the test. */
void read_lba(u64 lba, u8 *buf);
void write_lba(u64 lba, const u8 *buf);
/* Sector lba reads want. */
void expect_lba(u64 lba, const u8 *want);
/* check-namespace on the namespace's media (repair: --repair); 0 when clean. */
int check(bool repair);

/* Make the namespace a BTT of sectors of lbasize (0: the default) with -f. */
void create_sector(u32 lbasize);
/* n bytes of generation gen's pattern for lba. */
void pattern(u8 *buf, u32 n, u8 gen, u64 lba);
/* A 4096-byte BTT with sectors 0-15 written (generation 1); check-namespace clean. */
void written_btt(void);

#endif
