/*
 * The RSDP for ACPICA (acpica_glue.h). ACPICA takes a physical address
 * (acpi_os_get_root_pointer) and maps it itself; when pmemk was handed
 * only a copy of the RSDP (multiboot2, FACTS §5.3), a fresh one naming the
 * same root table is built in the kernel image (ACPI 6.4 §5.2.5.3 layout,
 * FACTS §3.1), whose physical address ACPICA can then map.
 */
#include "acpi.h"
#include "acpica_glue.h"
#include "arch.h"
#include "printk.h"
#include <string.h>

static struct rsdp rebuilt __aligned(16);

u64 acpica_rsdp_pa(void)
{
	const struct fw_tables *t = &fw_tables;

	if (!t->rsdp_source || !t->root_pa)
		return 0;
	if (t->rsdp_pa)
		return t->rsdp_pa;
	memset(&rebuilt, 0, sizeof(rebuilt));
	memcpy(rebuilt.signature, "RSD PTR ", 8);
	memcpy(rebuilt.oem_id, "PMEMK ", 6);
	if (!strcmp(t->root_signature, "XSDT")) {
		rebuilt.revision = 2;
		rebuilt.length = RSDP_V2_LEN;
		rebuilt.xsdt_address = t->root_pa;
	} else {
		rebuilt.revision = 0;
		rebuilt.rsdt_address = (u32)t->root_pa;
	}
	rebuilt.checksum = (u8)-sdt_checksum(&rebuilt, RSDP_V1_LEN);
	rebuilt.extended_checksum = (u8)-sdt_checksum(&rebuilt, RSDP_V2_LEN);
	return virt_to_phys(&rebuilt);
}
