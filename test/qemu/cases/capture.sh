# Capturing a command's output (lib/print_capture.c, shell_run_captured):
# the HTTPS API answers with what the console prints, so the two must be
# the same bytes. `capture CMD` runs CMD as the API will and prints what it
# captured; each captured block is compared here with the same command
# printed to the console.

# capture_console_block CMD: what `CMD` printed on the console, from its
# "pmemk> CMD" line to the next prompt, the batch's "run:" line and the
# log's timestamps left out.
capture_console_block() {
	awk -v cmd="pmemk> $1" '$0 == cmd { on = 1; next } /^pmemk> / { on = 0 }
		on && !/^run: / { print }' "$LOG" | sed 's/^\[ *[0-9.]*\] //'
}

# capture_captured_block CMD: what `capture CMD` printed before its count line.
capture_captured_block() {
	awk -v cmd="pmemk> capture $1" '$0 == cmd { on = 1; next } on && /^capture: / { on = 0 }
		on { print }' "$LOG"
}

# capture_same CMD: the captured block equals the console's, and is as long as the count says.
capture_same() {
	local console captured count
	console=$(capture_console_block "$1"; echo .)
	captured=$(capture_captured_block "$1"; echo .)
	count=$(grep -E "^capture: [0-9]+ bytes, 0 lost, '$1' returned" "$LOG" | head -1 | awk '{print $2}')
	if [ "$console" != "$captured" ] || [ "$console" = . ]; then
		echo "    FAIL: '$1': captured output differs from the console's:"
		diff <(echo "$console") <(echo "$captured") | head -10 | sed 's/^/    | /'
		CASE_FAILED=1
	elif [ "$count" != "$(($(printf '%s' "$captured" | wc -c) - 1))" ]; then
		echo "    FAIL: '$1': capture counted '${count}' bytes, printed $(($(printf '%s' "$captured" | wc -c) - 1))"
		CASE_FAILED=1
	fi
}

# Two label-less DIMMs (two raw namespaces), one made fsdax: `list -RN`
# captured is byte for byte the console's; so are a refusal printed with
# kprintf (no such namespace) and one printed with pr_err deep in nvdimm/
# (destroying a raw namespace without -f), its timestamp aside; a network
# command is refused from the API's path.
case_capture_same_bytes_as_console() {
	local cmds='list -RN' refusals='destroy-namespace -f namespace9.9;destroy-namespace namespace1.0'
	boot capture 0 --fresh --ram 512M --nvdimm 128M --nvdimm 128M --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax; list -RN; capture list -RN; destroy-namespace -f namespace9.9; capture destroy-namespace -f namespace9.9; destroy-namespace namespace1.0; capture destroy-namespace namespace1.0; capture net-echo 7; poweroff"'
	expect '"mode":"fsdax"'
	expect '"dev":"namespace1.0"'
	expect "^namespace9.9: no such namespace"
	expect '^\[ *[0-9.]+\] namespace1.0 is raw: destroying it'
	expect "^net-echo: uses the network, whose loop this runs in; only from the console$"
	expect "^capture: [0-9]+ bytes, 0 lost, 'net-echo 7' returned -1$"
	local IFS=';' c
	for c in $cmds $refusals; do
		capture_same "$c"
	done
}
