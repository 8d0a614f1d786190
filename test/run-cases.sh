# The case loop of test/qemu/run-all and test/linux/run-all (sourced):
# run_cases SUITE runs every case_NAME function defined (or those CASES
# names), prints "ok"/"FAIL" per case with its seconds and a summary, and
# returns non-zero when a case failed or CASES names one that does not exist.
#
# RUN_JOBS=N (default 1) runs up to N cases at once, each in a subshell
# whose lines are printed together when it ends (so in the order cases
# end). A case named in SERIAL_CASES (its file adds it: kill timing, host
# CPU measured, or several vCPUs) runs alone, nothing beside it. Cases keep
# their own state under build/qemu/NAME and their logs under LOGDIR, so
# two of them never share a file.
SERIAL_CASES=${SERIAL_CASES:-}

# run_one SUITE NAME: the case in this shell; its lines, then ok/FAIL; 1 if it failed.
run_one() {
	local suite=$1 c=$2 started=$SECONDS
	echo "$suite: $c"
	CASE_FAILED=0
	if declare -F "case_$c" >/dev/null; then
		"case_$c"
	else
		echo "    no such case: $c (the cases are the case_NAME functions in test/$suite/cases/*.sh)"
		CASE_FAILED=1
	fi
	if [ $CASE_FAILED = 0 ]; then
		echo "ok   $c ($((SECONDS - started)) s)"
	else
		echo "FAIL $c ($((SECONDS - started)) s)"
	fi
	return $CASE_FAILED
}

run_cases() {
	local suite=$1 jobs=${RUN_JOBS:-1} c passed=0 failed=0 failed_names=
	local all_cases out
	local -A case_of=()
	all_cases=$(declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//')
	out=$LOGDIR/run-cases.$$
	mkdir -p "$out"
	# count C RC: a case's result into the totals.
	count() {
		if [ "$2" = 0 ]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			failed_names+=" $1"
		fi
	}
	# reap: wait for one background case, print its lines, count it.
	reap() {
		local pid rc done_case
		wait -n -p pid
		rc=$?
		done_case=${case_of[$pid]}
		unset "case_of[$pid]"
		cat "$out/$done_case"
		rm -f "$out/$done_case"
		count "$done_case" "$rc"
	}
	for c in ${CASES:-$all_cases}; do
		if [ "$jobs" -le 1 ] || [[ " $SERIAL_CASES " == *" $c "* ]]; then
			while [ ${#case_of[@]} -gt 0 ]; do reap; done
			run_one "$suite" "$c"
			count "$c" $?
			continue
		fi
		while [ ${#case_of[@]} -ge "$jobs" ]; do reap; done
		run_one "$suite" "$c" >"$out/$c" 2>&1 </dev/null &
		case_of[$!]=$c
	done
	while [ ${#case_of[@]} -gt 0 ]; do reap; done
	rmdir "$out" 2>/dev/null
	[ -n "$failed_names" ] && echo "$suite: failed:$failed_names"
	RUN_CASES_SUMMARY="$suite: $passed passed, $failed failed"
	[ $failed = 0 ]
}
