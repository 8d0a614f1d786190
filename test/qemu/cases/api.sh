# The HTTPS management API served (issue 32; net/api_server.c,
# net/api_handlers.c, net/api_jobs.c): curl against every resource with
# each token role and none, refusals (bad JSON, an oversized body, a slow
# and a cut request), a namespace created and exported through the API
# then written and read over NBD, a job for map=mem, the console's
# `list -RN` and GET /v1/regions byte for byte, /metrics parsed by
# Prometheus' own parser with counters that moved, the page in headless
# Chromium, a source that keeps failing refused, and no token or key in
# the serial log.

SERIAL_CASES+=" api_served"

# Debian's python3: its python3-libnbd and python3-prometheus-client.
API_PY=${PYTHON:-/usr/bin/python3}

# api_console CMD: what CMD printed in the last live_serial's output, from
# its line (the prompt may be on an earlier one) to the next prompt, log lines without their timestamp (as a
# capture keeps them), the API's own log lines left out.
api_console() {
	awk -v cmd="$1" '$0 == "pmemk> " cmd || $0 == cmd { on = 1; next } /^pmemk>/ { on = 0 } on' <<<"$OUT" |
		sed 's/^\[ *[0-9]*\.[0-9]*\] //' | grep -v '^api: '
}

# api_served_files: a certificate for pmemk-api.test (with the name in
# subjectAltName, so curl checks it) and its key, and a token file.
api_served_files() {
	API_DIR=build/qemu/api_served_files
	API_ADMIN="admin.$(openssl rand -hex 16)"
	API_READ="read.$(openssl rand -hex 16)"
	mkdir -p "$API_DIR"
	(cd "$API_DIR" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-days 30 -keyout api.key -out api.crt -subj /CN=pmemk-api.test \
		-addext subjectAltName=DNS:pmemk-api.test) >"$API_DIR/openssl.log" 2>&1 ||
		{ CASE_FAILED=1; return 1; }
	printf '%s admin\n%s read\n' "$API_ADMIN" "$API_READ" >"$API_DIR/tokens"
}

# api_req METHOD PATH ROLE [BODY]: curl it (ROLE admin, read or none);
# CODE the status, the body in $API_DIR/body.
api_req() {
	local tok=() data=()
	case $3 in
	admin) tok=(-H "Authorization: Bearer $API_ADMIN") ;;
	read) tok=(-H "Authorization: Bearer $API_READ") ;;
	esac
	[ $# -ge 4 ] && data=(-H 'Content-Type: application/json' --data-binary "$4")
	CODE=$(curl -s -m 30 --cacert "$API_DIR/api.crt" \
		--resolve "pmemk-api.test:$API_PORT:127.0.0.1" -X "$1" "${tok[@]}" "${data[@]}" \
		-o "$API_DIR/body" -w '%{http_code}' "https://pmemk-api.test:$API_PORT$2") || CODE=curl-failed
}

# api_expect METHOD PATH ROLE WANT [BODY]: the status is WANT.
api_expect() {
	api_req "$1" "$2" "$3" "${@:5}"
	if [ "$CODE" != "$4" ]; then
		echo "    FAIL: $1 $2 as $3: $CODE, want $4: $(head -c 300 "$API_DIR/body")"
		CASE_FAILED=1
		return 1
	fi
}

# api_body_has PATTERN: the last body matches (grep -E).
api_body_has() {
	grep -Eq -- "$1" "$API_DIR/body" && return 0
	echo "    FAIL: the answer has no match for $1: $(head -c 300 "$API_DIR/body")"
	CASE_FAILED=1
	return 1
}

# api_wait_job ID: poll /v1/jobs/ID until it is no longer running (30 s).
api_wait_job() {
	local i
	for i in $(seq 1 60); do
		api_req GET "/v1/jobs/$1" read
		grep -q '"state":"running"' "$API_DIR/body" || return 0
		sleep 0.5
	done
	echo "    FAIL: job $1 still running after 30 s"
	CASE_FAILED=1
	return 1
}

