/*
 * drivers/acpica's own interface between its files (after <acpi/acpi.h>;
 * nothing outside drivers/acpica includes this).
 */
#ifndef PMEMK_ACPICA_PRIV_H
#define PMEMK_ACPICA_PRIV_H

/* Bring ACPICA up once (acpica.c); 0, or -ENODEV after one line saying why. */
int acpica_init(void);

/* Print an evaluation result, packages recursively, at indent depth. */
void acpica_print_object(const union acpi_object *o, int depth);

/* "xxxxxxxx-xxxx-..." into ToUUID byte order; -EINVAL when malformed. */
int acpica_parse_uuid(const char *s, u8 out[16]);

/*
 * Read the label area of the DIMM whose NFIT handle is `handle` through
 * _DSM functions 4 and 5 (nvdimm_dsm.c): a malloc'd copy in *area. 0, or a
 * negative errno after one line starting with `who`.
 */
int nvdimm_dsm_read_labels(u32 handle, u8 **area, u32 *size, u32 *max_xfer, u32 *chunks,
			   const char *who);

#endif
