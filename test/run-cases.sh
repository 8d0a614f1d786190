# The case loop of test/qemu/run-all and test/linux/run-all (sourced):
# run_cases SUITE runs every case_NAME function defined (or those CASES
# names), prints "ok"/"FAIL" per case with its seconds and a summary, and returns non-zero
# when a case failed or CASES names one that does not exist.
run_cases() {
	local suite=$1 c passed=0 failed=0 failed_names=
	local all_cases
	all_cases=$(declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//')
	for c in ${CASES:-$all_cases}; do
		echo "$suite: $c"
		CASE_FAILED=0
		local started=$SECONDS
		if declare -F "case_$c" >/dev/null; then
			"case_$c"
		else
			echo "    no such case: $c (the cases are the case_NAME functions in test/$suite/cases/*.sh)"
			CASE_FAILED=1
		fi
		if [ $CASE_FAILED = 0 ]; then
			passed=$((passed + 1))
			echo "ok   $c ($((SECONDS - started)) s)"
		else
			failed=$((failed + 1))
			failed_names+=" $c"
			echo "FAIL $c ($((SECONDS - started)) s)"
		fi
	done
	[ -n "$failed_names" ] && echo "$suite: failed:$failed_names"
	RUN_CASES_SUMMARY="$suite: $passed passed, $failed failed"
	[ $failed = 0 ]
}
