/* Small helpers shared by nvdimm code and tools: Fletcher-64, uuids. */
#ifndef PMEMK_ND_UTIL_H
#define PMEMK_ND_UTIL_H

#include "types.h"

/*
 * Fletcher-64 as libnvdimm defines it (FACTS §1.5): 32-bit little-endian
 * words, a 32-bit low sum and a 64-bit high sum; result (hi << 32) | lo.
 * `len` must be a multiple of 4.
 */
u64 nd_fletcher64(const void *buf, size_t len);

/*
 * The checksum of a 4 KiB info block whose last 8 bytes hold it (pfn, dax
 * and BTT info blocks: FACTS §1.5, FACTS-2 §1.2): Fletcher-64 over the
 * block with those 8 bytes taken as zero.
 */
#define ND_INFO_BLOCK_SIZE 4096
u64 nd_info_block_checksum(const void *block);

#define UUID_STR_LEN 36

/* uuids are 16 bytes in string order (RFC 4122 text order, Linux's %pUb). */
void uuid_to_str(const u8 uuid[16], char out[UUID_STR_LEN + 1]);
int uuid_parse(const char *s, u8 uuid[16]);	/* 0 or -EINVAL */
bool uuid_is_null(const u8 uuid[16]);
/* A random (version 4) uuid from the 64-bit random source given. */
void uuid_gen(u8 uuid[16], u64 (*rand64)(void));

/*
 * The seq=N test pattern (the shell's write/cmp, tools/crashcheck): the
 * 8-byte word at byte `off` of a block device holds this value, so every
 * word says which pattern wrote it and where it belongs.
 */
static inline u64 nd_seq_word(u64 seed, u64 off)
{
	return (off * 0x9E3779B97F4A7C15ULL) ^ seed;
}

/* In a checker taking `const char **why`: give the one-line reason, return err. */
#define REJECT(err, msg)                                                                           \
	do {                                                                                       \
		*why = (msg);                                                                      \
		return (err);                                                                      \
	} while (0)

#endif
