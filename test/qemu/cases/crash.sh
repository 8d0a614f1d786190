# Crash consistency (docs RELIABILITY G #41, #42): QEMU is SIGKILLed at
# random points of a 256 MiB write and of create-namespace, then the backing
# files are judged on the host and the next boot must attach what they hold.
# SIGKILL keeps the host's page cache, so a backing file holds exactly what
# the guest had stored at the kill: these cases test the order and extent of
# pmemk's own stores (QEMU models no CPU cache; test_persist checks the
# write-backs). CRASH_SEED=N repeats a run's choice of delays (TCG timing
# still varies); the seed is printed. crash_field, crash_delay and the tools'
# paths are in test/qemu/lib.sh (the Linux suite's crash case uses them).

# Run alone, never beside another case (test/run-cases.sh): kill timing.
SERIAL_CASES+=" crash_sigkill_during_writes crash_sigkill_during_create_namespace crash_btt_sigkill_during_writes"

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

# crash_block_state BASE IMG MODE LAYOUT: what IMG's info block is, after
# a kill during `create-namespace ... -M MODE` (MODE raw: destroy) on a
# namespace that held BASE: "old" (BASE's bytes), "zero", "torn" (a bad
# checksum: half written, or data), "new" (it checks out and is what was
# asked: LAYOUT is pmemk-infoblock's JSON of Linux's block for the request,
# without file, uuid and checksum), or "BAD ..." (it checks out and is not).
crash_block_state() {
	local base=$1 img=$2 mode=$3 layout=$4 json
	if cmp -s <(dd if="$base" bs=4096 skip=1 count=1 2>/dev/null) \
		<(dd if="$img" bs=4096 skip=1 count=1 2>/dev/null); then
		echo old
	elif cmp -s <(dd if="$img" bs=4096 skip=1 count=1 2>/dev/null) <(head -c 4096 /dev/zero); then
		echo zero
	else
		json=$("$CRASH_INFOBLOCK" read "$img" | crash_strip_json)
		if [ "$mode" != raw ] && [ "$json" = "$layout" ]; then
			echo new
		elif grep -q '"checksum_ok":false' <<<"$json"; then
			echo torn
		else
			echo "BAD $json"
		fi
	fi
}

crash_strip_json() {
	sed 's/"file":"[^"]*",//; s/"uuid":"[^"]*",//; s/"checksum":"[^"]*",//'
}

CRASH_CREATE_OPTS=(--ram 512M --nvdimm 4G)
# What the boot after a kill runs: the namespace, the raw base's data
# around the block, the pfn base's data.
CRASH_CREATE_NEXT='"run=list -N; cmp pmem0 0 8 seq=5; cmp pmem0 16 131056 seq=5; cmp pmem0m 0 65536 seq=6; poweroff"'

# crash_create_next NAME PHASE STATE MODE ALIGN: boot what the kill left and
# check it comes up as its block says: raw (old raw, zero), the old pfn
# device, or the new one; a torn block (the pfn signature, a checksum that
# fails) is damaged: disabled with the reason, never raw (issue 29 item 5).
# Nothing else is ever disabled.
crash_create_next() {
	local name=$1 phase=$2 state=$3 mode=$4 align=$5
	boot "$name" 0 --dir "$CRASH_DIR" "${CRASH_CREATE_OPTS[@]}" --cmdline "$CRASH_CREATE_NEXT"
	[ "$state" = torn ] || expect_not 'disabled'
	case $phase/$state in
	raw/old | */zero)
		expect 'nd_pmem namespace0.0: raw, pmem0, 4096 MiB' ;;
	*/torn)
		expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=none disabled: invalid info block: info block checksum mismatch'
		expect_not 'nd_pmem namespace0.0: raw' ;;
	pfn/old)
		expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x4200000: pmem0m'
		expect '^cmp pmem0m: 33554432 bytes at 0 match' ;;
	*/new)
		expect "nd_pfn pfn0.0: namespace0.0 fsdax map=$mode align $(printf '%#x' \
			"$(numfmt --from=iec "$align")") dataoff" ;;
	esac
	if [ "$phase" = raw ] && { [ "$state" = old ] || [ "$state" = zero ]; }; then
		expect '^cmp pmem0: 4096 bytes at 0 match'
		expect '^cmp pmem0: 67100672 bytes at 0x2000 match'
	fi
}

