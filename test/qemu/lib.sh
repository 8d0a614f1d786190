# Helpers for QEMU integration tests: boot a configuration, keep its serial
# log in build/test-logs/NAME.log, and judge it by exit status and log lines.
# Each case is a function calling boot + expect_*; run-all counts results.

LOGDIR=${LOGDIR:-build/test-logs}
CASE_FAILED=0

# boot NAME STATUS [run-qemu options...]: boot and check the kernel's exit status.
boot() {
	local name=$1 want=$2
	shift 2
	LOG=$LOGDIR/$name.log
	mkdir -p "$LOGDIR"
	rm -f "$LOG"
	local t0=$SECONDS rc=0
	tools/run-qemu --log "$LOG.raw" --dir "build/qemu/$name" "$@" </dev/null 2>"$LOG.stderr" || rc=$?
	# Serial lines end in CR LF, and GRUB clears the screen: keep plain text.
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" >"$LOG" 2>/dev/null || true
	echo "    boot $name: status $rc in $((SECONDS - t0))s (log $LOG)"
	if [ "$rc" != "$want" ]; then
		echo "    FAIL: exit status $rc, want $want"
		sed 's/^/    | /' "$LOG.stderr"
		tail -25 "$LOG" | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}

# expect PATTERN: the log has a line matching the extended regex.
expect() {
	if ! grep -Eq -- "$1" "$LOG"; then
		echo "    FAIL: log has no line matching: $1"
		CASE_FAILED=1
	fi
}

# expect_not PATTERN: no line matches.
expect_not() {
	if grep -Eq -- "$1" "$LOG"; then
		echo "    FAIL: log unexpectedly matches: $1"
		grep -E -- "$1" "$LOG" | head -3 | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}

# expect_ktest_pass: a TAP summary with some tests passed and none failed.
# Skipped tests ("ok N - NAME # SKIP reason") are counted apart and allowed
# here: a case that needs a test to run says so with expect_ktest_ran.
expect_ktest_pass() {
	expect '^ktest: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'
	expect_not '^not ok'
}

# expect_ktest_ran NAME...: each named test ran and passed (not skipped,
# not failed, not missing from the run).
expect_ktest_ran() {
	local name
	for name in "$@"; do
		if ! grep -Eq "^ok [0-9]+ - $name\$" "$LOG"; then
			echo "    FAIL: ktest $name did not run and pass:"
			grep -E "^(not )?ok [0-9]+ - $name( |\$)" "$LOG" | sed 's/^/    | /'
			CASE_FAILED=1
		fi
	done
}

# The lines of the log matching a pattern, timestamps removed.
lines() {
	grep -E -- "$1" "$LOG" | sed 's/^\[ *[0-9.]*\] //' | tr -d '\r'
}

# boot_kill NAME PATTERN DELAY [run-qemu options...]: boot, wait until the
# serial log has a line matching the extended regex PATTERN (polled every
# 10 ms), wait DELAY seconds more (e.g. 0.125), then SIGKILL QEMU, as a
# power cut would: the backing files keep what the guest stored. LOG is the
# plain-text log. KILLED is 1 if QEMU was still running at the kill, else 0;
# the case fails if PATTERN never appeared.
boot_kill() {
	local name=$1 pattern=$2 delay=$3 pid
	shift 3
	LOG=$LOGDIR/$name.log
	mkdir -p "$LOGDIR"
	rm -f "$LOG" "$LOG.raw" "$LOG.pid"
	tools/run-qemu --log "$LOG.raw" --pidfile "$LOG.pid" --timeout 120 "$@" \
		</dev/null 2>"$LOG.stderr" &
	local runner=$! polls=0
	until grep -Eq -- "$pattern" "$LOG.raw" 2>/dev/null; do
		if ! kill -0 "$runner" 2>/dev/null || [ $polls -ge 6000 ]; then
			break
		fi
		sleep 0.01
		polls=$((polls + 1))
	done
	grep -Eq -- "$pattern" "$LOG.raw" 2>/dev/null || {
		echo "    FAIL: $name: the log never matched: $pattern"
		CASE_FAILED=1
	}
	sleep "$delay"
	KILLED=0
	pid=$(cat "$LOG.pid" 2>/dev/null) || pid=
	# Only the QEMU this call started: its command line names our pidfile.
	if [ -n "$pid" ] && grep -qF -- "$LOG.pid" "/proc/$pid/cmdline" 2>/dev/null &&
		kill -9 "$pid" 2>/dev/null; then
		KILLED=1
	fi
	wait "$runner" 2>/dev/null
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" >"$LOG" 2>/dev/null || true
}

