/*
 * Little-endian loads and stores from/to byte buffers at any alignment: firmware tables,
 * boot information and on-media structures are little-endian (x86 is too)
 * and their fields are often not naturally aligned (e.g. XSDT entries).
 */
#ifndef PMEMK_UNALIGNED_H
#define PMEMK_UNALIGNED_H

#include "types.h"

static inline u16 get_le16(const void *p)
{
	u16 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 get_le32(const void *p)
{
	u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline u64 get_le64(const void *p)
{
	u64 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put_le16(void *p, u16 v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline void put_le32(void *p, u32 v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline void put_le64(void *p, u64 v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

#endif
