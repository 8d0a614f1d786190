/* The kernel's own symbol table, for stack traces (generated at link time). */
#ifndef PMEMK_KALLSYMS_H
#define PMEMK_KALLSYMS_H

#include "types.h"

/* Name of the text symbol containing addr, with *offset from its start; NULL if none. */
const char *kallsyms_lookup(u64 addr, u64 *offset);

#endif
