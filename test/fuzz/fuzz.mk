# Fuzz targets (libFuzzer, clang): make fuzz builds them under build/fuzz/.
# Run one with e.g. build/fuzz/fuzz_memmap -max_total_time=60.

FUZZ_CC     ?= clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer \
	-Iinclude -Itest/host -DHOST_TEST

# Portable code the e820 harness links: the memory map (not its pmem
# provider, which needs the nvdimm core), lib/ minus the kernel's
# newlib syscalls, and the host arch (console capture).
FUZZ_E820_SRCS := $(filter-out drivers/e820/e820_pmem.c,$(wildcard drivers/e820/*.c)) \
	$(filter-out lib/syscalls.c,$(wildcard lib/*.c)) test/host/arch_host.c test/host/pte_host.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_memmap

$(BUILD)/fuzz/fuzz_memmap: test/fuzz/fuzz_memmap.c $(FUZZ_E820_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_memmap.c $(FUZZ_E820_SRCS) -o $@

# The NFIT harness: the ACPI/NFIT driver and the nvdimm core on top of it.
# The parsers also build with -Wconversion (docs/STYLE.md).
FUZZ_NFIT_PARSERS := drivers/acpi_nfit/nfit.c drivers/acpi_nfit/subtable.c drivers/acpi_nfit/acpi.c \
	drivers/acpi_nfit/rsdp.c
FUZZ_ND_SRCS := nvdimm/nsio.c nvdimm/bus.c nvdimm/region.c nvdimm/namespace.c nvdimm/list.c nvdimm/smart.c nvdimm/label.c \
	nvdimm/namespace_label.c nvdimm/namespace_label_read.c nvdimm/badblocks.c nvdimm/media_error.c nvdimm/ars.c test/host/mce_host.c
FUZZ_NFIT_SRCS := $(wildcard drivers/acpi_nfit/*.c) drivers/e820/e820_pmem.c mm/memblock.c test/host/persist_host.c \
	test/fuzz/fuzz_mm_fake.c \
	$(FUZZ_ND_SRCS) $(FUZZ_E820_SRCS)

FUZZ_BINS += $(BUILD)/fuzz/fuzz_nfit

$(BUILD)/fuzz/fuzz_nfit: test/fuzz/fuzz_nfit.c $(FUZZ_NFIT_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_NFIT_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_nfit.c $(FUZZ_NFIT_SRCS) -o $@

# ACPI discovery end to end: RSDP, XSDT/RSDT, every NFIT, the nvdimm core.
FUZZ_BINS += $(BUILD)/fuzz/fuzz_acpi

$(BUILD)/fuzz/fuzz_acpi: test/fuzz/fuzz_acpi.c $(FUZZ_NFIT_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_acpi.c $(FUZZ_NFIT_SRCS) -o $@

# The multiboot2 boot information and the e820 table made from it.
FUZZ_MB2_PARSERS := boot/multiboot2.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_multiboot2

$(BUILD)/fuzz/fuzz_multiboot2: test/fuzz/fuzz_multiboot2.c $(FUZZ_MB2_PARSERS) $(FUZZ_E820_SRCS) \
		$(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_MB2_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_multiboot2.c $(FUZZ_MB2_PARSERS) $(FUZZ_E820_SRCS) -o $@

# The EFI loader's memory map conversion (with the EFI type table it uses).
FUZZ_EFIMAP_PARSERS := boot/efi/memmap.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_efi_memmap

$(BUILD)/fuzz/fuzz_efi_memmap: test/fuzz/fuzz_efi_memmap.c $(FUZZ_EFIMAP_PARSERS) drivers/e820/efi.c \
		$(wildcard include/*.h) boot/efi/loader.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_EFIMAP_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_efi_memmap.c $(FUZZ_EFIMAP_PARSERS) drivers/e820/efi.c -o $@

# The pfn info block: validation of any 4 KiB, and nd_pfn_init round trips.
FUZZ_PFN_PARSERS := nvdimm/pfn_info.c nvdimm/pfn_layout.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_pfn_info

$(BUILD)/fuzz/fuzz_pfn_info: test/fuzz/fuzz_pfn_info.c $(FUZZ_PFN_PARSERS) lib/nd_util.c \
		test/host/arch_host.c $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_PFN_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_pfn_info.c $(FUZZ_PFN_PARSERS) lib/nd_util.c \
		test/host/arch_host.c test/host/pte_host.c -o $@

# The NBD protocol engine as a hostile client drives it (net/nbd_proto.c and
# its phases).
FUZZ_NBD_PARSERS := net/nbd_proto.c net/nbd_handshake.c net/nbd_transmission.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_nbd

$(BUILD)/fuzz/fuzz_nbd: test/fuzz/fuzz_nbd.c $(FUZZ_NBD_PARSERS) net/nbd_proto_priv.h \
		$(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_nbd.c $(FUZZ_NBD_PARSERS) -o $@

# The MADT parser alone (CPUs, I/O APICs, the local APIC address).
FUZZ_MADT_PARSERS := drivers/acpi_nfit/madt.c drivers/acpi_nfit/subtable.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_madt

$(BUILD)/fuzz/fuzz_madt: test/fuzz/fuzz_madt.c $(FUZZ_MADT_PARSERS) drivers/acpi_nfit/acpi.c \
		drivers/acpi_nfit/rsdp.c $(FUZZ_E820_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_MADT_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_madt.c $(FUZZ_MADT_PARSERS) drivers/acpi_nfit/acpi.c \
		drivers/acpi_nfit/rsdp.c $(FUZZ_E820_SRCS) -o $@

# Label storage areas: the parser (-Wconversion too), ndctl's JSON, and a
# labelled region made of what parses.
FUZZ_BINS += $(BUILD)/fuzz/fuzz_label

$(BUILD)/fuzz/fuzz_label: test/fuzz/fuzz_label.c $(FUZZ_NFIT_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only nvdimm/label.c
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_label.c $(FUZZ_NFIT_SRCS) -o $@

# The ARS status output (-Wconversion on the engine too), alone and through
# the boot scrub of a region.
FUZZ_BINS += $(BUILD)/fuzz/fuzz_ars

$(BUILD)/fuzz/fuzz_ars: test/fuzz/fuzz_ars.c $(FUZZ_NFIT_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only nvdimm/ars.c
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_ars.c $(FUZZ_NFIT_SRCS) -o $@

# The bad-sector list against a bitmap model (with the spinlock and the
# host arch under it).
FUZZ_BB_SRCS := nvdimm/badblocks.c lib/spinlock.c lib/printk.c lib/print_capture.c test/host/arch_host.c \
	test/host/pte_host.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_badblocks

$(BUILD)/fuzz/fuzz_badblocks: test/fuzz/fuzz_badblocks.c $(FUZZ_BB_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_badblocks.c $(FUZZ_BB_SRCS) -o $@

# Pre-shared key files (psktool's format), the boot file nbd.psk.
FUZZ_PSK_PARSERS := lib/psk_file.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_psk_file

$(BUILD)/fuzz/fuzz_psk_file: test/fuzz/fuzz_psk_file.c $(FUZZ_PSK_PARSERS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_PSK_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_psk_file.c $(FUZZ_PSK_PARSERS) -o $@

# The HTTP API's parsing: requests (http-parser, compiled here from the
# fetched source so the fuzzer sees its branches), JSON bodies (jsmn), the
# token table (lib/, with the rest of lib), and the console parsers the
# bodies go through.
FUZZ_API_PARSERS := net/http_request.c net/api_json.c lib/api_tokens.c
FUZZ_API_SRCS := $(filter-out lib/%,$(FUZZ_API_PARSERS)) net/nbd_export_spec.c nvdimm/create_request.c nvdimm/pfn_info.c \
	nvdimm/pfn_layout.c $(FUZZ_E820_SRCS)
FUZZ_HTTP_PARSER_OBJ := $(BUILD)/fuzz/obj/http_parser.o

$(FUZZ_HTTP_PARSER_OBJ): | $(HTTP_PARSER_HOST_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(filter-out $(WARN),$(FUZZ_CFLAGS)) -w -DHTTP_PARSER_STRICT=1 -fsanitize=fuzzer-no-link \
		-c $(HTTP_PARSER_DIR)/include/http_parser.c -o $@

FUZZ_BINS += $(BUILD)/fuzz/fuzz_api_request

$(BUILD)/fuzz/fuzz_api_request: test/fuzz/fuzz_api_request.c $(FUZZ_API_SRCS) $(FUZZ_HTTP_PARSER_OBJ) \
		$(wildcard include/*.h) | $(JSMN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(API_INC) -Wconversion -fsyntax-only $(FUZZ_API_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(API_INC) test/fuzz/fuzz_api_request.c $(FUZZ_API_SRCS) \
		$(FUZZ_HTTP_PARSER_OBJ) -o $@

# The SMART payload decoder (Intel _DSM function 1) and its JSON; lib/ for
# the console the JSON goes to.
FUZZ_SMART_PARSERS := nvdimm/smart.c
FUZZ_SMART_SRCS := $(FUZZ_SMART_PARSERS) lib/nd_json.c lib/printk.c lib/print_capture.c lib/spinlock.c \
	test/host/arch_host.c test/host/pte_host.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_smart

$(BUILD)/fuzz/fuzz_smart: test/fuzz/fuzz_smart.c $(FUZZ_SMART_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_SMART_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_smart.c $(FUZZ_SMART_SRCS) -o $@

# The SRAT: proximity domains numbered into nodes as Linux does.
FUZZ_SRAT_PARSERS := drivers/acpi_nfit/srat.c drivers/acpi_nfit/subtable.c

FUZZ_BINS += $(BUILD)/fuzz/fuzz_srat

$(BUILD)/fuzz/fuzz_srat: test/fuzz/fuzz_srat.c $(FUZZ_SRAT_PARSERS) drivers/acpi_nfit/acpi.c \
		drivers/acpi_nfit/rsdp.c $(FUZZ_E820_SRCS) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wconversion -fsyntax-only $(FUZZ_SRAT_PARSERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) test/fuzz/fuzz_srat.c $(FUZZ_SRAT_PARSERS) drivers/acpi_nfit/acpi.c \
		drivers/acpi_nfit/rsdp.c $(FUZZ_E820_SRCS) -o $@