# boot_stop NAME PATTERN LIMIT PROBE [run-qemu options...]: boot; once the
# serial log matches PATTERN, stop QEMU (SIGSTOP) every 0-19 ms (0 to
# $STOP_MAX_MS ms if set) and run the
# command PROBE while it stands still (its backing files are then exactly
# what the guest had stored): exit 0 means "kill it here", 1 "go on",
# anything else fails the case (its output is shown). QEMU is SIGKILLed,
# still stopped, at the first stop PROBE chose, else at stop LIMIT, unless
# it exits first. KILLED as boot_kill's; STOPS how many stops; PROBED 1 if
# PROBE chose the stop.
boot_stop() {
	local name=$1 pattern=$2 limit=$3 probe=$4 pid runner polls=0 rc
	shift 4
	LOG=$LOGDIR/$name.log
	mkdir -p "$LOGDIR"
	rm -f "$LOG" "$LOG.raw" "$LOG.pid"
	tools/run-qemu --log "$LOG.raw" --pidfile "$LOG.pid" --timeout 120 "$@" \
		</dev/null 2>"$LOG.stderr" &
	runner=$!
	until grep -Eq -- "$pattern" "$LOG.raw" 2>/dev/null; do
		kill -0 "$runner" 2>/dev/null && [ $polls -lt 6000 ] || break
		sleep 0.01
		polls=$((polls + 1))
	done
	grep -Eq -- "$pattern" "$LOG.raw" 2>/dev/null || {
		echo "    FAIL: $name: the log never matched: $pattern"
		CASE_FAILED=1
	}
	KILLED=0 STOPS=0 PROBED=0
	pid=$(cat "$LOG.pid" 2>/dev/null) || pid=
	# Only the QEMU this call started: its command line names our pidfile.
	if [ -n "$pid" ] && grep -qF -- "$LOG.pid" "/proc/$pid/cmdline" 2>/dev/null; then
		while [ $STOPS -lt "$limit" ] && kill -STOP "$pid" 2>/dev/null; do
			STOPS=$((STOPS + 1))
			$probe >"$LOG.probe" 2>&1
			rc=$?
			if [ $rc = 0 ] || [ $STOPS = "$limit" ]; then
				kill -9 "$pid" 2>/dev/null && KILLED=1
				[ $rc = 0 ] && PROBED=1
				break
			elif [ $rc != 1 ]; then
				sed 's/^/    | /' "$LOG.probe"
				echo "    FAIL: $name: stop $STOPS: $probe: exit status $rc"
				CASE_FAILED=1
			fi
			kill -CONT "$pid" 2>/dev/null
			sleep "$(printf '0.%03d' $((RANDOM % (${STOP_MAX_MS:-19} + 1))))"
		done
	fi
	wait "$runner" 2>/dev/null
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" >"$LOG" 2>/dev/null || true
}

# Crash cases (test/qemu/cases/crash.sh, test/linux/cases/crash.sh): the
# host tools that read and judge backing files.
CRASH_INFOBLOCK=build/tools/pmemk-infoblock
CRASHCHECK=build/tools/pmemk-crashcheck

