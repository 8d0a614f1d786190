# Linux judges the platform of tools/mkplatform (issue 33 item 1,
# docs/PLATFORM.md), then pmemk meets what Linux made there. One 4-way set
# on NUMA node 1 (nodes 0-1, node 0 with the RAM and CPUs), with a media
# error stored before boot and SMART fields set on nmem1 (dirty shutdown)
# and nmem2 (critical, an alarm).
#   1 Linux: the bus's ARS commands and the DIMMs' label and SMART commands,
#     one region of four mappings, ndctl list -DH, the error as badblocks
#     after the boot's scrub; then init-labels on the four DIMMs and a
#     512 MiB fsdax namespace across the set (labels with nlabel 4).
#   2 pmemk: reads the four label areas Linux wrote, keeps region0 closed
#     (never a raw pmem0 over Linux's namespace) and leaves it untouched;
#     its list -DH equals Linux's ndctl list -DH on the fields both print
#     (issue 33 item 4), with boot lines for nmem1 and nmem2; its region's
#     numa_node and target_node are Linux's (ndctl list -Rv; item 6).
# Checks: test/qemu/platform.py linux, and the same as platform.sh's
# platform_linux_labels_closed for pmemk.

case_platform_linux_judges() {
	local dir=build/qemu/linux_platform d=build/qemu/linux_platform/plat scen k before after
	rm -rf "$dir"
	mkdir -p "$dir/scenario"
	if ! tools/mkplatform "$d" --sets 4 --numa-node 1 --add-error 0x100402000 4096 --smart 1 \
		temperature_celsius=45 shutdown_state=dirty shutdown_count=9 --smart 2 \
		health_state=critical temperature_celsius=52.5 controller_temperature_celsius=-0.0625 \
		alarm_flags=2 life_used_percentage=97 >"$dir/mkplatform.log" 2>&1; then
		tail -5 "$dir/mkplatform.log" | sed 's/^/    FAIL: /'
		CASE_FAILED=1
		return
	fi
	scen=$dir/scenario
	cat >"$scen/scenario.sh" <<'SCEN'
. /guest.sh
echo "==== bus $(cat /sys/bus/nd/devices/ndbus0/commands)"
for d in /sys/bus/nd/devices/nmem*; do
	echo "==== dimm ${d##*/} $(cat "$d/nfit/handle") $(cat "$d/commands")"
done
json regions ndctl list -RD
json health ndctl list -DH
json numa ndctl list -Rv
json badblocks ndctl list -RM
step ndctl disable-region region0
for m in 0 1 2 3; do step ndctl init-labels -f nmem$m; done
step ndctl enable-region region0
step ndctl create-namespace -r region0 -s 512M -m fsdax
json created ndctl list -RNv
SCEN
	linux_boot linux_platform 0 "$scen" --platform "$d" --timeout 240
	local out linux_log=$dir/linux.log
	cp "$LOG" "$linux_log"
	if out=$(python3 test/qemu/platform.py linux "$LOG" "$d/platform.json" 2>&1); then
		echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	fi
	before=$(for k in 0 1 2 3; do tools/mkplatform "$d" --dump-label-area $k /dev/stdout; done |
		cat - <(head -c 1048576 "$d/pmem0.img") | sha256sum)
	boot linux_platform_pmemk 0 --platform "$d" --timeout 120 --cmdline \
		'"run=list -RDN; list -DH; read-labels nmem2 -j; poweroff"'
	expect '\] nd_label region0: disabled, no namespace: 4 of its 4 DIMMs hold labels \([0-9]+ live, nlabel up to 4\) of an interleave set'
	expect_not 'nd_pmem|nd_pfn|pmem0'
	expect '"nlabel":4,'
	if ! out=$(python3 test/qemu/platform.py list "$LOG" "$d/platform.json" closed 2>&1); then
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	else
		echo "$out"
	fi
	# The same SMART payloads give the same list -DH, and boot lines for nmem1 and nmem2.
	expect '\] nvdimm nmem1: health ok, media 45\.0 C, .*, shutdown dirty, 9 unsafe shutdowns$'
	expect '\] nvdimm nmem2: health critical, media 52\.5 C, controller -0\.0625 C, spares 100%, life used 97%'
	if ! out=$(python3 test/qemu/platform.py health-vs-linux "$LOG" "$linux_log" 2>&1) ||
		! out+=$'\n'$(python3 test/qemu/platform.py numa-vs-linux "$LOG" "$linux_log" 2>&1); then
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	else
		echo "$out"
	fi
	after=$(for k in 0 1 2 3; do tools/mkplatform "$d" --dump-label-area $k /dev/stdout; done |
		cat - <(head -c 1048576 "$d/pmem0.img") | sha256sum)
	if [ "$before" != "$after" ]; then
		echo "    FAIL: pmemk changed the label areas or the head of Linux's namespace"
		CASE_FAILED=1
	fi
}
