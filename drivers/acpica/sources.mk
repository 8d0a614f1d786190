# drivers/acpica: pmemk's OS services layer for ACPICA and what uses the AML
# (acpi-eval, the NVDIMM label _DSMs). Kernel only: it needs ACPICA, which
# tools/build-acpica.sh fetches and builds into build/acpica/libacpica.a.
kernel-y += drivers/acpica/osl.c drivers/acpica/acpica.c drivers/acpica/rsdp.c \
	drivers/acpica/nvdimm_dsm.c drivers/acpica/nvdimm_lsx.c drivers/acpica/nvdimm_smart.c drivers/acpica/power.c
