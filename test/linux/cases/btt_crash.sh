# Linux's ndctl check-namespace on BTTs that pmemk was killed in the middle
# of writing (issue 13 item 7). pmemk formats two sector namespaces (4096
# on nvdimm 0, 512 on nvdimm 1), seq=1 goes over both (through pmemk's BTT
# write path on the host), then QEMU is SIGKILLed in the middle of a
# write of the next generation on each: on pmem0s at a random moment, on pmem1s at a moment
# where a write is logged but not yet mapped (boot_stop), so Linux's
# start-up has a write to roll forward. pmemk-bttcheck judges each file as
# test/qemu/cases/crash.sh does, and makes the expectation: a copy rolled
# forward by pmemk's own start-up code, and that copy's device bytes.
# Then Linux 6.1 boots on the crashed files as the kill left them:
#   - its start-up must change exactly what pmemk's does (the files after
#     the Linux boot equal pmemk's rolled-forward copies, byte for byte);
#   - ndctl check-namespace must pass on both;
#   - every byte Linux reads from /dev/pmemNs must be what pmemk's code
#     reads through the map (sha256 of the whole device).
# A last pmemk boot reads every run of one generation back with cmp and
# checks both namespaces: clean, nothing left to roll forward.

BTTX_DIR=build/qemu/linux_btt_crash
BTTX_OPTS=(--dir "$BTTX_DIR" --ram 1G --nvdimm 128M --nvdimm 64M)
BTTX_CHECK=build/tools/pmemk-bttcheck

# bttx_judge D G: pmemk-bttcheck on nvdimm D after the kill of a seq=G
# write (state file updated); prints its summary; fails the case if it is
# not clean. BTTX_NEW: how many sectors of the write hold seq=G.
bttx_judge() {
	local d=$1 gen=$2 out n
	n=$(stat -c %s "$BTTX_DIR/state$d")
	out=$("$BTTX_CHECK" check "$BTTX_DIR/nvdimm$d.img" "$BTTX_DIR/state$d" --range 0 "$n" \
		--seq "$gen" --update) ||
		{ echo "$out" | sed 's/^/    | /'; echo "    FAIL: pmemk-bttcheck on nvdimm$d"; CASE_FAILED=1; }
	grep '^bttcheck: ' <<<"$out" | sed 's/^/    /'
	BTTX_NEW=$(sed -n 's/.*): \([0-9]*\) new (seq=.*/\1/p' <<<"$out")
}

