# e1000 checksum offload (issue 34 item 2): a zero-copy NBD READ whose data
# the CPU never reads ("zero touch"), then the same with e1000.csum=off,
# where lwIP reads every byte for the TCP checksum. Each boot serves a
# 32 MiB raw pmem0 of random bytes; nbdcopy reads it CSUM_ROUNDS times
# (timed, for the person reading; CSUM_ROUNDS=3 gives a median worth
# quoting) and once into a file that must equal the backing file (a wrong
# checksum would lose segments: the copy would stall or differ).

CSUM_ROUNDS=${CSUM_ROUNDS:-1}
CSUM_MIB=32

# csum_counters: from OUT (ip addr; nbd-list), "UNTOUCHED READ ZEROCOPY" bytes.
csum_counters() {
	local u r z
	read -r u r < <(sed -n 's/^    TX by reference: \([0-9]*\) bytes not touched by the CPU, \([0-9]*\) read by it$/\1 \2/p' <<<"$OUT")
	z=$(sed -n 's/^closed connections: [0-9]* reads ([0-9]* bytes, \([0-9]*\) without a copy).*/\1/p' <<<"$OUT")
	echo "${u:-x} ${r:-x} ${z:-x}"
}

# csum_boot NAME ON|OFF: boot, read pmem0, show the counters; leaves U, R, Z, MEDIAN_MS.
csum_boot() {
	local name=$1 mode=$2 port dir=build/qemu/$1 times=() ms
	port=$(net_free_port)
	mkdir -p "$dir"
	head -c "${CSUM_MIB}M" /dev/urandom >"$dir/nvdimm0.img"
	local extra=
	[ "$mode" = off ] && extra=' e1000.csum=off'
	live_boot "$name" --nic e1000 --hostfwd "$port:10809" --ram 512M --nvdimm "${CSUM_MIB}M" \
		--cmdline "nbd.export=pmem0$extra" || return 1
	live_wait 'nbd: listening on port 10809' || { live_type 'poweroff 1'; live_end 1; return 1; }
	local uri=nbd://127.0.0.1:$port/pmem0
	for _ in $(seq "$CSUM_ROUNDS"); do
		local t0=$EPOCHREALTIME
		timeout 120 nbdcopy "$uri" null: || { echo "    FAIL: $name: nbdcopy to null: failed"; CASE_FAILED=1; }
		times+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')")
	done
	if timeout 120 nbdcopy "$uri" "$dir/copy.img" && cmp -s "$dir/copy.img" "$dir/nvdimm0.img"; then
		echo "    $name: nbdcopy read the $CSUM_MIB MiB of random bytes unchanged"
	else
		echo "    FAIL: $name: nbdcopy's copy differs from the backing file (or it failed)"
		CASE_FAILED=1
	fi
	rm -f "$dir/copy.img"
	sleep 1	# the last connection's close reaches the guest
	live_serial 'ip addr' 'nbd-list'
	read -r U R Z < <(csum_counters)
	MEDIAN_MS=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	echo "    $name: nbdcopy $CSUM_MIB MiB READ x$CSUM_ROUNDS: ${times[*]} ms, median $MEDIAN_MS ms" \
		"($((CSUM_MIB * 1000 / (MEDIAN_MS > 0 ? MEDIAN_MS : 1))) MiB/s); by reference: $U untouched, $R read; zero copy: $Z"
	live_type 'poweroff 0'
	live_end 0
}

case_nbd_zero_touch_e1000() {
	local t0=$SECONDS
	csum_boot nbd_zero_touch_e1000 on || return
	expect '\] eth0: e1000 at .*, checksum offload on, INTx wake-up .*, link up$'
	expect '^    checksum offload: TX [1-9][0-9]* frames by the NIC; RX [0-9]+ checked good by the NIC, 0 bad$'
	# Every byte READ sent by reference went to the NIC unread: no checksum, no copy.
	if ! [ "$Z" -gt 0 ] 2>/dev/null || [ "$R" != 0 ] || [ "$U" -lt "$Z" ]; then
		echo "    FAIL: zero touch: by reference $U bytes untouched, $R read by the CPU; zero copy $Z (want untouched >= zero copy > 0, read 0)"
		CASE_FAILED=1
	fi
	local on_ms=$MEDIAN_MS
	csum_boot nbd_zero_touch_e1000_off off || return
	expect '\] eth0: e1000 at .*, checksum offload off \(e1000\.csum=off\), INTx wake-up .*, link up$'
	expect '^    checksum offload: none \(checksums in software\)$'
	if ! [ "$Z" -gt 0 ] 2>/dev/null || [ "$U" != 0 ] || [ "$R" -lt "$Z" ]; then
		echo "    FAIL: e1000.csum=off: by reference $U bytes untouched, $R read by the CPU; zero copy $Z (want untouched 0, read >= zero copy > 0)"
		CASE_FAILED=1
	fi
	echo "    nbd_zero_touch_e1000: median READ $on_ms ms with offload, $MEDIAN_MS ms without; $((SECONDS - t0))s"
}
