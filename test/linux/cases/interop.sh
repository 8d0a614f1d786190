# Namespaces made by one kernel, read by the other (issue 13 item 6): pmemk
# and Debian's Linux 6.1 with ndctl 76.1 on the same QEMU nvdimm backing
# files. One row per personality; each row is two cases:
#   ROW_linux_reads_pmemk   pmemk creates the namespace and writes to it;
#                           ndctl list shows the same mode, map, size, uuid,
#                           align, sector_size; Linux reads pmemk's bytes
#   ROW_pmemk_reads_linux   ndctl creates it and dd writes to it; pmemk's
#                           list -N shows the same; pmemk reads Linux's bytes
# All rows share four boots (a Linux boot costs 10-30 s under TCG, pmemk's
# a few): 1 pmemk creates, 2 pmemk writes (it needs the capacities of 1),
# 3 Linux reads those and creates and writes its own, 4 pmemk reads Linux's.
# Every boot has every row's two nvdimms: row r's pmemk-made one is nvdimm r,
# its Linux-made one nvdimm NROWS + r.
#
# Data, at byte offsets of the block device, so any sector size works:
#   pmemk -> Linux: seq=0x11rr over [0, 1 MiB), seq=0x12rr over the last
#     32 KiB, zero before them; Linux's sha256 of each set against the
#     host's (interop.py: nd_seq_word of include/nd_util.h)
#   Linux -> pmemk: seq=0x21rr over [0, 1 MiB) (the host's bytes, dd),
#     byte 0xa0+r over the last 32 KiB, zero before; pmemk's cmp of each.
#
# Columns (| separated):
#   row     case name prefix
#   size    each of its two nvdimms
#   pmemk   create-namespace arguments in pmemk's shell
#   linux   ndctl create-namespace arguments
#   data    blk: the block device's bytes as above (devdax: pmemk's block
#           view daxN.0, Linux's /dev/daxN.M through mmap, test/linux/daxrw.c);
#           -: none
#   check   -, or check: ndctl check-namespace on pmemk's namespace (BTT)
# devdax_1g is 3 GiB: wherever the nvdimm lands (2 MiB aligned), at least
# 1 GiB of 1 GiB-aligned data.
INTEROP_ROWS='
fsdax_dev | 1G   | -m fsdax -M dev | -m fsdax -M dev | blk | -
fsdax_mem | 512M | -m fsdax -M mem | -m fsdax -M mem | blk | -
fsdax_dev_4k | 256M | -m fsdax -M dev -a 4K | -m fsdax -M dev -a 4K | blk | -
fsdax_mem_4k | 256M | -m fsdax -M mem -a 4K | -m fsdax -M mem -a 4K | blk | -
raw       | 256M | -m raw          | -m raw          | blk | -
sector_4k | 256M | -m sector -l 4096 | -m sector -l 4096 | blk | check
sector_512 | 256M | -m sector -l 512 | -m sector -l 512 | blk | check
devdax_2m | 512M | -m devdax -M dev -a 2M | -m devdax -M dev -a 2M | blk | -
devdax_1g | 3G   | -m devdax -M mem -a 1G | -m devdax -M mem -a 1G | blk | -
'

# trim VAR: strip VAR's leading and trailing blanks.
trim() {
	local v=${!1}
	v=${v#"${v%%[![:space:]]*}"}
	printf -v "$1" '%s' "${v%"${v##*[![:space:]]}"}"
}
row_name=() row_size=() row_pmemk=() row_linux=() row_data=() row_check=()
while IFS='|' read -r n s p l d c; do
	for v in n s p l d c; do trim $v; done
	[ -n "$n" ] || continue
	row_name+=("$n") row_size+=("$s") row_pmemk+=("$p") row_linux+=("$l") row_data+=("$d") row_check+=("$c")
done <<<"$INTEROP_ROWS"
NROWS=${#row_name[@]}

# pmemk's block device for a namespace of MODE on nvdimm IDX (no memmap=, so
# its namespaces are numbered in address order, as the nvdimms are placed).
pmemk_dev() {
	case $1 in
	fsdax) echo "pmem$2m" ;;
	raw) echo "pmem$2" ;;
	sector) echo "pmem$2s" ;;
	devdax) echo "dax$2.0" ;;	# its block view: the device's name
	*) echo "pmemk-has-no-$1-device" ;;
	esac
}

