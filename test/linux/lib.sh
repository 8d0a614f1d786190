# Helpers for the Linux interop suite (test/linux/run-all), on top of
# test/qemu/lib.sh (boot, expect, expect_not): boot Debian's Linux on the
# same nvdimms as pmemk, with a scenario as a second initramfs layer.

# Debian's python3 (deps.sh): a version manager's shim on PATH can take most
# of a second to start, and the cases call interop.py some 50 times.
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3
interop() {
	"$PYTHON" test/linux/interop.py "$@"
}

# daxrw_bin: the guest's /daxrw (test/linux/daxrw.c: /dev/daxN.M bytes
# through mmap), static, built with the host's gcc when its source changes.
daxrw_bin() {
	local bin=build/linux/daxrw
	if [ ! -x "$bin" ] || [ test/linux/daxrw.c -nt "$bin" ]; then
		mkdir -p build/linux
		gcc -O2 -Wall -Werror -static -o "$bin" test/linux/daxrw.c || return 1
	fi
	echo "$bin"
}

# linux_boot NAME STATUS DIR [run-qemu options...]: boot Linux with DIR (its
# scenario.sh and whatever files it reads), /daxrw and test/linux/guest.sh as a
# second initramfs layer over build/linux/initramfs.cpio; the guest's /init
# runs /scenario.sh with sh -e and reports its exit status through
# isa-debug-exit, which boot checks against STATUS.
linux_boot() {
	local name=$1 want=$2 src=$3 layer
	shift 3
	layer=build/linux/scenarios/$name.cpio
	mkdir -p "$(dirname "$layer")"
	cp test/linux/guest.sh "$src/guest.sh"
	cp "$(daxrw_bin)" "$src/daxrw"
	(cd "$src" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$layer"
	boot "$name" "$want" --linux --initrd build/linux/initramfs.cpio --initrd "$layer" "$@"
}

# json_of VAR LOG MARKER [NS]: VAR = the JSON after MARKER in LOG
# (interop.py json); empty, with one FAIL line, if there is none.
json_of() {
	local var=$1 out
	shift
	if ! out=$(interop json "$@" 2>&1); then
		echo "    FAIL: $out"
		CASE_FAILED=1
		out=
	fi
	printf -v "$var" '%s' "$out"
}

# want_field NAME JSON KEY VALUE: the field has that value.
want_field() {
	local got
	got=$(interop field "$2" "$3" 2>/dev/null) || got='(no JSON)'
	if [ "$got" != "$4" ]; then
		echo "    FAIL: $1 $3 is '$got', want '$4'"
		CASE_FAILED=1
	fi
}

# same_namespace NAME1 JSON1 NAME2 JSON2: the two listings agree (interop.py same).
same_namespace() {
	local diff
	if [ -z "$2" ] || [ -z "$4" ]; then
		echo "    FAIL: no listing to compare ($1 or $3 missing)"
		CASE_FAILED=1
	elif ! diff=$(interop same "$@"); then
		echo "    FAIL: $1 and $3 list the namespace differently:"
		sed 's/^/    | /' <<<"$diff"
		CASE_FAILED=1
	fi
}

# want_sha LOG NAME HEX WHAT: the guest's '==== sha NAME' line says HEX.
want_sha() {
	local got
	got=$(sed -n "s/^==== sha $2 \\([0-9a-f]*\\)\$/\\1/p" "$1" | tail -1)
	if [ -z "$got" ]; then
		echo "    FAIL: Linux did not read $4 ($2)"
		CASE_FAILED=1
	elif [ "$got" != "$3" ]; then
		echo "    FAIL: Linux read other bytes than $4 ($2)"
		grep "^==== NOTE $2:" "$1" | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}

# wait_line FILE REGEX SECONDS: until a line of FILE matches (grep -E); 1 if
# none did within SECONDS.
wait_line() {
	local n=0
	until grep -qE "$2" "$1" 2>/dev/null; do
		[ $n -lt $(($3 * 10)) ] || return 1
		sleep 0.1
		n=$((n + 1))
	done
}

# pmemk as the NBD server of a Linux guest: booted in the background, its
# port forwarded from 127.0.0.1 (the Linux guest reaches it as its gateway,
# 10.0.2.2, QEMU's user network mapping that to the host's loopback).
# PMEMK_LOG is its plain-text log once pmemk_bg_kill has run.
PMEMK_LOG='' PMEMK_RUNNER=''

# free_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# pmemk_bg_boot NAME PORT [run-qemu options...]: boot pmemk with a virtio NIC,
# 127.0.0.1:PORT forwarded to its port 10809; returns once it listens (the
# case fails if it never does, within two minutes).
pmemk_bg_boot() {
	local name=$1 port=$2 polls=0
	shift 2
	PMEMK_LOG=$LOGDIR/$name.log
	mkdir -p "$LOGDIR"
	rm -f "$PMEMK_LOG" "$PMEMK_LOG.raw" "$PMEMK_LOG.pid"
	tools/run-qemu --log "$PMEMK_LOG.raw" --pidfile "$PMEMK_LOG.pid" --nic virtio \
		--hostfwd "$port:10809" "$@" </dev/null 2>"$PMEMK_LOG.stderr" &
	PMEMK_RUNNER=$!
	until grep -q 'nbd: listening on port 10809' "$PMEMK_LOG.raw" 2>/dev/null; do
		if ! kill -0 "$PMEMK_RUNNER" 2>/dev/null || [ $polls -ge 1200 ]; then
			echo "    FAIL: $name: pmemk's NBD server never listened"
			sed 's/^/    | /' "$PMEMK_LOG.stderr"
			CASE_FAILED=1
			return 1
		fi
		sleep 0.1
		polls=$((polls + 1))
	done
	echo "    pmemk $name listening, 127.0.0.1:$port forwarded to it"
}

# pmemk_bg_kill: SIGKILL the pmemk pmemk_bg_boot started (only that QEMU:
# its command line names the pidfile), keep its log as text.
pmemk_bg_kill() {
	local pid
	pid=$(cat "$PMEMK_LOG.pid" 2>/dev/null) || pid=
	if [ -n "$pid" ] && grep -qF -- "$PMEMK_LOG.pid" "/proc/$pid/cmdline" 2>/dev/null; then
		kill -9 "$pid"
	fi
	wait "$PMEMK_RUNNER" 2>/dev/null
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$PMEMK_LOG.raw" >"$PMEMK_LOG" 2>/dev/null || true
}
