# Labelled namespaces both ways (issue 15 item 6): two 1 GiB nvdimms with
# QEMU label areas (label-size=128K). pmemk labels nvdimm 1 and makes an
# fsdax, a sector (4096) and a devdax namespace on it; Linux labels
# nvdimm 0 (ndctl init-labels -V 1.2) and makes the same three. Three boots:
#   1 pmemk: init-labels, create-namespace -r ... -n NAME, writes seq data
#   2 Linux: lists pmemk's namespaces by label name, reads their data,
#     check-namespace on the BTT, read-labels -j of pmemk's label area;
#     then makes its own three and writes them
#   3 pmemk: lists Linux's namespaces, compares their data, read-labels -j
# Each side's listing of a namespace must equal the other's (interop.py
# same: every field but device names and NUMA nodes; ndctl list -v, which
# lists raw_uuid, the label's uuid, as pmemk's list does), and each side's
# read-labels -j of a label area the other wrote must equal the writer's.
#
# Rows: label name | create-namespace arguments (both sides) | pmemk's device
# (pmemk numbers a region's namespaces in DPA order, as Linux does at boot,
# and these are created in order from a blank area).
LABEL_ROWS='
fs  | -s 256M -m fsdax -M dev        | pmemR.0m
sec | -s 128M -m sector -l 4096      | pmemR.1s
dax | -s 128M -m devdax -M dev -a 2M | daxR.2
'
lbl_name=() lbl_args=() lbl_dev=()
while IFS='|' read -r n a d; do
	for v in n a d; do trim $v; done
	[ -n "$n" ] || continue
	lbl_name+=("$n") lbl_args+=("$a") lbl_dev+=("$d")
done <<<"$LABEL_ROWS"

LABELS_DIR=build/qemu/linux_labels
LABELS_LOGS=()
LABELS_BOOTED=0
LABELS_BOOT_FAILED=0

# pmemk's device for row i on region R (pmemR.0m: region 0's first is pmem0m).
lbl_pmemk_dev() {
	local d=${lbl_dev[$1]//R/$2}
	echo "${d/.0m/m}"
}

# The sector size pmemk's write/cmp count in for row i.
lbl_ss() {
	case ${lbl_args[$1]} in *"-l 4096"*) echo 4096 ;; *) echo 512 ;; esac
}

