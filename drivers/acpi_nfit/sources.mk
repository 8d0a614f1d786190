# drivers/acpi_nfit: ACPI tables, the NFIT, and the "nfit" pmem provider
# (portable: kernel and host tests).
portable-y += drivers/acpi_nfit/acpi.c drivers/acpi_nfit/rsdp.c drivers/acpi_nfit/nfit.c \
	drivers/acpi_nfit/nfit_register.c drivers/acpi_nfit/madt.c drivers/acpi_nfit/srat.c \
	drivers/acpi_nfit/subtable.c
