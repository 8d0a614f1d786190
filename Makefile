# pmemk: one Makefile; per-directory source lists in */sources.mk.
# Objects go out of tree under build/ (build/kernel for the kernel, build/host
# for the host unit tests).
#
#   make            build build/pmemk.elf (multiboot2 kernel)
#   make iso        build/pmemk.iso (GRUB, boots on SeaBIOS and OVMF)
#   make efi        build/BOOTX64.EFI (GNU-EFI, kernel inside) and build/esp/
#   make netboot    build/netboot/: PXE tree for BIOS (GRUB) and UEFI clients
#   make run        install what is missing, build, boot under QEMU (with a
#                   virtio-net NIC; NIC=e1000, NIC= for none, HOSTFWD=PORT;
#                   SMP=N vCPUs)
#   make run-net    the same, serving pmem1 over NBD on the host's 127.0.0.1:10809
#   make test       include rule, host unit tests (and the parallel ones under
#                   ThreadSanitizer, make test-tsan), short fuzz runs, the status page (test-page), QEMU
#                   tests, the Linux interop suite
#   make test-linux pmemk and Debian's Linux 6.1 + ndctl on the same nvdimms
#   make fuzz-long  each fuzz target for an hour (FUZZ_SECONDS=...), with a report
#   make test-boot  only the five boot-path QEMU tests
#   make test-page  the HTTPS API's status page in headless Chromium against
#                   a mock API (test/api/), no kernel: build/test-page/
#   make bench      benchmarks under QEMU: build/bench/results.{csv,md}, plots;
#                   NBD over TLS against Linux's qemu-nbd: build/bench/tls/;
#                   Linux's NBD client on pmemk and on qemu-nbd: build/bench/nbd-client/;
#                   creating/re-enabling map=dev against ndctl: build/bench/ndctl/
#   make bench-nbd-client  only the NBD client one (BENCH_NBDC_ARGS='--quick')
#   make bench-ndctl only the ndctl one (BENCH_NDCTL_ARGS='--quick')
#   make bench-scale on the host, no QEMU: memremap's page tables, sections
#                   and altmap at 1 GiB .. 64 TiB: build/bench/scale.{md,png}
#   make deps       install the Debian packages the build needs

SHELL      := /bin/bash
BUILD      ?= build
# make V=1 prints every command.
Q := $(if $(V),,@)
CMDLINE    ?= memmap=256M!512M
QEMU_ACCEL ?= tcg
export QEMU_ACCEL

NEWLIB_DIR := $(BUILD)/newlib
NEWLIB     := $(NEWLIB_DIR)/x86_64-elf
GCC_INC    := $(shell gcc -print-file-name=include)
LIBGCC     := $(shell gcc -print-libgcc-file-name)

WARN := -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes \
	-Wshadow -Wundef -Wno-sign-compare

# Ring 0, x86-64: no red zone (interrupts push onto the stack), kernel code
# model (linked in the top 2 GiB), no SSE in our own code (newlib's SSE use
# is made safe by CR4.OSFXSR and an fxsave in the trap path), frame pointers
# for the exception stack trace.
KCODEGEN := -std=gnu11 -O2 -g \
	-ffreestanding -mno-red-zone -mcmodel=kernel -fno-pie -fno-pic \
	-fno-stack-protector -fno-omit-frame-pointer -mgeneral-regs-only \
	-nostdinc -isystem $(NEWLIB)/include -isystem $(GCC_INC) \
	-Iinclude -Iarch/x86_64 -D__KERNEL__
KCFLAGS := $(KCODEGEN) $(WARN) -Wframe-larger-than=2048 -MMD -MP

