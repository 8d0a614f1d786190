# Namespace labels (nvdimm/label.c, nvdimm/namespace_label.c): QEMU nvdimms
# with label-size=128K, whose label area is the last 128 KiB of the backing
# file (FACTS-2 §3.4), read at boot through the DIMM's _DSM (ACPICA) and
# written back through _DSM function 6. test/qemu/labels.py decodes label
# areas on the host (its own decoder) and compares with ndctl's readings in
# the fixtures.

# Run alone, never beside another case (test/run-cases.sh): kill timing.
SERIAL_CASES+=" labels_crash_sigkill"

LABELS_PY=test/qemu/labels.py
LABEL_FIXTURES="linux-6.1-labels-v1.2-create linux-6.1-labels-v1.1-create
	linux-6.1-labels-v1.2-destroy linux-6.1-labels-v1.1-destroy"

# labels_fixture_image DIR FIXTURE: a 2 GiB backing file holding the fixture.
labels_fixture_image() {
	mkdir -p "$1"
	rm -f "$1/nvdimm0.img"
	truncate -s 2G "$1/nvdimm0.img"
	python3 "$LABELS_PY" fill "$1/nvdimm0.img" "test/fixtures/$2"
}

# labels_py ARGS...: run labels.py; its output indented, a failure fails the case.
labels_py() {
	local out
	if out=$(python3 "$LABELS_PY" "$@" 2>&1); then
		[ -n "$out" ] && echo "$out"
	else
		echo "$out" | sed 's/^/    FAIL: /'
		CASE_FAILED=1
	fi
}

# RELIABILITY #60: the label areas Linux 6.1 wrote (v1.1 and v1.2, after
# creating an fsdax and a sector namespace, and after destroying the fsdax
# one) give, at boot, the namespaces `ndctl list` showed: same uuids (the
# label's as raw_uuid, the info block's as uuid), modes, sizes, sector
# sizes, aligns, and the region's available_size, max_available_extent and
# iset_id; `read-labels -j` prints what `ndctl read-labels -j` printed.
case_labels_linux_fixtures() {
	local f key
	for f in $LABEL_FIXTURES; do
		key=created
		case $f in *destroy) key=destroyed ;; esac
		labels_fixture_image "build/qemu/labels_$f" "$f" || { CASE_FAILED=1; return; }
		boot "labels_$f" 0 --ram 1G --nvdimm 2G --label-size 128K --cmdline \
			'"run=list -RN; read-labels nmem0 -j; poweroff"'
		expect '^\[ *[0-9.]+\] nvdimm nmem0: label area 131072 bytes'
		expect 'nd_label region0: [12] labelled namespaces? \(labels v1\.[12], index [01] seq [13], (510|1020) slots\)'
		expect_not 'refused|disabled'
		labels_py list "$LOG" "test/fixtures/$f" "$key"
		labels_py json "$LOG" "test/fixtures/$f" "$key"
	done
}

