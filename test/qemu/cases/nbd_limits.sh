# No NBD client can hold the server (issue 30 item 4; test/qemu/nbd_hold.py
# plays the clients, the shell is driven over the serial FIFO). Under
# QEMU's user network every host client arrives from 10.0.2.2.

# Run alone, never beside another case (test/run-cases.sh): timeouts, line budgets and a reader beside a zeroing are timed.
SERIAL_CASES+=" nbd_idle_clients_do_not_keep_others_out nbd_clients_released_by_timeout_and_disconnect nbd_write_zeroes_does_not_stall"

# nbd_hold_start MODE ARGS...: nbd_hold.py in the background, its output in $LOG.MODE.
nbd_hold_start() {
	local mode=$1
	shift
	python3 test/qemu/nbd_hold.py "$mode" "$@" >"$LOG.$mode" 2>&1 &
	HOLD_PID=$!
}

# nbd_hold_end MODE: wait for it (it bounds itself), show its lines, fail with it.
nbd_hold_end() {
	wait "$HOLD_PID" || CASE_FAILED=1
	sed 's/^/    /' "$LOG.$1"
}

# nbd_hold_wait MODE ERE: until its output has a matching line (up to 30 s).
nbd_hold_wait() {
	local polls=0
	until grep -Eq -- "$2" "$LOG.$1" 2>/dev/null; do
		if [ $polls -ge 300 ] || ! kill -0 "$HOLD_PID" 2>/dev/null; then
			echo "    FAIL: nbd_hold.py $1 never printed: $2"
			CASE_FAILED=1
			return 1
		fi
		sleep 0.1
		polls=$((polls + 1))
	done
}

# A client id from the last nbd-list (OUT): the first client line's number.
nbd_client_id() {
	sed -n 's/^client \([0-9]*\) 10\.0\.2\.2:[0-9]* .*/\1/p' <<<"$OUT" | head -1
}

# (a) 64 connections that send nothing, then a real client: served at once
# (the oldest still in the handshake makes room), and the console is not
# flooded. Before: all 32 slots held for ever, the real client reset.
case_nbd_idle_clients_do_not_keep_others_out() {
	local name=nbd_idle_flood port t0=$SECONDS
	port=$(net_free_port)
	live_boot "$name" --fresh --nic virtio --hostfwd "$port:10809" --ram 512M --nvdimm 64M \
		--cmdline 'nbd.export=pmem0' || return
	live_wait 'nbd: listening on port 10809' || { live_type 'poweroff 1'; live_end 1; return; }
	timeout 120 python3 test/qemu/nbd_hold.py flood "$port" pmem0 64 | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	live_serial 'nbd-list'
	expect_out '^limits: 32 clients, 16 per address; handshake 10 s, idle 0 s \(off\)$'
	live_type 'poweroff 0'
	live_end 0
	expect '\] nbd: client [0-9]+ 10\.0\.2\.2:[0-9]+ reset: its slot went to a new connection while it was still in the handshake$'
	# At most 20 such lines in each 10 s window the server counts. A window
	# starts at the first budgeted line after the last one ended (any line
	# about a connection, not only these), so over S seconds from the first
	# of these lines to the last at most int(S / 10) + 2 windows meet them.
	local over
	over=$(sed -n 's/^\[ *\([0-9.]*\)\] nbd: \(client [0-9]* .* reset\|refusing\|client .* closed\): .*/\1/p' "$LOG" |
		awk 'NR == 1 { t0 = $1 } { n++ } END { w = int(($1 - t0) / 10) + 2; if (n > 20 * w) print n " lines in " w " windows" }')
	[ -z "$over" ] || { echo "    FAIL: lines about single connections not rate limited: $over"; CASE_FAILED=1; }
	expect_not 'panic|assert'
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
}

