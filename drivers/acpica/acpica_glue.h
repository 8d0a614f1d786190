/*
 * Between ACPICA's world and pmemk's: the files that include ACPICA's
 * headers (<acpi/acpi.h>) do not include pmemk's acpi.h. Both describe the
 * same firmware tables, each its own way, and keeping them apart keeps the
 * two from being mixed up; what those files need of pmemk's table list
 * comes through these plain functions (rsdp.c).
 */
#ifndef PMEMK_ACPICA_GLUE_H
#define PMEMK_ACPICA_GLUE_H

#include "types.h"

/*
 * Physical address of an RSDP naming the root table pmemk's own table
 * walk chose (fw_tables_init): the firmware's RSDP when its address is
 * known, else a copy rebuilt in kernel memory (multiboot2 passes only a
 * copy).
 * 0 when pmemk found no ACPI tables.
 */
u64 acpica_rsdp_pa(void);

#endif