# The mode and map a row asks for: arg_of "ARGS" -m|-M.
arg_of() {
	local a=($1) i
	for ((i = 0; i < ${#a[@]} - 1; i++)); do
		[ "${a[i]}" = "$2" ] && { echo "${a[i + 1]}"; return; }
	done
	return 0
}

INTEROP_DIR=build/qemu/linux_interop
INTEROP_LOGS=()	# the four boots' logs
INTEROP_BOOTED=0
INTEROP_BOOT_FAILED=0
P_JSON=()	# pmemk's listing of each row's pmemk-made namespace (boot 1)

KiB32=32768 MiB1=1048576

interop_boots() {
	[ $INTEROP_BOOTED = 1 ] && return
	INTEROP_BOOTED=1
	local saved=$CASE_FAILED r nv=() run log
	CASE_FAILED=0
	rm -rf "$INTEROP_DIR"
	for r in "${row_size[@]}" "${row_size[@]}"; do nv+=(--nvdimm "$r"); done
	local opts=(--dir "$INTEROP_DIR" --ram 1G "${nv[@]}")
	echo "    shared boots: ${NROWS} rows, $((2 * NROWS)) nvdimms"

	# 1. pmemk creates each row's namespace.
	run=
	for ((r = 0; r < NROWS; r++)); do
		run+="create-namespace -f -e namespace$r.0 ${row_pmemk[r]}; "
	done
	boot linux_interop_1_pmemk_create 0 "${opts[@]}" --timeout 120 \
		--cmdline "\"run=${run}list -N; poweroff\""
	INTEROP_LOGS[1]=$LOG
	for ((r = 0; r < NROWS; r++)); do
		P_JSON[r]=$(interop json "$LOG" 'pmemk> list -N' "namespace$r.0" 2>/dev/null) || P_JSON[r]=
	done

	# 2. pmemk writes them: offsets from boot 1's sizes and sector sizes.
	run=
	local dev ss cap
	for ((r = 0; r < NROWS; r++)); do
		[ "${row_data[r]}" = blk ] && [ -n "${P_JSON[r]}" ] || continue
		dev=$(interop field "${P_JSON[r]}" blockdev)
		ss=$(interop field "${P_JSON[r]}" sector_size)
		# devdax lists no block device: its block view, 512-byte sectors.
		[ "$(interop field "${P_JSON[r]}" mode)" = devdax ] && dev=$(pmemk_dev devdax $r) ss=512
		cap=$(interop field "${P_JSON[r]}" size)
		[ "$ss" -gt 0 ] 2>/dev/null || continue
		run+="write $dev 0 $((MiB1 / ss)) seq=$((0x1100 + r)); "
		run+="write $dev $(((cap - KiB32) / ss)) $((KiB32 / ss)) seq=$((0x1200 + r)); "
	done
	boot linux_interop_2_pmemk_write 0 "${opts[@]}" --timeout 120 --cmdline "\"run=${run}poweroff\""
	INTEROP_LOGS[2]=$LOG

	# 3. Linux reads what pmemk made, then makes and writes its own.
	local scen=build/linux/scenarios/interop
	rm -rf "$scen"
	mkdir -p "$scen/data"
	{
		echo '. /guest.sh'
		for ((r = 0; r < NROWS; r++)); do
			echo "pmemk_to_linux ${row_name[r]} $r"
			[ "${row_check[r]}" = check ] && echo "pmemk_to_linux_check ${row_name[r]} $r"
		done
		for ((r = 0; r < NROWS; r++)); do
			if [ "${row_data[r]}" = blk ]; then
				interop seq $((0x2100 + r)) 0 $MiB1 >"$scen/data/${row_name[r]}.head"
			fi
			echo "linux_to_pmemk ${row_name[r]} $((NROWS + r)) $((0xa0 + r)) ${row_linux[r]}"
		done
		echo 'json all ndctl list -RN'
	} >"$scen/scenario.sh"
	linux_boot linux_interop_3_linux 0 "$scen" "${opts[@]}" --timeout 240
	INTEROP_LOGS[3]=$LOG

	# 4. pmemk reads what Linux made.
	run='list -N; '
	local lj mode i
	for ((r = 0; r < NROWS; r++)); do
		[ "${row_data[r]}" = blk ] || continue
		i=$((NROWS + r))
		lj=$(interop json "${INTEROP_LOGS[3]}" "==== json ${row_name[r]}.l2p" 2>/dev/null) || continue
		mode=$(interop field "$lj" mode)
		dev=$(pmemk_dev "$mode" $i)
		ss=$(interop field "$lj" sector_size)
		[ "$mode" = devdax ] && ss=512
		cap=$(interop field "$lj" size)
		[ "$ss" -gt 0 ] 2>/dev/null || continue
		run+="cmp $dev 0 $((MiB1 / ss)) seq=$((0x2100 + r)); "
		run+="cmp $dev $(((cap - 2 * KiB32) / ss)) $((KiB32 / ss)) pattern=0; "
		run+="cmp $dev $(((cap - KiB32) / ss)) $((KiB32 / ss)) pattern=$((0xa0 + r)); "
		run+="read $dev 0 1; "
	done
	boot linux_interop_4_pmemk_check 0 "${opts[@]}" --timeout 120 --cmdline "\"run=${run}poweroff\""
	INTEROP_LOGS[4]=$LOG

	INTEROP_BOOT_FAILED=$CASE_FAILED
	CASE_FAILED=$saved
}

# The boots' results: a case fails with them.
interop_prelude() {
	interop_boots
	if [ "$INTEROP_BOOT_FAILED" != 0 ]; then
		echo "    FAIL: a shared boot failed (above, or in the first case run)"
		CASE_FAILED=1
	fi
}

# pmemk made row r's namespace on nvdimm r; Linux lists it the same and
# reads pmemk's bytes.
interop_linux_reads_pmemk() {
	local r=$1 row=${row_name[$1]} pj lj want
	interop_prelude
	pj=${P_JSON[r]}
	[ -n "$pj" ] || { echo "    FAIL: pmemk listed no namespace$r.0"; CASE_FAILED=1; return; }
	want_field pmemk "$pj" mode "$(arg_of "${row_pmemk[r]}" -m)"
	want=$(arg_of "${row_pmemk[r]}" -M)
	[ -z "$want" ] || want_field pmemk "$pj" map "$want"
	LOG=${INTEROP_LOGS[3]}
	json_of lj "$LOG" "==== json $row.p2l"
	same_namespace pmemk "$pj" linux "$lj"
	if [ "${row_data[r]}" = blk ]; then
		local cap
		cap=$(interop field "$pj" size)
		want_sha "$LOG" "$row.p2l.head" "$(interop sha-seq $((0x1100 + r)) 0 $MiB1)" \
			"pmemk's seq=$(printf %#x $((0x1100 + r))) at 0"
		want_sha "$LOG" "$row.p2l.guard" "$(interop sha-byte 0 $KiB32)" \
			"zeros before the last 32 KiB"
		want_sha "$LOG" "$row.p2l.tail" "$(interop sha-seq $((0x1200 + r)) $((cap - KiB32)) $KiB32)" \
			"pmemk's seq=$(printf %#x $((0x1200 + r))) in the last 32 KiB"
	fi
	if [ "${row_check[r]}" = check ]; then
		expect "^==== check $row.p2l 0\$"
	fi
}

# Linux made row r's namespace on nvdimm NROWS + r; pmemk lists it the same
# and reads Linux's bytes.
interop_pmemk_reads_linux() {
	local r=$1 row=${row_name[$1]} i=$((NROWS + $1)) pj lj want dev
	interop_prelude
	LOG=${INTEROP_LOGS[3]}
	json_of lj "$LOG" "==== json $row.l2p"
	[ -n "$lj" ] || return
	want_field linux "$lj" mode "$(arg_of "${row_linux[r]}" -m)"
	want=$(arg_of "${row_linux[r]}" -M)
	[ -z "$want" ] || want_field linux "$lj" map "$want"
	LOG=${INTEROP_LOGS[4]}
	json_of pj "$LOG" 'pmemk> list -N' "namespace$i.0"
	same_namespace linux "$lj" pmemk "$pj"
	if [ "${row_data[r]}" = blk ]; then
		local cap
		dev=$(pmemk_dev "$(interop field "$lj" mode)" $i)
		cap=$(interop field "$lj" size)
		expect "^cmp $dev: $MiB1 bytes at 0 match\$"
		expect "^cmp $dev: $KiB32 bytes at $(printf %#x $((cap - 2 * KiB32))) match\$"
		expect "^cmp $dev: $KiB32 bytes at $(printf %#x $((cap - KiB32))) match\$"
		expect_not "^(cmp|read) $dev: "'(mismatch|request|no such)'
		expect_not "^$dev: no such block device"
	fi
}

for ((r = 0; r < NROWS; r++)); do
	eval "case_${row_name[r]}_linux_reads_pmemk() { interop_linux_reads_pmemk $r; }"
	eval "case_${row_name[r]}_pmemk_reads_linux() { interop_pmemk_reads_linux $r; }"
done