# crash_create_phase PHASE BASE REQUEST...: for each REQUEST ("dev 4K",
# "mem 2M", "raw"), start from BASE, kill QEMU 0-25 ms into
# create-namespace, judge the info block and every byte around it, then boot
# what is left (crash_create_next). Counts in CRASH_KILLS, CRASH_MID,
# CRASH_STATES; the last new block's image is kept as PHASE-new.img.
crash_create_phase() {
	local phase=$1 base=$2 i=0 req mode align state layout w cmd img=$CRASH_DIR/nvdimm0.img
	shift 2
	for req in "$@"; do
		i=$((i + 1))
		read -r mode align <<<"$req"
		layout= cmd='-m raw'
		if [ "$mode" != raw ]; then
			cmd="-m fsdax -M $mode -a $align"
			cp --sparse=always "$base" "$CRASH_DIR/layout.img"
			layout=$("$CRASH_INFOBLOCK" write "$CRASH_DIR/layout.img" --mode "$mode" \
				--align "$align" | crash_strip_json)
		fi
		cp --sparse=always "$base" "$img"
		# No poweroff: QEMU waits in the shell if the command is done first.
		boot_kill "crash_create_${phase}_$i" 'pmemk> create-namespace' "$(crash_delay 25)" \
			--dir "$CRASH_DIR" "${CRASH_CREATE_OPTS[@]}" \
			--cmdline "memmap_init=sync \"run=create-namespace -f -e namespace0.0 $cmd; meminfo\""
		[ "$KILLED" = 1 ] || { echo "    FAIL: QEMU was gone before the kill"; CASE_FAILED=1; }
		CRASH_KILLS=$((CRASH_KILLS + 1))
		local during=' (after it returned)'
		grep -q '^pmemk> meminfo' "$LOG" || { CRASH_MID=$((CRASH_MID + 1)); during=' (while it ran)'; }
		state=$(crash_block_state "$base" "$img" "$mode" "$layout")
		CRASH_STATES+=" $phase:${state%% *}"
		echo "    kill $CRASH_KILLS$during: $phase namespace, create-namespace $cmd: block $state"
		case $state in
		BAD*) echo "    FAIL: a block that checks out with the wrong fields"; CASE_FAILED=1 ;;
		new) cp --sparse=always "$img" "$CRASH_DIR/$phase-new.img" ;;
		esac
		# Every byte outside [4 KiB, w) as it was: w ends the block, or
		# the memmap of a new map=dev block.
		w=8192
		[ "$state" = new ] && [ "$mode" = dev ] && w=$(crash_field "$img" dataoff)
		"$CRASHCHECK" same "$img" "$base" --range 4096 $((w - 4096)) >/dev/null ||
			{ echo "    FAIL: $("$CRASHCHECK" same "$img" "$base" --range 4096 $((w - 4096)))"; CASE_FAILED=1; }
		crash_create_next "crash_create_${phase}_${i}_next" "$phase" "$state" "$mode" "$align"
		[ $CASE_FAILED = 0 ] || return
	done
}

# crash_create_torn PHASE BASE: the block write itself (one 4 KiB copy, in
# ascending 8-byte words) is too short for a kill to split, so split it
# here: the first N bytes of PHASE's new block over BASE's, for a few N.
# Each is torn (bad checksum) and the next boot leaves the namespace
# disabled as damaged, never raw.
crash_create_torn() {
	local phase=$1 base=$2 n img=$CRASH_DIR/nvdimm0.img
	[ -f "$CRASH_DIR/$phase-new.img" ] || { echo "    no new $phase block to tear"; return; }
	for n in 64 4088; do
		cp --sparse=always "$base" "$img"
		dd if="$CRASH_DIR/$phase-new.img" of="$img" bs=1 skip=4096 seek=4096 count=$n \
			conv=notrunc 2>/dev/null
		local state
		state=$(crash_block_state "$base" "$img" dev "")
		echo "    $phase namespace, the new block's first $n bytes: block $state"
		[ "$state" = torn ] || { echo "    FAIL: want torn"; CASE_FAILED=1; }
		crash_create_next "crash_create_${phase}_torn_$n" "$phase" torn dev 2M
	done
}