# (b, c, d) on two CPUs with nbd.timeout=5: on-cpu 1 nbd-unexport refused
# with one line; a busy client (a FLUSH a second) outlives the timeout, is
# dropped by nbd-disconnect, and nbd-unexport then succeeds; a silent
# client (GO, then nothing) is closed by the timeout, and nbd-unexport then
# succeeds. Before: on-cpu ran it on CPU 1, no nbd-disconnect, a silent
# client held the export for ever.
case_nbd_clients_released_by_timeout_and_disconnect() {
	local name=nbd_release port t0=$SECONDS id
	port=$(net_free_port)
	live_boot "$name" --fresh --smp 2 --nic virtio --hostfwd "$port:10809" --ram 512M --nvdimm 64M \
		--cmdline 'nbd.export=pmem0 nbd.timeout=5' || return
	live_wait 'nbd: listening on port 10809' || { live_type 'poweroff 1'; live_end 1; return; }
	live_serial 'on-cpu 1 nbd-unexport pmem0'
	expect_out '^on-cpu 1: nbd-unexport uses the network, which only CPU 0 runs; run it without on-cpu$'
	expect_out_not 'started'
	# (c) A busy client: not idle, so the timeout leaves it; nbd-disconnect drops it.
	nbd_hold_start busy "$port" pmem0
	nbd_hold_wait busy '^busy: in transmission' && sleep 7
	live_serial 'nbd-list' 'nbd-unexport pmem0'
	expect_out '^pmem0 67108864 bytes rw, READ zero copy, 1 client$'
	expect_out '\] nbd: pmem0: busy: exported to 1 client$'
	id=$(nbd_client_id)
	[ -n "$id" ] || { echo "    FAIL: nbd-list shows no client id"; CASE_FAILED=1; id=0; }
	live_serial "nbd-disconnect $id" 'nbd-unexport pmem0' 'nbd-disconnect 9999'
	expect_out "\] nbd: client $id 10\.0\.2\.2:[0-9]+ disconnected from pmem0\$"
	expect_out '\] nbd: pmem0 no longer exported$'
	expect_out '\] nbd: no client 9999 \(nbd-list shows them\)$'
	nbd_hold_end busy
	grep -Eq '^busy: dropped by the server after ([5-9]|[1-9][0-9]+) flushes' "$LOG.busy" ||
		{ echo "    FAIL: the busy client did not outlive nbd.timeout"; CASE_FAILED=1; }
	# (b) A silent client: closed by nbd.timeout, then nbd-unexport succeeds.
	live_serial 'nbd-export pmem0'
	nbd_hold_start silent "$port" pmem0
	nbd_hold_wait silent '^silent: in transmission'
	live_wait '\] nbd: client [0-9]+ 10\.0\.2\.2:[0-9]+ closed: idle for nbd\.timeout$' 30
	nbd_hold_end silent
	live_serial 'nbd-unexport pmem0' 'nbd-list'
	expect_out '\] nbd: pmem0 no longer exported$'
	expect_out '^nbd: nothing exported$'
	expect_out '^limits: 32 clients, 16 per address; handshake 10 s, idle 5 s$'
	live_type 'poweroff 0'
	live_end 0
	expect_not 'panic|assert|exception'
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
}

# (e) A mistyped security parameter: the server does not listen, one line
# names it (nbd.* fails closed). Before: ignored, and anyone could connect.
case_nbd_params_fail_closed() {
	boot nbd_params_fail_closed 0 --nic virtio --ram 512M --nvdimm 64M --timeout 120 \
		--cmdline 'nbd.export=pmem0 nbd.alow=10.0.2.2 run="nbd-list; poweroff 0"'
	expect "\] cmdline: unknown parameter 'nbd\.alow' refused \(nbd\.\* fails closed\)$"
	expect "\] nbd: not listening: the command line's nbd\.alow is unknown or was refused \(nbd\.\* fails closed\)$"
	expect_not 'nbd: listening on port'
	expect_not 'panic'
}

# One WRITE_ZEROES over a whole 4 GiB export while another client reads
# (test/qemu/nbd_zeroes.py): the zeroing goes NBD_ZERO_SLICE at a time
# across poll passes, so the reads keep completing, and zeros read back.
# Before: the 4 GiB were zeroed inside one poll pass and every other
# client, lwIP's timers and the shell waited for it.
case_nbd_write_zeroes_does_not_stall() {
	local name=nbd_zeroes port dir=build/qemu/nbd_zeroes t0=$SECONDS
	port=$(net_free_port)
	rm -rf "$dir"
	nbd_boot_bg "$name" "$dir" --nic virtio --hostfwd "$port:10809" --ram 512M --nvdimm 4G --fresh \
		--timeout 400 --cmdline 'nbd.export=pmem0'
	if nbd_clients_listening "$name"; then
		timeout 300 python3 test/qemu/nbd_zeroes.py "$port" pmem0 $((4 << 30)) | sed 's/^/    /'
		[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	fi
	nbd_clients_kill
	rm -rf "$dir"
	expect '\] nbd: exporting pmem0 \(4294967296 bytes, read-write'
	expect_not 'panic|assert'
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
}
