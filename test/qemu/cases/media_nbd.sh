# shellcheck shell=bash
# Bad sectors over NBD (issue 29): a READ over one costs its client one EIO
# reply, and nothing else (net/nbd_transmission.c, net/nbd_pmem.c).

# media_nbd_backing DIR: nvdimm0.img (64 MiB) and nvdimm1.img (16 MiB),
# zero in their first MiB (no info block: raw namespaces) and random after.
media_nbd_backing() {
	mkdir -p "$1"
	python3 - "$1" <<'PY'
import random, sys
rnd = random.Random(29)
for i, size in ((0, 64), (1, 16)):
    with open("%s/nvdimm%d.img" % (sys.argv[1], i), "wb") as f:
        f.write(bytes(1 << 20) + rnd.randbytes((size - 1) << 20))
PY
}

# pmem0 and pmem1 exported, blocks 2051-2052 of namespace0.0 listed bad and
# block 4100 only poisoned, the guest waiting in net-echo while the host's
# clients (test/qemu/nbd_media.py) read over the bad ranges (EIO: qemu-io's
# "Input/output error", libnbd's ERROR_OFFSET at the first bad byte with
# structured replies and a plain EIO without), read good ranges and copy
# pmem1 at the same time, then heal the ranges with WRITEs and copy all of
# pmem0. Then the guest lists the namespace again (healed: no badblocks)
# and powers off. No connection is closed by the server, and every byte
# READ went without a copy (bad ranges are refused, never copied or lent).
case_nbd_bad_sectors_cost_one_reply() {
	local name=nbd_media port eport dir=build/qemu/nbd_media t0=$SECONDS
	port=$(net_free_port)
	eport=$(net_free_port)
	rm -rf "$dir"
	media_nbd_backing "$dir"
	nbd_boot_bg "$name" "$dir" --nic virtio --hostfwd "$port:10809" --hostfwd "$eport" \
		--ram 512M --nvdimm 64M --nvdimm 16M --timeout 300 --cmdline \
		"nbd.export=pmem0,pmem1 run=\"inject-error namespace0.0 --block=2051 --count=2; inject-error namespace0.0 --block=4100 --no-notify; list -N -M; net-echo $eport; list -N -M; nbd-list; poweroff 0\""
	if nbd_clients_listening "$name"; then
		nbd_wait_for 'net-echo: listening'
		timeout 600 env "PATH=/usr/bin:$PATH" python3 test/qemu/nbd_media.py "$port" "$eport" "$dir" |
			sed 's/^/    /'
		[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	fi
	local rc=0
	wait "$RUNNER" || rc=$?
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" >"$LOG" 2>/dev/null || true
	[ "$rc" = 0 ] || { echo "    FAIL: exit status $rc, want 0"; tail -20 "$LOG" | sed 's/^/    | /'; CASE_FAILED=1; }
	expect '^inject-error namespace0\.0: poisoned blocks 2051-2052 \(1024 bytes at 0x[0-9a-f]+\)$'
	expect '^inject-error namespace0\.0: poisoned blocks 4100-4100 .*; the next read of them takes a machine check$'
	expect '\] region0: media error at 0x[0-9a-f]+ \(1024 bytes\), sectors 2051-2052: injected, listed$'
	# Listed before the clients came; healed by their WRITEs after.
	local lists
	lists=$(grep -c '"dev":"namespace0\.0"' "$LOG")
	[ "$lists" = 2 ] || { echo "    FAIL: $lists namespace0.0 listings, want 2"; CASE_FAILED=1; }
	expect '^ *"badblock_count":2,$'
	expect '^ *"offset":2051,$'
	[ "$(grep -c '"badblock_count"' "$LOG")" = 1 ] ||
		{ echo "    FAIL: namespace0.0 still has bad blocks after the WRITEs (or never had)"; CASE_FAILED=1; }
	# The WRITE in 700-byte pieces: the bad sectors its pieces cut were carried (two copies).
	expect 'nbd: client .* done: 0 reads \(0 bytes, 0 without a copy\), 1 writes \(4096 bytes, 3072 in one copy\)'
	# Every client's READ bytes went without a copy, and some went.
	expect 'nbd: client .* done: [1-9][0-9]* reads \(([1-9][0-9]*) bytes, \1 without a copy\)'
	local copied
	copied=$(sed -n 's/.*nbd: client .* done: [0-9]* reads (\([0-9]*\) bytes, \([0-9]*\) without a copy).*/\1 \2/p' \
		"$LOG" | awk '$1 != $2')
	[ -z "$copied" ] || { echo "    FAIL: READ data copied (bytes read, without a copy): $copied"; CASE_FAILED=1; }
	expect_not 'nbd: client .* closed: |panic|machine check.*(fatal|stop)'
	echo "    $name: $((SECONDS - t0))s (log $LOG)"
}
