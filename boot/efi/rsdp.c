/*
 * The ACPI RSDP the firmware publishes in its configuration table (UEFI 2.10
 * §4.6; GUIDs in FACTS §6.3), copied into boot_info as the multiboot2 path
 * copies GRUB's tag (FACTS §3.1 for the layout). Pure: main.c finds the table.
 */
#include "loader.h"

#define RSDP_V1_LEN 20
#define RSDP_REVISION 15

int rsdp_copy(const u8 *rsdp, struct boot_info *bi, const char **why)
{
	static const char sig[8] = "RSD PTR ";
	u32 len = BOOT_RSDP_MAX;	/* ACPI 2.0+: 36 bytes */

	for (int i = 0; i < 8; i++) {
		if (rsdp[i] != (u8)sig[i]) {
			*why = "no \"RSD PTR \" signature";
			return -1;
		}
	}
	if (rsdp[RSDP_REVISION] < 2)
		len = RSDP_V1_LEN;
	for (u32 i = 0; i < len; i++)
		bi->rsdp[i] = rsdp[i];
	bi->rsdp_len = len;
	return 0;
}