# crash_field FILE FIELD: a numeric field of FILE's info block.
crash_field() {
	"$CRASH_INFOBLOCK" read "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}

# crash_delay MAX_MS: a random delay of 0 to MAX_MS milliseconds, in seconds.
crash_delay() {
	local ms=$((RANDOM % ($1 + 1)))
	printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

# Live boots: the case types shell lines and monitor commands while the
# guest runs (tools/run-qemu --serial-fifo and --monitor).
#
# live_boot NAME [run-qemu options...]: boot in the background with the
# serial console on FIFOs and QEMU's monitor on build/qemu/NAME/monitor.sock;
# LOG as boot's (LOG.raw grows while it runs). Returns once the shell's
# first prompt is in the log (the case fails if it never comes).
# live_serial LINE...: type each line at the prompt, then an `echo` marker;
# wait (up to 60 s) for the marker's line, and leave in OUT what the lines
# printed (log text, timestamps kept). live_type LINE: type it, wait for
# nothing (poweroff). live_monitor CMD: one monitor command;
# its answer in MON_OUT (QEMU prints nothing for a command that worked).
# live_wait PATTERN [SECS]: wait for a log line matching PATTERN. live_end
# STATUS [SECS]: wait for QEMU to exit (killing it after SECS, default 60)
# and check the kernel's exit status as boot does; LOG is then plain text.
LIVE_PID='' LIVE_FD='' LIVE_MARK=0 LIVE_DIR='' LIVE_NAME=''
live_boot() {
	local name=$1
	shift
	LIVE_NAME=$name LIVE_DIR=build/qemu/$name LIVE_MARK=0
	LOG=$LOGDIR/$name.log
	mkdir -p "$LOGDIR" "$LIVE_DIR"
	rm -f "$LOG" "$LOG.raw" "$LOG.pid"
	LIVE_T0=$SECONDS
	tools/run-qemu --log "$LOG.raw" --dir "$LIVE_DIR" --pidfile "$LOG.pid" \
		--serial-fifo "$LIVE_DIR/serial" --monitor "$LIVE_DIR/monitor.sock" \
		--timeout 300 "$@" </dev/null 2>"$LOG.stderr" &
	LIVE_PID=$!
	local polls=0
	until [ -p "$LIVE_DIR/serial.in" ] && grep -aq 'pmemk> ' "$LOG.raw" 2>/dev/null; do
		if ! kill -0 "$LIVE_PID" 2>/dev/null || [ $polls -ge 1200 ]; then
			echo "    FAIL: $name: no shell prompt"
			CASE_FAILED=1
			return 1
		fi
		sleep 0.1
		polls=$((polls + 1))
	done
	# Read-write: never blocks, and the guest never sees an end of file.
	exec {LIVE_FD}<>"$LIVE_DIR/serial.in"
}

# The plain text of the live log so far.
live_text() {
	sed -e 's/\r$//' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG.raw" 2>/dev/null | awk 1
}

live_wait() {
	local pattern=$1 secs=${2:-60} polls=0
	until live_text | grep -Eq -- "$pattern"; do
		if ! kill -0 "$LIVE_PID" 2>/dev/null || [ $polls -ge $((secs * 10)) ]; then
			echo "    FAIL: $LIVE_NAME: the log never matched: $pattern"
			CASE_FAILED=1
			return 1
		fi
		sleep 0.1
		polls=$((polls + 1))
	done
}

live_serial() {
	local line prev=$LIVE_MARK
	LIVE_MARK=$((LIVE_MARK + 1))
	for line in "$@" "echo @mark-$LIVE_MARK"; do
		printf '%s\r' "$line" >&"$LIVE_FD"
	done
	OUT=
	live_wait "^@mark-$LIVE_MARK\$" || return 1
	OUT=$(live_text | awk -v from="@mark-$prev" -v to="@mark-$LIVE_MARK" \
		'$0 == to { exit } on { print } $0 == from || (from == "@mark-0" && /^pmemk shell:/) { on = 1 }')
}

# live_type LINE: type a line and wait for nothing (poweroff).
live_type() {
	printf '%s\r' "$1" >&"$LIVE_FD"
}

live_monitor() {
	MON_OUT=$(test/qemu/hmp.py "$LIVE_DIR/monitor.sock" "$1" 2>&1) || {
		echo "    FAIL: $LIVE_NAME: monitor: $1: $MON_OUT"
		CASE_FAILED=1
		return 1
	}
}

live_end() {
	local want=$1 secs=${2:-60} polls=0 rc=0 pid
	while kill -0 "$LIVE_PID" 2>/dev/null && [ $polls -lt $((secs * 10)) ]; do
		sleep 0.1
		polls=$((polls + 1))
	done
	pid=$(cat "$LOG.pid" 2>/dev/null) || pid=
	# Still running: kill only the QEMU this boot started (its pidfile is ours).
	if kill -0 "$LIVE_PID" 2>/dev/null && [ -n "$pid" ] &&
		grep -qF -- "$LOG.pid" "/proc/$pid/cmdline" 2>/dev/null; then
		echo "    $LIVE_NAME: still running after ${secs}s: killed"
		kill -9 "$pid" 2>/dev/null
	fi
	wait "$LIVE_PID" || rc=$?
	[ -n "$LIVE_FD" ] && exec {LIVE_FD}>&-
	LIVE_FD=
	live_text >"$LOG"
	echo "    boot $LIVE_NAME: status $rc in $((SECONDS - LIVE_T0))s (log $LOG)"
	if [ "$rc" != "$want" ]; then
		echo "    FAIL: exit status $rc, want $want"
		sed 's/^/    | /' "$LOG.stderr"
		tail -25 "$LOG" | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}

# expect_out PATTERN: OUT (the last live_serial's output) has a matching line.
expect_out() {
	if ! grep -Eq -- "$1" <<<"$OUT"; then
		echo "    FAIL: output has no line matching: $1"
		sed 's/^/    | /' <<<"$OUT" | head -40
		CASE_FAILED=1
	fi
}

# expect_out_not PATTERN: no line of OUT matches.
expect_out_not() {
	if grep -Eq -- "$1" <<<"$OUT"; then
		echo "    FAIL: output unexpectedly matches: $1"
		grep -E -- "$1" <<<"$OUT" | head -3 | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}