# RELIABILITY #61: a label area that is all zero is an unlabelled DIMM
# (one raw namespace over the region, as today); nd.labels=off ignores a
# valid one (one label-less namespace over the region); a damaged label and
# a damaged index block cost one line each and the rest is used.
case_labels_unlabelled_and_refused() {
	local dir=build/qemu/labels_refused
	boot labels_blank 0 --fresh --ram 1G --nvdimm 256M --label-size 128K --cmdline \
		'"run=list -RN; poweroff"'
	expect 'nd_label region0: nmem0 has no valid label index \(index0: no NAMESPACE_INDEX signature; index1: no NAMESPACE_INDEX signature\): label-less'
	expect 'nd_pmem namespace0.0: raw, pmem0, 254 MiB'
	expect '"available_size":0,'
	labels_fixture_image "$dir" linux-6.1-labels-v1.2-create || { CASE_FAILED=1; return; }
	boot labels_off 0 --dir "$dir" --ram 1G --nvdimm 2G --label-size 128K --cmdline \
		'nd.labels=off "run=list -N; poweroff"'
	expect_not 'label area|labelled'
	# One label-less namespace over the region; its first 8 KiB are the
	# labelled fsdax namespace's info block (another parent_uuid): damaged
	# for it, disabled, never raw (issue 29 item 5).
	expect 'nd_pfn pfn0\.0: namespace0\.0 fsdax map=dev disabled: invalid info block: parent_uuid does not match the namespace$'
	expect_not 'namespace0\.[1-9]|nd_pmem namespace0\.0: raw'
	# Slot 2's name byte (checksum now wrong), index 0's bitmap (the older index 1 is used).
	local lsa=$(((2048 << 20) - (128 << 10)))
	printf 'x' | dd of="$dir/nvdimm0.img" bs=1 seek=$((lsa + 512 + 256 + 16)) conv=notrunc status=none
	boot labels_bad_label 0 --dir "$dir" --ram 1G --nvdimm 2G --label-size 128K --cmdline \
		'"run=list -N; poweroff"'
	expect 'nd_label region0: nmem0 label slot 1 refused: checksum mismatch'
	expect 'nd_label region0: namespace0.0 from nmem0 label slot 2: uuid efc0fc93-86c4-4b09-a7d3-a13b963a4ae1, 256 MiB at dpa 0x20000000, sector'
	expect 'nd_label region0: 1 labelled namespace \(labels v1.2, index 0 seq 1, 510 slots\)'
	printf '\000' | dd of="$dir/nvdimm0.img" bs=1 seek=$((lsa + 100)) conv=notrunc status=none
	boot labels_bad_index 0 --dir "$dir" --ram 1G --nvdimm 2G --label-size 128K --cmdline \
		'"run=read-labels nmem0 -j; poweroff"'
	# Index 1 (seq 3) has slots 0 (the sector label, flag UPDATING) and 1 (damaged above).
	expect 'nd_label region0: nmem0 label index 0 refused: checksum mismatch \(index 1 used\)'
	expect 'nd_label region0: nmem0 label slot 1 refused: checksum mismatch'
	expect 'nd_label region0: namespace0.0 from nmem0 label slot 0: uuid efc0fc93-86c4-4b09-a7d3-a13b963a4ae1, 256 MiB at dpa 0x20000000, sector'
	expect 'nd_label region0: 1 labelled namespace \(labels v1.2, index 1 seq 3, 510 slots\)'
}

# RELIABILITY #62: labels written by pmemk: init-labels, create-namespace -r
# in four modes with names, destroy-namespace, disable/enable-namespace,
# create-namespace -e on a labelled namespace (its label follows the mode);
# available_size and max_available_extent follow; the next boot brings back
# the same namespaces from the labels, and the host decoder reads the set.
# Under v1.1 labels (no abstraction GUID) a sector namespace gets BTT 1.1 at
# 4 KiB, as Linux makes it there; found again at the next boot. (Under v1.2:
# BTT 2.0 at 0, labels_create_destroy and test-linux's labels cases.)
case_labels_btt_1_1_under_v1_1_labels() {
	local dir=build/qemu/labels_v11
	boot labels_v11 0 --fresh --dir "$dir" --ram 1G --nvdimm 1G --label-size 128K --cmdline \
		'"run=init-labels nmem0 -V 1.1; create-namespace -r region0 -s 64M -m sector; poweroff"'
	expect 'nd_btt btt0.0: namespace0.0 sector 4096, BTT 1\.1, '
	boot labels_v11_reboot 0 --dir "$dir" --ram 1G --nvdimm 1G --label-size 128K --cmdline \
		'"run=poweroff"'
	expect 'nd_btt btt0.0: namespace0.0 sector 4096, BTT 1\.1, '
}

