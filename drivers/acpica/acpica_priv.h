/*
 * drivers/acpica's own interface between its files (after <acpi/acpi.h>;
 * nothing outside drivers/acpica includes this).
 */
#ifndef PMEMK_ACPICA_PRIV_H
#define PMEMK_ACPICA_PRIV_H

/* Bring ACPICA up once (acpica.c); 0, or -ENODEV after one line saying why. */
int acpica_init(void);

/* "xxxxxxxx-xxxx-..." into ToUUID byte order; -EINVAL when malformed. */
int acpica_parse_uuid(const char *s, u8 out[16]);

#endif
