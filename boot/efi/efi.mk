# boot/efi: the GNU-EFI loader, a UEFI application of its own (not linked
# into the kernel). Its objects are archived in $(EFI_LOADER); tools/mkefi.sh
# links that archive with a kernel ELF and a default command line into
# BOOTX64.EFI. Flags: FACTS §6.4 (position-independent, MS ABI calls into the
# firmware, no red zone). gnu-efi's headers come in with -isystem, so its
# own code is not held to our warnings; ours is (-Werror).
EFI_INC    := /usr/include/efi
EFI_SRCS   := boot/efi/main.c boot/efi/load.c boot/efi/exit.c boot/efi/files.c boot/efi/kernel_elf.c \
	boot/efi/cmdline.c boot/efi/pgtable.c boot/efi/memmap.c boot/efi/rsdp.c \
	boot/efi/trampoline.S drivers/e820/efi.c
EFI_OBJS   := $(patsubst %,$(BUILD)/efi/obj/%.o,$(EFI_SRCS))
EFI_LOADER := $(BUILD)/efi/loader.a
EFI_CFLAGS := -std=gnu11 -O2 $(WARN) -ffreestanding -fpic -fno-stack-protector \
	-fno-stack-check -fshort-wchar -mno-red-zone -maccumulate-outgoing-args \
	-DGNU_EFI_USE_MS_ABI -nostdinc -isystem $(GCC_INC) -isystem $(EFI_INC) \
	-isystem $(EFI_INC)/x86_64 -isystem $(EFI_INC)/protocol \
	-Iinclude -Iboot/efi -MMD -MP

$(BUILD)/efi/obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  EFICC   $<',:)
	$(Q)gcc $(EFI_CFLAGS) -c $< -o $@

$(BUILD)/efi/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  EFIAS   $<',:)
	$(Q)gcc $(EFI_CFLAGS) -D__ASSEMBLY__ -c $< -o $@

$(EFI_LOADER): $(EFI_OBJS)
	@rm -f $@
	$(Q)ar rcs $@ $^

-include $(EFI_OBJS:.o=.d)
