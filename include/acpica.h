/*
 * What the rest of the kernel may ask of ACPICA (drivers/acpica/): the
 * machine's own way to power off and reset, for when there is no
 * debug-exit device (real machines). ACPICA comes up on the first call.
 */
#ifndef PMEMK_ACPICA_H
#define PMEMK_ACPICA_H

/*
 * Enter S5 (soft off): SLP_TYPa/b from \_S5, written with SLP_EN into the
 * FADT's PM1a/PM1b control registers (ACPI 6.4 §7.4.2, §4.8.3.2.1).
 * Returns only on failure: -ENODEV or -EIO after one line saying why.
 */
int acpica_poweroff(void);

/*
 * Write the FADT reset value to the FADT reset register (ACPI 6.4 §4.8.3.6,
 * FADT RESET_REG_SUP). Returns only on failure, after one line.
 */
int acpica_reset(void);

#endif
