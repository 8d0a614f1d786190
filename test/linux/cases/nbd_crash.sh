# Crash consistency through Linux's NBD client (issue 31 item 3): one pmemk
# exports an fsdax namespace (pmem0m, map=dev) and a sector one (pmem1s,
# BTT) of 64 MiB; one Linux guest puts an ext4 on each (/dev/nbd0,
# /dev/nbd1) and, round after round, writes files with fsync on both,
# recording each whose fsync returned (test/linux/guest.sh crash_rounds).
# The host SIGKILLs pmemk's QEMU at a random point of each round's writing
# and boots it again on the same backing files; the guest attaches again,
# mounts (the journal replayed), runs fsck -fn and checks every file whose
# fsync ever returned. Ten kills, so ten per export type. The boots
# alternate between the server as it is (every WRITE in pmem when
# acknowledged) and nbd.test-cache=writeback (acknowledged WRITEs held in
# RAM until FLUSH or FUA, include/nbd_wcache.h): a server that keeps
# nothing but what the protocol promises, which ext4 and Linux's driver
# must then have asked for. The mutation case runs the same with
# nbd.test-cache=writeback-ignore-flush, a server that acknowledges FLUSH
# and FUA without writing back, and must see something lost.

NBDX_DIR=build/qemu/linux_nbd_crash
NBDX_ROUNDS=10
NBDX_EXPORTS='pmem.create=namespace0.0:fsdax:dev,namespace1.0:sector nbd.export=pmem0m,pmem1s'

# nbdx_boot K PORT CACHE [--fresh]: pmemk's boot K (the one round K writes
# to), with nbd.test-cache=CACHE.
nbdx_boot() {
	local k=$1 port=$2 cache=$3
	shift 3
	pmemk_bg_boot "linux_nbd_crash_pmemk_$k" "$port" --dir "$NBDX_DIR" "$@" --ram 512M \
		--nvdimm 64M --nvdimm 64M --timeout 900 --cmdline "$NBDX_EXPORTS nbd.test-cache=$cache"
}

# nbdx_killer GUESTLOG PORT ROUNDS CACHE...: in the background, for each
# round: once the guest says it writes, wait 0.3-2.2 s (random, printed),
# SIGKILL pmemk and boot it again, with the next CACHE word (cycled). Ends
# when the rounds are over or $NBDX_DIR/stop appears; $NBDX_DIR/last names
# the boot it made last.
nbdx_killer() {
	local log=$1 port=$2 rounds=$3 r delay
	shift 3
	local caches=("$@")
	for ((r = 0; r < rounds; r++)); do
		until grep -q "^==== crash: round $r writing" "$log" 2>/dev/null; do
			[ -e "$NBDX_DIR/stop" ] && return
			sleep 0.1
		done
		delay=$((3 + RANDOM % 20))
		sleep "$((delay / 10)).$((delay % 10))"
		pmemk_bg_kill
		echo "    round $r: pmemk (nbd.test-cache=${caches[r % ${#caches[@]}]}) SIGKILLed" \
			"$((delay / 10)).$((delay % 10)) s into the writing"
		echo $((r + 1)) >"$NBDX_DIR/last"
		nbdx_boot $((r + 1)) "$port" "${caches[(r + 1) % ${#caches[@]}]}" || return
	done
}

# nbdx_run NAME ROUNDS MODE CACHE...: the guest's crash_rounds against pmemk
# boots whose nbd.test-cache cycles through CACHE...; the guest's lines in
# the log. PMEMK_LOG is the last boot's afterwards (killed).
nbdx_run() {
	local name=$1 rounds=$2 mode=$3 port killer scen=build/linux/scenarios/$1
	shift 3
	port=$(free_port)
	rm -rf "$NBDX_DIR" "$scen"
	mkdir -p "$NBDX_DIR" "$scen"
	echo 0 >"$NBDX_DIR/last"
	nbdx_boot 0 "$port" "$1" --fresh || { pmemk_bg_kill; return; }
	cat >"$scen/scenario.sh" <<-EOF
		. /guest.sh
		net_up
		crash_rounds $port $rounds $mode
	EOF
	rm -f "$LOGDIR/$name.log.raw"
	nbdx_killer "$LOGDIR/$name.log.raw" "$port" "$rounds" "$@" &
	killer=$!
	linux_boot "$name" 0 "$scen" --nic virtio --ram 512M --smp 2 --timeout 900
	touch "$NBDX_DIR/stop"
	wait "$killer"
	grep -E '^==== (crash|NOTE)' "$LOG" | sed 's/^==== /    /'
	PMEMK_LOG=$LOGDIR/linux_nbd_crash_pmemk_$(cat "$NBDX_DIR/last").log PMEMK_RUNNER=
	pmemk_bg_kill
}

case_nbd_client_crash() {
	local t0=$SECONDS k
	nbdx_run linux_nbd_crash "$NBDX_ROUNDS" strict off writeback
	expect "^==== crash: round $((NBDX_ROUNDS - 1)) nbd0: fsck clean, all [1-9][0-9]* files whose fsync returned intact\$"
	expect "^==== crash: round $((NBDX_ROUNDS - 1)) nbd1: fsck clean, all [1-9][0-9]* files whose fsync returned intact\$"
	expect "^==== crash: $NBDX_ROUNDS rounds, nothing lost\$"
	expect_not 'LOST'
	local guest_log=$LOG
	for ((k = 0; k <= NBDX_ROUNDS; k++)); do
		LOG=$LOGDIR/linux_nbd_crash_pmemk_$k.log
		expect_not 'panic'
		((k % 2)) && expect 'nbd: pmem0m: nbd.test-cache=writeback: acknowledged writes wait in RAM'
	done
	LOG=$guest_log
	echo "    nbd_client_crash: $((SECONDS - t0))s"
}

case_nbd_client_crash_mutation() {
	local t0=$SECONDS
	nbdx_run linux_nbd_crash_mutation 3 mutation writeback-ignore-flush
	expect '^==== crash: caught in round [0-9]+$'
	expect_not "^==== crash: 3 rounds, nothing lost\$"
	echo "    nbd_client_crash_mutation: $((SECONDS - t0))s"
}
