#!/usr/bin/env bash
# The status page (net/api_page.html) and its judge (test/api/page_check.py)
# against the mock API (test/api/mock_api.py), no kernel: page_check must
# pass on every fixture of regions, and must fail, with the line that says
# why, when a namespace is expected that the JSON lacks, when a mode is
# wrong, when the token is refused and when an endpoint answers 503.
#
#   test/api/page_selftest.sh [OUTDIR]     (make test-page; default build/test-page)
#
# Each chromium run is bounded by page_check (60 s); each mock is killed by
# its pid on the way out.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/test-page}
tok=page-selftest-token-0123456789
fix=test/api/fixtures
pids=()
fails=0
mkdir -p "$out"
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT

# mock NAME ARGS...: start a mock, set $url to it
mock() {
	local name=$1 port=
	shift
	rm -f "$out/$name.port"
	test/api/mock_api.py -q --live --token "$tok" --port-file "$out/$name.port" "$@" \
		>"$out/$name.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		[ -s "$out/$name.port" ] && port=$(cat "$out/$name.port") && break
		sleep 0.1
	done
	[ -n "$port" ] || { echo "page_selftest: mock $name did not start ($out/$name.log)"; exit 1; }
	url=https://127.0.0.1:$port
}

# expect pass|fail DIR LINE -- TOKEN OPTIONS...: page_check's status, and LINE (if not '') in its output
expect() {
	local want=$1 dir=$2 line=$3 got rc
	shift 4
	got=$(test/api/page_check.py "$url" "$1" "$out/$dir" "${@:2}")
	rc=$?
	printf '%s\n' "$got" | sed "s/^/  [$dir] /"
	if [ "$want" = pass ] && [ $rc != 0 ] || [ "$want" = fail ] && [ $rc != 1 ]; then
		echo "page_selftest: $dir: page_check exited $rc, expected to $want"
		fails=$((fails + 1))
	elif [ -n "$line" ] && ! grep -qxF -- "$line" <<<"$got"; then
		echo "page_selftest: $dir: no line '$line'"
		fails=$((fails + 1))
	fi
}

for f in regions regions-mixed regions-single; do
	mock "$f" --regions "$fix/$f.json"
	expect pass "$f" '' -- "$tok" --expect-from "$fix/$f.json"
done
mock faults --regions "$fix/regions.json"
expect fail missing-ns 'page_check: FAIL: namespace namespace0.3: no element id="ns-namespace0.3"' -- \
	"$tok" --expect-from "$fix/regions.json" --expect-ns namespace0.3
expect fail wrong-mode "page_check: FAIL: namespace namespace0.1: data-mode 'sector', expected 'fsdax'" -- \
	"$tok" --expect-region region0 --expect-ns namespace0.1=fsdax
expect fail bad-token '' -- wrong-token-0123456789 --expect-region region0
mock failing --fail /v1/exports=503
expect fail http-503 '' -- "$tok" --expect-region region0

if [ $fails != 0 ]; then
	echo "page_selftest: $fails failed"
	exit 1
fi
echo "page_selftest: ok (page_check passes on 3 fixtures, fails on 4 planted faults; screenshots in $out/*/page.png)"
