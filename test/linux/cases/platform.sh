# Linux judges the platform of tools/mkplatform (issue 33 item 1,
# docs/PLATFORM.md), then pmemk meets what Linux made there. One 4-way set
# on NUMA node 1 (nodes 0-1, node 0 with the RAM and CPUs), with a media
# error stored before boot and SMART fields set on nmem1 (dirty shutdown)
# and nmem2 (critical, an alarm).
#   1 Linux: the bus's ARS commands and the DIMMs' label and SMART commands,
#     one region of four mappings, ndctl list -DH, the error as badblocks
#     after the boot's scrub; then init-labels on the four DIMMs and a
#     512 MiB fsdax namespace across the set (labels with nlabel 4).
#   2 pmemk: reads the four label areas Linux wrote: Linux's namespace is
#     its namespace0.0, fsdax, its head untouched; then pmemk creates a
#     256 MiB fsdax namespace across the set (one label per DIMM). Its
#     list -DH equals Linux's ndctl list -DH on the fields both print
#     (issue 33 item 4), with boot lines for nmem1 and nmem2; its region's
#     numa_node and target_node are Linux's (ndctl list -Rv; item 6).
#   3 Linux: finds both namespaces (ndctl list -RNv), and read-labels -j
#     shows pmemk's label on each DIMM at its position, nlabel 4.
# Checks: test/qemu/platform_check.py linux, health-vs-linux, numa-vs-linux
# and linux-reads.

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
	if out=$(python3 test/qemu/platform_check.py linux "$LOG" "$d/platform.json" 2>&1); then
		echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	fi
	before=$(head -c 1048576 "$d/pmem0.img" | sha256sum)
	boot linux_platform_pmemk 0 --platform "$d" --timeout 120 --cmdline \
		'"run=list -RDN; list -DH; read-labels nmem2 -j; create-namespace -r region0 -s 256M -m fsdax -n pmemk; poweroff"'
	expect '\] nd_label region0: namespace0\.0 from nmem0 label slot [0-9]+ and 3 more DIMMs \(nlabel 4\): uuid [0-9a-f-]+, 512 MiB at dpa 0, raw$'
	expect '\] nd_pfn pfn0\.0: namespace0\.0 fsdax map=dev'
	expect "\\] nd_label region0: namespace0\\.1 from nmem0 label slot [0-9]+ and 3 more DIMMs \\(nlabel 4\\): uuid [0-9a-f-]+, name 'pmemk', 256 MiB at dpa 0x8000000, raw$"
	expect_not 'refused|disabled'
	expect '"nlabel":4,'
	# The same SMART payloads give the same list -DH, and boot lines for nmem1 and nmem2.
	expect '\] nvdimm nmem1: health ok, media 45\.0 C, .*, shutdown dirty, 9 unsafe shutdowns$'
	expect '\] nvdimm nmem2: health critical, media 52\.5 C, controller -0\.0625 C, spares 100%, life used 97%'
	if ! out=$(python3 test/qemu/platform_check.py health-vs-linux "$LOG" "$linux_log" 2>&1) ||
		! out+=$'\n'$(python3 test/qemu/platform_check.py numa-vs-linux "$LOG" "$linux_log" 2>&1); then
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	else
		echo "$out"
	fi
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
	if out=$(python3 test/qemu/platform_check.py linux-reads "$LOG" "$pmemk_log" 2>&1); then
		echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	fi
}

# Issue 33 item 3: pmemk clears an error, and Linux no longer sees it. A
# 2-way set with two errors stored before boot (sectors 128-135 and 256 of
# region0). pmemk's boot scrub lists both; a write over the first clears it
# through the firmware (function 4). Then Linux: after its own boot scrub
# (ndctl wait-scrub) only the second is a bad block, and the cleared
# sectors read back what pmemk wrote.
case_platform_linux_sees_the_clear() {
	local dir=build/qemu/linux_ars d=build/qemu/linux_ars/plat scen out
	rm -rf "$dir"
	mkdir -p "$dir/scenario"
	if ! tools/mkplatform "$d" --sets 2 --add-error 0x100010000 4096 --add-error 0x100020000 512 \
		>"$dir/mkplatform.log" 2>&1; then
		tail -5 "$dir/mkplatform.log" | sed 's/^/    FAIL: /'
		CASE_FAILED=1
		return
	fi
	boot linux_ars_pmemk 0 --platform "$d" --timeout 120 --cmdline \
		'"run=write pmem0 128 8 pattern=0x5a; list -RM; poweroff"'
	expect '\] region0: Address Range Scrub \(started at boot\): 2 error records, 9 bad sectors listed; clear unit 256 bytes$'
	expect_not "'write pmem0 128 8 pattern=0x5a' returned"
	scen=$dir/scenario
	cat >"$scen/scenario.sh" <<'SCEN'
. /guest.sh
step ndctl wait-scrub
json badblocks ndctl list -RM
echo "==== read $(dd if=/dev/pmem0 bs=512 skip=128 count=8 iflag=direct 2>/dev/null | od -An -tx1 -N8 | tr -d ' \n')"
SCEN
	linux_boot linux_ars 0 "$scen" --platform "$d" --timeout 240
	if ! out=$(python3 - "$LOG" <<'PY' 2>&1
import json, sys
text = open(sys.argv[1], errors="replace").read().replace("\r", "")
marker = "==== json badblocks\n"
if marker not in text:
    sys.exit("no ndctl list -RM output")
j = json.JSONDecoder().raw_decode(text[text.rindex(marker) + len(marker):].lstrip())[0]
regions = j if isinstance(j, list) else j.get("regions", [j])
bb = regions[0].get("badblocks")
if bb != [{"offset": 256, "length": 1}]:
    sys.exit("Linux's badblocks after pmemk's clear: %s" % bb)
print("    Linux: region0 badblocks %s" % bb)
PY
	); then
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	else
		echo "$out"
	fi
	expect '^==== read 5a5a5a5a5a5a5a5a$'
}