case_labels_create_destroy() {
	local dir=build/qemu/labels_cycle
	boot labels_create 0 --fresh --dir "$dir" --ram 1G --nvdimm 1G --label-size 128K --cmdline \
		'"run=init-labels nmem0; create-namespace -r region0 -s 64M -m fsdax -n alpha; create-namespace -r region0 -s 32M -m sector; create-namespace -r region0 -s 48M -m devdax; create-namespace -r region0 -s 16M -m raw -n raw1; destroy-namespace -f namespace0.1; disable-namespace namespace0.0; list -R; enable-namespace namespace0.0; write pmem0m 0 4096 seq=3; create-namespace -f -e namespace0.3 -m fsdax; create-namespace -r region0 -s 5M -m raw; create-namespace -r region0 -s 2G; list -RN; read-labels nmem0 -j; poweroff"'
	expect '^initialized 1 nmem$'
	expect 'nd_label region0: namespace0.0 from nmem0 label slot 0: uuid [0-9a-f-]+, name .alpha., 64 MiB at dpa 0, fsdax'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000'
	expect 'nd_btt btt0.1: namespace0.1 sector 4096, BTT 2\.0, '	# v1.2 labels: claim class BTT2, as Linux
	expect 'nd_pfn dax0.2: namespace0.2 devdax'
	expect '^destroyed 1 namespace$'
	expect '^disabled 1 namespace$'
	expect '^enabled 1 namespace$'
	expect 'region0: size 0x500000 is not a multiple of the region align 0x1000000'
	expect 'region0: no free extent of 2048 MiB'
	expect_not 'refused|FAIL|error'
	# 1 GiB - 2 MiB region, 16 MiB align: 1008 MiB, minus 64 + 48 + 16 in use.
	expect '"available_size":922746880,'
	labels_py set "$dir/nvdimm0.img" >"$dir/set.txt"
	cat "$dir/set.txt"
	[ "$(wc -l <"$dir/set.txt")" = 3 ] || { echo "    FAIL: want 3 live labels"; CASE_FAILED=1; }
	boot labels_reboot 0 --dir "$dir" --ram 1G --nvdimm 1G --label-size 128K --cmdline \
		'"run=list -N; cmp pmem0m 0 4096 seq=3; poweroff"'
	expect 'nd_label region0: 3 labelled namespaces'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev'
	expect 'nd_pfn dax0.1: namespace0.1 devdax'
	# create-namespace -e changed raw1's label to fsdax (its abstraction GUID).
	expect "nd_label region0: namespace0.2 from nmem0 label slot [0-9]+: uuid [0-9a-f-]+, name 'raw1', 16 MiB at dpa 0x9000000, fsdax"
	expect 'nd_pfn pfn0.2: namespace0.2 fsdax map=dev'
	expect '"name":"alpha"'
	expect '"name":"raw1"'
	expect '^cmp pmem0m: 2097152 bytes at 0 match'
}

# labels_crash_judge OP BEFORE AFTER: "old" when the set AFTER is BEFORE,
# "new" when it is what OP (create: one more 16 MiB label; destroy: the
# lowest-DPA label gone) makes of it, else "BAD ...".
labels_crash_judge() {
	local op=$1 before=$2 after=$3
	if cmp -s "$before" "$after"; then
		echo old
	elif [ "$op" = create ] && [ "$(comm -13 "$before" "$after" | wc -l)" = 1 ] &&
		[ -z "$(comm -23 "$before" "$after")" ] &&
		comm -13 "$before" "$after" | grep -Eq '^[0-9]+ 16777216 [0-9a-f]{32} 0$'; then
		echo new
	elif [ "$op" = destroy ] && cmp -s <(sort -n "$before" | tail -n +2 | sort) "$after"; then
		echo new
	else
		echo "BAD $(tr '\n' '|' <"$after")"
	fi
}

