/*
 * Leave boot services: the final memory map and ExitBootServices (UEFI 2.10
 * §7.2 GetMemoryMap, §7.4 ExitBootServices). The map key changes whenever the
 * map does, including behind our back (timer events allocate); a stale key
 * makes ExitBootServices fail with EFI_INVALID_PARAMETER, after which only
 * memory services may be called, so the retry calls GetMemoryMap and
 * ExitBootServices alone: no allocation, no output.
 */
#include "firmware.h"

#define EXIT_TRIES 8
/* Descriptors our own buffer allocation and later splits may add. */
#define MAP_SLACK_DESCS 32

EFI_STATUS efi_mmap_prepare(struct efi_mmap *m)
{
	EFI_STATUS st;

	m->size = 0;
	st = BS->GetMemoryMap(&m->size, NULL, &m->key, &m->desc_size, &m->desc_version);
	if (st != EFI_BUFFER_TOO_SMALL)
		return EFI_ERROR(st) ? st : EFI_LOAD_ERROR;
	m->buf_size = m->size + MAP_SLACK_DESCS * m->desc_size;
	return BS->AllocatePool(EfiLoaderData, m->buf_size, &m->buf);
}

/*
 * Test hook (tools/mkefi.sh --test-stale-map-key): change the map between
 * the first GetMemoryMap and ExitBootServices, as a firmware event may, so
 * that the retry runs.
 */
static void stale_the_key(void)
{
	EFI_PHYSICAL_ADDRESS pa;

	BS->AllocatePages(AllocateAnyPages, EfiLoaderData, 1, &pa);
}

EFI_STATUS efi_exit_boot_services(EFI_HANDLE image, struct efi_mmap *m, bool test_stale_key)
{
	EFI_STATUS st = EFI_INVALID_PARAMETER;

	m->tries = 0;
	while (m->tries < EXIT_TRIES && st == EFI_INVALID_PARAMETER) {
		m->size = m->buf_size;
		st = BS->GetMemoryMap(&m->size, m->buf, &m->key, &m->desc_size, &m->desc_version);
		if (EFI_ERROR(st))
			return st;
		if (test_stale_key && m->tries == 0)
			stale_the_key();
		m->tries++;
		st = BS->ExitBootServices(image, m->key);
	}
	return st;
}