# Issue 33 item 5 on two 2-way sets and a 4-way set in one machine (--sets
# 2,2,4: region0 at 0x100000000 on nmem0-1, region1 at 0x120000000 on
# nmem2-3, region2 at 0x140000000 on nmem4-7), with three errors stored
# before any boot: 512 bytes at region0 offset 400 MiB and 4 KiB at region2
# offset 300 MiB (past every namespace), 4 KiB at region1 offset 40 MiB
# (inside Linux's fsdax namespace, past the data written). The 4-way set's
# fsdax is platform_linux_judges'. Three boots, each system judging the
# other's sector (BTT), devdax and fsdax namespaces:
#   1 Linux: its boot scrub (wait-scrub), init-labels on the eight DIMMs, a
#     64 MiB sector namespace (4 KiB sectors) and a 64 MiB devdax one in
#     region0 and in region2, a 64 MiB fsdax one in region1; seq=0x3100,
#     0x3200, 0x3300, 0x3400, 0x3500 (test/linux/interop.py seq) into the
#     first MiB of each (dd through /dev/pmemXs and /dev/pmemY, /daxrw
#     through /dev/daxX.Y); then ndctl list -RNDMv and read-labels -j of
#     each DIMM.
#   2 pmemk: list -RDNM first (compared with Linux's list on the fields both
#     print: regions by iset_id, namespaces by uuid; device names aside),
#     cmp of Linux's three patterns, read-labels -j of each DIMM (equal to
#     Linux's); then creates its own sector, devdax and fsdax namespaces
#     (named pmemk-s, pmemk-d, pmemk-f; pmemk-s4, pmemk-d4 on the 4-way
#     set), writes seq=0x4100..0x4500 into the first MiB of each, injects an
#     error into its fsdax namespace (inject-error -B 8192: 2 MiB into its
#     data, the head untouched), and lists and dumps the labels again.
#   3 Linux: ndctl list -RNDMv equals pmemk's last list (ten namespaces,
#     the badblocks of the stored and the injected errors after Linux's
#     scrub), sha256 of pmemk's five patterns, ndctl check-namespace on
#     pmemk's two BTTs (disabled first), read-labels -j of each DIMM equal
#     to pmemk's.
# Checks: test/qemu/platform_check.py list-vs-linux, labels-vs-linux.
case_platform_linux_judges_modes() {
	local dir=build/qemu/linux_modes d=build/qemu/linux_modes/plat scen out m k run
	rm -rf "$dir"
	mkdir -p "$dir/scenario/data"
	if ! tools/mkplatform "$d" --sets 2,2,4 --add-error 0x119000000 512 --add-error 0x122800000 4096 \
		--add-error 0x152c00000 4096 \
		>"$dir/mkplatform.log" 2>&1; then
		tail -5 "$dir/mkplatform.log" | sed 's/^/    FAIL: /'
		CASE_FAILED=1
		return
	fi
	scen=$dir/scenario
	for k in 31 32 33 34 35; do interop seq 0x${k}00 0 1048576 >"$scen/data/$k"; done
	cat >"$scen/scenario.sh" <<'SCEN'
. /guest.sh
step ndctl wait-scrub
r0=$(region_of_dimm 0) r1=$(region_of_dimm 1) r2=$(region_of_dimm 2)
for r in $r0 $r1 $r2; do step ndctl disable-region region$r; done
for m in 0 1 2 3 4 5 6 7; do step ndctl init-labels -f nmem$m; done
for r in $r0 $r1 $r2; do step ndctl enable-region region$r; done
step ndctl create-namespace -r region$r0 -s 64M -m sector -l 4096 -n linux-s
step ndctl create-namespace -r region$r0 -s 64M -m devdax -n linux-d
step ndctl create-namespace -r region$r1 -s 64M -m fsdax -n linux-f
step ndctl create-namespace -r region$r2 -s 64M -m sector -l 4096 -n linux-s4
step ndctl create-namespace -r region$r2 -s 64M -m devdax -n linux-d4
ns_head_write "$(ns_named $r0 linux-s)" /data/31
ns_head_write "$(ns_named $r0 linux-d)" /data/32
ns_head_write "$(ns_named $r1 linux-f)" /data/33
ns_head_write "$(ns_named $r2 linux-s4)" /data/34
ns_head_write "$(ns_named $r2 linux-d4)" /data/35
json created ndctl list -RNDMv
for m in 0 1 2 3 4 5 6 7; do json labels$m ndctl read-labels -j nmem$m; done
SCEN
	linux_boot linux_modes 0 "$scen" --platform "$d" --timeout 240
	local linux_log=$dir/linux.log
	cp "$LOG" "$linux_log"
	run='list -RDNM; cmp pmem0s 0 256 seq=0x3100; cmp dax0.1 0 2048 seq=0x3200; cmp pmem1m 0 2048 seq=0x3300; '
	run+='cmp pmem2s 0 256 seq=0x3400; cmp dax2.1 0 2048 seq=0x3500; '
	for m in 0 1 2 3 4 5 6 7; do run+="read-labels nmem$m -j; "; done
	run+='create-namespace -r region0 -s 64M -m sector -l 4096 -n pmemk-s; '
	run+='create-namespace -r region0 -s 64M -m devdax -n pmemk-d; '
	run+='create-namespace -r region1 -s 64M -m fsdax -n pmemk-f; '
	run+='create-namespace -r region2 -s 64M -m sector -l 4096 -n pmemk-s4; '
	run+='create-namespace -r region2 -s 64M -m devdax -n pmemk-d4; '
	run+='write pmem0.2s 0 256 seq=0x4100; write dax0.3 0 2048 seq=0x4200; write pmem1.1m 0 2048 seq=0x4300; '
	run+='write pmem2.2s 0 256 seq=0x4400; write dax2.3 0 2048 seq=0x4500; '
	run+='inject-error namespace1.1 -B 8192 -n 8; list -RDNM; '
	for m in 0 1 2 3 4 5 6 7; do run+="read-labels nmem$m -j; "; done
	boot linux_modes_pmemk 0 --platform "$d" --timeout 120 --cmdline "\"run=${run}poweroff\""
	local pmemk_log=$LOG
	expect '^cmp pmem0s: 1048576 bytes at 0 match$'
	expect '^cmp dax0\.1: 1048576 bytes at 0 match$'
	expect '^cmp pmem1m: 1048576 bytes at 0 match$'
	expect '^cmp pmem2s: 1048576 bytes at 0 match$'
	expect '^cmp dax2\.1: 1048576 bytes at 0 match$'
	expect_not "returned|refused|mismatch|no such"
	if out=$(python3 test/qemu/platform_check.py list-vs-linux "$pmemk_log" 1 "$linux_log" created 2>&1) &&
		out+=$'\n'$(python3 test/qemu/platform_check.py labels-vs-linux "$pmemk_log" 1 "$linux_log" 2>&1); then
		echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	fi
	mkdir -p "$dir/scenario2"
	cat >"$dir/scenario2/scenario.sh" <<'SCEN'
. /guest.sh
step ndctl wait-scrub
r0=$(region_of_dimm 0) r1=$(region_of_dimm 1) r2=$(region_of_dimm 2)
ns_head_sha s "$(ns_named $r0 pmemk-s)"
ns_head_sha d "$(ns_named $r0 pmemk-d)"
ns_head_sha f "$(ns_named $r1 pmemk-f)"
ns_head_sha s4 "$(ns_named $r2 pmemk-s4)"
ns_head_sha d4 "$(ns_named $r2 pmemk-d4)"
for ns in "$(ns_named $r0 pmemk-s)" "$(ns_named $r2 pmemk-s4)"; do
	step ndctl disable-namespace "$ns"
	rc=0
	step ndctl check-namespace "$ns" || rc=$?
	echo "==== check $ns $rc"
	step ndctl enable-namespace "$ns"
done
json after ndctl list -RNDMv
for m in 0 1 2 3 4 5 6 7; do json labels$m ndctl read-labels -j nmem$m; done
SCEN
	linux_boot linux_modes_reads 0 "$dir/scenario2" --platform "$d" --timeout 240
	for k in s:41 d:42 f:43 s4:44 d4:45; do
		want_sha "$LOG" "${k%:*}" "$(interop sha-seq 0x${k#*:}00 0 1048576)" "pmemk's seq=0x${k#*:}00"
	done
	if [ "$(grep -cE '^==== check namespace[0-9]+\.[0-9]+ 0$' "$LOG")" != 2 ]; then
		echo "    FAIL: ndctl check-namespace on pmemk's two BTTs: $(grep '^==== check' "$LOG" | tr '\n' ' ')"
		CASE_FAILED=1
	fi
	if out=$(python3 test/qemu/platform_check.py list-vs-linux "$pmemk_log" 2 "$LOG" after 2>&1) &&
		out+=$'\n'$(python3 test/qemu/platform_check.py labels-vs-linux "$pmemk_log" 2 "$LOG" 2>&1); then
		echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out"
		CASE_FAILED=1
	fi
}
