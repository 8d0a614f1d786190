# The numbers the HTTPS API serves, as console commands: `metrics`
# (Prometheus's text format), `nbd-list -j` and `uptime -j`
# (docs/NETWORK.md, "Metrics and JSON views").

# Two CPUs, NBD exports of raw pmem0 and of an fsdax pmem1m for two TLS
# identities. From the host (test/qemu/metrics_check.py) one client reads
# 3 MiB of pmem0 and leaves, another reads 1 MiB and stays; then, with it connected, the guest's `metrics`
# must parse with Debian's prometheus_client, every family once; pmem0's
# read bytes must be at least what both read and equal to the closed
# client's plus the connected one's in `nbd-list -j`, which must parse and
# agree with the per-client metrics; `uptime -j`'s busy + idle time of
# each CPU must add up to its time online (uptime for CPU 0).
SERIAL_CASES+=" metrics_views"	# two vCPUs

case_metrics_views() {
	local name=metrics_views port dir=build/qemu/metrics_views cmd file
	port=$(net_free_port)
	live_boot "$name" --fresh --smp 2 --nic virtio --hostfwd "$port:10809" --ram 512M \
		--nvdimm 64M --nvdimm 64M --cmdline 'nbd.export=pmem0' || return
	live_wait 'nbd: listening on port 10809' || { live_type 'poweroff 1'; live_end 1; return; }
	live_serial 'create-namespace -f -e namespace1.0 -m fsdax' 'nbd-export pmem1m@alice+bob'
	expect_out '"blockdev":"pmem1m"'
	expect_out 'nbd: exporting pmem1m '
	rm -f "$dir/ready" "$dir/done"
	timeout 90 env "PATH=/usr/bin:$PATH" python3 test/qemu/metrics_check.py client "$port" pmem0 "$dir" \
		>"$LOG.client" 2>&1 &
	local client=$! polls=0
	until [ -e "$dir/ready" ] || ! kill -0 $client 2>/dev/null || [ $polls -ge 300 ]; do
		sleep 0.1
		polls=$((polls + 1))
	done
	if [ ! -e "$dir/ready" ]; then
		echo "    FAIL: the NBD clients did not get their data"
		sed 's/^/    | /' "$LOG.client"
		CASE_FAILED=1
	fi
	for cmd in metrics 'nbd-list -j' 'uptime -j'; do
		file=${cmd%% *}
		live_serial "$cmd"
		printf '%s\n' "$OUT" >"$dir/$file"
	done
	touch "$dir/done"
	wait $client || { sed 's/^/    | /' "$LOG.client"; CASE_FAILED=1; }
	env "PATH=/usr/bin:$PATH" python3 test/qemu/metrics_check.py check "$dir" | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	live_type 'poweroff'
	live_end 0
}
