# Two pmemk appliances, one md RAID1 mirror (issue 31 item 5): two pmemk
# QEMUs, A and B, each exporting one raw namespace of 64 MiB (pmem0) on its
# own backing file and its own forwarded port; the Linux guest attaches
# /dev/nbd0 to A and /dev/nbd1 to B (nbd-client -t 5), makes md RAID1 over
# them (metadata 1.2 at 4 KiB, an internal bitmap of 1 MiB chunks), waits
# for the initial resync and puts an ext4 with a tree of known hashes on
# /dev/md0. Then it prints '==== mirror: ready-to-kill' and writes files
# with fsync while the host SIGKILLs B; md fails /dev/nbd1 on the first
# I/O error and the ext4 goes on degraded: more files, every fsync must
# return, every hash must read back. B is booted again on the same file and
# port; the guest attaches /dev/nbd1 again, mdadm --re-add (the bitmap: only
# the chunks written while B was away are copied), waits for the recovery,
# checks every hash, stops md0 and detaches. The host then compares the two
# backing files from md's data offset to the end: they must be identical.

NBDM_DIR=build/qemu/linux_mirror
NBDM_PMEMK=(--ram 512M --nvdimm 64M --timeout 300 --cmdline 'nbd.export=pmem0')

# nbdm_scenario DIR PORT_A PORT_B: DIR/scenario.sh, the guest's side.
nbdm_scenario() {
	cat >"$1/scenario.sh" <<-EOF
		. /guest.sh
		net_up
		guest_tools
		mirror_up $2 $3
		mirror_degrade
		mirror_readd $3
	EOF
}

# nbdm_restarter LINUXLOG PORT_B LOG_B: in the background, B SIGKILLed once
# the guest says ready-to-kill, booted again once the guest has checked the
# degraded array (up to four minutes for each).
nbdm_restarter() {
	wait_line "$1" '^==== mirror: ready-to-kill' 240
	PMEMK_LOG=$3 PMEMK_RUNNER=
	pmemk_bg_kill
	echo "    pmemk B SIGKILLed at the guest's ready-to-kill"
	wait_line "$1" '^==== mirror: degraded: ' 240
	pmemk_bg_boot linux_mirror_b_again "$2" --dir "$NBDM_DIR/b" "${NBDM_PMEMK[@]}"
}

# nbdm_same_data LOG: the two backing files equal from the data offset the
# guest printed (sectors) to the end; the bytes before (superblock, bitmap)
# counted apart, for the log.
nbdm_same_data() {
	local off a=$NBDM_DIR/a/nvdimm0.img b=$NBDM_DIR/b/nvdimm0.img head
	off=$(sed -n 's/^==== mirror: data offset \([0-9][0-9]*\) sectors$/\1/p' "$1")
	if [ -z "$off" ]; then
		echo "    FAIL: the guest printed no md data offset"
		CASE_FAILED=1
		return
	fi
	head=$(cmp -l -n $((off * 512)) "$a" "$b" | wc -l)
	if cmp -s -i $((off * 512)) "$a" "$b"; then
		echo "    backing files identical from md's data offset ($off sectors) to the end" \
			"($(($(stat -c %s "$a") - off * 512)) bytes); $head bytes differ before it (superblock, bitmap)"
	else
		echo "    FAIL: the backing files differ after md's data offset ($off sectors):"
		cmp -i $((off * 512)) "$a" "$b" | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}