labels_boots() {
	[ $LABELS_BOOTED = 1 ] && return
	LABELS_BOOTED=1
	local saved=$CASE_FAILED i run dev ss
	CASE_FAILED=0
	rm -rf "$LABELS_DIR"
	local opts=(--dir "$LABELS_DIR" --ram 1G --nvdimm 1G --nvdimm 1G --label-size 128K)

	# 1. pmemk labels nvdimm 1 (region1, nmem1) and makes its namespaces.
	run='init-labels nmem1; '
	for ((i = 0; i < ${#lbl_name[@]}; i++)); do
		run+="create-namespace -r region1 ${lbl_args[i]} -n p${lbl_name[i]}; "
	done
	run+='list -N; read-labels nmem1 -j; '
	for ((i = 0; i < ${#lbl_name[@]}; i++)); do
		dev=$(lbl_pmemk_dev $i 1) ss=$(lbl_ss $i)
		run+="write $dev 0 $((MiB1 / ss)) seq=$((0x3100 + i)); "
	done
	boot linux_labels_1_pmemk 0 "${opts[@]}" --timeout 120 --cmdline "\"run=${run}poweroff\""
	LABELS_LOGS[1]=$LOG

	# 2. Linux reads pmemk's, then labels nvdimm 0 and makes its own.
	local scen=build/linux/scenarios/labels
	rm -rf "$scen"
	mkdir -p "$scen/data"
	{
		echo '. /guest.sh'
		echo 'p=$(region_of_dimm 1); l=$(region_of_dimm 0)'
		for ((i = 0; i < ${#lbl_name[@]}; i++)); do
			echo "ns=\$(ns_named \$p p${lbl_name[i]})"
			echo "json lbl.p${lbl_name[i]} ndctl list -v -n \$ns"
			echo "ns_head_sha lbl.p${lbl_name[i]} \$ns"
			if [[ ${lbl_args[i]} == *sector* ]]; then
				echo 'step ndctl disable-namespace $ns'
				echo 'rc=0; step ndctl check-namespace $ns || rc=$?'
				echo "echo \"==== check lbl.p${lbl_name[i]} \$rc\""
				echo 'step ndctl enable-namespace $ns'
			fi
		done
		echo 'json lbl.p.labels ndctl read-labels -j $(nmem_of_region $p)'
		echo 'm=$(nmem_of_region $l)'
		echo 'step ndctl disable-region region$l'
		echo 'step ndctl init-labels -f -V 1.2 $m'
		echo 'step ndctl enable-region region$l'
		for ((i = 0; i < ${#lbl_name[@]}; i++)); do
			interop seq $((0x3200 + i)) 0 $MiB1 >"$scen/data/l${lbl_name[i]}.head"
			echo "step ndctl create-namespace -r region\$l ${lbl_args[i]} -n l${lbl_name[i]}"
			echo "ns=\$(ns_named \$l l${lbl_name[i]})"
			echo "ns_head_write \$ns /data/l${lbl_name[i]}.head"
			echo "json lbl.l${lbl_name[i]} ndctl list -v -n \$ns"
		done
		echo 'json lbl.l.labels ndctl read-labels -j $m'
	} >"$scen/scenario.sh"
	linux_boot linux_labels_2_linux 0 "$scen" "${opts[@]}" --timeout 240
	LABELS_LOGS[2]=$LOG

	# 3. pmemk reads Linux's.
	run='list -N; read-labels nmem0 -j; '
	for ((i = 0; i < ${#lbl_name[@]}; i++)); do
		dev=$(lbl_pmemk_dev $i 0) ss=$(lbl_ss $i)
		run+="cmp $dev 0 $((MiB1 / ss)) seq=$((0x3200 + i)); "
	done
	boot linux_labels_3_pmemk 0 "${opts[@]}" --timeout 120 --cmdline "\"run=${run}poweroff\""
	LABELS_LOGS[3]=$LOG

	LABELS_BOOT_FAILED=$CASE_FAILED
	CASE_FAILED=$saved
}

labels_prelude() {
	labels_boots
	if [ "$LABELS_BOOT_FAILED" != 0 ]; then
		echo "    FAIL: a shared boot failed (above, or in the first case run)"
		CASE_FAILED=1
	fi
}

# pmemk labelled nvdimm 1: Linux lists each namespace as pmemk does (label
# uuid, name, size, mode...), reads pmemk's data, finds the BTT clean, and
# reads pmemk's label area as pmemk does.
case_labels_linux_reads_pmemk() {
	local i pj lj
	labels_prelude
	for ((i = 0; i < ${#lbl_name[@]}; i++)); do
		LOG=${LABELS_LOGS[1]}
		json_of pj "$LOG" 'pmemk> list -N' "name=p${lbl_name[i]}"
		LOG=${LABELS_LOGS[2]}
		json_of lj "$LOG" "==== json lbl.p${lbl_name[i]}"
		same_namespace pmemk "$pj" linux "$lj"
		want_sha "$LOG" "lbl.p${lbl_name[i]}" "$(interop sha-seq $((0x3100 + i)) 0 $MiB1)" \
			"pmemk's seq at 0 of p${lbl_name[i]}"
		[[ ${lbl_args[i]} == *sector* ]] && expect "^==== check lbl.p${lbl_name[i]} 0\$"
	done
	# Under v1.2 labels pmemk's BTT is 2.0 at offset 0, as Linux's is (claim class BTT2).
	LOG=${LABELS_LOGS[1]}
	expect 'namespace1\.1 sector 4096, BTT 2\.0, '
	json_of pj "${LABELS_LOGS[1]}" 'pmemk> read-labels nmem1 -j'
	json_of lj "${LABELS_LOGS[2]}" '==== json lbl.p.labels'
	same_namespace "pmemk read-labels" "$pj" "ndctl read-labels" "$lj"
}

# Linux labelled nvdimm 0: pmemk lists each namespace as Linux does, reads
# Linux's data, and reads Linux's label area as ndctl does.
case_labels_pmemk_reads_linux() {
	local i pj lj dev
	labels_prelude
	for ((i = 0; i < ${#lbl_name[@]}; i++)); do
		json_of lj "${LABELS_LOGS[2]}" "==== json lbl.l${lbl_name[i]}"
		LOG=${LABELS_LOGS[3]}
		json_of pj "$LOG" 'pmemk> list -N' "name=l${lbl_name[i]}"
		same_namespace linux "$lj" pmemk "$pj"
		dev=$(lbl_pmemk_dev $i 0)
		expect "^cmp $dev: $MiB1 bytes at 0 match\$"
	done
	json_of lj "${LABELS_LOGS[2]}" '==== json lbl.l.labels'
	json_of pj "${LABELS_LOGS[3]}" 'pmemk> read-labels nmem0 -j'
	same_namespace "ndctl read-labels" "$lj" "pmemk read-labels" "$pj"
}