# RELIABILITY #42: QEMU killed while create-namespace runs, 0-25 ms after
# the command starts (a 4 GiB namespace: the map=dev memmap is 64 MiB, some
# 50-200 ms of stores under TCG), 10 times on a raw namespace holding a
# data pattern and 10 times on a map=dev pfn device (to map=mem, to map=dev
# with another align, or destroyed). The info block is the old one, zero,
# torn with a bad checksum, or the complete new one with Linux's layout for
# the request, never a block that checks out with other fields; no byte
# outside the block and the new memmap changes; the next boot brings up
# what the block says. Torn blocks, which no kill produced, are made on the
# host and booted too: damaged, disabled, never raw. memmap_init=sync keeps the memmap's stores inside
# create-namespace, the window the kills aim at (deferred, they come after
# it returns, and the next boot stores them again in any case).
case_crash_sigkill_during_create_namespace() {
	local seed=${CRASH_SEED:-$RANDOM} t0=$SECONDS
	CRASH_DIR=build/qemu/crash_create
	RANDOM=$seed
	echo "    CRASH_SEED=$seed"
	CRASH_KILLS=0 CRASH_MID=0 CRASH_STATES=
	rm -rf "$CRASH_DIR"
	mkdir -p "$CRASH_DIR"
	# A raw namespace: seq=5 words over its first 64 MiB (raw offsets).
	truncate -s 4G "$CRASH_DIR/base-raw.img"
	"$CRASHCHECK" fill "$CRASH_DIR/base-raw.img" --range 0 64M --base 0 --seq 5 ||
		{ CASE_FAILED=1; return; }
	# A map=dev pfn device, its first 32 MiB seq=6.
	cp --sparse=always "$CRASH_DIR/base-raw.img" "$CRASH_DIR/nvdimm0.img"
	boot crash_create_base 0 --dir "$CRASH_DIR" "${CRASH_CREATE_OPTS[@]}" --cmdline \
		'memmap_init=sync "run=create-namespace -f -e namespace0.0 -m fsdax -M dev; write pmem0m 0 65536 seq=6; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x4200000: pmem0m'
	cp --sparse=always "$CRASH_DIR/nvdimm0.img" "$CRASH_DIR/base-pfn.img"
	[ $CASE_FAILED = 0 ] || return
	crash_create_phase raw "$CRASH_DIR/base-raw.img" "dev 4K" "dev 2M" "mem 2M" "mem 4K" \
		"dev 2M" "mem 4K" "dev 4K" "mem 2M" "dev 2M" "dev 4K"
	[ $CASE_FAILED = 0 ] || return
	crash_create_phase pfn "$CRASH_DIR/base-pfn.img" "mem 4K" "raw" "dev 4K" "mem 2M" \
		"raw" "dev 4K" "mem 4K" "raw" "mem 2M" "dev 4K"
	[ $CASE_FAILED = 0 ] || return
	crash_create_torn raw "$CRASH_DIR/base-raw.img"
	crash_create_torn pfn "$CRASH_DIR/base-pfn.img"
	local s summary=
	for s in raw:old raw:torn raw:zero raw:new pfn:old pfn:torn pfn:zero pfn:new; do
		summary+=" $s=$(grep -o " $s\b" <<<"$CRASH_STATES" | wc -l)"
	done
	echo "    $CRASH_KILLS kills, $CRASH_MID while create-namespace ran; blocks found:$summary;" \
		"$((SECONDS - t0))s"
	[ $CRASH_MID -ge 10 ] ||
		{ echo "    FAIL: only $CRASH_MID kills landed inside create-namespace"; CASE_FAILED=1; }
	[ $CASE_FAILED = 0 ] && rm -f "$CRASH_DIR"/base-*.img "$CRASH_DIR"/*-new.img "$CRASH_DIR/layout.img"
}

# ---- sector mode (BTT) ----

CRASH_BTTCHECK=build/tools/pmemk-bttcheck
# The BTT devices of case_crash_btt_sigkill_during_writes: 4096-byte sectors
# on a 256 MiB nvdimm (pmem0s), 512-byte ones on a 128 MiB one (pmem1s).
CRASH_BTT_SS=(4096 512)
CRASH_BTT_NLBA=(65208 259792)
CRASH_BTT_OPTS=(--ram 512M --nvdimm 256M --nvdimm 128M)

# crash_btt_cmps D: shell commands comparing pmemDs with its state file
# (pmemk-bttcheck cmps: one cmp per run of one generation), then
# check-namespace; crash_btt_expect D checks their output in LOG.
crash_btt_cmps() {
	printf '%scheck-namespace namespace%s.0; ' \
		"$("$CRASH_BTTCHECK" cmps "$CRASH_DIR/state$1" "pmem$1s")" "$1"
}

crash_btt_expect() {
	local d=$1 ss=${CRASH_BTT_SS[$1]} lba n
	while read -r lba n; do
		expect "^cmp pmem${d}s: $((n * ss)) bytes at $(printf '%#x' $((lba * ss))) match\$"
	done < <("$CRASH_BTTCHECK" cmps "$CRASH_DIR/state$d" "pmem${d}s" | tr ';' '\n' |
		awk 'NF == 5 { print $3, $4 }')
	expect "^pmemk> check-namespace namespace$d.0"
}

# crash_btt_expect_boot ROLLED: both BTTs came up, the probe rolled ROLLED
# writes forward (what pmemk-bttcheck found logged but not mapped after the
# last kill), every check-namespace was clean, no cmp mismatched.
crash_btt_expect_boot() {
	local got checks
	expect "nd_btt btt0.0: namespace0.0 sector 4096, BTT 1.1, 1 arena: pmem0s, ${CRASH_BTT_NLBA[0]} sectors"
	expect "nd_btt btt1.0: namespace1.0 sector 512, BTT 1.1, 1 arena: pmem1s, ${CRASH_BTT_NLBA[1]} sectors"
	got=$(grep -c 'was logged but not mapped; map\[.*(rolled forward' "$LOG")
	[ "$got" = "$1" ] ||
		{ echo "    FAIL: the boot rolled $got writes forward, the host check said $1"; CASE_FAILED=1; }
	checks=$(grep -c '^pmemk> check-namespace' "$LOG")
	[ "$(grep -c '^checked 1 namespace' "$LOG")" = "$checks" ] ||
		{ echo "    FAIL: check-namespace not clean"; CASE_FAILED=1; }
	expect_not 'mismatch|error checking|disabled|Run with --repair|returned -'
}

# Issue 13 item 7: QEMU killed in the middle of a write over a whole BTT
# device, at least 20 times: 254 MiB in 4096-byte sectors at a random
# moment, and every fourth time 127 MiB in 512-byte sectors, stopping QEMU
# every 0-19 ms (boot_stop) to kill it at a moment where a write is logged
# but not yet mapped, the state the start-up's roll-forward exists for, or
# at a random 4th-15th stop; at every stop check-namespace on the file must
# find nothing else. Each write is seq=G,
# with G new every boot: each sector's words name G and the sector's own
# offset, so a sector read through the map tells its generation, and a
# torn sector or one mapped to another LBA's block shows. After each kill,
# on the host, pmemk-bttcheck (pmemk's BTT code compiled for the host)
# runs check-namespace on the file as the kill left it (nothing but writes
# to roll forward), rolls forward as the next boot will (in its own copy),
# checks again (clean), and reads every sector through the map: outside
# the write its generation from before, inside the old or G, never
# anything else. The next boot must roll the same writes forward, read
# every run of one generation back with cmp, and pass check-namespace.
# After the first two roll-forward kills, the boot that recovers is itself
# killed at a random moment around the probe, and judged the same way. At the end a
# torn sector and two swapped map entries are planted, and both checks
# must catch them (check-namespace does not: the metadata is consistent).
# A kill that lands after the write finished does not count.
case_crash_btt_sigkill_during_writes() {
	local seed=${CRASH_SEED:-$RANDOM} t0=$SECONDS
	CRASH_DIR=build/qemu/crash_btt
	local opts=(--dir "$CRASH_DIR" "${CRASH_BTT_OPTS[@]}")
	RANDOM=$seed
	echo "    CRASH_SEED=$seed"
	rm -rf "$CRASH_DIR"
	mkdir -p "$CRASH_DIR"
	touch "$CRASH_DIR/t0"
	crash_btt_run "${opts[@]}"
	# Each boot had a command line of its own, so an ISO of its own (21 MB
	# each in build/iso-cache, see tools/run-qemu): none will be used again.
	find build/iso-cache -name '*.iso' -newer "$CRASH_DIR/t0" -delete 2>/dev/null
}

crash_btt_run() {
	local opts=("$@")
	local -a rolled=(0 0)
	local d out
	boot crash_btt_0 0 "${opts[@]}" --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m sector; create-namespace -f -e namespace1.0 -m sector -l 512; poweroff"'
	crash_btt_expect_boot 0
	[ $CASE_FAILED = 0 ] || return
	for d in 0 1; do
		# seq=1 over the whole device, through the BTT's own write path.
		"$CRASH_BTTCHECK" fill "$CRASH_DIR/nvdimm$d.img" --seq 1 >/dev/null &&
			"$CRASH_BTTCHECK" gens "$CRASH_DIR/nvdimm$d.img" "$CRASH_DIR/state$d" >/dev/null ||
			{ echo "    FAIL: could not lay down seq=1 on pmem${d}s"; CASE_FAILED=1; return; }
	done

	local want=20 kills=0 tries=0 max_ms=400 prev=both gen delay run n fresh how
	local mid=0 in_order=0 rf=0 rf_kills=0 sectors=0 new_sectors=0 stops=0 recov=
	while { [ $kills -lt $want ] || { [ $rf_kills = 0 ] && [ $tries -lt 28 ]; }; } &&
		[ $tries -lt 40 ] && [ $CASE_FAILED = 0 ]; do
		tries=$((tries + 1))
		d=$((kills % 4 == 3 ? 1 : 0))
		# Until one lands on a logged-but-unmapped write, a few more.
		[ $kills -ge $((want - 1)) ] && [ $rf_kills = 0 ] && [ $tries -lt 28 ] && d=1
		gen=$((tries + 1))
		n=${CRASH_BTT_NLBA[d]}
		if [ $prev = both ]; then
			run="$(crash_btt_cmps 0)$(crash_btt_cmps 1)"
		else
			run=$(crash_btt_cmps "$prev")
		fi
		run="\"run=${run}write pmem${d}s 0 $n seq=$gen; poweroff\""
		if [ "$d" = 0 ]; then
			delay=$(crash_delay $max_ms)
			how="${delay}s after the command"
			boot_kill "crash_btt_$tries" "pmemk> write pmem${d}s " "$delay" "${opts[@]}" --cmdline "$run"
		else
			boot_stop "crash_btt_$tries" "pmemk> write pmem${d}s " $((4 + RANDOM % 12)) \
				"$CRASH_BTTCHECK pending $CRASH_DIR/nvdimm$d.img" "${opts[@]}" --cmdline "$run"
			how="at stop $STOPS$([ $PROBED = 1 ] && echo ', a write logged but not mapped')"
			stops=$((stops + STOPS))
		fi
		if [ $prev = both ]; then
			crash_btt_expect_boot 0
			crash_btt_expect 0
			crash_btt_expect 1
		else
			crash_btt_expect_boot "${rolled[prev]}"
			crash_btt_expect "$prev"
		fi
		out=$("$CRASH_BTTCHECK" check "$CRASH_DIR/nvdimm$d.img" "$CRASH_DIR/state$d" \
			--range 0 "$n" --seq $gen --update) ||
			{ echo "$out" | sed 's/^/    | /'; echo "    FAIL: after boot $tries"; CASE_FAILED=1; break; }
		rolled[d]=$(sed -n 's/.*; \([0-9]*\) rolled forward;.*/\1/p' <<<"$out")
		prev=$d
		fresh=$(sed -n 's/.*): \([0-9]*\) new (seq=.*/\1/p' <<<"$out")
		if grep -q "^write pmem${d}s: " "$LOG"; then
			echo "    boot $tries: the write on pmem${d}s was done first ($how)"
			[ "$d" = 0 ] && max_ms=$((10#${delay/./} * 3 / 4))
			continue
		fi
		if [ "$KILLED" != 1 ]; then
			echo "    FAIL: boot $tries: QEMU was gone before the kill"
			sed 's/^/    | /' "$LOG.stderr"
			CASE_FAILED=1
			break
		fi
		kills=$((kills + 1))
		# Early kills: spread the next ones over more of the write.
		[ "$d" = 0 ] && [ "$fresh" -lt $((n / 3)) ] && [ $max_ms -lt 3000 ] && max_ms=$((max_ms * 5 / 4))
		sectors=$((sectors + n))
		new_sectors=$((new_sectors + fresh))
		[ "$fresh" -gt 0 ] && [ "$fresh" -lt "$n" ] && mid=$((mid + 1))
		grep -q 'the new ones a prefix' <<<"$out" && in_order=$((in_order + 1))
		rf=$((rf + rolled[d]))
		[ "${rolled[d]}" != 0 ] && rf_kills=$((rf_kills + 1))
		echo "    kill $kills: pmem${d}s seq=$gen, $how: $fresh of $n sectors new$(
			[ "${rolled[d]}" != 0 ] && echo ", ${rolled[d]} logged but not mapped")"
		[ "${rolled[d]}" != 0 ] && [ $rf_kills -le 2 ] && crash_btt_recovery_kill "$d" "$gen" "$tries"
	done
	[ $CASE_FAILED = 0 ] || return
	boot crash_btt_final 0 "${opts[@]}" --cmdline \
		"\"run=$(crash_btt_cmps 0)$(crash_btt_cmps 1)poweroff\""
	crash_btt_expect_boot "${rolled[prev]}"
	crash_btt_expect 0
	crash_btt_expect 1
	echo "    $kills kills during the write in $tries boots, $mid between its first and last" \
		"sector ($in_order with the new sectors first, in order); $rf_kills left a write" \
		"logged but not mapped, rolled forward by the next boot ($stops stops probed);" \
		"recovery boots killed:${recov:- none}; $sectors sectors checked through the map:" \
		"$new_sectors new, $((sectors - new_sectors)) old, 0 torn or misplaced; $((SECONDS - t0))s"
	[ $kills -ge $want ] || { echo "    FAIL: only $kills kills landed during the write"; CASE_FAILED=1; }
	[ $mid -ge $((kills / 2)) ] ||
		{ echo "    FAIL: only $mid kills stopped the write half-way"; CASE_FAILED=1; }
	[ $rf_kills -gt 0 ] ||
		echo "    NOTE: no stop found a write logged but not mapped: roll-forward not exercised this run"
	[ $CASE_FAILED = 0 ] || return
	crash_btt_planted
}

# crash_btt_recovery_kill D GEN TRY: pmemDs has a write to roll forward;
# kill the boot that does it at a random moment, 0-800 ms after GRUB starts
# loading the kernel (the probe comes a few hundred ms later; the boot
# then waits in the shell). The file must then hold the write either
# still to roll forward or rolled, and check as after any kill; the next
# boot expects what is left.
crash_btt_recovery_kill() {
	local d=$1 gen=$2 out left delay
	delay=$(crash_delay 800)
	boot_kill "crash_btt_${3}_recovery" "Booting .pmemk." "$delay" \
		--dir "$CRASH_DIR" "${CRASH_BTT_OPTS[@]}" --cmdline '"run=meminfo"'
	out=$("$CRASH_BTTCHECK" check "$CRASH_DIR/nvdimm$d.img" "$CRASH_DIR/state$d" \
		--range 0 "${CRASH_BTT_NLBA[d]}" --seq "$gen") ||
		{ echo "$out" | sed 's/^/    | /'; echo "    FAIL: after the recovery boot"; CASE_FAILED=1; return; }
	left=$(sed -n 's/.*; \([0-9]*\) rolled forward;.*/\1/p' <<<"$out")
	[ "$KILLED" = 1 ] || { echo "    FAIL: the recovery boot was gone before the kill"; CASE_FAILED=1; }
	echo "    recovery boot killed ${delay}s after GRUB's 'Booting': $((rolled[d] - left)) of" \
		"${rolled[d]} rolled forward$(grep -q '^pmemk> meminfo' "$LOG" && echo ', in the shell already')"
	recov+=" $((rolled[d] - left))/${rolled[d]}"
	rolled[d]=$left
}

# The checks can fail: on pmem0s, the second half of LBA 100's block
# rewritten with another generation (torn), the map entries of LBAs 200
# and 201 swapped (each reads the other's data). pmemk-bttcheck names all
# three (and a sector of another generation than expected); in the guest
# check-namespace finds the metadata consistent, and cmp of each of the
# three sectors reports a mismatch.
crash_btt_planted() {
	local img=$CRASH_DIR/nvdimm0.img st=$CRASH_DIR/state0 out lba g run=
	"$CRASH_BTTCHECK" tear "$img" 100 --seq 250 >/dev/null &&
		"$CRASH_BTTCHECK" swap "$img" 200 201 >/dev/null || { CASE_FAILED=1; return; }
	out=$("$CRASH_BTTCHECK" check "$img" "$st" --range 0 1 --seq 254)
	[ $? = 1 ] && grep -q '^bttcheck: LBA 100 is torn: bytes 0-2047 of seq=[0-9]*, byte 2048 on of seq=250' <<<"$out" &&
		grep -q "^bttcheck: LBA 200 holds LBA 201's data" <<<"$out" &&
		grep -q "^bttcheck: LBA 201 holds LBA 200's data" <<<"$out" &&
		grep -q ' 3 torn or misplaced, ' <<<"$out" ||
		{ echo "$out" | sed 's/^/    | /'; echo "    FAIL: planted faults not all found"; CASE_FAILED=1; }
	# A whole sector of the wrong generation (a lost or stale write): here
	# the expectation is changed instead, LBA 300 said to be seq=253.
	cp "$st" "$CRASH_DIR/state0.planted"
	printf '\375' | dd of="$CRASH_DIR/state0.planted" bs=1 seek=300 conv=notrunc 2>/dev/null
	"$CRASH_BTTCHECK" check "$img" "$CRASH_DIR/state0.planted" --range 0 1 --seq 254 |
		grep -q '^bttcheck: LBA 300 is seq=[0-9]*, want 253 (outside the write)$' ||
		{ echo "    FAIL: a sector of the wrong generation was not found"; CASE_FAILED=1; }
	for lba in 100 200 201; do
		g=$(od -An -tu1 -j $lba -N1 "$st" | tr -d ' ')
		run+="cmp pmem0s $lba 1 seq=$g; "
	done
	boot crash_btt_planted 0 --dir "$CRASH_DIR" "${CRASH_BTT_OPTS[@]}" \
		--cmdline "\"run=${run}check-namespace namespace0.0; poweroff\""
	expect '^cmp pmem0s: mismatch at byte 0x64800 \(sector 100\)'
	# Words of LBAs 200 and 201 differ in their offset bits, the low byte may not.
	expect '^cmp pmem0s: mismatch at byte 0xc800[0-7] \(sector 200\)'
	expect '^cmp pmem0s: mismatch at byte 0xc900[0-7] \(sector 201\)'
	expect '^checked 1 namespace'
	echo "    planted: $(grep -c '^bttcheck: LBA' <<<"$out") faults named by pmemk-bttcheck," \
		"$(grep -c '^cmp pmem0s: mismatch' "$LOG") by the guest's cmp; check-namespace clean"
}