case_api_served() {
	local nbd_port r
	api_served_files || return
	API_PORT=$(net_free_port)
	nbd_port=$(net_free_port)
	live_boot api_served --nic virtio --hostfwd "$API_PORT:443" --hostfwd "$nbd_port:10809" \
		--smp 2 --ram 1G --nvdimm 256M --label-size 128K --fresh \
		--boot-file "api.crt=$API_DIR/api.crt" --boot-file "api.key=$API_DIR/api.key" \
		--boot-file "api.tokens=$API_DIR/tokens" \
		--cmdline 'api.request-timeout=3' || return
	live_wait '\] api: HTTPS on port 443 ' 30 || return

	# Every resource: no token 401, a read token reads and changes nothing.
	for r in /v1/regions /v1/namespaces /v1/dimms /v1/badblocks /v1/meminfo /v1/exports \
		/v1/system /v1/jobs /metrics; do
		api_expect GET "$r" none 401
		api_expect GET "$r" read 200
	done
	api_expect GET / none 200 && api_body_has '<html|<!doctype html|<!DOCTYPE html'
	api_expect POST /v1/namespaces read 403 '{"region":"region0","size":"16M"}'
	api_expect POST /v1/exports read 403 '{"device":"pmem0"}'
	for r in /v1/namespaces/namespace0.0 /v1/exports/pmem0m /v1/clients/1; do
		api_expect DELETE "$r" none 401
		api_expect DELETE "$r" read 403
	done
	api_expect POST /v1/namespaces/namespace0.0/check read 403
	echo "    every resource: 401 without a token; a read token reads (200) and changes nothing (403)"

	# Refusals: the console's parser's line, the reader's bounds.
	api_expect POST /v1/namespaces admin 400 '{"region":"region0","mode":"fast"}' &&
		api_body_has '"error":"mode .fast.: expected fsdax, devdax, sector or raw"'
	api_expect POST /v1/namespaces admin 400 '{"region":"region0",' &&
		api_body_has '"error":"body is not JSON'
	api_expect POST /v1/namespaces admin 413 "{\"name\":\"$(head -c 5000 /dev/zero | tr '\0' x)\"}"
	api_expect GET /v1/nothing read 404
	api_expect DELETE /v1/regions admin 405
	$API_PY test/api/api_client.py slow "$API_PORT" "$API_DIR/api.crt" pmemk-api.test |
		sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	$API_PY test/api/api_client.py cut "$API_PORT" "$API_DIR/api.crt" pmemk-api.test |
		sed 's/^/    /'
	$API_PY test/api/api_client.py pipeline "$API_PORT" "$API_DIR/api.crt" pmemk-api.test \
		"$API_READ" | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	$API_PY test/api/api_client.py limit "$API_PORT" "$API_DIR/api.crt" pmemk-api.test \
		"$API_READ" 4 | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	CODE=$(curl -s -m 30 --cacert "$API_DIR/api.crt" --resolve "pmemk-api.test:$API_PORT:127.0.0.1" \
		-H "X-Padding: $(head -c 9000 /dev/zero | tr '\0' p)" -o "$API_DIR/body" -w '%{http_code}' \
		"https://pmemk-api.test:$API_PORT/v1/regions")
	[ "$CODE" = 431 ] && api_body_has '"status":431' ||
		{ echo "    FAIL: 9000 bytes of headers: $CODE, want 431"; CASE_FAILED=1; }

	# A namespace made, exported, written and read over NBD, then undone, all through the API.
	api_expect POST /v1/dimms/nmem0/init-labels admin 200
	api_expect POST /v1/namespaces admin 201 \
		'{"region":"region0","size":"64M","mode":"fsdax","map":"dev","name":"api-made"}' &&
		api_body_has '"blockdev":"pmem0m"' && api_body_has '"name":"api-made"'
	api_expect GET /v1/namespaces/namespace0.0/infoblock read 200 &&
		api_body_has '"signature":"NVDIMM_PFN_INFO"'
	api_expect POST /v1/namespaces/namespace0.0/disable admin 200
	api_expect POST /v1/namespaces/namespace0.0/enable admin 200
	api_expect POST /v1/exports admin 201 '{"device":"pmem0m"}'
	nbdinfo "nbd://127.0.0.1:$nbd_port/pmem0m" | grep -q 'export-size: 65011712 ' ||
		{ echo "    FAIL: nbdinfo does not see the API's export of 62 MiB"; CASE_FAILED=1; }
	$API_PY test/api/api_client.py nbd "$nbd_port" pmem0m 1048576 | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	api_expect GET /v1/exports read 200 && api_body_has '"export":"pmem0m"'
	api_expect GET /metrics read 200
	$API_PY test/api/api_client.py metrics "$API_DIR/body" pmem0m 1048576 | tail -1 |
		sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1
	# Busy while exported: the console's refusal, 409.
	api_expect DELETE /v1/namespaces/namespace0.0 admin 409 && api_body_has '"error":"[^"]*busy'
	live_serial "destroy-namespace -f namespace0.0" || return
	grep -Fq -- "\"error\":\"$(api_console "destroy-namespace -f namespace0.0" | head -1)\"" "$API_DIR/body" ||
		{ echo "    FAIL: the API's refusal is not the console's: $(api_console "destroy-namespace -f namespace0.0" | head -1)"; CASE_FAILED=1; }
	api_expect DELETE /v1/exports/pmem0m admin 200
	api_expect DELETE /v1/namespaces/namespace0.0 admin 200
	echo "    labels initialised; a namespace created, disabled and enabled, exported, read over NBD, refused while exported (the console's line), unexported, destroyed"

	# map=mem is a job: 202, its resource, done with the namespace's JSON.
	api_expect POST /v1/namespaces admin 202 '{"region":"region0","size":"32M","map":"mem"}' &&
		api_body_has '"state":"running"'
	api_wait_job 1 && api_body_has '"state":"done".*"status":200' &&
		api_body_has '\\"map\\":\\"mem\\"'
	api_expect POST /v1/namespaces/namespace0.0/check admin 202
	api_wait_job 2

	# The console and the API: the same bytes.
	live_serial "list -RN" || return
	api_expect GET /v1/regions read 200
	if [ "$(api_console "list -RN")" != "$(cat "$API_DIR/body")" ]; then
		echo "    FAIL: GET /v1/regions is not the console's list -RN:"
		diff <(api_console "list -RN") "$API_DIR/body" | head -10 | sed 's/^/    | /'
		CASE_FAILED=1
	else
		echo "    GET /v1/regions is the console's list -RN, byte for byte ($(wc -c <"$API_DIR/body") bytes)"
	fi

	# The page in a real browser: every region and namespace of /v1/regions drawn.
	cp "$API_DIR/body" "$API_DIR/regions.json"
	$API_PY test/api/page_check.py "https://127.0.0.1:$API_PORT" "$API_READ" \
		"$LOGDIR/api_served-page" --expect-from "$API_DIR/regions.json" --expect-region region0 \
		--expect-ns namespace0.0=fsdax | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1

	# Counters after all of it (the longest answer is reported, never judged).
	api_expect GET /metrics read 200
	$API_PY test/api/api_client.py metrics "$API_DIR/body" - 0 | tail -1 | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" = 0 ] || CASE_FAILED=1

	# A source that keeps failing is refused, then even a valid token is.
	local good=$API_READ
	API_READ="guess.$(openssl rand -hex 16)"
	for r in 1 2 3 4 5; do
		api_expect GET /v1/regions read 401
	done
	API_READ=$good
	api_expect GET /v1/regions read 429
	live_wait '\] api: 10\.0\.2\.2:[0-9]+: 5 requests with a token that is not valid in 60 s; refusing' 5
	echo "    5 wrong tokens from one source: refused (429) for 60 s, valid token or not"

	live_type poweroff
	live_end 0
	expect '\] api: 10\.0\.2\.2:[0-9]+ \(admin\) POST /v1/namespaces: 201$'
	expect '\] api: job 1 on CPU 1: .create-namespace -r "region0" -s 33554432 -m fsdax -M mem -a 2M. returned 0$'
	expect '\] api: 10\.0\.2\.2:[0-9]+ no whole request within api\.request-timeout: 408$'
	expect '\] api: 10\.0\.2\.2:[0-9]+ closed in the middle of a request$'
	api_files_no_leak "$API_DIR/api.key"
}
