/* UEFI memory descriptor type/attribute -> e820 type (FACTS 5.5, 6.1, 6.2). */
#include "e820.h"

/*
 * EFI_MEMORY_TYPE values, UEFI 2.10 §7.2 (EFI_BOOT_SERVICES.AllocatePages).
 * Defined here because gnu-efi 3.0.15 stops at EfiPalCode (FACTS 6.1).
 */
enum {
	EFI_RESERVED_TYPE = 0,
	EFI_LOADER_CODE = 1,
	EFI_LOADER_DATA = 2,
	EFI_BOOT_SERVICES_CODE = 3,
	EFI_BOOT_SERVICES_DATA = 4,
	EFI_RUNTIME_SERVICES_CODE = 5,
	EFI_RUNTIME_SERVICES_DATA = 6,
	EFI_CONVENTIONAL_MEMORY = 7,
	EFI_UNUSABLE_MEMORY = 8,
	EFI_ACPI_RECLAIM_MEMORY = 9,
	EFI_ACPI_MEMORY_NVS = 10,
	EFI_MEMORY_MAPPED_IO = 11,
	EFI_MEMORY_MAPPED_IO_PORT_SPACE = 12,
	EFI_PAL_CODE = 13,
	EFI_PERSISTENT_MEMORY = 14,
	EFI_UNACCEPTED_MEMORY = 15,
};

/* EFI_MEMORY_DESCRIPTOR.Attribute bit, UEFI 2.10 §7.2 (GetMemoryMap). */
#define EFI_MEMORY_NV 0x8000ULL

/*
 * Contract: total for every (type, attribute). Memory the loader or boot
 * services used is free once boot services are gone, so it is RAM; runtime
 * services memory stays reserved (GRUB reports runtime code as 20, we say 2);
 * anything unknown, including OEM and OS-loader types, is reserved. A range
 * the firmware marks non-volatile (EFI_MEMORY_NV) is pmem whatever its type.
 */
u32 e820_type_from_efi(u32 efi_type, u64 attribute)
{
	if (attribute & EFI_MEMORY_NV)
		return E820_TYPE_PMEM;

	switch (efi_type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return E820_TYPE_RAM;
	case EFI_UNUSABLE_MEMORY:
		return E820_TYPE_UNUSABLE;
	case EFI_ACPI_RECLAIM_MEMORY:
		return E820_TYPE_ACPI;
	case EFI_ACPI_MEMORY_NVS:
		return E820_TYPE_NVS;
	case EFI_PERSISTENT_MEMORY:
		return E820_TYPE_PMEM;
	case EFI_RESERVED_TYPE:
	case EFI_RUNTIME_SERVICES_CODE:
	case EFI_RUNTIME_SERVICES_DATA:
	case EFI_MEMORY_MAPPED_IO:
	case EFI_MEMORY_MAPPED_IO_PORT_SPACE:
	case EFI_PAL_CODE:
	case EFI_UNACCEPTED_MEMORY:
	default:
		return E820_TYPE_RESERVED;
	}
}
