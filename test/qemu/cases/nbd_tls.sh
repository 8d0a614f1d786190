# NBD over TLS, the key side (issue: TLS-PSK for NBD): a psktool key file
# handed to the kernel as the boot file nbd.psk reaches the key store
# (net/nbd_keys.c) through GRUB's module2 (ISO), through the EFI loader
# (beside BOOTX64.EFI), over PXE on BIOS (GRUB again) and on UEFI (an iPXE
# script fetches the file for the EFI loader), and no key, in hex or raw,
# ever reaches the serial log. The keys are loaded (and the file wiped) at
# network init whether or not there is a NIC: the ISO and EFI cases have none.

# nbd_tls_keyfile: a fresh key file in build/qemu/nbd_tls/keys.psk (path in
# NBD_TLS_KEYS): two psktool identities, a comment, and a bad line that
# holds a key-like hex string, which must be reported by number only.
nbd_tls_keyfile() {
	NBD_TLS_KEYS=build/qemu/nbd_tls/keys.psk
	mkdir -p "$(dirname "$NBD_TLS_KEYS")"
	rm -f "$NBD_TLS_KEYS"
	tools/mkpsk "$NBD_TLS_KEYS" alice >/dev/null &&
		tools/mkpsk "$NBD_TLS_KEYS" bob >/dev/null || { CASE_FAILED=1; return 1; }
	{
		echo '# pmemk test keys'
		echo "carol:$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')zz"
	} >>"$NBD_TLS_KEYS"
}

# nbd_tls_no_leak: no key of $NBD_TLS_KEYS in the raw serial log: not its
# hex (either case), not its bytes, not any 8-byte piece of either.
nbd_tls_no_leak() {
	python3 - "$NBD_TLS_KEYS" "$LOG.raw" <<'PY' | sed 's/^/    /'
import sys
keys = [l.split(":", 1)[1].strip() for l in open(sys.argv[1]) if ":" in l and not l.startswith("#")]
log = open(sys.argv[2], "rb").read()
low = log.lower()
bad = 0
for k in keys:
    hexk = k.lower().rstrip("z")
    raw = bytes.fromhex(hexk)
    for i in range(0, len(raw) - 7):
        if raw[i:i + 8] in log or hexk[2 * i:2 * i + 16].encode() in low:
            print(f"FAIL: key bytes {i}..{i + 7} of a test key are in the serial log")
            bad = 1
            break
print(f"{len(keys)} test keys: none in the serial log, hex or raw" if not bad else "")
sys.exit(bad)
PY
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
}

nbd_tls_expect_loaded() {
	expect '\] boot: file nbd\.psk \([0-9]+ bytes\)$'
	expect '\] nbd: nbd\.psk line 4: key is not hex; skipped$'
	expect '\] nbd: 2 TLS identities from nbd\.psk$'
	nbd_tls_no_leak
}

# GRUB ISO on SeaBIOS: module2 /boot/nbd.psk nbd.psk.
case_nbd_tls_keys_iso() {
	nbd_tls_keyfile || return
	boot nbd_tls_keys_iso 0 --ram 512M --timeout 120 --boot-file "nbd.psk=$NBD_TLS_KEYS" \
		--cmdline '"run=poweroff"'
	nbd_tls_expect_loaded
}

# BOOTX64.EFI on OVMF, nbd.psk beside it in EFI/BOOT/.
case_nbd_tls_keys_efi() {
	nbd_tls_keyfile || return
	boot nbd_tls_keys_efi 0 --efi --ram 512M --timeout 120 --boot-file "nbd.psk=$NBD_TLS_KEYS" \
		--cmdline '"run=poweroff"'
	expect '^pmemk: file \\EFI\\BOOT\\nbd\.psk \([0-9]+ bytes\)'
	nbd_tls_expect_loaded
}

# SeaBIOS -> iPXE -> GRUB's core.0 over TFTP, the same module2 line; the
# file comes from the TFTP tree.
case_nbd_tls_keys_pxe_bios() {
	nbd_tls_keyfile || return
	boot nbd_tls_keys_pxe_bios 0 --pxe bios --ram 512M --timeout 120 \
		--boot-file "nbd.psk=$NBD_TLS_KEYS" --cmdline '"run=poweroff"'
	nbd_tls_expect_loaded
}

# OVMF -> iPXE (the NIC's option ROM) -> boot-files.ipxe, which fetches
# nbd.psk and chains BOOTX64.EFI; the loader finds the file in iPXE's file
# system on the NIC.
case_nbd_tls_keys_pxe_uefi() {
	nbd_tls_keyfile || return
	boot nbd_tls_keys_pxe_uefi 0 --pxe uefi --ram 512M --timeout 120 \
		--boot-file "nbd.psk=$NBD_TLS_KEYS" --cmdline '"run=poweroff"'
	expect '^pmemk: file \\nbd\.psk \([0-9]+ bytes\)'
	nbd_tls_expect_loaded
}

# Without the file: no boot file line, no key line, nothing to complain about.
case_nbd_tls_no_keys() {
	boot nbd_tls_no_keys 0 --ram 512M --timeout 120 --cmdline '"run=poweroff"'
	expect_not 'boot: file |TLS identit|nbd\.psk'
}