# lwIP 2.1.3 from Debian's source package (tools/build-lwip.sh), built with
# the kernel's code generation; net/ compiles against its headers.
LWIP_DIR := $(BUILD)/lwip
LWIP_LIB := $(LWIP_DIR)/liblwip.a
# ACPICA (the AML interpreter) from Debian (tools/build-acpica.sh), built with
# the kernel's code generation; drivers/acpica/ is its OS services layer.
ACPICA_DIR := $(BUILD)/acpica
ACPICA_LIB := $(ACPICA_DIR)/libacpica.a
# mbedTLS 2.28 from Debian's source package (tools/build-mbedtls.sh) with
# pmemk's configuration (net/tls/mbedtls_config.h): built with the kernel's
# code generation, and again for the host's unit tests (with the client side
# and the sanitizers). MBEDTLS_INC is what a user of its headers compiles with.
MBEDTLS_DIR      := $(BUILD)/mbedtls
MBEDTLS_LIB      := $(MBEDTLS_DIR)/libmbedtls.a
MBEDTLS_HOST_LIB := $(MBEDTLS_DIR)/host/libmbedtls.a
MBEDTLS_INC      := -Inet/tls -I$(MBEDTLS_DIR)/include '-DMBEDTLS_CONFIG_FILE=<mbedtls_config.h>'
# The HTTP API's parsers (net/sources.mk api-y) stand on Debian's http-parser
# 2.9.4 (tools/build-http-parser.sh: built with the kernel's code generation,
# and again for the host's tests) and jsmn 1.1.0 (tools/fetch-jsmn.sh: one
# header, compiled inside net/api_json.c with that file's flags). API_INC is
# what a user of their headers compiles with; -isystem: they are not held to
# pmemk's warnings.
HTTP_PARSER_DIR      := $(BUILD)/http-parser
HTTP_PARSER_LIB      := $(HTTP_PARSER_DIR)/libhttp_parser.a
HTTP_PARSER_HOST_LIB := $(HTTP_PARSER_DIR)/host/libhttp_parser.a
JSMN_DIR             := $(BUILD)/jsmn
JSMN_H               := $(JSMN_DIR)/include/jsmn.h
API_INC              := -isystem $(HTTP_PARSER_DIR)/include -isystem $(JSMN_DIR)/include
KASFLAGS := -g -Iinclude -D__ASSEMBLY__ -MMD -MP
KLDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	-T linker.ld --no-warn-rwx-segments

HOST_CC     ?= gcc
HOST_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=undefined
HOST_CFLAGS := -std=gnu11 -O1 -g $(WARN) $(HOST_SANITIZE) -fno-omit-frame-pointer \
	-Iinclude -Itest/host -DHOST_TEST -MMD -MP
HOST_LDLIBS := -lcmocka -pthread
# The host's copies of mbedTLS and http-parser: the unit tests' code
# generation, no warnings of ours.
HOST_LIB_CFLAGS := -std=gnu11 -O1 -g $(HOST_SANITIZE) -fno-omit-frame-pointer

portable-y :=
kernel-y   :=
host-y     :=	# pure code of other images (the EFI loader) unit-tested on the host
include lib/sources.mk mm/sources.mk drivers/e820/sources.mk nvdimm/sources.mk \
	drivers/acpi_nfit/sources.mk drivers/acpica/sources.mk drivers/pci/sources.mk drivers/net/sources.mk net/sources.mk \
	boot/sources.mk arch/x86_64/sources.mk kernel/sources.mk bench/sources.mk

.DEFAULT_GOAL := all
include boot/efi/efi.mk
# Host tools built from the portable sources (tools/).
TOOLS := $(BUILD)/tools/pmemk-infoblock $(BUILD)/tools/pmemk-crashcheck \
	$(BUILD)/tools/pmemk-bttcheck
FUZZ_BINS :=
include test/fuzz/fuzz.mk
FUZZ_SECONDS ?= 10

