# After a power cut under pmemk, Linux reads the fsdax namespace as pmemk
# does (RELIABILITY #44): QEMU is SIGKILLed in the middle of a pmemk write to
# an fsdax map=dev namespace; pmemk-crashcheck judges the backing file (every
# byte outside the write unchanged, every word inside old or new); then
# Debian's Linux boots on that file and must list the same fsdax namespace
# (mode, map, size, uuid, align) and read, through /dev/pmemN, exactly the
# bytes the file holds from pmemk's dataoff on: a Linux that placed the data
# elsewhere, or saw no fsdax, reads other bytes. CRASH_SEED=N repeats the
# delays (TCG timing still varies).

LINUX_CRASH_DIR=build/qemu/linux_crash
LINUX_CRASH_OPTS=(--ram 1G --nvdimm 256M)
# The write each kill interrupts: sectors [8192, 8192 + 393216) of pmem0m,
# 192 MiB from 4 MiB on.
LINUX_CRASH_SECT=8192 LINUX_CRASH_COUNT=393216

case_crash_fsdax_linux_reads_after_kill() {
	local dir=$LINUX_CRASH_DIR seed=${CRASH_SEED:-$RANDOM} img pj lj out
	local dataoff end_trunc bytes tries=0 max_ms=100 delay landed=0
	img=$dir/nvdimm0.img
	RANDOM=$seed
	echo "    CRASH_SEED=$seed"
	rm -rf "$dir"
	boot linux_crash_create 0 --dir "$dir" "${LINUX_CRASH_OPTS[@]}" --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; poweroff"'
	[ $CASE_FAILED = 0 ] || return
	dataoff=$(crash_field "$img" dataoff)
	end_trunc=$(crash_field "$img" end_trunc)
	bytes=$(($(stat -c %s "$img") - dataoff - end_trunc))
	# seq=1 over the whole device, from the host; the reference follows.
	"$CRASHCHECK" fill "$img" --range "$dataoff" $bytes --base "$dataoff" --seq 1 ||
		{ CASE_FAILED=1; return; }
	cp "$img" "$dir/ref.img"

	# Kill until one kill lands inside the write (a write that finished
	# first makes the delays shorter).
	while [ $landed = 0 ] && [ $tries -lt 8 ] && [ $CASE_FAILED = 0 ]; do
		tries=$((tries + 1))
		delay=$(crash_delay $max_ms)
		boot_kill "linux_crash_kill_$tries" "pmemk> write pmem0m " "$delay" --dir "$dir" \
			"${LINUX_CRASH_OPTS[@]}" --cmdline \
			"\"run=list -N; write pmem0m $LINUX_CRASH_SECT $LINUX_CRASH_COUNT seq=2; poweroff 9\""
		out=$("$CRASHCHECK" check "$img" "$dir/ref.img" \
			--range $((dataoff + LINUX_CRASH_SECT * 512)) $((LINUX_CRASH_COUNT * 512)) \
			--base "$dataoff" --seq 2 --update) ||
			{ echo "$out" | sed 's/^/    | /'; echo "    FAIL: after kill $tries"; CASE_FAILED=1; }
		if grep -q '^write pmem0m: ' "$LOG"; then
			echo "    boot $tries: the write was done within ${delay}s; shorter delays"
			max_ms=$((10#${delay/./} * 3 / 4))
		elif [ "$KILLED" = 1 ]; then
			landed=1
			echo "    kill after ${delay}s: $(sed -n 's/^crashcheck: \(.* words in the write.*\)/\1/p' <<<"$out")"
		else
			echo "    FAIL: boot $tries: QEMU was gone before the kill"
			CASE_FAILED=1
		fi
	done
	[ $CASE_FAILED = 0 ] || return
	[ $landed = 1 ] || { echo "    FAIL: no kill landed inside the write in $tries boots"; CASE_FAILED=1; return; }
	json_of pj "$LOG" 'pmemk> list -N' namespace0.0

	# Linux on the crashed file: the whole block device hashed.
	local scen=build/linux/scenarios/crash
	rm -rf "$scen"
	mkdir -p "$scen"
	cat >"$scen/scenario.sh" <<-EOF
		. /guest.sh
		ns=\$(ns_of_dimm 0)
		json crash ndctl list -n "\$ns"
		dev=\$(blockdev_of "\$ns")
		sha crash.all "\$dev" 0 \$(capacity "\$dev")
	EOF
	linux_boot linux_crash_linux 0 "$scen" --dir "$dir" "${LINUX_CRASH_OPTS[@]}" --timeout 240
	json_of lj "$LOG" '==== json crash'
	want_field linux "$lj" mode fsdax
	want_field linux "$lj" map dev
	same_namespace pmemk "$pj" linux "$lj"
	want_sha "$LOG" crash.all \
		"$(tail -c +$((dataoff + 1)) "$img" | head -c $bytes | sha256sum | cut -d' ' -f1)" \
		"the file's bytes from pmemk's dataoff ($dataoff) on"
	# Linux stored nothing into the info block or the data (it does fill
	# the memmap area between them with its own struct pages).
	local a
	for a in "0 8192" "$dataoff $bytes"; do
		set -- $a
		cmp -s <(tail -c +$(($1 + 1)) "$img" | head -c $2) <(tail -c +$(($1 + 1)) "$dir/ref.img" | head -c $2) ||
			{ echo "    FAIL: the Linux boot changed bytes [$1, +$2) of the file"; CASE_FAILED=1; }
	done
	[ $CASE_FAILED = 0 ] && rm -f "$dir/ref.img"
}
