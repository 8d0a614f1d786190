# Linux judges the platform of tools/mkplatform (issue 33 item 1,
# docs/PLATFORM.md), then pmemk meets what Linux made there. One 4-way set
# with a media error stored before boot and SMART fields set on nmem1.
#   1 Linux: the bus's ARS commands and the DIMMs' label and SMART commands,
#     one region of four mappings, ndctl list -DH, the error as badblocks
#     after the boot's scrub; then init-labels on the four DIMMs and a
#     512 MiB fsdax namespace across the set (labels with nlabel 4).
#   2 pmemk: reads the four label areas Linux wrote: Linux's namespace is
#     its namespace0.0, fsdax, its head untouched; then pmemk creates a
#     256 MiB fsdax namespace across the set (one label per DIMM).
#   3 Linux: finds both namespaces (ndctl list -RNv), and read-labels -j
#     shows pmemk's label on each DIMM at its position, nlabel 4.
# Checks: test/qemu/platform.py linux and linux-reads.

case_platform_linux_judges() {
	local dir=build/qemu/linux_platform d=build/qemu/linux_platform/plat scen k before after
	rm -rf "$dir"
	mkdir -p "$dir/scenario"
	if ! tools/mkplatform "$d" --sets 4 --add-error 0x100402000 4096 --smart 1 \
		temperature_celsius=45 shutdown_state=dirty shutdown_count=9 >"$dir/mkplatform.log" 2>&1; then
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
json badblocks ndctl list -RM
step ndctl disable-region region0
for m in 0 1 2 3; do step ndctl init-labels -f nmem$m; done
step ndctl enable-region region0
step ndctl create-namespace -r region0 -s 512M -m fsdax
json created ndctl list -RNv
SCEN
	linux_boot linux_platform 0 "$scen" --platform "$d" --timeout 240
	local out
	if out=$(python3 test/qemu/platform.py linux "$LOG" "$d/platform.json" 2>&1); then
		echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	fi
	before=$(head -c 1048576 "$d/pmem0.img" | sha256sum)
	boot linux_platform_pmemk 0 --platform "$d" --timeout 120 --cmdline \
		'"run=list -RDN; read-labels nmem2 -j; create-namespace -r region0 -s 256M -m fsdax -n pmemk; poweroff"'
	expect '\] nd_label region0: namespace0\.0 from nmem0 label slot [0-9]+ and 3 more DIMMs \(nlabel 4\): uuid [0-9a-f-]+, 512 MiB at dpa 0, raw$'
	expect '\] nd_pfn pfn0\.0: namespace0\.0 fsdax map=dev'
	expect "\\] nd_label region0: namespace0\\.1 from nmem0 label slot [0-9]+ and 3 more DIMMs \\(nlabel 4\\): uuid [0-9a-f-]+, name 'pmemk', 256 MiB at dpa 0x8000000, raw$"
	expect_not 'refused|disabled'
	expect '"nlabel":4,'
	after=$(head -c 1048576 "$d/pmem0.img" | sha256sum)
	if [ "$before" != "$after" ]; then
		echo "    FAIL: pmemk changed the head of Linux's namespace"
		CASE_FAILED=1
	fi
	local pmemk_log=$LOG
	mkdir -p "$dir/scenario2"
	cat >"$dir/scenario2/scenario.sh" <<'SCEN'
. /guest.sh
json after ndctl list -RNv
for m in 0 1 2 3; do json labels$m ndctl read-labels -j nmem$m; done
SCEN
	linux_boot linux_platform_reads 0 "$dir/scenario2" --platform "$d" --timeout 240
	if out=$(python3 test/qemu/platform.py linux-reads "$LOG" "$pmemk_log" 2>&1); then
		echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	fi
}