KOBJS := $(patsubst %,$(BUILD)/kernel/%.o,$(portable-y) $(kernel-y))
HOST_PORTABLE := $(patsubst %,$(BUILD)/host/%.o,$(portable-y) $(host-y) $(wildcard test/host/*.c))
UNIT_SRCS  := $(wildcard test/unit/test_*.c)
UNIT_BINS  := $(patsubst test/unit/%.c,$(BUILD)/host/unit/%,$(UNIT_SRCS))
# The core (lib/, mm/, nvdimm/) must not reach into drivers/ or boot/
# (docs/ARCHITECTURE.md, "Dependency rule"): its tests link an archive of the
# core alone, so a call from the core into a provider fails to link.
CORE_DIRS       := lib/ mm/ nvdimm/
HOST_CORE       := $(patsubst %,$(BUILD)/host/%.o,$(filter $(addsuffix %,$(CORE_DIRS)),$(portable-y)) \
	$(wildcard test/host/*.c))
CORE_UNIT_TESTS := test_altmap test_workqueue test_memmap_parallel test_btt test_btt_check \
	test_btt_device test_cmdline test_memblock test_memmap_init test_memremap \
	test_ns_cycles test_nvdimm test_page_alloc test_pfn_dev test_pfn_info test_pgtable test_vmemmap \
	test_vmemmap_dedup test_vmemmap_lazy test_vmemmap_scale test_devdax test_btt_lanes test_label test_label_set \
	test_pmem_hold test_media_ro test_shell_args test_shell_nvdimm test_shell_block test_badblocks \
	test_media_errors test_ars test_api_tokens test_print_capture test_metrics test_cpu_time test_smart

.PHONY: all tools iso run run-net test test-deps test-unit test-tsan test-qemu test-fuzz fuzz clean deps newlib help \
	efi netboot test-boot test-page bench bench-nbd-client bench-ndctl bench-scale fuzz-long test-linux linux-guest FORCE
all: $(BUILD)/pmemk.elf $(TOOLS)

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@tools/deps.sh

newlib: $(NEWLIB)/lib/libc.a
$(NEWLIB)/lib/libc.a: tools/build-newlib.sh
	@tools/deps.sh
	tools/build-newlib.sh $(NEWLIB_DIR)

$(LWIP_LIB): FORCE | $(NEWLIB)/lib/libc.a
	@LWIP_CFLAGS='$(KCODEGEN)' tools/build-lwip.sh $(LWIP_DIR)

# net/ (the glue to lwIP) and the network benchmark need lwIP's headers, pmemk's lwipopts.h first.
NET_KOBJS := $(filter $(BUILD)/kernel/net/% $(BUILD)/kernel/bench/net_%,$(KOBJS))
$(NET_KOBJS): KCFLAGS += -Inet/lwip/include -I$(LWIP_DIR)/include
$(NET_KOBJS): | $(LWIP_LIB)

$(ACPICA_LIB): FORCE | $(NEWLIB)/lib/libc.a
	@ACPICA_CFLAGS='$(KCODEGEN)' tools/build-acpica.sh $(ACPICA_DIR)

$(MBEDTLS_LIB): FORCE | $(NEWLIB)/lib/libc.a
	@MBEDTLS_CFLAGS='$(KCODEGEN)' tools/build-mbedtls.sh $(MBEDTLS_DIR)

$(MBEDTLS_HOST_LIB): FORCE
	@MBEDTLS_CFLAGS='$(HOST_LIB_CFLAGS)' tools/build-mbedtls.sh $(MBEDTLS_DIR) host

$(HTTP_PARSER_LIB): FORCE | $(NEWLIB)/lib/libc.a
	@HTTP_PARSER_CFLAGS='$(KCODEGEN)' tools/build-http-parser.sh $(HTTP_PARSER_DIR)

$(HTTP_PARSER_HOST_LIB): FORCE
	@HTTP_PARSER_CFLAGS='$(HOST_LIB_CFLAGS)' tools/build-http-parser.sh $(HTTP_PARSER_DIR) host

$(JSMN_H):
	@tools/fetch-jsmn.sh $(JSMN_DIR)

# The TLS layer (net/sources.mk tls-y) compiles against mbedTLS's headers.
# The kernel takes its objects from an archive, like a library: nothing of
# them (or of mbedTLS) is linked in until a caller of tls_session_* or tls_cert_* exists.
TLS_KOBJS := $(patsubst %,$(BUILD)/kernel/%.o,$(tls-y))
TLS_KLIB  := $(BUILD)/kernel/libtls.a
$(TLS_KOBJS): KCFLAGS += $(MBEDTLS_INC)
$(TLS_KOBJS): | $(MBEDTLS_LIB)
$(TLS_KLIB): $(TLS_KOBJS)
	@rm -f $@
	$(Q)ar rcs $@ $^
# The HTTP API's parsers, an archive in the kernel like the TLS layer's.
API_KOBJS := $(patsubst %,$(BUILD)/kernel/%.o,$(api-y))
API_KLIB  := $(BUILD)/kernel/libapi.a
$(API_KOBJS): KCFLAGS += $(API_INC)
$(API_KOBJS): | $(HTTP_PARSER_LIB) $(JSMN_H)
$(API_KLIB): $(API_KOBJS)
	@rm -f $@
	$(Q)ar rcs $@ $^
# The TLS benchmark's baseline (bench/tls_cipher.c) calls mbedTLS's AEADs directly.
$(BUILD)/kernel/bench/tls_cipher.c.o: KCFLAGS += $(MBEDTLS_INC)
$(BUILD)/kernel/bench/tls_cipher.c.o: | $(MBEDTLS_LIB)

# drivers/acpica compiles against ACPICA's headers, pmemk's environment
# header (drivers/acpica/include/acpi/platform/aclinux.h) first; -isystem:
# ACPICA's headers are not held to pmemk's warnings.
ACPICA_KOBJS := $(filter $(BUILD)/kernel/drivers/acpica/%,$(KOBJS))
$(ACPICA_KOBJS): KCFLAGS += -U__KERNEL__ -isystem drivers/acpica/include -isystem $(ACPICA_DIR)/include
$(ACPICA_KOBJS): | $(ACPICA_LIB)
# -MMD leaves -isystem headers out of the .d files: name pmemk's own.
$(ACPICA_KOBJS): $(wildcard drivers/acpica/include/*/*.h drivers/acpica/include/acpi/platform/*.h)

# Every kernel object needs newlib's headers.
$(BUILD)/kernel/%.c.o: %.c | $(NEWLIB)/lib/libc.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<',:)
	$(Q)gcc $(KCFLAGS) -c $< -o $@

$(BUILD)/kernel/%.S.o: %.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  AS      $<',:)
	$(Q)gcc $(KASFLAGS) -c $< -o $@
# .incbin'd files: gas reads them, -MMD does not list them.
$(BUILD)/kernel/net/api_page.S.o: net/api_page.html

# Two link passes: the first with an empty symbol table, whose text symbols
# then fill the table linked into the second (tools/kallsyms.sh). The check
# proves the table did not move any text symbol.
KLIBS = --start-group $(API_KLIB) $(HTTP_PARSER_LIB) $(TLS_KLIB) $(MBEDTLS_LIB) $(LWIP_LIB) $(ACPICA_LIB) $(NEWLIB)/lib/libc.a $(NEWLIB)/lib/libm.a $(LIBGCC) --end-group

$(BUILD)/kernel/kallsyms0.S: tools/kallsyms.sh
	@mkdir -p $(dir $@)
	$(Q)tools/kallsyms.sh >$@

$(BUILD)/kernel/kallsyms0.o: $(BUILD)/kernel/kallsyms0.S
	$(Q)gcc $(KASFLAGS) -c $< -o $@

$(BUILD)/pmemk.pass1.elf: $(KOBJS) $(BUILD)/kernel/kallsyms0.o linker.ld $(NEWLIB)/lib/libc.a $(LWIP_LIB) $(ACPICA_LIB) \
		$(TLS_KLIB) $(MBEDTLS_LIB) $(API_KLIB) $(HTTP_PARSER_LIB)
	$(Q)ld $(KLDFLAGS) -o $@ $(KOBJS) $(BUILD)/kernel/kallsyms0.o $(KLIBS)

$(BUILD)/kernel/kallsyms.S: $(BUILD)/pmemk.pass1.elf tools/kallsyms.sh
	$(Q)tools/kallsyms.sh $< >$@

$(BUILD)/kernel/kallsyms.o: $(BUILD)/kernel/kallsyms.S
	$(Q)gcc $(KASFLAGS) -c $< -o $@

$(BUILD)/pmemk.elf: $(BUILD)/pmemk.pass1.elf $(BUILD)/kernel/kallsyms.o
	$(Q)ld $(KLDFLAGS) -o $@ $(KOBJS) $(BUILD)/kernel/kallsyms.o $(KLIBS)
	$(Q)cmp -s <(nm -n $< | grep ' [tT] ') <(nm -n $@ | grep ' [tT] ') || \
		{ echo "kallsyms: text symbols moved between link passes" >&2; rm -f $@; exit 1; }
	@echo "built $@"

$(BUILD)/host/%.c.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTCC  $<',:)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/host/%.S.o: %.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTAS  $<',:)
	$(Q)$(HOST_CC) -c $< -o $@

# The host's TLS objects: the host mbedTLS's headers and configuration.
TLS_HOST_OBJS := $(patsubst %,$(BUILD)/host/%.o,$(tls-y))
$(TLS_HOST_OBJS): HOST_CFLAGS += $(MBEDTLS_INC) -DPMEMK_TLS_TEST_CLIENT
$(TLS_HOST_OBJS): | $(MBEDTLS_HOST_LIB)
# The host's HTTP API parsers: http-parser's and jsmn's headers.
API_HOST_OBJS := $(patsubst %,$(BUILD)/host/%.o,$(api-y))
$(API_HOST_OBJS): HOST_CFLAGS += $(API_INC)
$(API_HOST_OBJS): | $(HTTP_PARSER_HOST_LIB) $(JSMN_H)

# Host tests link the portable code as an archive: each test pulls in only
# the objects it uses.
$(BUILD)/host/libportable.a: $(HOST_PORTABLE)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/host/libcore.a: $(HOST_CORE)
	@rm -f $@
	$(Q)ar rcs $@ $^

# Each test links the core's archive if it tests the core, else everything.
unit_lib = $(BUILD)/host/$(if $(filter $(1),$(CORE_UNIT_TESTS)),libcore.a,libportable.a)

# Tests that run a real arch/x86_64 file on the host CPU in place of its
# fake in test/host/: the object comes before the archive, so the fake is
# never pulled in. persist.c's instructions (clwb, clflushopt, clflush,
# movnti, sfence) are unprivileged.
UNIT_REAL_ARCH_test_persist := arch/x86_64/persist.c
# copy_mc.S runs on the host CPU; a SIGSEGV handler plays the trap handler's part.
UNIT_REAL_ARCH_test_copy_mc := arch/x86_64/copy_mc.S arch/x86_64/extable.c arch/x86_64/mce_decode.c
HOST_REAL_ARCH := $(sort $(foreach v,$(filter UNIT_REAL_ARCH_%,$(.VARIABLES)),$($(v))))
# Files linked whole into one test, besides its archive: the files of the
# commands a test runs (only the dispatcher reaches a command, through its
# linker section, so the archive alone would leave them out), and helpers
# some tests share (test/unit/*.c not named test_*).
UNIT_LINK_test_shell_nvdimm := nvdimm/pfn_dev_cmds.c nvdimm/list.c nvdimm/dax_cmds.c nvdimm/pmem_cmds.c \
	nvdimm/media_error_cmds.c nvdimm/namespace_metrics.c
UNIT_LINK_test_shell_block := nvdimm/pmem_cmds.c nvdimm/memremap_cmds.c nvdimm/memmap_cmds.c \
	nvdimm/pfn_dev_cmds.c
UNIT_LINK_test_print_capture := lib/shell_capture.c
NFIT_TEST_HELPERS := test/unit/nfit_tests.c
UNIT_LINK_test_nfit := $(NFIT_TEST_HELPERS)
UNIT_LINK_test_nfit_subtables := $(NFIT_TEST_HELPERS)
UNIT_LINK_test_nfit_register := $(NFIT_TEST_HELPERS)
BTT_TEST_HELPERS := test/unit/btt_tests.c
UNIT_LINK_test_btt := $(BTT_TEST_HELPERS)
UNIT_LINK_test_btt_check := $(BTT_TEST_HELPERS)
UNIT_LINK_test_btt_device := $(BTT_TEST_HELPERS)
UNIT_LINK_test_media_modes := $(BTT_TEST_HELPERS) nvdimm/pmem_cmds.c nvdimm/dax_cmds.c
NBD_TEST_HELPERS := test/unit/nbd_tests.c
UNIT_LINK_test_nbd_handshake := $(NBD_TEST_HELPERS)
UNIT_LINK_test_nbd_io := $(NBD_TEST_HELPERS)
UNIT_LINK_test_nbd_structured := $(NBD_TEST_HELPERS)
UNIT_LINK_test_nbd_media := $(NBD_TEST_HELPERS)
UNIT_LINK_test_nbd_tls := $(NBD_TEST_HELPERS)
UNIT_LINK_test_nbd_steps := $(NBD_TEST_HELPERS)
UNIT_LINK_test_nbd_wcache := $(NBD_TEST_HELPERS)
# Tests of the TLS layer: mbedTLS's headers (its client too) and the host's
# library; the fake TCP link between a session and mbedTLS's client is shared.
TLS_TEST_HELPERS := test/unit/tls_tests.c
$(BUILD)/host/test/unit/tls_tests.c.o: HOST_CFLAGS += $(MBEDTLS_INC) -DPMEMK_TLS_TEST_CLIENT
$(BUILD)/host/test/unit/tls_tests.c.o: | $(MBEDTLS_HOST_LIB)
UNIT_CFLAGS_test_tls_psk := $(MBEDTLS_INC) -DPMEMK_TLS_TEST_CLIENT
UNIT_LIBS_test_tls_psk := $(MBEDTLS_HOST_LIB)
UNIT_LINK_test_tls_psk := $(TLS_TEST_HELPERS)
UNIT_CFLAGS_test_tls_cert := $(MBEDTLS_INC) -DPMEMK_TLS_TEST_CLIENT
UNIT_LIBS_test_tls_cert := $(MBEDTLS_HOST_LIB)
UNIT_LINK_test_tls_cert := $(TLS_TEST_HELPERS)
# The API's boot files parse a certificate with the host's mbedTLS.
UNIT_LIBS_test_api_files := $(MBEDTLS_HOST_LIB)
# The HTTP request reader's test links the host's http-parser.
UNIT_LIBS_test_http_request := $(HTTP_PARSER_HOST_LIB)
HOST_UNIT_LINK := $(sort $(foreach v,$(filter UNIT_LINK_%,$(.VARIABLES)),$($(v))))
unit_objs = $(patsubst %,$(BUILD)/host/%.o,$(UNIT_REAL_ARCH_$(1)) $(UNIT_LINK_$(1)))
# Objects, not intermediates: keep them between builds.
.SECONDARY: $(patsubst %,$(BUILD)/host/%.o,$(HOST_REAL_ARCH) $(HOST_UNIT_LINK))

.SECONDEXPANSION:
$(BUILD)/host/unit/%: test/unit/%.c $$(call unit_lib,%) $$(call unit_objs,%) $$(UNIT_LIBS_%)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTLD  $@',:)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $(UNIT_CFLAGS_$*) $< $(call unit_objs,$*) $(call unit_lib,$*) \
		$(UNIT_LIBS_$*) $(HOST_LDLIBS) -o $@

tools: $(TOOLS)
$(BUILD)/tools/pmemk-infoblock: tools/infoblock/infoblock.c $(BUILD)/host/libportable.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTLD  $@',:)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $< $(BUILD)/host/libportable.a -o $@

# The BTT crash case's judge: pmemk's own BTT code (btt.c, btt_check.c)
# over a backing file, with the host's simulated arch (test/host).
$(BUILD)/tools/pmemk-bttcheck: tools/bttcheck/bttcheck.c $(BUILD)/host/libportable.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTLD  $@',:)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $< $(BUILD)/host/libportable.a -o $@

# Reads 1 GiB per kill in the crash cases: optimised, no sanitizers.
$(BUILD)/tools/pmemk-crashcheck: tools/crashcheck/crashcheck.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTCC  $@',:)
	$(Q)$(HOST_CC) -std=gnu11 -O2 -g $(WARN) -Iinclude -MMD -MP $< -o $@

iso: $(BUILD)/pmemk.iso
$(BUILD)/pmemk.iso: $(BUILD)/pmemk.elf tools/mkiso.sh
	tools/mkiso.sh $(BUILD)/pmemk.elf $@ '$(CMDLINE)'

# The GNU-EFI image (boot/efi/) with CMDLINE built in, and an ESP tree that
# UEFI firmware boots from a FAT drive (removable-media path).
efi: $(BUILD)/BOOTX64.EFI $(BUILD)/esp/EFI/BOOT/BOOTX64.EFI

# CMDLINE as a file that changes only with its value: images rebuild on a new one.
$(BUILD)/efi/cmdline: export PMEMK_CMDLINE := $(CMDLINE)
$(BUILD)/efi/cmdline: FORCE
	@mkdir -p $(dir $@)
	@printf '%s' "$$PMEMK_CMDLINE" | cmp -s - $@ 2>/dev/null || printf '%s' "$$PMEMK_CMDLINE" >$@

$(BUILD)/BOOTX64.EFI: $(BUILD)/pmemk.elf $(EFI_LOADER) $(BUILD)/efi/cmdline tools/mkefi.sh \
		boot/efi/payload.S
	$(Q)tools/mkefi.sh $(BUILD)/pmemk.elf $(EFI_LOADER) $@ "$$(cat $(BUILD)/efi/cmdline)"
	@echo "built $@"

$(BUILD)/esp/EFI/BOOT/BOOTX64.EFI: $(BUILD)/BOOTX64.EFI
	@mkdir -p $(dir $@)
	cp $< $@

# TFTP tree for PXE: GRUB (BIOS) and BOOTX64.EFI (UEFI), CMDLINE in both.
netboot: $(BUILD)/pmemk.elf $(BUILD)/BOOTX64.EFI tools/mknetboot.sh
	tools/mknetboot.sh $(BUILD)/pmemk.elf $(BUILD)/BOOTX64.EFI $(BUILD)/netboot \
		"$$(cat $(BUILD)/efi/cmdline)"

FORCE:

# NIC=virtio (default), e1000 or empty for none; HOSTFWD='PORT ...' forwards
# 127.0.0.1:PORT on the host to the guest's PORT.
NIC     ?= virtio
HOSTFWD ?=
run: deps $(BUILD)/pmemk.iso
	tools/run-qemu --iso $(BUILD)/pmemk.iso --ram 1G --nvdimm 1G $(if $(SMP),--smp $(SMP)) \
		$(if $(NIC),--nic $(NIC)) $(foreach p,$(HOSTFWD),--hostfwd $(p)) \
		--cmdline '$(CMDLINE)' --interactive

# make run with the nvdimm's pmem1 served over NBD on 127.0.0.1:10809 of the
# host (nbdinfo nbd://127.0.0.1:10809/pmem1).
NET_CMDLINE ?= $(CMDLINE) nbd.export=pmem1
run-net: deps $(BUILD)/pmemk.elf
	tools/run-qemu --ram 1G --nvdimm 1G --nic $(or $(NIC),virtio) --hostfwd 10809 \
		$(foreach p,$(HOSTFWD),--hostfwd $(p)) --cmdline '$(NET_CMDLINE)' --interactive

test-unit: $(UNIT_BINS)
	@tools/run-unit-tests $(UNIT_BINS)

# The unit tests that run jobs on several (host-thread) CPUs, again under
# ThreadSanitizer instead of ASan+UBSan: the core built a second time into
# build/tsan/. A data race between jobs fails the run. (-Wno-tsan: the
# standalone fences in the DMA stubs, which these tests never call.)
TSAN_TESTS  := test_workqueue test_memmap_parallel test_cpu_time
TSAN_CFLAGS := $(filter-out $(HOST_SANITIZE),$(HOST_CFLAGS)) -fsanitize=thread -Wno-tsan -DHOST_TSAN
TSAN_CORE   := $(patsubst $(BUILD)/host/%,$(BUILD)/tsan/%,$(HOST_CORE))
TSAN_BINS   := $(patsubst %,$(BUILD)/tsan/unit/%,$(TSAN_TESTS))
$(BUILD)/tsan/%.c.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  TSANCC  $<',:)
	$(Q)$(HOST_CC) $(TSAN_CFLAGS) -c $< -o $@

$(BUILD)/tsan/libcore.a: $(TSAN_CORE)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/tsan/unit/%: test/unit/%.c $(BUILD)/tsan/libcore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  TSANLD  $@',:)
	$(Q)$(HOST_CC) $(TSAN_CFLAGS) $< $(BUILD)/tsan/libcore.a $(HOST_LDLIBS) -o $@

test-tsan: $(TSAN_BINS)
	@TSAN_OPTIONS=halt_on_error=1 tools/run-unit-tests $(TSAN_BINS)

# The vmemmap and layout code at 1 GiB .. 64 TiB on the host (bench/host/
# scale.c, docs/PERFORMANCE.md "Scale"): the core built a third time, at -O2
# without sanitizers (timings, not checks: test_vmemmap_scale checks), into
# build/host/bench/. Table in build/bench/scale.md, plot scale.png (gnuplot).
SCALE_CFLAGS := -std=gnu11 -O2 -g $(WARN) -fno-omit-frame-pointer \
	-Iinclude -Itest/host -DHOST_TEST -MMD -MP
SCALE_CORE   := $(patsubst $(BUILD)/host/%,$(BUILD)/host/bench/obj/%,$(HOST_CORE))
SCALE_ARGS   ?=
$(BUILD)/host/bench/obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTCC  $< (-O2)',:)
	$(Q)$(HOST_CC) $(SCALE_CFLAGS) -c $< -o $@

$(BUILD)/host/bench/libcore.a: $(SCALE_CORE)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/host/bench/scale: bench/host/scale.c test/host/host.h $(BUILD)/host/bench/libcore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  HOSTLD  $@',:)
	$(Q)$(HOST_CC) $(SCALE_CFLAGS) $< $(BUILD)/host/bench/libcore.a -pthread -o $@

bench-scale: $(BUILD)/host/bench/scale
	@tools/bench-scale $(BUILD)/host/bench/scale $(BUILD)/bench $(SCALE_ARGS)

test-qemu: deps $(BUILD)/pmemk.elf $(TOOLS) $(EFI_LOADER)
	@test/qemu/run-all

# Only the boot-path cases (test/qemu/cases/bootpaths.sh); test-qemu runs them too.
BOOTPATH_CASES = $(shell sed -n 's/^case_\([a-z0-9_]*\)().*/\1/p' test/qemu/cases/bootpaths.sh)
test-boot: deps $(BUILD)/pmemk.elf $(EFI_LOADER)
	@CASES='$(BOOTPATH_CASES)' test/qemu/run-all

# The Linux interop suite (test/linux): Debian's kernel, busybox and ndctl
# in an initramfs made from Debian's packages (tools/linux/mkinitramfs, kept
# in build/linux and made again only when Debian's versions change; the first
# run downloads about 81 MB, of which qemu-nbd and its libraries for
# tools/bench-tls are about 6), booted on the same nvdimms as pmemk.
linux-guest: deps
	@tools/linux/mkinitramfs --out $(BUILD)/linux

test-linux: deps linux-guest $(BUILD)/pmemk.elf $(TOOLS)
	@test/linux/run-all

# libFuzzer harnesses (test/fuzz/); test-fuzz runs each for FUZZ_SECONDS
# (10: make test's short runs, side by side), fuzz-long for FUZZ_SECONDS too but 3600 unless given, and writes
# a report. Both replay the crash fixtures (test/fuzz/crashes) first.
fuzz: $(FUZZ_BINS)

test-fuzz: $(FUZZ_BINS)
	@tools/run-fuzzers $(FUZZ_SECONDS) $(FUZZ_BINS)

FUZZ_LONG_SECONDS = $(if $(filter command line environment,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),3600)
fuzz-long: $(FUZZ_BINS)
	@tools/run-fuzzers --report $(BUILD)/fuzz/report-long.txt $(FUZZ_LONG_SECONDS) $(FUZZ_BINS)

# Benchmarks (tools/bench, docs/PERFORMANCE.md): nvdimms of 1-256 GiB on 2 vCPUs, map=dev
# and map=mem, fresh and written backing files; BENCH_ARGS='--sizes "1 4"'.
# Then NBD and raw TCP from the host, with TLS after each plaintext copy
# (tools/bench-net --tls), BENCH_NET_ARGS='--reps 1'; then pmemk against
# Linux's qemu-nbd over TLS-PSK and plaintext, a ratio per round (tools/bench-tls,
# the Linux guest of test-linux), BENCH_TLS_ARGS='--reps 3'; then Linux's NBD
# client (nbd.ko) on pmemk against qemu-nbd in a Linux guest, and md RAID1 over
# two pmemk against one (tools/bench-nbd-client, also alone as make
# bench-nbd-client), BENCH_NBDC_ARGS='--quick'; then struct page init on 1..N
# CPUs (tools/bench-smp), BENCH_SMP_ARGS='--smp 2'; then creating and
# re-enabling a map=dev device against Linux 6.1's ndctl at 4, 16, 64 GiB, a ratio per
# round (tools/bench-ndctl, also alone as bench-ndctl), BENCH_NDCTL_ARGS='--quick'.
BENCH_ARGS ?=
BENCH_NET_ARGS ?=
BENCH_TLS_ARGS ?=
BENCH_NBDC_ARGS ?=
BENCH_SMP_ARGS ?=
BENCH_NDCTL_ARGS ?=
bench: deps linux-guest $(BUILD)/pmemk.elf
	tools/bench $(BENCH_ARGS)
	tools/bench-net --tls $(BENCH_NET_ARGS)
	tools/bench-tls $(BENCH_TLS_ARGS)
	tools/bench-nbd-client $(BENCH_NBDC_ARGS)
	tools/bench-smp $(BENCH_SMP_ARGS)
	tools/bench-ndctl $(BENCH_NDCTL_ARGS)

bench-ndctl: deps linux-guest $(BUILD)/pmemk.elf
	tools/bench-ndctl $(BENCH_NDCTL_ARGS)

bench-nbd-client: deps linux-guest $(BUILD)/pmemk.elf
	tools/bench-nbd-client $(BENCH_NBDC_ARGS)

# The status page (net/api_page.html) drawn by headless Chromium from the
# fixtures, and proof that its judge (test/api/page_check.py) fails.
test-page:
	@test/api/page_selftest.sh $(BUILD)/test-page

# The dependency rule, the media path rule (docs/ARCHITECTURE.md) and the
# size limits (docs/STYLE.md): the checks, and proof that each fails.
test-deps:
	@tools/check-deps
	@tools/check-deps --self-test
	@tools/check-media
	@tools/check-media --self-test
	@tools/check-size
	@tools/check-size --self-test

# Each stage ends with its wall time (CI's limit is 30 minutes for all).
TEST_STAGES := test-deps test-unit test-tsan test-fuzz test-page test-qemu test-linux
# Each stage builds what it needs with one job per host CPU (the unit
# tests' and fuzzers' objects are most of a clean clone's build).
test: deps
	@for s in $(TEST_STAGES); do \
		t=$$(date +%s); \
		$(MAKE) --no-print-directory -j$$(nproc) $$s || exit 1; \
		echo "$$s: $$(( $$(date +%s) - t )) s"; \
	done

clean:
	rm -rf $(BUILD)/kernel $(BUILD)/host $(BUILD)/tsan $(BUILD)/fuzz $(BUILD)/iso-cache $(BUILD)/pmemk.* $(BUILD)/iso $(BUILD)/test-logs
	rm -rf $(BUILD)/efi $(BUILD)/esp $(BUILD)/BOOTX64.EFI $(BUILD)/netboot $(BUILD)/efi-cache $(BUILD)/netboot-cache
	rm -rf $(BUILD)/bench $(BUILD)/linux/scenarios

-include $(KOBJS:.o=.d) $(TLS_KOBJS:.o=.d) $(API_KOBJS:.o=.d) $(HOST_PORTABLE:.o=.d) $(TSAN_CORE:.o=.d) $(SCALE_CORE:.o=.d) $(BUILD)/tools/pmemk-crashcheck.d $(patsubst %,$(BUILD)/host/%.d,$(HOST_REAL_ARCH) $(HOST_UNIT_LINK))