# RELIABILITY #63: QEMU SIGKILLed at random moments of create-namespace -r
# (a 16 MiB raw namespace: one label write, then the next index into the
# other index block) and destroy-namespace (the next index with the slot
# freed), alternately, at least 20 times while the command had started.
# After every kill the label area, decoded on the host, holds the old set
# of labels or the new one, never anything else, and has a valid index.
# The commands take a few ms, less than the log poll, so the kill is timed
# from an earlier line (ACPICA up, before the boot reads the labels: some
# 150 ms of _DSM calls), a random delay in a window [lo, hi] that adapts:
# a kill before the command started raises lo, one after it returned lowers
# hi (TCG speed varies), so kills land inside the work on any machine;
# both outcomes must occur.
case_labels_crash_sigkill() {
	local dir=build/qemu/labels_crash seed=${CRASH_SEED:-$RANDOM}
	local want=20 kills=0 tries=0 lo=0 hi=800 old=0 new=0 mid=0 early=0 op state delay cmd ms
	local opts=(--dir "$dir" --ram 512M --nvdimm 512M --label-size 128K)
	RANDOM=$seed
	echo "    CRASH_SEED=$seed"
	rm -rf "$dir"
	boot labels_crash_base 0 --fresh "${opts[@]}" --cmdline \
		'"run=init-labels nmem0; create-namespace -r region0 -s 16M -m raw; create-namespace -r region0 -s 16M -m raw; poweroff"'
	labels_py set "$dir/nvdimm0.img" >"$dir/before" || return
	[ "$(wc -l <"$dir/before")" = 2 ] || { echo "    FAIL: base set"; cat "$dir/before"; CASE_FAILED=1; return; }
	# At least 20 kills, and on until both outcomes were seen.
	while { [ $kills -lt $want ] || [ $old = 0 ] || [ $new = 0 ]; } && [ $tries -lt 100 ] &&
		[ $CASE_FAILED = 0 ]; do
		tries=$((tries + 1))
		# Create while there is room for three, then destroy down to one.
		case $(wc -l <"$dir/before") in
		1) op=create ;;
		4 | 5 | 6) op=destroy ;;
		*) [ $((RANDOM % 2)) = 0 ] && op=create || op=destroy ;;
		esac
		cmd="create-namespace -r region0 -s 16M -m raw"
		[ $op = destroy ] && cmd="destroy-namespace -f namespace0.0"
		ms=$((lo + RANDOM % (hi - lo + 1)))
		delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
		# "list" after it: its prompt says the command had returned at the kill.
		boot_kill "labels_crash_$tries" 'acpica: ACPICA [0-9a-f]+ up' "$delay" "${opts[@]}" \
			--cmdline "\"run=$cmd; list -R\""
		[ "$KILLED" = 1 ] || { echo "    boot $tries: QEMU was gone before the kill"; continue; }
		grep -Eq 'refused|no valid label index' "$LOG" &&
			{ grep -E 'refused|no valid' "$LOG" | sed 's/^/    | /'; echo "    FAIL: boot $tries"; CASE_FAILED=1; }
		python3 "$LABELS_PY" set "$dir/nvdimm0.img" >"$dir/after" ||
			{ echo "    FAIL: boot $tries: $(cat "$dir/after")"; CASE_FAILED=1; break; }
		state=$(labels_crash_judge $op "$dir/before" "$dir/after")
		if ! grep -q "^pmemk> ${cmd%% *}" "$LOG"; then
			# Before the command: nothing may have changed; aim later.
			early=$((early + 1))
			[ "$state" = old ] || { echo "    FAIL: boot $tries: killed before $op, set $state"; CASE_FAILED=1; }
			lo=$((ms + 1 < hi ? ms + 1 : hi))
			continue
		fi
		kills=$((kills + 1))
		local when="after it returned"
		if grep -q '^pmemk> list -R' "$LOG"; then
			hi=$((ms - 1 > lo ? ms - 1 : lo))
		else
			when="while it ran"
			mid=$((mid + 1))
		fi
		# Keep the window a few ms wide around the work.
		[ $((hi - lo)) -lt 6 ] && { lo=$((lo > 3 ? lo - 3 : 0)); hi=$((hi + 3)); }
		echo "    kill $kills: $op, ${delay}s after ACPICA came up ($when): $state set ($(wc -l <"$dir/after") labels)"
		case $state in
		old) old=$((old + 1)) ;;
		new) new=$((new + 1)) ;;
		*) echo "    FAIL: neither the old set nor the new one"; CASE_FAILED=1 ;;
		esac
		cp "$dir/after" "$dir/before"
	done
	echo "    $kills kills in $tries boots ($early before the command): $old old sets, $new new sets, $mid while the command ran"
	[ $kills -ge $want ] || { echo "    FAIL: only $kills kills"; CASE_FAILED=1; }
	[ $old -gt 0 ] && [ $new -gt 0 ] ||
		{ echo "    FAIL: want kills before and after the commit (old and new sets)"; CASE_FAILED=1; }
	# What the kills left boots clean, from its labels.
	boot labels_crash_after 0 "${opts[@]}" --cmdline '"run=list -N; poweroff"'
	expect 'nd_label region0: [0-9]+ labelled namespaces? \(labels v1.2'
	expect_not 'refused|no valid label index'
}

