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
 * Before the regions are published (kmain, after nfit_probe): unless
 * nd.labels=off, read the label area of every DIMM whose _DSM implements
 * Get Namespace Label Size and Data (functions 4, 5) into memory for the
 * nvdimm core, with function 6 as its way to write labels back; a DIMM
 * without them but with ACPI's _LSI/_LSR is read through those, and
 * written through _LSW (Linux's choice). One line per DIMM with a label
 * area; DIMMs without one are label-less, silently.
 */
void nvdimm_labels_load(void);

/*
 * Give every DIMM whose Intel _DSM has function 1 (SMART) the core's
 * smart_ops, and print one line for each whose health is not ok or whose
 * last shutdown was dirty (nd_smart.h).
 */
void nvdimm_health_load(void);

/*
 * After publication: ask the NVDIMM root device which of its _DSM
 * functions exist (ACPI 6.4 §9.20.7) and say in one line whether Address
 * Range Scrub is offered; if it is, register the root _DSM as the NFIT
 * bus's ARS transport (nd_ars.h) and run the boot scrub (nd_ars_boot).
 */
void nvdimm_ars_probe(void);

#endif