# bttx_crash D: kill QEMU in the middle of a whole-device write on pmemDs,
# up to six boots, each writing the next generation (seq=2, 3, ...) and
# judged against the state the boot before left, until a kill lands inside
# the write: some sectors still old. For D=0 at a random moment; for D=1 at
# a logged-but-unmapped write if a stop finds one, else at the last stop. A
# boot whose write was done first (or killed only after its last sector)
# makes the next one's delays shorter (D=0), or its stops closer together
# and fewer (D=1): a fast host writes the whole device in a tenth of a
# second.
bttx_crash() {
	local d=$1 try n run max_ms=400 delay= stops=60 stop_ms=19 landed=0 gen how
	n=$(stat -c %s "$BTTX_DIR/state$d")
	for try in 1 2 3 4 5 6; do
		gen=$((try + 1))
		run="\"run=write pmem${d}s 0 $n seq=$gen; poweroff\""
		if [ "$d" = 0 ]; then
			delay=$(crash_delay $max_ms)
			how="kill after ${delay}s"
			boot_kill "linux_btt_crash_kill${d}_$try" "pmemk> write pmem${d}s " \
				"$delay" "${BTTX_OPTS[@]}" --cmdline "$run"
		else
			STOP_MAX_MS=$stop_ms boot_stop "linux_btt_crash_kill${d}_$try" \
				"pmemk> write pmem${d}s " $stops \
				"$BTTX_CHECK pending $BTTX_DIR/nvdimm$d.img" "${BTTX_OPTS[@]}" \
				--cmdline "$run"
			how="$STOPS stops 0-${stop_ms} ms apart"
			[ "$PROBED" = 1 ] && how+=", the last at a write logged but not mapped"
		fi
		bttx_judge "$d" "$gen"
		[ $CASE_FAILED = 0 ] || return
		if [ "$KILLED" = 1 ] && ! grep -q "^write pmem${d}s: " "$LOG" &&
			[ "${BTTX_NEW:-$n}" -lt "$n" ]; then
			landed=1
			echo "    boot $try: the kill landed in the write on pmem${d}s ($how)"
			break
		fi
		echo "    boot $try: the write on pmem${d}s was done first ($how)"
		if [ "$d" = 0 ]; then
			max_ms=$((10#${delay/./} * 3 / 4))
		else
			stops=$((STOPS * 2 / 3 > 2 ? STOPS * 2 / 3 : 2))
			stop_ms=$((stop_ms / 2))
		fi
	done
	[ $landed = 1 ] || { echo "    FAIL: no kill landed in the write on pmem${d}s"; CASE_FAILED=1; }
}

case_btt_crash_linux_checks_pmemk() {
	local d sums=() lines=() got
	[ -x "$BTTX_CHECK" ] || { echo "    FAIL: $BTTX_CHECK missing (make tools)"; CASE_FAILED=1; return; }
	rm -rf "$BTTX_DIR"
	boot linux_btt_crash_create 0 "${BTTX_OPTS[@]}" --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m sector; create-namespace -f -e namespace1.0 -m sector -l 512; poweroff"'
	expect 'nd_btt btt0.0: namespace0.0 sector 4096'
	expect 'nd_btt btt1.0: namespace1.0 sector 512'
	[ $CASE_FAILED = 0 ] || return
	for d in 0 1; do
		"$BTTX_CHECK" fill "$BTTX_DIR/nvdimm$d.img" --seq 1 >/dev/null &&
			"$BTTX_CHECK" gens "$BTTX_DIR/nvdimm$d.img" "$BTTX_DIR/state$d" >/dev/null ||
			{ echo "    FAIL: could not lay down seq=1 on nvdimm$d"; CASE_FAILED=1; return; }
		bttx_crash "$d"
		[ $CASE_FAILED = 0 ] || return
		# What pmemk's start-up makes of it, and the device it then reads.
		cp --sparse=always "$BTTX_DIR/nvdimm$d.img" "$BTTX_DIR/pmemk$d.img"
		lines[d]=$("$BTTX_CHECK" recover "$BTTX_DIR/pmemk$d.img" | sed -n 's/^bttcheck: //p')
		sums[d]=$("$BTTX_CHECK" dump "$BTTX_DIR/pmemk$d.img" 2>/dev/null | sha256sum | cut -d' ' -f1)
		echo "    nvdimm$d crashed; pmemk's start-up: ${lines[d]}"
	done

	local scen=build/linux/scenarios/btt_crash
	rm -rf "$scen"
	mkdir -p "$scen"
	cat >"$scen/scenario.sh" <<'SCENARIO'
. /guest.sh
for i in 0 1; do
	ns=$(ns_of_dimm $i)
	json "btt$i" ndctl list -n "$ns"
	dev=$(blockdev_of "$ns")
	step ndctl disable-namespace "$ns"
	rc=0
	step ndctl check-namespace -v "$ns" || rc=$?
	echo "==== check btt$i $rc"
	step ndctl enable-namespace "$ns"
	echo "==== sha btt$i $(dd if=/dev/$dev bs=1048576 2>/dev/null | sha256sum | cut -d' ' -f1)"
done
SCENARIO
	linux_boot linux_btt_crash_linux 0 "$scen" "${BTTX_OPTS[@]}" --timeout 240
	for d in 0 1; do
		expect "^==== check btt$d 0\$"
		json_of got "$LOG" "==== json btt$d"
		want_field linux "$got" mode sector
		want_field linux "$got" sector_size "$([ "$d" = 0 ] && echo 4096 || echo 512)"
		want_sha "$LOG" "btt$d" "${sums[d]}" "the bytes pmemk's code reads through the map"
		cmp -s "$BTTX_DIR/nvdimm$d.img" "$BTTX_DIR/pmemk$d.img" ||
			{ echo "    FAIL: Linux's start-up left nvdimm$d other than pmemk's roll-forward does:"
			  cmp -l "$BTTX_DIR/nvdimm$d.img" "$BTTX_DIR/pmemk$d.img" | head -5 | sed 's/^/    | /'
			  CASE_FAILED=1; }
	done
	echo "    Linux: check-namespace clean on both, both devices read as pmemk reads them," \
		"the files as pmemk's start-up leaves them"
	[ $CASE_FAILED = 0 ] || return

	local run=
	for d in 0 1; do
		run+="$("$BTTX_CHECK" cmps "$BTTX_DIR/state$d" "pmem${d}s")check-namespace namespace$d.0; "
	done
	boot linux_btt_crash_after 0 "${BTTX_OPTS[@]}" --cmdline "\"run=${run}poweroff\""
	[ "$(grep -c '^checked 1 namespace' "$LOG")" = 2 ] ||
		{ echo "    FAIL: pmemk's check-namespace after Linux"; CASE_FAILED=1; }
	expect_not 'mismatch|rolled forward|error checking|disabled'
	[ "$(grep -c '^cmp pmem[01]s: .* match$' "$LOG")" = "$(grep -o 'cmp ' <<<"$run" | wc -l)" ] ||
		{ echo "    FAIL: not every cmp matched after Linux"; CASE_FAILED=1; }
	[ $CASE_FAILED = 0 ] && rm -f "$BTTX_DIR"/pmemk[01].img
}