# RELIABILITY #64 (ndctl's sub-section.sh): eight 16 MiB fsdax map=dev
# namespaces fill one 128 MiB memory section, each with its own struct
# pages in its own first 2 MiB; written, one disabled and enabled again,
# two destroyed and one of them made anew, each independently: the others'
# data stays, and the next boot brings back the six with their data.
case_labels_subsection() {
	local dir=build/qemu/labels_subsection i run="" cmp=""
	for i in 0 1 2 3 4 5 6 7; do
		run+="create-namespace -r region0 -s 16M -m fsdax -M dev; "
	done
	for i in 0 1 2 3 4 5 6 7; do
		local dev=pmem0.${i}m
		[ $i = 0 ] && dev=pmem0m
		run+="write $dev 0 28672 seq=$((i + 10)); "
		[ $i = 1 ] || [ $i = 4 ] || cmp+="cmp $dev 0 28672 seq=$((i + 10)); "
	done
	run+="disable-namespace namespace0.3; destroy-namespace -f namespace0.1; destroy-namespace -f namespace0.4; "
	run+="enable-namespace namespace0.3; create-namespace -r region0 -s 16M -m fsdax -n again; $cmp list -R"
	boot labels_subsection 0 --fresh --dir "$dir" --ram 1G --nvdimm 512M --label-size 128K \
		--cmdline "\"run=$run; poweroff\""
	for i in 0 1 2 3 4 5 6 7; do
		expect "nd_pfn pfn0.$i: namespace0.$i fsdax map=dev align 0x200000 dataoff 0x200000: pmem0(\\.$i)?m, 14 MiB"
		expect "nd_label region0: namespace0.$i from nmem0 label slot $i: uuid [0-9a-f-]+, 16 MiB at dpa $(printf '%#x' $((i << 24)) | sed 's/^0x0$/0/'), fsdax"
	done
	expect 'nd_label region0: namespace0.1 from nmem0 label slot 1: uuid [0-9a-f-]+, name .again., 16 MiB at dpa 0x1000000, fsdax'
	[ "$(grep -c '^cmp pmem0[.0-9]*m: 14680064 bytes at 0 match' "$LOG")" = 6 ] ||
		{ echo "    FAIL: want 6 namespaces' data intact"; CASE_FAILED=1; }
	# 496 MiB usable, 7 x 16 in use; the largest hole is above the section.
	expect '"available_size":402653184,'
	expect '"max_available_extent":385875968,'
	expect_not 'refused|disabled:|error'
	# The boot names them in DPA order: those above the hole at 64 MiB move down one.
	cmp="cmp pmem0m 0 28672 seq=10; cmp pmem0.2m 0 28672 seq=12; cmp pmem0.3m 0 28672 seq=13; "
	cmp+="cmp pmem0.4m 0 28672 seq=15; cmp pmem0.5m 0 28672 seq=16; cmp pmem0.6m 0 28672 seq=17;"
	boot labels_subsection_reboot 0 --dir "$dir" --ram 1G --nvdimm 512M --label-size 128K \
		--cmdline "\"run=$cmp poweroff\""
	expect 'nd_label region0: 7 labelled namespaces'
	[ "$(grep -c '^cmp pmem0[.0-9]*m: 14680064 bytes at 0 match' "$LOG")" = 6 ] ||
		{ echo "    FAIL: want 6 namespaces' data intact after the reboot"; CASE_FAILED=1; }
}

# RELIABILITY #50 (the QEMU part): four labelled DIMMs with 16 namespaces
# each fill the namespace table (64); the 65th is refused with one line
# before any label is written, and all 64 come back at the next boot.
case_labels_table_full() {
	local dir=build/qemu/labels_full r i run opts=(--ram 1G --nvdimm 512M --nvdimm 512M
		--nvdimm 512M --nvdimm 512M --label-size 128K)
	for half in 0 1; do
		run=""
		for r in $((2 * half)) $((2 * half + 1)); do
			for i in $(seq 16); do run+="create-namespace -r $r -s 16M -m raw; "; done
		done
		[ $half = 1 ] && run+="create-namespace -r 0 -s 16M -m raw; read-labels nmem0 -j; "
		boot "labels_full_$half" 0 $([ $half = 0 ] && echo --fresh) --dir "$dir" "${opts[@]}" \
			--cmdline "\"run=$run poweroff\""
	done
	expect 'nd_label region3: namespace3.15 from nmem3 label slot 15: uuid [0-9a-f-]+, 16 MiB at dpa 0xf000000, raw'
	expect 'nd_region region0: more than 64 namespaces in all, namespace0.16 not created'
	# Region 0's label area: 16 labels, nothing written for the 65th.
	[ "$(grep -c '"slot":' "$LOG")" = 16 ] || { echo "    FAIL: want 16 labels on nmem0"; CASE_FAILED=1; }
	boot labels_full_reboot 0 --dir "$dir" "${opts[@]}" --cmdline '"run=poweroff"'
	for r in 0 1 2 3; do expect "nd_label region$r: 16 labelled namespaces"; done
	[ "$(grep -c 'nd_pmem namespace[0-3]\.[0-9]*: raw, pmem' "$LOG")" = 64 ] ||
		{ echo "    FAIL: want 64 raw namespaces after the reboot"; CASE_FAILED=1; }
}
