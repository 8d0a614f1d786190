/* Fletcher-64 and uuid helpers for the nvdimm on-media formats. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_util.h"

u64 nd_fletcher64(const void *buf, size_t len)
{
	const u8 *p = buf;
	u32 lo = 0;
	u64 hi = 0;

	for (size_t i = 0; i + 4 <= len; i += 4) {
		u32 w = (u32)p[i] | (u32)p[i + 1] << 8 | (u32)p[i + 2] << 16 |
			(u32)p[i + 3] << 24;
		lo += w;
		hi += lo;
	}
	return hi << 32 | lo;
}

/*
 * The checksum field is the block's last two 32-bit words and counts as
 * zero: sum the words before it, then let the high sum absorb the low sum
 * twice more (two zero words), without copying the block.
 */
u64 nd_info_block_checksum(const void *block)
{
	u64 r = nd_fletcher64(block, ND_INFO_BLOCK_SIZE - 8);
	u32 lo = (u32)r, hi = (u32)(r >> 32);

	hi += 2 * lo;
	return (u64)hi << 32 | lo;
}

void uuid_to_str(const u8 u[16], char out[UUID_STR_LEN + 1])
{
	snprintf(out, UUID_STR_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		 u[11], u[12], u[13], u[14], u[15]);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int uuid_parse(const char *s, u8 u[16])
{
	int n = 0;

	if (!s || strlen(s) != UUID_STR_LEN)
		return -EINVAL;
	for (int i = 0; i < UUID_STR_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			continue;
		}
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		u[n++] = (u8)(hi << 4 | lo);
		i++;
	}
	return 0;
}

bool uuid_is_null(const u8 u[16])
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return false;
	return true;
}

void uuid_gen(u8 u[16], u64 (*rand64)(void))
{
	u64 a = rand64(), b = rand64();

	memcpy(u, &a, 8);
	memcpy(u + 8, &b, 8);
	u[6] = (u8)((u[6] & 0x0F) | 0x40);	/* version 4 */
	u[8] = (u8)((u[8] & 0x3F) | 0x80);	/* RFC 4122 variant */
}
