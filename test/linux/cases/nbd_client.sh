# Linux's own NBD client on pmemk (issue 31): Debian's nbd-client 3.24 and
# Linux 6.1's nbd.ko in one QEMU, pmemk in another, the Linux guest reaching
# pmemk's forwarded port at its gateway 10.0.2.2. pmemk exports four
# namespaces of 64 MiB: two raw (pmem0, pmem1), an fsdax map=dev one
# (pmem2m) and a sector one (pmem3s, BTT). A first Linux boot puts an ext4
# on each (/dev/nbd0-3), copies a tree of files of known sha256 onto it,
# syncs, unmounts and runs fsck -fn; pmemk is then SIGKILLed and booted
# again on the same backing files, and a second Linux boot runs fsck -fn and
# checks every hash. Connections per device, writing then reading: pmem0
# 1 and 1, pmem1 4 and 4 (nbd-client -C 4: pmemk says CAN_MULTI_CONN),
# pmem2m 4 then 1, pmem3s 1 then 4. What the driver sent is in the log:
# the queue limits and flags it took from pmemk, each device's requests
# (/sys/block/nbdN/stat) and pmemk's per-connection lines.

NBDC_DIR=build/qemu/linux_nbd
NBDC_PMEMK=(--ram 512M --nvdimm 64M --nvdimm 64M --nvdimm 64M --nvdimm 64M --timeout 300
	--cmdline 'pmem.create=namespace2.0:fsdax:dev,namespace3.0:sector nbd.export=pmem0,pmem1,pmem2m,pmem3s')
# export, device, connections in the boot that writes, in the one that
# reads, block size (nbd-client -b; -: its default)
NBDC_PLAN=("pmem0 nbd0 1 1 -" "pmem1 nbd1 4 4 4096" "pmem2m nbd2 4 1 4096" "pmem3s nbd3 1 4 4096")

# nbdc_tree DIR: DIR/data/tree, some 6 MiB of files in nested directories
# (sizes from 0 bytes to 1 MiB, random bytes), and DIR/data/SHA256SUMS.
nbdc_tree() {
	"$PYTHON" - "$1/data" <<'PY'
import hashlib, os, random, sys
top = sys.argv[1]
rnd = random.Random(31)
sums = []
for i in range(48):
    d = "d%d/e%d" % (i % 5, i % 3) if i % 4 else "d%d" % (i % 5)
    size = (0, 1, 511, 4095, 4096, 65537, 300000, 1 << 20)[i % 8] + rnd.randrange(64)
    rel = "%s/f%02d" % (d, i)
    os.makedirs(os.path.join(top, "tree", d), exist_ok=True)
    data = rnd.randbytes(size)
    with open(os.path.join(top, "tree", rel), "wb") as f:
        f.write(data)
    sums.append("%s  %s\n" % (hashlib.sha256(data).hexdigest(), rel))
with open(os.path.join(top, "SHA256SUMS"), "w") as f:
    f.writelines(sums)
PY
}

# nbdc_scenario DIR PORT FN COLUMN: DIR/scenario.sh runs FN (ext4_fill or
# ext4_check) on each export of the plan, with the connections of COLUMN
# (3: the writing boot's, 4: the reading boot's).
nbdc_scenario() {
	local dir=$1 port=$2 fn=$3 col=$4 p
	{
		echo '. /guest.sh'
		echo 'net_up'
		echo 'guest_tools'
		for p in "${NBDC_PLAN[@]}"; do
			# shellcheck disable=SC2086
			set -- $p
			echo "nbd_attach $2 $port $1 ${!col} $5"
			if [ "$2" = nbd0 ] && [ "$fn" = ext4_fill ]; then echo "nbd_no_discard $2"; fi
			echo "$fn $2"
			echo "nbd_detach $2"
		done
	} >"$dir/scenario.sh"
}

# nbdc_linux NAME FN COLUMN PORT: a Linux boot running nbdc_scenario.
nbdc_linux() {
	local scen=build/linux/scenarios/$1
	rm -rf "$scen"
	mkdir -p "$scen"
	cp -a "$NBDC_DIR/tree/data" "$scen/data"
	nbdc_scenario "$scen" "$4" "$2" "$3"
	linux_boot "$1" 0 "$scen" --nic virtio --ram 512M --smp 4 --timeout 300
	grep -E '^==== (nbd|NOTE)' "$LOG" | sed 's/^==== /    /'
}

