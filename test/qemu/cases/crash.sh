# Crash consistency (docs RELIABILITY G #41, #42): QEMU is SIGKILLed at
# random points of a 256 MiB write and of create-namespace, then the backing
# files are judged on the host and the next boot must attach what they hold.
# SIGKILL keeps the host's page cache, so a backing file holds exactly what
# the guest had stored at the kill: these cases test the order and extent of
# pmemk's own stores (QEMU models no CPU cache; test_persist checks the
# write-backs). CRASH_SEED=N repeats a run's choice of delays (TCG timing
# still varies); the seed is printed.

CRASH_INFOBLOCK=build/tools/pmemk-infoblock
CRASHCHECK=build/tools/pmemk-crashcheck

# crash_field FILE FIELD: a numeric field of FILE's info block.
crash_field() {
	"$CRASH_INFOBLOCK" read "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}

# crash_delay MAX_MS: a random delay of 0 to MAX_MS milliseconds, in seconds.
crash_delay() {
	local ms=$((RANDOM % ($1 + 1)))
	printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

# The write each kill interrupts: device bytes [64 MiB, 320 MiB).
CRASH_SECT=131072 CRASH_COUNT=524288

# crash_cmps DEV SECTORS: shell commands comparing DEV's seq=1 areas outside
# the write (DEV has SECTORS sectors); crash_expect_cmps checks their output.
crash_cmps() {
	local end=$((CRASH_SECT + CRASH_COUNT))
	printf 'cmp %s 0 %d seq=1; cmp %s %d %d seq=1; ' "$1" $CRASH_SECT "$1" $end $(($2 - end))
}

crash_expect_cmps() {
	local end=$((CRASH_SECT + CRASH_COUNT))
	expect "^cmp $1: $((CRASH_SECT * 512)) bytes at 0 match"
	expect "^cmp $1: $((($2 - end) * 512)) bytes at $(printf '%#x' $((end * 512))) match"
}

# RELIABILITY #41: QEMU killed at a random moment of a 256 MiB write of
# seq=2 or seq=3 over seq=1 data, at least 20 times on a map=dev device and
# some on a map=mem one (two nvdimms, 384 MiB each). After each kill,
# pmemk-crashcheck compares the written device's backing file with the state
# before the write (info block, memmap and every byte outside the write
# identical; each word inside old or new for its offset, never anything
# else); the next boot attaches both devices and reads the crashed device's
# untouched data back; at the end neither file differs from the references
# kept up to date by those checks.
# A kill that lands after the write finished does not count: the delays
# shrink and another boot is tried.
case_crash_sigkill_during_writes() {
	local dir=build/qemu/crash_writes seed=${CRASH_SEED:-$RANDOM} t0=$SECONDS
	local opts=(--dir "$dir" --ram 512M --nvdimm 384M --nvdimm 384M)
	local -a dataoff=() sectors=() rounds=(0 0)
	local d img bytes end_trunc
	RANDOM=$seed
	echo "    CRASH_SEED=$seed"
	rm -rf "$dir"
	boot crash_writes_0 0 "${opts[@]}" --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; create-namespace -f -e namespace1.0 -m fsdax -M mem -a 4K; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x800000: pmem0m, 376 MiB'
	expect 'nd_pfn pfn1.0: namespace1.0 fsdax map=mem align 0x1000 dataoff 0x200000: pmem1m, 382 MiB'
	[ $CASE_FAILED = 0 ] || return
	for d in 0 1; do
		img=$dir/nvdimm$d.img
		dataoff[d]=$(crash_field "$img" dataoff)
		end_trunc=$(crash_field "$img" end_trunc)
		bytes=$(($(stat -c %s "$img") - dataoff[d] - end_trunc))
		sectors[d]=$((bytes / 512))
		# seq=1 over the whole device, laid down from the host.
		"$CRASHCHECK" fill "$img" --range "${dataoff[d]}" $bytes --base "${dataoff[d]}" \
			--seq 1 || { CASE_FAILED=1; return; }
		cp "$img" "$dir/ref$d.img"
	done

	local want=24 kills=0 tries=0 max_ms=300 mem_kills=0 torn=0 seq delay cmps out
	local words=0 new_words=0 old_words=0 prev=both
	while [ $kills -lt $want ] && [ $tries -lt 40 ] && [ $CASE_FAILED = 0 ]; do
		tries=$((tries + 1))
		d=$((kills % 6 == 5 ? 1 : 0))	# every sixth on the map=mem device
		seq=$((2 + rounds[d] % 2))
		# The boot reads back what the last kill left outside its write.
		if [ $prev = both ]; then
			cmps="$(crash_cmps pmem0m "${sectors[0]}")$(crash_cmps pmem1m "${sectors[1]}")"
		else
			cmps=$(crash_cmps "pmem${prev}m" "${sectors[prev]}")
		fi
		delay=$(crash_delay $max_ms)
		boot_kill "crash_writes_$tries" "pmemk> write pmem${d}m " "$delay" "${opts[@]}" \
			--cmdline "\"run=${cmps}write pmem${d}m $CRASH_SECT $CRASH_COUNT seq=$seq; poweroff 9\""
		expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x800000: pmem0m, 376 MiB'
		expect 'nd_pfn pfn0.0: brought back in [0-9]+ us, 0 bytes stored to pmem'
		expect 'nd_pfn pfn1.0: namespace1.0 fsdax map=mem align 0x1000 dataoff 0x200000: pmem1m, 382 MiB'
		if [ $prev = both ]; then
			crash_expect_cmps pmem0m "${sectors[0]}"
			crash_expect_cmps pmem1m "${sectors[1]}"
		else
			crash_expect_cmps "pmem${prev}m" "${sectors[prev]}"
		fi
		expect_not 'mismatch'
		# The written device: outside the write as before, inside old or new.
		out=$("$CRASHCHECK" check "$dir/nvdimm$d.img" "$dir/ref$d.img" \
			--range $((dataoff[d] + CRASH_SECT * 512)) $((CRASH_COUNT * 512)) \
			--base "${dataoff[d]}" --seq $seq --update) ||
			{ echo "$out" | sed 's/^/    | /'; echo "    FAIL: after kill $tries"; CASE_FAILED=1; }
		rounds[d]=$((rounds[d] + 1))
		prev=$d
		if grep -q "^write pmem${d}m: " "$LOG"; then
			echo "    boot $tries: the write was done within ${delay}s; shorter delays"
			max_ms=$((10#${delay/./} * 3 / 4))
			continue
		fi
		if [ "$KILLED" != 1 ]; then
			echo "    FAIL: boot $tries: QEMU was gone before the kill"
			sed 's/^/    | /' "$LOG.stderr"
			CASE_FAILED=1
			break
		fi
		kills=$((kills + 1))
		[ $d = 1 ] && mem_kills=$((mem_kills + 1))
		local total fresh
		total=$(sed -n 's/^crashcheck: \([0-9]*\) words in the write: \([0-9]*\) new.*/\1/p' <<<"$out")
		fresh=$(sed -n 's/^crashcheck: \([0-9]*\) words in the write: \([0-9]*\) new.*/\2/p' <<<"$out")
		words=$((words + total))
		new_words=$((new_words + fresh))
		old_words=$((old_words + total - fresh))
		[ "$fresh" -gt 0 ] && [ "$fresh" -lt "$total" ] && torn=$((torn + 1))
		echo "    kill $kills: pmem${d}m seq=$seq, ${delay}s after the command: $fresh of" \
			"$total words changed to seq=$seq$(grep -q 'is a prefix' <<<"$out" && echo ', in order')"
	done
	[ $CASE_FAILED = 0 ] || return
	boot crash_writes_final 0 "${opts[@]}" --cmdline \
		"\"run=$(crash_cmps pmem0m "${sectors[0]}")$(crash_cmps pmem1m "${sectors[1]}")poweroff\""
	expect 'nd_pfn pfn0.0: brought back in [0-9]+ us, 0 bytes stored to pmem'
	crash_expect_cmps pmem0m "${sectors[0]}"
	crash_expect_cmps pmem1m "${sectors[1]}"
	expect_not 'mismatch'
	# The references follow every kill's write: any other change, in any
	# boot (the last included), to either file shows here.
	for d in 0 1; do
		cmp "$dir/nvdimm$d.img" "$dir/ref$d.img" ||
			{ echo "    FAIL: pmem${d}m's backing file changed outside the writes"; CASE_FAILED=1; }
	done
	echo "    $kills kills during the write ($mem_kills on map=mem) in $tries boots;" \
		"$torn stopped it between its first and last word; $words words checked:" \
		"$new_words new, $old_words old, 0 foreign; $((SECONDS - t0))s"
	[ $kills -ge 20 ] || { echo "    FAIL: only $kills kills landed during the write"; CASE_FAILED=1; }
	[ $torn -ge $((kills / 2)) ] ||
		{ echo "    FAIL: only $torn kills stopped the write half-way"; CASE_FAILED=1; }
	[ $CASE_FAILED = 0 ] && rm -f "$dir"/ref*.img
}
