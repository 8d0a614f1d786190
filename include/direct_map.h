/*
 * The direct map (PAGE_OFFSET + pa): RAM is mapped at boot; firmware tables
 * in reserved memory and pmem ranges are added on demand with
 * direct_map_add(), and pmem is removed again with direct_map_remove().
 */
#ifndef PMEMK_DIRECT_MAP_H
#define PMEMK_DIRECT_MAP_H

#include "types.h"

/*
 * Make [pa, pa+len) reachable at PAGE_OFFSET + pa, read-write, no-execute
 * (the range is widened to whole pages). Parts already mapped are left as
 * they are; the rest gets the largest leaves alignment allows. Returns 0, or
 * -ENOMEM / -EINVAL (beyond the direct map's 64 TiB).
 */
int direct_map_add(u64 pa, u64 len);

/* Unmap [pa, pa+len) (page aligned) from the direct map. */
int direct_map_remove(u64 pa, u64 len);

/* True if every page of [pa, pa+len) is in the direct map. */
bool direct_map_covers(u64 pa, u64 len);

#endif
