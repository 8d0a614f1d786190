/*
 * pmemk's ACPICA environment. ACPICA's acenv.h picks its host header by the
 * compiler's predefined macros; gcc for x86_64-linux-gnu defines __linux__,
 * so it includes <acpi/platform/aclinux.h> — and because
 * drivers/acpica/include comes first on ACPICA's include path
 * (tools/build-acpica.sh, the Makefile), it finds this file instead of the
 * Linux one. The settings: a 64-bit machine, newlib as the C library (its
 * stdlib/string/ctype), ACPICA's own object caches, and nothing of Linux.
 */
#ifndef __ACLINUX_H__
#define __ACLINUX_H__

#define ACPI_MACHINE_WIDTH 64
#define COMPILER_DEPENDENT_INT64 long long
#define COMPILER_DEPENDENT_UINT64 unsigned long long	/* = pmemk's u64 (types.h) */

/* newlib's <stdlib.h>, <string.h>, <ctype.h> (acenv.h includes them). */
#define ACPI_USE_STANDARD_HEADERS
#define ACPI_USE_SYSTEM_CLIBRARY
#include <stdarg.h>

/* PCI_Config operation regions through acpi_os_*_pci_configuration. */
#define ACPI_PCI_CONFIGURED

#define ACPI_USE_DO_WHILE_0
/* ACPICA's own caches (utcache.c) over acpi_os_allocate: no OS cache calls. */
#define ACPI_USE_LOCAL_CACHE

/* Before entering a sleep state (ACPI 6.4 §7.4.2: caches flushed). */
#define ACPI_FLUSH_CPU_CACHE() __asm__ volatile("wbinvd" : : : "memory")

#ifndef __init
#define __init
#endif
#ifndef __iomem
#define __iomem
#endif

#endif
