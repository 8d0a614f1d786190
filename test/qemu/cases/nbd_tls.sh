# NBD over TLS, the key side (issue: TLS-PSK for NBD): a psktool key file
# handed to the kernel as the boot file nbd.psk reaches the key store
# (net/nbd_keys.c) through GRUB's module2 (ISO), through the EFI loader
# (beside BOOTX64.EFI), over PXE on BIOS (GRUB again) and on UEFI (an iPXE
# script fetches the file for the EFI loader), and no key, in hex or raw,
# ever reaches the serial log. The keys are loaded (and the file wiped) at
# network init whether or not there is a NIC: the ISO and EFI cases have none.

# nbd_tls_keyfile: a fresh key file in build/qemu/nbd_tls/CASE.psk (path in
# NBD_TLS_KEYS): two psktool identities, a comment, and a bad line that
# holds a key-like hex string, which must be reported by number only.
nbd_tls_keyfile() {
	# One file per case: cases run side by side (RUN_JOBS), and one case's
	# rm and rewrite of a shared file once gave another's ISO one key.
	NBD_TLS_KEYS=build/qemu/nbd_tls/${FUNCNAME[1]#case_}.psk
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

# NBD over TLS with real clients (issue 30 items 1-3, 5): a 64 MiB pmem0
# that only alice may open and a 16 MiB read-only pmem1 for alice and bob,
# TLS required (the default with a key file). libnbd's nbdinfo, nbdsh and
# nbdcopy with nbds:// and tls-psk-file=, QEMU's qemu-io and qemu-img with
# tls-creds-psk: the whole export copied and compared with the backing
# file, FUA writes found in it. Then every refusal (a wrong key, an unknown
# identity, bob on pmem0, plaintext clients, STARTTLS twice: nbd_tls.py)
# must leave the backing file as it was, and no key may show in the serial
# log or in the network capture.
nbd_tls_clients() {
	local name=$1 nic=$2 port dir=build/qemu/$1 t0=$SECONDS
	port=$(net_free_port)
	rm -rf "$dir"
	mkdir -p "$dir/alice" "$dir/bob" "$dir/mallory" "$dir/carol"
	tools/mkpsk "$dir/alice/keys.psk" alice >/dev/null && tools/mkpsk "$dir/bob/keys.psk" bob >/dev/null &&
		tools/mkpsk "$dir/mallory/keys.psk" alice >/dev/null &&	# alice's name, another key
		tools/mkpsk "$dir/carol/keys.psk" carol >/dev/null || { CASE_FAILED=1; return; }
	cat "$dir/alice/keys.psk" "$dir/bob/keys.psk" >"$dir/server.psk"
	NBD_TLS_KEYS=$dir/server.psk
	nbd_boot_bg "$name" "$dir" --nic "$nic" --hostfwd "$port:10809" --ram 512M --nvdimm 64M --nvdimm 16M \
		--fresh --timeout 300 --pcap "$dir/net.pcap" --boot-file "nbd.psk=$dir/server.psk" \
		--cmdline 'nbd.export=pmem0@alice,pmem1:ro@alice+bob'
	if nbd_clients_listening "$name"; then
		nbd_tls_talk "$port" "$dir"
	fi
	nbd_clients_kill
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
	expect '\] nbd: TLS required: TLS 1\.2 with pre-shared keys \(ECDHE-PSK, DHE-PSK: forward secret\), 2 identities, entropy from rdrand$'
	expect '\] nbd: client [0-9]+ 10\.0\.2\.2:[0-9]+ TLS 1\.2 as alice: TLS-ECDHE-PSK-WITH-CHACHA20-POLY1305-SHA256$'
	expect 'nbd: client [0-9]+ 10\.0\.2\.2:[0-9]+ closed: TLS: unknown identity carol$'
	expect '\] nbd: exporting pmem0 \(67108864 bytes, read-write, READ copied \(only TLS clients, and TLS encrypts a copy\), for TLS identities alice\)$'
	expect_not 'nbd: no TLS and no nbd\.allow='
	nbd_tls_no_leak
	python3 - "$NBD_TLS_KEYS" "$dir/net.pcap" <<'PY' | sed 's/^/    /'
import sys
keys = [bytes.fromhex(l.split(":", 1)[1].strip()) for l in open(sys.argv[1]) if ":" in l]
cap = open(sys.argv[2], "rb").read()
bad = [k for k in keys if any(k[i:i + 8] in cap or k[i:i + 8].hex().encode() in cap.lower()
                              for i in range(len(k) - 7))]
print("FAIL: a key is in the network capture" if bad else
      "the network capture (%d bytes) holds no key, hex or raw" % len(cap))
sys.exit(1 if bad else 0)
PY
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	rm -f "$dir/net.pcap" "$dir/copy.img"
}

# nbd_tls_talk PORT DIR: the clients, then the refusals.
nbd_tls_talk() {
	local port=$1 dir=$2 img=$2/nvdimm0.img
	local a="tls-psk-file=$dir/alice/keys.psk"
	local uri="nbds://alice@127.0.0.1:$port/pmem0?$a"
	local qobj="tls-creds-psk,id=tls0,endpoint=client,dir=$dir/alice,username=alice"
	local qnbd="driver=nbd,host=127.0.0.1,port=$port,export=pmem0,tls-creds=tls0"
	tls_ok() {	# tls_ok WHAT LOGNAME COMMAND...
		local what=$1 lg=$LOG.$2
		shift 2
		if timeout 120 "$@" >"$lg" 2>&1; then
			echo "    $what"
		else
			echo "    FAIL: $what:"
			sed 's/^/    | /' "$lg"
			CASE_FAILED=1
		fi
	}
	tls_ok "nbdinfo --list as alice: pmem0 and pmem1" nbdinfo-alice \
		nbdinfo --list "nbds://alice@127.0.0.1:$port/?$a"
	grep -q '^export="pmem0":$' "$LOG.nbdinfo-alice" && grep -q '^export="pmem1":$' "$LOG.nbdinfo-alice" ||
		{ echo "    FAIL: alice's list lacks an export"; CASE_FAILED=1; }
	tls_ok "nbdinfo --list as bob: pmem1 only" nbdinfo-bob \
		nbdinfo --list "nbds://bob@127.0.0.1:$port/?tls-psk-file=$dir/bob/keys.psk"
	grep -q '^export="pmem1":$' "$LOG.nbdinfo-bob" && ! grep -q 'pmem0' "$LOG.nbdinfo-bob" ||
		{ echo "    FAIL: bob's list is not pmem1 alone"; CASE_FAILED=1; }
	tls_ok "qemu-io over TLS: two writes (FUA)" qemu-io \
		qemu-io --object "$qobj" --image-opts "$qnbd" -c 'write -P 0x5a 1M 64k' -c 'write -f -P 0xc3 63M 1M'
	python3 - "$img" <<'PY' || CASE_FAILED=1
import sys
d = open(sys.argv[1], "rb").read()
ok = d[1 << 20:(1 << 20) + 65536] == b"\x5a" * 65536 and d[63 << 20:64 << 20] == b"\xc3" * (1 << 20)
print("    qemu-io's writes %s in the backing file" % ("are" if ok else "are NOT"))
sys.exit(0 if ok else 1)
PY
	tls_ok "nbdsh over TLS: a FUA write read back" nbdsh \
		"${NBDSH[@]}" -c 'h.set_uri_allow_local_file(True)' -c "h.connect_uri('$uri')" \
		-c 'h.pwrite(b"\xa5" * 8192, 2 << 20, nbd.CMD_FLAG_FUA)' \
		-c 'assert h.pread(8192, 2 << 20) == b"\xa5" * 8192' \
		-c 'assert h.get_tls_negotiated() and h.get_size() == 64 << 20'
	cmp -s -i $((2 << 20)):0 -n 8192 "$img" <(head -c 8192 /dev/zero | tr '\0' '\245') ||
		{ echo "    FAIL: nbdsh's write is not in the backing file"; CASE_FAILED=1; }
	tls_ok "qemu-img compare over TLS: identical to the backing file" qemu-img \
		qemu-img compare --object "$qobj" -f raw "$img" \
		"json:{\"driver\":\"raw\",\"file\":{\"driver\":\"nbd\",\"host\":\"127.0.0.1\",\"port\":\"$port\",\"export\":\"pmem0\",\"tls-creds\":\"tls0\"}}"
	rm -f "$dir/copy.img"
	tls_ok "nbdcopy over TLS: the whole 64 MiB" nbdcopy nbdcopy "$uri" "$dir/copy.img"
	cmp -s "$dir/copy.img" "$img" || { echo "    FAIL: nbdcopy's copy differs from the backing file"; CASE_FAILED=1; }
	# Refusals: each tries to write; the backing files must not change.
	local before
	before=$(cat "$dir"/nvdimm*.img | sha256sum)
	tls_no() {	# tls_no WHAT LOGNAME URI ERE: a write refused, libnbd's message matching ERE
		if timeout 60 "${NBDSH[@]}" -c 'h.set_uri_allow_local_file(True)' -c "h.connect_uri('$3')" \
			-c 'h.pwrite(b"\x66" * 4096, 0)' >"$LOG.$2" 2>&1; then
			echo "    FAIL: $1 could write"
			CASE_FAILED=1
		elif grep -Eq -- "$4" "$LOG.$2"; then
			echo "    refused: $1 ($(grep -Eo -- "$4" "$LOG.$2" | head -1))"
		else
			echo "    FAIL: $1: not refused the expected way ($4):"
			sed 's/^/    | /' "$LOG.$2"
			CASE_FAILED=1
		fi
	}
	tls_no "a wrong key for alice" wrongkey \
		"nbds://alice@127.0.0.1:$port/pmem0?tls-psk-file=$dir/mallory/keys.psk" 'gnutls_handshake: .*'
	tls_no "an unknown identity (carol)" carol \
		"nbds://carol@127.0.0.1:$port/pmem0?tls-psk-file=$dir/carol/keys.psk" 'gnutls_handshake: .*'
	tls_no "bob on pmem0 (not in its list)" bob \
		"nbds://bob@127.0.0.1:$port/pmem0?tls-psk-file=$dir/bob/keys.psk" 'server has no export named|export not open to this client.*|permission.*|policy.*'
	tls_no "bob on pmem1 (read-only)" bob-ro \
		"nbds://bob@127.0.0.1:$port/pmem1?tls-psk-file=$dir/bob/keys.psk" 'nbd_pwrite: .*read-only.*|nbd_pwrite: .*'
	tls_no "a plaintext client" plain "nbd://127.0.0.1:$port/pmem0" 'server requires TLS encryption first.*'
	timeout 60 python3 test/qemu/nbd_tls.py "$port" pmem0 || CASE_FAILED=1
	if [ "$(cat "$dir"/nvdimm*.img | sha256sum)" = "$before" ]; then
		echo "    after every refusal the backing files are unchanged"
	else
		echo "    FAIL: a refused client changed a backing file"
		CASE_FAILED=1
	fi
}

case_nbd_tls_clients_virtio() {
	nbd_tls_clients nbd_tls_clients_virtio virtio
}

case_nbd_tls_clients_e1000() {
	nbd_tls_clients nbd_tls_clients_e1000 e1000
}


# What the server offers fails closed, and says so in one line: exports
# without a key file and without nbd.allow= (anyone can open them: the
# boot names who can write and read what); nbd.tls=require without keys,
# and a key file on a CPU with neither RDRAND nor RDSEED (qemu64): neither
# serves at all.
case_nbd_tls_fails_closed() {
	nbd_tls_keyfile || return
	boot nbd_tls_open_warning 0 --nic virtio --ram 512M --nvdimm 16M --nvdimm 16M --fresh --timeout 120 \
		--cmdline 'nbd.export=pmem0,pmem1:ro "run=poweroff"'
	expect '\] nbd: no TLS and no nbd\.allow=: anyone who reaches port 10809 can write pmem0 and read pmem1$'
	expect '\] nbd: listening on port 10809$'
	boot nbd_tls_require_no_keys 0 --nic virtio --ram 512M --nvdimm 16M --fresh --timeout 120 \
		--cmdline 'nbd.tls=require nbd.export=pmem0 "run=poweroff"'
	expect '\] nbd: nbd\.tls=require but no TLS keys \(hand a psktool file in as boot file nbd\.psk\): not serving$'
	expect_not 'listening on port|anyone who reaches'
	boot nbd_tls_no_rdrand 0 --cpu qemu64 --nic virtio --ram 512M --nvdimm 16M --fresh --timeout 120 \
		--boot-file "nbd.psk=$NBD_TLS_KEYS" --cmdline 'nbd.export=pmem0 "run=poweroff"'
	expect '\] nbd: 2 TLS identities from nbd\.psk$'
	expect '\] nbd: TLS needs RDSEED or RDRAND, which this CPU lacks \(QEMU: -cpu max\): not serving$'
	expect_not 'listening on port|anyone who reaches'
	nbd_tls_no_leak
}
