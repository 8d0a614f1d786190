# The HTTPS API's boot files (issue 32; net/api_files.c): a certificate,
# its key and bearer tokens handed to the kernel as the boot files api.crt,
# api.key and api.tokens reach the API through GRUB's module2 (ISO) and
# through the EFI loader (beside BOOTX64.EFI, or fetched by iPXE over PXE);
# neither a token nor a line of the key ever reaches the serial log; a key
# that does not match, or no tokens, keeps the API off with one line; no
# files at all is one line too. The files are read (the secret ones wiped)
# at network init, with or without a NIC (the ISO and EFI cases have none).
# BIOS PXE hands files over with GRUB's module2 like the ISO (nbd_tls.sh
# covers that path).

# api_files_make: fresh files in build/qemu/api_files/ (openssl at test
# time): an EC P-256 and an RSA 2048 certificate with their keys, another
# EC key, and a token file with two tokens and one bad line.
api_files_make() {
	API_DIR=build/qemu/api_files
	mkdir -p "$API_DIR"
	(cd "$API_DIR" &&
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
			-keyout ec.key -out ec.crt -subj /CN=pmemk-api.test &&
		openssl req -x509 -newkey rsa:2048 -nodes -days 30 \
			-keyout rsa.key -out rsa.crt -subj /CN=pmemk-rsa-api.test &&
		openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out other.key &&
		{
			echo '# pmemk test tokens'
			echo "$(openssl rand -base64 32) admin"
			echo "monitoring.$(openssl rand -hex 8) read"
			echo "$(openssl rand -hex 12) owner"
		} >tokens) >"$API_DIR/openssl.log" 2>&1 || { CASE_FAILED=1; return 1; }
}

# api_files_no_leak KEY: no token of the file and no base64 line of KEY in the raw log.
api_files_no_leak() {
	local bad=0 secret
	[ -s "$LOG.raw" ] || { echo "    FAIL: no serial log to search"; CASE_FAILED=1; return; }
	while read -r secret; do
		[ ${#secret} -ge 16 ] || continue
		if grep -qF -- "$secret" "$LOG.raw"; then
			echo "    FAIL: a secret of $(basename "$1") or tokens is in the serial log"
			bad=1
		fi
	done < <(grep -v '^#' "$API_DIR/tokens" | cut -d' ' -f1; grep -v -- '-----' "$1")
	[ $bad = 0 ] && echo "    no token and no key line in the serial log" || CASE_FAILED=1
}

api_files_args() {	# api_files_args CRT KEY [TOKENS]
	API_ARGS=(--boot-file "api.crt=$API_DIR/$1" --boot-file "api.key=$API_DIR/$2")
	[ -z "${3-}" ] || API_ARGS+=(--boot-file "api.tokens=$API_DIR/$3")
}

# GRUB ISO on SeaBIOS, EC: module2 /boot/api.* api.*.
case_api_files_iso() {
	api_files_make || return
	api_files_args ec.crt ec.key tokens
	boot api_files_iso 0 --ram 512M --timeout 120 "${API_ARGS[@]}" --cmdline '"run=poweroff"'
	expect '\] boot: file api\.crt \([0-9]+ bytes\)$'
	expect '\] api: certificate CN=pmemk-api\.test \(EC P-256\), valid until [0-9]{4}-[0-9]{2}-[0-9]{2}$'
	expect '\] api: api\.tokens line 4: .*; skipped$'
	expect '\] api: 2 tokens \(1 admin, 1 read\)$'
	expect_not 'HTTPS API is off'
	api_files_no_leak "$API_DIR/ec.key"
}

# BOOTX64.EFI on OVMF, RSA: the files beside it in EFI/BOOT/.
case_api_files_efi() {
	api_files_make || return
	api_files_args rsa.crt rsa.key tokens
	boot api_files_efi 0 --efi --ram 512M --timeout 120 "${API_ARGS[@]}" --cmdline '"run=poweroff"'
	expect '^pmemk: file \\EFI\\BOOT\\api\.key \([0-9]+ bytes\)'
	expect '\] api: certificate CN=pmemk-rsa-api\.test \(RSA 2048\), valid until '
	expect '\] api: 2 tokens \(1 admin, 1 read\)$'
	api_files_no_leak "$API_DIR/rsa.key"
}

# A key that is not the certificate's, then no token file: off, one line each.
case_api_files_refused() {
	api_files_make || return
	api_files_args ec.crt other.key tokens
	boot api_files_bad_key 0 --ram 512M --timeout 120 "${API_ARGS[@]}" --cmdline '"run=poweroff"'
	expect '\] api: api\.crt with api\.key refused: the private key does not match the certificate: the HTTPS API is off$'
	api_files_no_leak "$API_DIR/other.key"
	api_files_args ec.crt ec.key
	boot api_files_no_tokens 0 --ram 512M --timeout 120 "${API_ARGS[@]}" --cmdline '"run=poweroff"'
	expect '\] api: no tokens \(boot file api\.tokens\): nobody could use it: the HTTPS API is off$'
	api_files_no_leak "$API_DIR/ec.key"
}

# No files: the one "off" line.
case_api_files_none() {
	boot api_files_none 0 --ram 512M --timeout 120 --cmdline '"run=poweroff"'
	expect '\] api: no certificate \(boot file api\.crt\): the HTTPS API is off$'
	expect_not 'api: certificate|tokens \('
}

# OVMF -> iPXE -> boot-files.ipxe fetches the three files over TFTP and
# chains BOOTX64.EFI, whose loader finds them in iPXE's file system.
case_api_files_pxe_uefi() {
	api_files_make || return
	api_files_args ec.crt ec.key tokens
	boot api_files_pxe_uefi 0 --pxe uefi --ram 512M --timeout 120 "${API_ARGS[@]}" \
		--cmdline '"run=poweroff"'
	expect '^pmemk: file \\api\.tokens \([0-9]+ bytes\)'
	expect '\] api: certificate CN=pmemk-api\.test \(EC P-256\), valid until '
	expect '\] api: 2 tokens \(1 admin, 1 read\)$'
	api_files_no_leak "$API_DIR/ec.key"
}