# nbdm_recovery_bytes LOG: what B was sent after its reboot (PMEMK_LOG):
# the recovery's copy of the chunks the bitmap marked, and the writes of
# the array's last seconds (unmount, superblocks), against the array's size
# (the guest's initial resync line in LOG). The case fails if that is half
# the array or more: the bitmap did not spare a full resync.
nbdm_recovery_bytes() {
	local w size
	w=$(sed -n 's/.*nbd: client .* done: .*, [0-9]* writes (\([0-9]*\) bytes.*/\1/p' "$PMEMK_LOG" |
		awk '{ n += $1 } END { print n + 0 }')
	size=$(sed -n 's/^==== mirror: initial resync of \([0-9]*\) bytes .*/\1/p' "$1")
	echo "    pmemk B after its reboot was sent $w bytes of writes; a full resync: ${size:-?} bytes"
	if [ -z "$size" ] || [ "$w" -ge $((size / 2)) ]; then
		echo "    FAIL: the re-add copied half the array or more: the bitmap spared nothing"
		CASE_FAILED=1
	fi
}

case_nbd_client_mirror() {
	local pa pb t0=$SECONDS scen=build/linux/scenarios/linux_nbd_mirror restarter
	local log_a run_a log_b
	pa=$(free_port)
	pb=$(free_port)
	while [ "$pb" = "$pa" ]; do pb=$(free_port); done
	rm -rf "$NBDM_DIR"
	mkdir -p "$NBDM_DIR/tree"
	nbdc_tree "$NBDM_DIR/tree"
	pmemk_bg_boot linux_mirror_a "$pa" --dir "$NBDM_DIR/a" --fresh "${NBDM_PMEMK[@]}" || { pmemk_bg_kill; return; }
	log_a=$PMEMK_LOG run_a=$PMEMK_RUNNER
	if ! pmemk_bg_boot linux_mirror_b "$pb" --dir "$NBDM_DIR/b" --fresh "${NBDM_PMEMK[@]}"; then
		pmemk_bg_kill
		PMEMK_LOG=$log_a PMEMK_RUNNER=$run_a
		pmemk_bg_kill
		return
	fi
	log_b=$PMEMK_LOG
	rm -rf "$scen"
	mkdir -p "$scen"
	cp -a "$NBDM_DIR/tree/data" "$scen/data"
	nbdm_scenario "$scen" "$pa" "$pb"
	rm -f "$LOGDIR/linux_nbd_mirror.log.raw"
	nbdm_restarter "$LOGDIR/linux_nbd_mirror.log.raw" "$pb" "$log_b" &
	restarter=$!
	linux_boot linux_nbd_mirror 0 "$scen" --nic virtio --ram 512M --timeout 300
	kill "$restarter" 2>/dev/null
	wait "$restarter"
	PMEMK_LOG=$log_b PMEMK_RUNNER=
	pmemk_bg_kill # B, if the guest failed before ready-to-kill
	grep -E '^==== (mirror|NOTE)' "$LOG" | sed 's/^==== /    /'
	expect '^==== mirror: initial resync of [0-9]+ bytes done in '
	expect '^==== mirror: both appliances up: the tree and 0 files read back, every hash right$'
	expect '^==== mirror: degraded [0-9.]+ s after ready-to-kill'
	expect '^==== mirror: degraded: the tree and [1-9][0-9]* files read back, every hash right$'
	expect '^==== mirror: recovery after --re-add done in '
	expect '^==== mirror: both again: the tree and [1-9][0-9]* files read back, every hash right$'
	expect '^==== mirror: stopped clean$'
	local linux_log=$LOG
	PMEMK_LOG=$log_a PMEMK_RUNNER=$run_a
	pmemk_bg_kill
	nbdc_served "A" 1
	PMEMK_LOG=$LOGDIR/linux_mirror_b_again.log PMEMK_RUNNER=
	pmemk_bg_kill
	nbdc_served "B after its reboot" 1
	nbdm_recovery_bytes "$linux_log"
	if grep -q '^==== mirror: stopped clean$' "$linux_log"; then
		nbdm_same_data "$linux_log"
	fi
	for LOG in "$log_a" "$LOGDIR/linux_mirror_b_again.log"; do
		expect_not 'panic'
	done
	LOG=$linux_log
	echo "    nbd_client_mirror: $((SECONDS - t0))s"
}
