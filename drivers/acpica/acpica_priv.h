/*
 * drivers/acpica's own interface between its files (after <acpi/acpi.h>;
 * nothing outside drivers/acpica includes this).
 */
#ifndef PMEMK_ACPICA_PRIV_H
#define PMEMK_ACPICA_PRIV_H

#include <stdbool.h>

/* Bring ACPICA up once (acpica.c); 0, or -ENODEV after one line saying why. */
int acpica_init(void);

/* "xxxxxxxx-xxxx-..." into ToUUID byte order; -EINVAL when malformed. */
int acpica_parse_uuid(const char *s, u8 out[16]);

/* The most label bytes one read or write moves (FACTS-4 2: the methods' window). */
#define NVDIMM_LABEL_XFER_MAX 4096

/*
 * One way to a DIMM's label area (nvdimm_dsm.c): the Intel _DSM functions
 * 4/5/6, or ACPI's _LSI/_LSR/_LSW (nvdimm_lsx.c). `dev` is the DIMM's
 * device; every call but present/writable prints one line on failure.
 */
struct nvdimm_label_if {
	const char *name;
	bool (*present)(acpi_handle dev);		/* size and read exist */
	bool (*writable)(acpi_handle dev);		/* write exists */
	int (*info)(acpi_handle dev, u32 *size, u32 *max_xfer, const char *who);
	int (*read)(acpi_handle dev, u32 off, u32 len, u8 *dst, const char *who);
	int (*write)(acpi_handle dev, u32 off, const u8 *src, u32 len, const char *who);
};

extern const struct nvdimm_label_if nvdimm_lsx_if;

/* nvdimm_dsm.c: the DIMM device whose _ADR is the NFIT handle, or NULL (quietly). */
acpi_handle nvdimm_acpi_lookup(u32 handle);
/*
 * _DSM function `fn` of the DIMM's Intel family with `in` (len bytes):
 * the output buffer (ACPI_FREE it), or NULL after one line (none when
 * `who` is NULL).
 */
union acpi_object *nvdimm_dsm_eval(acpi_handle dev, u32 fn, const void *in, u32 len,
				   const char *who);
/* Bit `fn` of the DIMM's Intel _DSM function bitmap (function 0), quietly. */
bool nvdimm_dsm_supports(acpi_handle dev, u32 fn);

#endif
