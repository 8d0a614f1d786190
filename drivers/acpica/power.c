/*
 * Power-off and reset the ACPI way (include/acpica.h), through ACPICA:
 * acpi_enter_sleep_state_prep evaluates _PTS and \_S5 (its first two
 * elements are SLP_TYPa and SLP_TYPb), acpi_enter_sleep_state writes
 * SLP_TYP and then SLP_TYP|SLP_EN to PM1a_CNT/PM1b_CNT (ACPI 6.4 §7.4.2,
 * §4.8.3.2.1); acpi_reset writes the FADT's RESET_VALUE to RESET_REG when
 * the FADT says the register is supported (§5.2.9, flag RESET_REG_SUP).
 */
#include <acpi/acpi.h>
#include <errno.h>

#include "acpica.h"
#include "acpica_priv.h"
#include "printk.h"
#include "shell.h"

int acpica_poweroff(void)
{
	acpi_status st;

	if (acpica_init())
		return -ENODEV;
	st = acpi_enter_sleep_state_prep(ACPI_STATE_S5);
	if (ACPI_FAILURE(st)) {
		kprintf("acpica: poweroff: preparing S5 (\\_S5): %s\n", acpi_format_exception(st));
		return -EIO;
	}
	kprintf("acpica: entering S5 (soft off)\n");
	st = acpi_enter_sleep_state(ACPI_STATE_S5);
	kprintf("acpica: poweroff: still running after S5: %s\n", acpi_format_exception(st));
	return -EIO;
}

/*
 * Write the FADT reset value to the FADT reset register (ACPI 6.4 §4.8.3.6,
 * FADT RESET_REG_SUP). Returns only on failure, after one line.
 */
static int acpica_reset(void)
{
	acpi_status st;

	if (acpica_init())
		return -ENODEV;
	if (!(acpi_gbl_FADT.flags & ACPI_FADT_RESET_REGISTER) || !acpi_gbl_FADT.reset_register.address) {
		kprintf("acpica: reset: the FADT (revision %u) has no reset register\n",
			acpi_gbl_FADT.header.revision);
		return -ENODEV;
	}
	kprintf("acpica: reset: writing %#x to the FADT reset register\n", acpi_gbl_FADT.reset_value);
	st = acpi_reset();
	if (ACPI_FAILURE(st)) {
		kprintf("acpica: reset: %s\n", acpi_format_exception(st));
		return -EIO;
	}
	/* The write is done; a machine that has not reset within 100 ms will not. */
	acpi_os_stall(100 * 1000);
	kprintf("acpica: reset: the machine did not reset\n");
	return -EIO;
}

static int cmd_reboot(int argc, char **argv)
{
	if (shell_args_max(argc, argv, 1))
		return -EINVAL;
	return acpica_reset();
}
SHELL_COMMAND(SHELL_SYSTEM, "reboot", cmd_reboot, "reboot",
	      "reset the machine through the FADT reset register (ACPICA)");
