# Network cases (issue 12, first half): PCI enumeration, virtio-net and
# e1000 on QEMU's user network, DHCP, ip=, ping to slirp's gateway, and TCP
# from the host through hostfwd on 127.0.0.1 (FACTS-2 §5.2). One boot each.

# Run alone, never beside another case (test/run-cases.sh): the idle cases measure QEMU's host CPU; a slow client's stall is timed.
SERIAL_CASES+=" net_idle_e1000 net_idle_virtio_nomsix nbd_slow_clients_do_not_stall_others"

# nbdsh is python3-libnbd's and runs `python3 -m nbd`: another python3 first
# in PATH (pyenv) lacks the module, so give it Debian's.
# (An array, as `timeout` runs it: a shell function would not be found.)
if python3 -c 'import nbd' 2>/dev/null; then
	NBDSH=(nbdsh)
else
	NBDSH=(env "PATH=/usr/bin:$PATH" nbdsh)
fi

# A TCP port on 127.0.0.1 that nothing listens on now (the kernel picks it).
net_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# net_echo_check PORT BYTES: connect to 127.0.0.1:PORT (retrying while the
# forward is not yet answered), send BYTES of a pattern, expect them back.
# Prints one line; returns 1 on any difference.
net_echo_check() {
	python3 - "$1" "$2" <<'PY'
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
data = bytes((i * 7 + i // 251) & 0xFF for i in range(n))
for attempt in range(50):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        break
    except OSError as e:
        err = e
        time.sleep(0.2)
else:
    print(f"net-echo client: cannot connect to 127.0.0.1:{port}: {err}")
    sys.exit(1)
s.settimeout(30)
s.sendall(data)
s.shutdown(socket.SHUT_WR)
got = bytearray()
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    got += chunk
s.close()
if got != data:
    first = next((i for i in range(min(len(got), n)) if got[i] != data[i]), min(len(got), n))
    print(f"net-echo client: {len(got)} of {n} bytes came back, first difference at {first}")
    sys.exit(1)
print(f"net-echo client: {n} bytes sent and received back unchanged")
PY
}

# net_boot_echo NAME NIC CMDLINE: boot with NIC and a forwarded port PORT
# (CMDLINE's @PORT@ is replaced by it); when net-echo listens, run the host
# client against it. Exit status 0 expected; LOG as boot() leaves it.
net_boot_echo() {
	local name=$1 nic=$2 port cmdline
	port=$(net_free_port)
	cmdline=${3//@PORT@/$port}
	LOG=$LOGDIR/$name.log
	mkdir -p "$LOGDIR"
	rm -f "$LOG" "$LOG.raw"
	local t0=$SECONDS rc=0 polls=0
	tools/run-qemu --log "$LOG.raw" --dir "build/qemu/$name" --nic "$nic" --hostfwd "$port" \
		--ram 512M --timeout 120 --cmdline "$cmdline" </dev/null 2>"$LOG.stderr" &
	local runner=$!
	until grep -q 'net-echo: listening' "$LOG.raw" 2>/dev/null; do
		kill -0 "$runner" 2>/dev/null && [ $polls -lt 1200 ] || break
		sleep 0.1
		polls=$((polls + 1))
	done
	if grep -q 'net-echo: listening' "$LOG.raw" 2>/dev/null; then
		net_echo_check "$port" 65536 | sed 's/^/    /'
		[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	else
		echo "    FAIL: $name: net-echo never listened"
		CASE_FAILED=1
	fi
	wait "$runner" || rc=$?
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" >"$LOG" 2>/dev/null || true
	echo "    boot $name: status $rc in $((SECONDS - t0))s (log $LOG)"
	if grep -q 'Could not set up host forwarding rule' "$LOG.stderr"; then
		echo "    FAIL: host port $port on 127.0.0.1 is taken (QEMU could not forward it)"
		CASE_FAILED=1
	elif [ "$rc" != 0 ]; then
		echo "    FAIL: exit status $rc, want 0"
		sed 's/^/    | /' "$LOG.stderr"
		tail -25 "$LOG" | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}

NET_RUN='run="lspci -v; ip addr; ping -c 3 10.0.2.2; net-echo @PORT@; ip addr; cpuinfo; poweroff 0"'

# What every NIC must show: DHCP's address, three echo replies, the bytes echoed.
net_expect_common() {
	expect '^\[.*\] eth0: 10\.0\.2\.15/255\.255\.255\.0 gateway 10\.0\.2\.2 \(DHCP\)$'
	expect '^    inet 10\.0\.2\.15/24 gateway 10\.0\.2\.2 \(DHCP\)$'
	expect '^64 bytes from 10\.0\.2\.2: icmp_seq=1 '
	expect '^ping: 10\.0\.2\.2: 3 sent, 3 received$'
	expect '^net-echo: connection from 10\.0\.2\.2:[0-9]+$'
	expect '^net-echo: done after 1 connection, 65536 bytes echoed$'
	expect_not 'no reply to icmp_seq|run: .* returned'
}

case_net_virtio() {
	net_boot_echo net_virtio virtio "$NET_RUN"
	expect '^\[.*\] pci: [0-9]+ functions$'
	expect '^00:[0-9a-f]{2}\.0 1af4:1000 class 0200 ethernet rev [0-9a-f]+ driver virtio-net$'
	expect '^        BAR4 mem64 prefetchable 0x[0-9a-f]+ size 16K$'
	expect '^        caps: MSI-X\([0-9]+ vectors\)@[0-9a-f]+ vendor@'
	expect '^\[.*\] eth0: virtio-net at 00:[0-9a-f]{2}\.0, MAC 52:54:00:12:34:56, 128-entry queues, MSI-X wake-up, link up$'
	expect '^1: eth0: UP link/ether 52:54:00:12:34:56 mtu 1500 \(virtio-net\)$'
	expect '^    checksum offload: none \(checksums in software\)$'
	# The boot CPU halted while it waited, and the NIC's MSI-X message woke it.
	expect '^idle[[:space:]]+: halt \(APIC timer [0-9]+ kHz\), [1-9][0-9]* halts, ended by the timer [0-9]+, by a device [1-9][0-9]*$'
	net_expect_common
}

case_net_e1000() {
	net_boot_echo net_e1000 e1000 "$NET_RUN"
	expect '^00:[0-9a-f]{2}\.0 8086:100e class 0200 ethernet rev [0-9a-f]+ driver e1000$'
	expect '^        BAR0 mem32 0x[0-9a-f]+ size 128K$'
	expect '^\[.*\] eth0: e1000 at 00:[0-9a-f]{2}\.0, MAC 52:54:00:12:34:56, 128-entry rings, checksum offload on, INTx wake-up \(GSI (5|9|10|11)\), link up$'
	expect '^1: eth0: UP link/ether 52:54:00:12:34:56 mtu 1500 \(e1000\)$'
	# The NIC inserted the checksums of what net-echo and ping sent; QEMU's
	# model checks none on receive (it says "ignore checksum"): lwIP does.
	expect '^    checksum offload: TX [1-9][0-9]* frames by the NIC; RX 0 checked good by the NIC, 0 bad$'
	# No MSI on the 82540EM: its INTx line, through the I/O APIC, ends the halts.
	expect '^idle[[:space:]]+: halt \(APIC timer [0-9]+ kHz\), [1-9][0-9]* halts, ended by the timer [0-9]+, by a device [1-9][0-9]*$'
	net_expect_common
}

# qemu_cpu_pct PID SECS: the host CPU a process took over SECS seconds,
# in percent of one CPU (utime + stime from /proc/PID/stat).
qemu_cpu_pct() {
	local pid=$1 secs=$2 a b hz
	hz=$(getconf CLK_TCK)
	a=$(awk '{ print $14 + $15 }' "/proc/$pid/stat") || return 1
	sleep "$secs"
	b=$(awk '{ print $14 + $15 }' "/proc/$pid/stat") || return 1
	echo $(((b - a) * 100 / (hz * secs)))
}

# net_idle NAME NIC: a NIC without MSI (the e1000; virtio-net with
# vectors=0) ends the boot CPU's idle halt through its INTx line and the
# I/O APIC. Idle for 10 s after DHCP: the boot CPU halts and QEMU takes
# little of a host CPU (before: 100%, the CPU polled); then net-echo
# through the NIC, and cpuinfo shows halts a device ended.
net_idle() {
	local name=$1 nic=$2 port pid pct t0=$SECONDS
	port=$(net_free_port)
	live_boot "$name" --nic "$nic" --hostfwd "$port" --ram 512M || return
	live_wait '\] eth0: 10\.0\.2\.15/255\.255\.255\.0 gateway 10\.0\.2\.2 \(DHCP\)$' ||
		{ live_type 'poweroff 1'; live_end 1; return; }
	pid=$(cat "$LOG.pid")
	pct=$(qemu_cpu_pct "$pid" 10)
	echo "    $name: idle QEMU took ${pct}% of a host CPU over 10 s"
	# The target is under 10%; the bound leaves room for a loaded host.
	[ "${pct:-100}" -lt 30 ] || { echo "    FAIL: idle QEMU took ${pct}% of a host CPU"; CASE_FAILED=1; }
	live_serial 'cpuinfo'
	expect_out '^idle[[:space:]]+: halt \(APIC timer [0-9]+ kHz\), [1-9][0-9]* halts, '
	live_type "net-echo $port"
	live_wait 'net-echo: listening' || { live_type 'poweroff 1'; live_end 1; return; }
	net_echo_check "$port" 65536 | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	live_wait 'net-echo: done after 1 connection, 65536 bytes echoed'
	live_serial 'cpuinfo'
	# The device's INTx ended halts while the echo went on.
	expect_out '^idle[[:space:]]+: halt \(APIC timer [0-9]+ kHz\), [1-9][0-9]* halts, ended by the timer [0-9]+, by a device [1-9][0-9]*$'
	live_type 'poweroff 0'
	live_end 0
	expect '^\[.*\] ioapic: I/O APIC 0 at 0xfec00000, GSIs 0-23, all masked$'
	expect_not 'panic|assert'
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
}

case_net_idle_e1000() {
	net_idle net_idle_e1000 e1000
	expect '^\[.*\] eth0: e1000 at 00:[0-9a-f]{2}\.0, MAC 52:54:00:12:34:56, 128-entry rings, checksum offload on, INTx wake-up \(GSI (5|9|10|11)\), link up$'
}

case_net_idle_virtio_nomsix() {
	net_idle net_idle_virtio_nomsix virtio-nomsix
	expect '^\[.*\] eth0: virtio-net at 00:[0-9a-f]{2}\.0, MAC 52:54:00:12:34:56, 128-entry queues, INTx wake-up \(GSI (5|9|10|11)\), link up$'
}

# Linux's ip= with a static address: no DHCP, and slirp still answers
# (it learns the MAC from the gratuitous ARP).
case_net_static_ip() {
	boot net_static_ip 0 --nic virtio --ram 512M --timeout 120 --cmdline \
		'ip=10.0.2.15::10.0.2.2:255.255.255.0::eth0:off idle=poll run="ip addr; ping -c 2 10.0.2.2; cpuinfo; poweroff 0"'
	expect '^\[.*\] eth0: 10\.0\.2\.15/255\.255\.255\.0 gateway 10\.0\.2\.2 \(ip=\)$'
	expect '^    inet 10\.0\.2\.15/24 gateway 10\.0\.2\.2 \(ip=\)$'
	expect '^ping: 10\.0\.2\.2: 2 sent, 2 received$'
	expect '^idle[[:space:]]+: poll \(idle=poll\)$'	# and the ping still answered
	expect_not '\(DHCP\)'
}

# NBD with real clients from Debian (libnbd-bin, qemu-utils; FACTS-2 §4.3)
# against a 64 MiB raw pmem0 exported with nbd.export=, through
# hostfwd=tcp:127.0.0.1:PORT-:10809: nbdinfo --list, FUA writes with
# qemu-io found in the backing file, the whole device read with nbdcopy and
# compared with the backing file. Then QEMU is SIGKILLed (the acknowledged
# FUA writes must already be in the backing file). With reboot=1 the
# machine boots again on the same backing file and nbdcopy must read the
# same bytes as before the kill.
nbd_clients() {
	local name=$1 nic=$2 reboot=${3:-0} port t0=$SECONDS
	port=$(net_free_port)
	local dir=build/qemu/$name
	nbd_clients_boot "$name" "$nic" "$port" "$dir" --fresh
	nbd_clients_talk "$name" "$port" "$dir"
	nbd_clients_kill
	if [ "$reboot" = 1 ] && [ "$CASE_FAILED" = 0 ]; then
		cp "$dir/nbdcopy.img" "$dir/before-kill.img"
		nbd_clients_boot "$name-reboot" "$nic" "$port" "$dir"
		if nbd_clients_listening "$name-reboot" && timeout 150 nbdcopy "nbd://127.0.0.1:$port/pmem0" \
			"$dir/after-reboot.img" >"$LOG.nbdcopy2" 2>&1 &&
			cmp -s "$dir/after-reboot.img" "$dir/before-kill.img"; then
			echo "    after the kill and a new boot, nbdcopy reads the same 64 MiB"
		else
			echo "    FAIL: after the kill and a new boot the device reads differently (or not at all)"
			sed 's/^/    | /' "$LOG.nbdcopy2" 2>/dev/null
			CASE_FAILED=1
		fi
		nbd_clients_kill
	fi
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
	expect '^\[.*\] nbd: exporting pmem0 \(67108864 bytes, read-write, READ zero copy\)$'
	expect_not 'nbd: client .* closed: '
	# Zero copy: every byte read went from pmem to the NIC without a copy.
	LOG=$LOGDIR/$name.log
	expect 'nbd: client .* done: [1-9][0-9]* reads \(([0-9]+) bytes, \1 without a copy\)'
	local copied
	copied=$(sed -n 's/.*nbd: client .* done: [0-9]* reads (\([0-9]*\) bytes, \([0-9]*\) without a copy).*/\1 \2/p' \
		"$LOG" | awk '$1 != $2')
	if [ -n "$copied" ]; then
		echo "    FAIL: some READ data was copied (bytes read, bytes without a copy): $copied"
		CASE_FAILED=1
	fi
	# And every WRITE byte went from the receive buffers into pmem in one copy.
	expect 'nbd: client .* done: .* [1-9][0-9]* writes \(([0-9]+) bytes, \1 in one copy\)'
	copied=$(sed -n 's/.*nbd: client .* writes (\([0-9]*\) bytes, \([0-9]*\) in one copy).*/\1 \2/p' \
		"$LOG" | awk '$1 != $2')
	if [ -n "$copied" ]; then
		echo "    FAIL: some WRITE data was copied twice (bytes written, in one copy): $copied"
		CASE_FAILED=1
	fi
}

# nbd_clients_boot NAME NIC PORT DIR [--fresh]: boot in the background
# (nvdimm backing file in DIR, log LOGDIR/NAME.log); LOG, RUNNER set.
nbd_clients_boot() {
	local name=$1 nic=$2 port=$3 dir=$4
	shift 4
	# Every host client arrives from 10.0.2.2 (slirp): nbd_many.py's 17 and
	# nbd_slow.py's 23 connections at once need more than the 16 per address.
	nbd_boot_bg "$name" "$dir" --nic "$nic" --hostfwd "$port:10809" --ram 512M --nvdimm 64M \
		--timeout 240 "$@" --cmdline 'nbd.export=pmem0 nbd.max-per-source=32'
}

# nbd_boot_bg NAME DIR RUN-QEMU-ARGS...: boot in the background with the
# serial log in LOGDIR/NAME.log.raw and QEMU's pid beside it; LOG, RUNNER set.
nbd_boot_bg() {
	local name=$1 dir=$2
	shift 2
	LOG=$LOGDIR/$name.log
	mkdir -p "$LOGDIR"
	rm -f "$LOG" "$LOG.raw" "$LOG.pid"
	tools/run-qemu --log "$LOG.raw" --pidfile "$LOG.pid" --dir "$dir" "$@" </dev/null 2>"$LOG.stderr" &
	RUNNER=$!
}

# nbd_wait_for ERE: until the serial log has a line matching it (up to 2 minutes).
nbd_wait_for() {
	local polls=0
	until grep -Eq -- "$1" "$LOG.raw" 2>/dev/null || [ $polls -gt 1200 ]; do
		sleep 0.1
		polls=$((polls + 1))
	done
}

# True once the server listens (polled for up to 2 minutes).
nbd_clients_listening() {
	local polls=0
	until grep -q 'nbd: listening on port 10809' "$LOG.raw" 2>/dev/null; do
		kill -0 "$RUNNER" 2>/dev/null && [ $polls -lt 1200 ] || break
		sleep 0.1
		polls=$((polls + 1))
	done
	if ! grep -q 'nbd: listening on port 10809' "$LOG.raw" 2>/dev/null; then
		echo "    FAIL: $1: the NBD server never listened"
		sed 's/^/    | /' "$LOG.stderr"
		CASE_FAILED=1
		return 1
	fi
}

# SIGKILL the QEMU nbd_clients_boot started, keep its log as text.
nbd_clients_kill() {
	local pid
	pid=$(cat "$LOG.pid" 2>/dev/null) || pid=
	if [ -n "$pid" ] && grep -qF -- "$LOG.pid" "/proc/$pid/cmdline" 2>/dev/null; then
		kill -9 "$pid"
	fi
	wait "$RUNNER" 2>/dev/null
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" >"$LOG" 2>/dev/null || true
}

nbd_clients_talk() {
	local name=$1 port=$2 dir=$3
	if nbd_clients_listening "$name"; then
		local uri=nbd://127.0.0.1:$port/pmem0 out=$dir/nbdcopy.img
		timeout 60 nbdinfo --list "nbd://127.0.0.1:$port" >"$LOG.nbdinfo" 2>&1 ||
			{ echo "    FAIL: nbdinfo --list failed"; CASE_FAILED=1; }
		grep -q '^export="pmem0":$' "$LOG.nbdinfo" && grep -q 'export-size: 67108864' "$LOG.nbdinfo" &&
			grep -q 'can_fua: true' "$LOG.nbdinfo" && grep -q 'can_multi_conn: true' "$LOG.nbdinfo" ||
			{ echo "    FAIL: nbdinfo --list says:"; sed 's/^/    | /' "$LOG.nbdinfo"; CASE_FAILED=1; }
		timeout 60 qemu-io -f raw -c 'write -P 0x5a 1M 64k' -c 'write -P 0xc3 63M 1M' "$uri" \
			>"$LOG.qemu-io" 2>&1 ||
			{ echo "    FAIL: qemu-io failed:"; sed 's/^/    | /' "$LOG.qemu-io"; CASE_FAILED=1; }
		python3 - "$dir/nvdimm0.img" <<'PY' || CASE_FAILED=1
import sys
d = open(sys.argv[1], "rb").read()
ok = d[1 << 20:(1 << 20) + 65536] == b"\x5a" * 65536 and d[63 << 20:64 << 20] == b"\xc3" * (1 << 20)
print("    qemu-io's writes %s in the backing file" % ("are" if ok else "are NOT"))
sys.exit(0 if ok else 1)
PY
		# python3-libnbd's nbdsh: a FUA write, read back; qemu-img info and compare.
		timeout 60 "${NBDSH[@]}" -u "$uri" -c 'h.pwrite(b"\xa5" * 8192, 2 << 20, nbd.CMD_FLAG_FUA)' \
			-c 'assert h.pread(8192, 2 << 20) == b"\xa5" * 8192' \
			-c 'print("nbdsh:", h.get_size(), h.can_fua(), h.can_multi_conn(), h.is_read_only())' \
			>"$LOG.nbdsh" 2>&1 && grep -q '^nbdsh: 67108864 True True False$' "$LOG.nbdsh" &&
			cmp -s -i $((2 << 20)):0 -n 8192 "$dir/nvdimm0.img" <(head -c 8192 /dev/zero | tr '\0' '\245') &&
			echo "    nbdsh: FUA write read back and in the backing file" ||
			{ echo "    FAIL: nbdsh:"; sed 's/^/    | /' "$LOG.nbdsh"; CASE_FAILED=1; }
		timeout 60 qemu-img info "$uri" >"$LOG.qemu-img" 2>&1 &&
			grep -q '^virtual size: 64 MiB (67108864 bytes)$' "$LOG.qemu-img" &&
			timeout 150 qemu-img compare -f raw -F raw "$dir/nvdimm0.img" "$uri" >>"$LOG.qemu-img" 2>&1 &&
			echo "    qemu-img info sees 64 MiB; qemu-img compare: identical to the backing file" ||
			{ echo "    FAIL: qemu-img:"; sed 's/^/    | /' "$LOG.qemu-img"; CASE_FAILED=1; }
		rm -f "$out"
		local c0=$SECONDS
		if timeout 150 nbdcopy "$uri" "$out" >"$LOG.nbdcopy" 2>&1 && cmp -s "$out" "$dir/nvdimm0.img"; then
			echo "    nbdcopy read the whole 64 MiB device in $((SECONDS - c0))s, same as the backing file"
		else
			echo "    FAIL: nbdcopy failed or its copy differs from the backing file:"
			sed 's/^/    | /' "$LOG.nbdcopy"
			CASE_FAILED=1
		fi
		if [ "${NBD_MANY:-0}" = 1 ]; then
			timeout 120 python3 test/qemu/nbd_many.py "$port" pmem0 "$dir/nvdimm0.img" 16 |
				sed 's/^/    /'
			[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
			cp "$dir/nvdimm0.img" "$dir/nbdcopy.img"	# what the reboot must read
		fi
	fi
}

# virtio also: 16 connections at once and a client vanishing mid-WRITE
# (test/qemu/nbd_many.py), then the reboot.
case_nbd_clients_virtio() {
	NBD_MANY=1 nbd_clients nbd_clients_virtio virtio 1
}

# e1000: the reboot too (a second boot of the same backing file after the SIGKILL).
case_nbd_clients_e1000() {
	nbd_clients nbd_clients_e1000 e1000 1
}

# A misbehaving client (test/qemu/nbd_bad.py) against pmem0 and a read-only
# pmem1, with nbd.allow= letting slirp's peer address (10.0.2.2) in; then a
# boot whose nbd.allow= leaves the host out: its connection is closed
# without a greeting, with one line. The bench's net-sink and net-source
# get a quick run in the first boot (tools/bench-net's path).
case_nbd_misbehaving_clients() {
	local name=nbd_bad port sport dir=build/qemu/nbd_bad t0=$SECONDS
	port=$(net_free_port)
	sport=$(net_free_port)
	nbd_boot_bg "$name" "$dir" --fresh --nic virtio \
		--hostfwd "$port:10809" --hostfwd "$sport:5001" --ram 512M --nvdimm 64M --nvdimm 64M \
		--timeout 240 --cmdline 'nbd.export=pmem0,pmem1:ro nbd.allow=192.0.2.0/24,10.0.2.2 run="nbd-list; net-sink 5001; net-source 5001 1M; nbd-memcpy pmem0 1M"'
	if nbd_clients_listening "$name"; then
		nbd_wait_for 'net-sink: listening'
		# net-source binds the port net-sink's connection just closed on (SO_REUSE).
		python3 - "$sport" <<'PY' | sed 's/^/    /'
import socket, sys, time
port = int(sys.argv[1])
for name, send in (("net-sink", True), ("net-source", False)):
    for _ in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=30); break
        except OSError:
            time.sleep(0.2)
    n = 0
    if send:
        s.sendall(b"x" * (1 << 20)); s.shutdown(socket.SHUT_WR)
    while True:
        b = s.recv(65536)
        if not b: break
        n += len(b)
    s.close()
    print(f"{name}: {'sent' if send else 'received'} {1 << 20 if send else n} bytes")
    time.sleep(0.5)
PY
		# Something other than zeroes in pmem0 first, for the unchanged-bytes check.
		timeout 60 "${NBDSH[@]}" -u "nbd://127.0.0.1:$port/pmem0" \
			-c 'import os; h.pwrite(os.urandom(8 << 20), 0, nbd.CMD_FLAG_FUA)' ||
			{ echo "    FAIL: nbdsh could not fill pmem0"; CASE_FAILED=1; }
		timeout 120 python3 test/qemu/nbd_bad.py "$port" "$dir/nvdimm0.img" "$dir/nvdimm1.img" \
			>"$LOG.bad" 2>&1 || CASE_FAILED=1
		grep -E '^(FAIL|nbd_bad|Traceback)|Error' "$LOG.bad" | sed 's/^/    /'
		[ "$CASE_FAILED" = 0 ] || sed 's/^/    | /' "$LOG.bad"
	fi
	nbd_clients_kill
	expect '^allowed: 192\.0\.2\.0/24 10\.0\.2\.2/32; 0 connections refused$'
	expect '^pmem1 67108864 bytes ro, READ zero copy, 0 clients$'
	expect '^net-sink: connection 1: 1048576 bytes in '
	expect '^net-source: connection 1: 1048576 bytes in '
	expect '^nbd-memcpy: pmem0: 1048576 bytes: read [0-9]+ KiB/s, write [0-9]+ KiB/s$'
	expect "^nbd-memcpy: pmem0: READ's copy \(pmem_rw\) [0-9]+ KiB/s, plain memcpy [0-9]+ KiB/s: [0-9]+\.[0-9]{3} of plain \(median of 7 rounds, [0-9.]+-[0-9.]+\); zero-copy check [0-9]+ ns per 64 KiB request$"
	expect '^\[.*\] nbd: client [0-9]+ 10\.0\.2\.2:[0-9]+ closed: '
	expect_not 'not in nbd.allow|panic|run: .* returned'
	# nbd.allow= without the host: refused, cleanly, one line each.
	port=$(net_free_port)
	nbd_boot_bg "$name-refused" "$dir" --nic e1000 \
		--hostfwd "$port:10809" --ram 512M --nvdimm 64M --nvdimm 64M --timeout 120 \
		--cmdline 'nbd.export=pmem0 nbd.allow=192.0.2.0/24'
	if nbd_clients_listening "$name-refused"; then
		python3 - "$port" <<'PY' | sed 's/^/    /'
import socket, sys, time
for _ in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30); break
    except OSError:
        time.sleep(0.2)
try:
    b = s.recv(18)
except ConnectionResetError:
    b = b""
print("refused client: %s" % ("closed without a greeting" if b == b"" else "got %r" % b))
sys.exit(0 if b == b"" else 1)
PY
		[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
		timeout 30 nbdinfo "nbd://127.0.0.1:$port/pmem0" >/dev/null 2>&1 &&
			{ echo "    FAIL: nbdinfo got through nbd.allow=192.0.2.0/24"; CASE_FAILED=1; }
		sleep 1
	fi
	nbd_clients_kill
	expect '^\[.*\] nbd: refusing 10\.0\.2\.2:[0-9]+: not in nbd\.allow$'
	echo "    $name: $((SECONDS - t0))s"
}

# An export holds its device: destroy-namespace is refused until
# nbd-unexport; bad export specs get one line each. Bad arguments of the
# network commands (issue 28 item 4: net-echo 80x listened on port 80)
# are refused with one line and the usage, the real commands running
# here, which the host tests cannot link (lwIP is built for the kernel).
case_nbd_export_holds_the_device() {
	boot nbd_export_holds 0 --nic virtio --ram 512M --nvdimm 64M --fresh --timeout 120 --cmdline \
		'nbd.export=pmem0 run="nbd-list; destroy-namespace -f namespace0.0; nbd-unexport pmem0; nbd-list; nbd-export pmem0:rw; nbd-export pmemX; nbd-export pmem0:ro; nbd-list; net-echo 80x; net-source 5001 1Mx; nbd-export; nbd-memcpy pmem0 0; nbd-list all; poweroff 0"'
	expect "^net-echo: port '80x': not a number$"
	expect '^usage: net-echo PORT \[CONNECTIONS\]$'
	expect "^run: 'net-echo 80x' returned -22$"
	expect_not '^net-echo: listening'
	expect "^net-source: bytes '1Mx': not a size \(a number, then K, M, G, T, P or E\)$"
	expect '^usage: net-source PORT BYTES \[CONNECTIONS\]$'
	expect '^nbd-export: missing device$'
	expect '^usage: nbd-export DEV\[:ro\]\[@ID\[\+ID\.\.\.\]\]$'
	expect "^nbd-memcpy: bytes '0': must be at least 1$"
	expect "^nbd-list: unexpected argument 'all'$"
	expect '^usage: nbd-list \[-j\]$'
	expect '^pmem0 67108864 bytes rw, READ zero copy, 0 clients$'
	expect '\] pmem0: busy: exported \(NBD: nbd-unexport pmem0 first\)$'
	expect "^run: 'destroy-namespace -f namespace0.0' returned -16$"
	expect '\] nbd: pmem0 no longer exported$'
	expect '^nbd: nothing exported$'
	expect '\] nbd: export pmem0:rw: only :ro may follow the device name$'
	expect '\] nbd: no block device pmemX$'
	expect '^pmem0 67108864 bytes ro, READ zero copy, 0 clients$'
}

# Every kind of block device exported (issue 12): a sector device (pmem0s,
# BTT: READ data copied through it) and a devdax device (dax1.0: zero copy
# from its devdax mapping) under nbdinfo, qemu-io, nbdcopy and nbdsh
# (test/qemu/nbd_kinds.py); the guest checks the host's writes itself; while
# a client is connected to each, destroy-namespace and nbd-unexport say
# "busy: exported to 1 client" for both kinds; with the clients gone,
# destroy names the export until nbd-unexport, then goes through.
case_nbd_exports_every_kind() {
	local name=nbd_kinds port eport dir=build/qemu/nbd_kinds t0=$SECONDS
	port=$(net_free_port)
	eport=$(net_free_port)
	nbd_boot_bg "$name" "$dir" --fresh --nic virtio \
		--hostfwd "$port:10809" --hostfwd "$eport" --ram 512M --nvdimm 64M --nvdimm 64M \
		--timeout 300 --cmdline "pmem.create=namespace0.0:sector,namespace1.0:devdax:mem:2M nbd.export=pmem0s,dax1.0 run=\"write pmem0s 1024 64 pattern=0x77; write dax1.0 8192 512 pattern=0x66; nbd-list; net-echo $eport; cmp pmem0s 256 16 pattern=0x5a; cmp dax1.0 4096 128 pattern=0xc3; nbd-list; destroy-namespace -f namespace0.0; nbd-unexport dax1.0; destroy-namespace -f namespace1.0; net-echo $eport; nbd-list; destroy-namespace -f namespace0.0; nbd-unexport pmem0s; destroy-namespace -f namespace0.0; nbd-unexport dax1.0; destroy-namespace -f namespace1.0; poweroff 0\""
	if nbd_clients_listening "$name"; then
		nbd_wait_for 'net-echo: listening'
		timeout 600 python3 test/qemu/nbd_kinds.py "$port" "$eport" "$LOG.raw" "$dir" | sed 's/^/    /'
		[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	fi
	local rc=0
	wait "$RUNNER" || rc=$?
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" >"$LOG" 2>/dev/null || true
	[ "$rc" = 0 ] || { echo "    FAIL: exit status $rc, want 0"; tail -20 "$LOG" | sed 's/^/    | /'; CASE_FAILED=1; }
	expect '\] nbd: exporting pmem0s \([0-9]+ bytes, read-write, READ copied through the BTT\)$'
	expect '\] nbd: exporting dax1\.0 \([0-9]+ bytes, read-write, READ zero copy from the devdax mapping\)$'
	expect '^pmem0s [0-9]+ bytes rw, READ copied through the BTT, 0 clients$'
	expect '^dax1\.0 [0-9]+ bytes rw, READ zero copy from the devdax mapping, 1 client$'
	expect '^cmp pmem0s: 65536 bytes at 0x100000 match$'
	expect '^cmp dax1\.0: 65536 bytes at 0x200000 match$'
	expect '\] pmem0s: busy: exported to 1 client \(nbd client 10\.0\.2\.2:[0-9]+\)$'
	expect '\] nbd: dax1\.0: busy: exported to 1 client$'
	expect '\] dax1\.0: busy: exported to 1 client \(nbd client 10\.0\.2\.2:[0-9]+\)$'
	expect '\] pmem0s: busy: exported \(NBD: nbd-unexport pmem0s first\)$'
	expect '\] nbd: pmem0s no longer exported$'
	expect '\] nbd: dax1\.0 no longer exported$'
	expect "^run: 'destroy-namespace -f namespace0.0' returned -16$"
	expect "^run: 'destroy-namespace -f namespace1.0' returned -16$"
	# WRITE: the devdax export's in one copy, the BTT's gathered into whole sectors first.
	expect 'nbd: client .* done: 0 reads \(0 bytes, 0 without a copy\), 1 writes \(65536 bytes, 0 in one copy\), in [0-9]+\.[0-9]{3} ms \([0-9]+ KiB/s guest time\)$'
	expect 'nbd: client .* done: 0 reads \(0 bytes, 0 without a copy\), 1 writes \(65536 bytes, 65536 in one copy\), in [0-9]+\.[0-9]{3} ms \([0-9]+ KiB/s guest time\)$'
	# READ counters: the BTT's all copied, the devdax export's all by reference.
	expect 'nbd: client .* done: [1-9][0-9]* reads \([1-9][0-9]* bytes, 0 without a copy\)'
	expect 'nbd: client .* done: [1-9][0-9]* reads \(([1-9][0-9]*) bytes, \1 without a copy\)'
	expect_not 'panic|nbd: client .* closed: '
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
}

# Issue 12 item 6: slow and vanished clients do not stall the others
# (test/qemu/nbd_slow.py): 5 clients that stop reading a 32 MiB READ (one
# of them with 3000 small requests behind it, one TCP segment each), one
# with half a request, one gone mid-WRITE; 16 connections to the same
# export (CAN_MULTI_CONN) must still finish, and the device stay as written.
# Regression: lwIP's PBUF pools were a shared resource the stuck clients
# could drain (MEMP_NUM_PBUF: zero-copy send queues; PBUF_POOL: received
# segments waiting behind a stuck reply), and then every client stalled.
case_nbd_slow_clients_do_not_stall_others() {
	local name=nbd_slow port dir=build/qemu/nbd_slow t0=$SECONDS
	port=$(net_free_port)
	nbd_clients_boot "$name" virtio "$port" "$dir" --fresh
	if nbd_clients_listening "$name"; then
		timeout 400 python3 test/qemu/nbd_slow.py "$port" pmem0 "$dir/nvdimm0.img" 16 | sed 's/^/    /'
		[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	fi
	nbd_clients_kill
	expect '\] nbd: exporting pmem0 '
	expect_not 'panic|assert'
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
}