# nbdc_served WHAT MIN_CONNS: pmemk's per-connection lines in PMEMK_LOG
# summed up in one line; the case fails if a request failed, if fewer than
# MIN_CONNS connections did I/O (more than one per device: -C 4 spread the
# requests over them), or (WHAT=wrote) if no FLUSH or no FUA write came.
nbdc_served() {
	local n r w f u z e m
	read -r n r w f u z e m < <({
		sed -n 's/.*nbd: client .* done: \([0-9]*\) reads .*, \([0-9]*\) writes .*/D \1 \2/p' "$PMEMK_LOG"
		sed -n 's/.*nbd: client .* also: \([0-9]*\) flushes, \([0-9]*\) with FUA, \([0-9]*\) write-zeroes, \([0-9]*\) failed; longest request \([0-9]*\) bytes$/A \1 \2 \3 \4 \5/p' "$PMEMK_LOG"
	} | awk '$1 == "D" { n++; r += $2; w += $3 }
		$1 == "A" { f += $2; u += $3; z += $4; e += $5; if ($6 > m) m = $6 }
		END { printf "%d %d %d %d %d %d %d %d\n", n, r, w, f, u, z, e, m }')
	echo "    pmemk $1: $n connections did I/O: $r reads, $w writes, $f flushes, $u with FUA," \
		"$z write-zeroes, $e failed; longest request $m bytes"
	[ "$e" = 0 ] || { echo "    FAIL: pmemk answered $e requests with an error"; CASE_FAILED=1; }
	[ "$n" -ge "$2" ] || { echo "    FAIL: only $n connections did I/O, want $2 or more"; CASE_FAILED=1; }
	if [ "$1" = wrote ] && { [ "$f" = 0 ] || [ "$u" = 0 ]; }; then
		echo "    FAIL: ext4 and its journal sent no FLUSH or no FUA write"
		CASE_FAILED=1
	fi
}

case_nbd_client_ext4() {
	local port t0=$SECONDS t
	port=$(free_port)
	rm -rf "$NBDC_DIR"
	mkdir -p "$NBDC_DIR/tree"
	nbdc_tree "$NBDC_DIR/tree"
	pmemk_bg_boot linux_nbd_pmemk "$port" --dir "$NBDC_DIR" --fresh "${NBDC_PMEMK[@]}" || { pmemk_bg_kill; return; }
	t=$SECONDS
	nbdc_linux linux_nbd_write ext4_fill 3 "$port"
	echo "    Linux: mkfs, fill, fsck on four exports in $((SECONDS - t))s"
	local a
	for a in nbd0 nbd1 nbd2 nbd3; do
		expect "^==== ext4 $a written\$"
	done
	expect_not 'returned error'
	pmemk_bg_kill
	nbdc_served wrote 5
	[ $CASE_FAILED = 0 ] || return
	pmemk_bg_boot linux_nbd_pmemk_again "$port" --dir "$NBDC_DIR" "${NBDC_PMEMK[@]}" || { pmemk_bg_kill; return; }
	t=$SECONDS
	nbdc_linux linux_nbd_read ext4_check 4 "$port"
	echo "    Linux: fsck, every hash, on four exports in $((SECONDS - t))s"
	for a in nbd0 nbd1 nbd2 nbd3; do
		expect "^==== ext4 $a read back: 48 files, every hash right\$"
	done
	expect_not 'returned error'
	pmemk_bg_kill
	nbdc_served read 5
	LOG=$PMEMK_LOG
	expect_not 'panic|nbd: client .* closed: '
	echo "    nbd_client_ext4: $((SECONDS - t0))s"
}

# Issue 31 item 4: pmemk rebooted under a mounted ext4. nbd-client -p
# (persist; the ioctl interface, -L, where nbd-client 3.24 has its
# reconnect loop; -n keeps it in the foreground, its lines in the log) on
# pmem0; the guest writes 1 MiB files with fsync one after the other,
# keeping the hash of each whose fsync returned; pmemk is SIGKILLed once
# the fourth has, and booted again on the same file and port. What Linux
# 6.1 and nbd-client 3.24 then do is reported, not required (here: the
# kernel fails the connection's requests with EIO and NBD_DO_IT returns 0,
# which nbd-client takes as "quit", so persist mode does not reconnect;
# through netlink, its default, nbd-client exits once the device is set up
# and the kernel fails the requests all the same;
# ext4 aborts its journal and goes read-only). What pmemk guarantees is
# checked: attached again by hand, the ext4 mounts (its journal replayed),
# fsck -fn is clean, and the tree and every file whose fsync returned read
# back with their hashes.
case_nbd_client_persist() {
	local port t0=$SECONDS scen=build/linux/scenarios/linux_nbd_persist restarter
	local pmemk=(--dir "$NBDC_DIR" --ram 512M --nvdimm 64M --timeout 300 --cmdline 'nbd.export=pmem0')
	port=$(free_port)
	rm -rf "$NBDC_DIR"
	mkdir -p "$NBDC_DIR/tree"
	nbdc_tree "$NBDC_DIR/tree"
	pmemk_bg_boot linux_nbd_persist_pmemk "$port" --fresh "${pmemk[@]}" || { pmemk_bg_kill; return; }
	rm -rf "$scen"
	mkdir -p "$scen"
	cp -a "$NBDC_DIR/tree/data" "$scen/data"
	cat >"$scen/scenario.sh" <<-EOF
		. /guest.sh
		net_up
		echo "linux# nbd-client 10.0.2.2 $port /dev/nbd0 -N pmem0 -b 4096 -p -L -n &"
		nbd-client 10.0.2.2 $port /dev/nbd0 -N pmem0 -b 4096 -p -L -n &
		n=0
		while [ "\$(cat /sys/block/nbd0/size)" = 0 ] && [ \$n -lt 300 ]; do sleep 0.1; n=\$((n + 1)); done
		ext4_acked_writes $port 12
	EOF
	rm -f "$LOGDIR/linux_nbd_persist.log.raw"
	(
		wait_line "$LOGDIR/linux_nbd_persist.log.raw" '^==== persist: w3 fsync returned' 240
		pmemk_bg_kill
		echo "    pmemk SIGKILLed after the fourth fsync returned; booted again in 2 s"
		sleep 2
		pmemk_bg_boot linux_nbd_persist_pmemk_again "$port" "${pmemk[@]}"
	) &
	restarter=$!
	linux_boot linux_nbd_persist 0 "$scen" --nic virtio --ram 512M --timeout 300
	wait "$restarter"
	grep -E '^==== (persist|NOTE)' "$LOG" | sed 's/^==== /    /'
	expect '^==== persist: w3 fsync returned$'
	expect '^==== persist: after attaching again: the tree and [4-9][0-9]* files whose fsync returned read back, fsck clean$'
	PMEMK_LOG=$LOGDIR/linux_nbd_persist_pmemk_again.log
	pmemk_bg_kill
	nbdc_served "after the reboot" 1
	echo "    nbd_client_persist: $((SECONDS - t0))s"
}
