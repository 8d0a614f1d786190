# pfn devices and the pmem block device (issue "pfn devices and the
# pfn-mode pmem block layer"): persistence across boots, a crash mid-write,
# corrupted info blocks, and namespaces formatted by Linux.

# Run alone, never beside another case (test/run-cases.sh): kill timing.
SERIAL_CASES+=" pfn_crash_mid_write"

INFOBLOCK=build/tools/pmemk-infoblock

# Create map=dev and map=mem devices, write patterns, reboot with no
# configuration: same uuid, mode and dataoff, data intact.
case_pfn_survives_reboot() {
	local dir=build/qemu/pfn_reboot
	rm -rf "$dir"
	boot pfn_reboot_1 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm 512M --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; create-namespace -f -e namespace1.0 -m fsdax -M mem -a 4K; write pmem0m 0 2048 seq=7; write pmem1m 100 64 pattern=0x5a; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x1200000: pmem0m'
	expect 'nd_pfn pfn1.0: namespace1.0 fsdax map=mem align 0x1000 dataoff 0x200000: pmem1m'
	local uuid0 uuid1
	uuid0=$("$INFOBLOCK" read "$dir/nvdimm0.img" | sed 's/.*"uuid":"\([^"]*\)".*/\1/')
	uuid1=$("$INFOBLOCK" read "$dir/nvdimm1.img" | sed 's/.*"uuid":"\([^"]*\)".*/\1/')
	# Sector 0 of pmem0m is byte dataoff of the backing file.
	local word
	word=$(od -An -tx8 -j $((0x1200000)) -N8 "$dir/nvdimm0.img" | tr -d ' ')
	if [ "$word" != "0000000000000007" ]; then
		echo "    FAIL: backing file at dataoff holds $word, want seq=7's first word"
		CASE_FAILED=1
	fi
	boot pfn_reboot_2 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm 512M --cmdline \
		'"run=list -N; cmp pmem0m 0 2048 seq=7; cmp pmem1m 100 64 pattern=0x5a; cmp pmem1m 99 1 pattern=0; poweroff"'
	expect "\"uuid\":\"$uuid0\""
	expect "\"uuid\":\"$uuid1\""
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x1200000: pmem0m'
	expect '^cmp pmem0m: 1048576 bytes at 0 match'
	# An unchanged map=dev device comes back without a byte stored to pmem.
	expect 'nd_pfn pfn0.0: brought back in [0-9]+ us, 0 bytes stored to pmem'
	expect '^cmp pmem1m: 32768 bytes at 0xc800 match'
	expect '^cmp pmem1m: 512 bytes at 0xc600 match'
	expect_not 'mismatch'
}

# Block I/O limits: out of range and unaligned requests fail, nothing else changes.
case_pmem_rejects_bad_requests() {
	local dir=build/qemu/pmem_bounds
	rm -rf "$dir"
	# 256 MiB namespace, dataoff 6 MiB: 250 MiB = 512000 sectors, the last is 511999.
	boot pmem_bounds 0 --dir "$dir" --ram 1G --nvdimm 256M --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; write pmem0m 511998 2 pattern=0x33; write pmem0m 512000 1 pattern=0x22; write pmem0m 511999 2 pattern=0x44; write pmem0m 99999999999 1 pattern=0x55; write pmem0m 0x7fffffffffffff 2 pattern=0x55; cmp pmem0m 511998 2 pattern=0x33; cmp pmem0m 511990 8 pattern=0; dax pmem0m 511999 1; dax pmem0m 512000 1; write pmem0 0 1 pattern=0x66; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x600000: pmem0m, 250 MiB'
	[ "$(grep -c '^write pmem0m: request past the end of the device (error -' "$LOG")" = 4 ] ||
		{ echo "    FAIL: want 4 writes refused as past the end"; CASE_FAILED=1; }
	expect '^cmp pmem0m: 1024 bytes at 0xf9ffc00 match'
	expect '^cmp pmem0m: 4096 bytes at 0xf9fec00 match'
	expect '^dax pmem0m: sector 511999 at pfn 0x10ffff dev map, 512 bytes mappable, struct page ZONE_DEVICE stored at 0x100[0-5][0-9a-f]{5} \(on the device\)'
	expect '^dax pmem0m: request past the end of the device'
	expect '^pmem0: no such block device'	# never exposed raw while claimed
}

# QEMU killed in the middle of a large write: the info block and all data
# outside the write are intact at the next boot.
case_pfn_crash_mid_write() {
	local dir=build/qemu/pfn_crash
	rm -rf "$dir"
	boot pfn_crash_1 0 --dir "$dir" --ram 1G --nvdimm 1G --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; write pmem0m 0 2000000 seq=1; poweroff"'
	local before
	before=$(dd if="$dir/nvdimm0.img" bs=4096 skip=1 count=1 2>/dev/null | sha1sum)
	# Overwrite 512 MiB from sector 65536 (about half a second under TCG)
	# and pull the plug once it is under way.
	boot_kill pfn_crash_2 'pmemk> write pmem0m 65536' 0.1 --dir "$dir" --ram 1G --nvdimm 1G \
		--cmdline '"run=write pmem0m 65536 1048576 seq=2; poweroff 9"'
	if grep -q 'poweroff: status 9' "$LOG"; then
		echo "    FAIL: the write finished before QEMU was killed; the test proves nothing"
		CASE_FAILED=1
	fi
	local after
	after=$(dd if="$dir/nvdimm0.img" bs=4096 skip=1 count=1 2>/dev/null | sha1sum)
	[ "$before" = "$after" ] || { echo "    FAIL: the info block changed"; CASE_FAILED=1; }
	boot pfn_crash_3 0 --dir "$dir" --ram 1G --nvdimm 1G --cmdline \
		'"run=cmp pmem0m 0 65536 seq=1; cmp pmem0m 1114112 885888 seq=1; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x1200000: pmem0m'
	expect '^cmp pmem0m: 33554432 bytes at 0 match'
	expect '^cmp pmem0m: 453574656 bytes at 0x22000000 match'
	expect_not 'mismatch'
}

# Every info-block field corrupted in the backing file: the boot says why and
# writes nothing. No signature: raw. A stale checksum or another namespace's
# parent_uuid: damaged, disabled, never raw (issue 29 item 5). Checksummed
# bad field: disabled.
case_pfn_corrupt_infoblock_reported() {
	local dir=build/qemu/pfn_corrupt img
	rm -rf "$dir"
	boot pfn_corrupt_0 0 --dir "$dir" --ram 1G --nvdimm 256M --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; poweroff"'
	img=$dir/nvdimm0.img
	cp "$img" "$dir/good.img"
	local spec field want row=0
	while IFS='|' read -r spec want; do
		[ -n "$spec" ] || continue
		row=$((row + 1))
		cp "$dir/good.img" "$img"
		# shellcheck disable=SC2086
		"$INFOBLOCK" set "$img" $spec >/dev/null
		local sum_before sum_after
		sum_before=$(sha1sum <"$img")
		boot "pfn_corrupt_${row}_${spec%%=*}" 0 --dir "$dir" --ram 1G --nvdimm 256M \
			--cmdline '"run=list -N; poweroff"'
		sum_after=$(sha1sum <"$img")
		expect "$want"
		case $want in *disabled*) expect_not 'nd_pmem namespace0\.0: raw' ;; esac
		[ "$sum_before" = "$sum_after" ] ||
			{ echo "    FAIL: probing with $spec wrote to the namespace"; CASE_FAILED=1; }
	done <<-'EOF'
	signature=NVDIMM_XXX_INFO|nd_pmem namespace0.0: raw, pmem0
	dataoff=0x601000 --stale-checksum|nd_pfn pfn0.0: namespace0.0 fsdax map=none disabled: invalid info block: info block checksum mismatch$
	mode=7|disabled: invalid info block: mode is neither 1 \(map=mem\) nor 2 \(map=dev\)
	version_major=2|disabled: invalid info block: version_major is not 1
	page_size=65536|disabled: invalid info block: page_size larger than this kernel's 4096
	page_struct_size=32|disabled: invalid info block: page_struct_size smaller than
	align=0x300000|disabled: invalid info block: align is not a power of two
	dataoff=0x601000|disabled: invalid info block: dataoff not aligned to align
	dataoff=0x40000000|disabled: invalid info block: dataoff past the end of the namespace
	end_trunc=4096|disabled: invalid info block: namespace end - end_trunc not 2 MiB aligned
	parent_uuid=00000000-0000-0000-0000-000000000001|nd_pfn pfn0.0: namespace0.0 fsdax map=dev disabled: invalid info block: parent_uuid does not match the namespace$
	dataoff=0x200000|disabled: map=dev memmap does not fit
	EOF
}

# Namespaces Linux 6.1/ndctl formatted (test/fixtures) attach with Linux's
# dataoff and npfns, and Linux's sector 0 is ours.
case_pfn_attaches_linux_layouts() {
	local dir=build/qemu/pfn_linux fx
	for fx in dev-4G mem-4G dev-4G-align1G; do
		rm -rf "$dir"
		mkdir -p "$dir"
		truncate -s 4G "$dir/nvdimm0.img"
		dd if="test/fixtures/linux-6.1-fsdax-$fx.head.bin" of="$dir/nvdimm0.img" conv=notrunc 2>/dev/null
		local dataoff npfns
		dataoff=$("$INFOBLOCK" read "$dir/nvdimm0.img" | sed 's/.*"dataoff":\([0-9]*\).*/\1/')
		npfns=$("$INFOBLOCK" read "$dir/nvdimm0.img" | sed 's/.*"npfns":\([0-9]*\).*/\1/')
		printf 'PMEMTEST\n' | dd of="$dir/nvdimm0.img" bs=1 seek="$dataoff" conv=notrunc 2>/dev/null
		boot "pfn_linux_$fx" 0 --dir "$dir" --ram 1G --nvdimm 4G --cmdline \
			'"run=read-infoblock namespace0.0; list -N; read pmem0m 0 1; poweroff"'
		expect "fsdax map=.* dataoff $(printf '%#x' "$dataoff"): pmem0m, $(( (4294967296 - dataoff) >> 20 )) MiB"
		expect "\"npfns\":$npfns,"
		expect '^00000000: 50 4d 45 4d 54 45 53 54 0a 00'
	done
}

# A 4 GiB nvdimm formatted here decodes to what ndctl writes for that size and
# mode (test/fixtures), and sector 0 of the block device is byte dataoff.
case_pfn_4g_matches_ndctl_layout() {
	local dir=build/qemu/pfn_4g mode fx
	for mode in dev mem; do
		rm -rf "$dir"
		boot "pfn_4g_$mode" 0 --dir "$dir" --ram 1G --nvdimm 4G --cmdline \
			"\"run=create-namespace -f -e namespace0.0 -m fsdax -M $mode; write pmem0m 0 1 pattern=0xc3; dax pmem0m 1000 1; poweroff\""
		fx=test/fixtures/linux-6.1-fsdax-$mode-4G.head.bin
		local ours linux
		ours=$("$INFOBLOCK" read "$dir/nvdimm0.img" | sed 's/"file":"[^"]*",//; s/"uuid":"[^"]*",//; s/"checksum":"[^"]*",//')
		linux=$("$INFOBLOCK" read "$fx" --size 4G | sed 's/"file":"[^"]*",//; s/"uuid":"[^"]*",//; s/"checksum":"[^"]*",//')
		if [ "$ours" != "$linux" ]; then
			echo "    FAIL: map=$mode info block differs from ndctl's:"
			echo "    ours:  $ours"
			echo "    linux: $linux"
			CASE_FAILED=1
		fi
		local dataoff byte
		dataoff=$("$INFOBLOCK" read "$dir/nvdimm0.img" | sed 's/.*"dataoff":\([0-9]*\).*/\1/')
		byte=$(od -An -tx1 -j "$dataoff" -N1 "$dir/nvdimm0.img" | tr -d ' ')
		[ "$byte" = c3 ] || { echo "    FAIL: byte dataoff of the file is $byte, want c3"; CASE_FAILED=1; }
		if [ $mode = dev ]; then
			expect 'struct page ZONE_DEVICE stored at 0x1[0-9a-f]+ \(on the device\)'
		else
			expect 'struct page ZONE_DEVICE stored at 0x[0-9a-f]+ \(in RAM\)'
		fi
	done
}

# pmem.create= configures an unattended boot once; later boots change nothing.
case_pmem_create_param_is_idempotent() {
	local dir=build/qemu/pmem_create
	rm -rf "$dir"
	boot pmem_create_1 0 --dir "$dir" --ram 1G --nvdimm 512M --cmdline \
		'pmem.create=namespace0.0:fsdax:dev:2M "run=write pmem0m 0 8 pattern=0x77; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000'
	local sum
	sum=$(dd if="$dir/nvdimm0.img" bs=4096 skip=1 count=1 2>/dev/null | sha1sum)
	boot pmem_create_2 0 --dir "$dir" --ram 1G --nvdimm 512M --cmdline \
		'pmem.create=namespace0.0:fsdax:dev:2M "run=cmp pmem0m 0 8 pattern=0x77; poweroff"'
	expect 'pmem.create: namespace0.0 already configured'
	expect '^cmp pmem0m: 4096 bytes at 0 match'
	[ "$sum" = "$(dd if="$dir/nvdimm0.img" bs=4096 skip=1 count=1 2>/dev/null | sha1sum)" ] ||
		{ echo "    FAIL: the second boot rewrote the info block"; CASE_FAILED=1; }
	# A different layout over an existing device needs :force.
	boot pmem_create_3 0 --dir "$dir" --ram 1G --nvdimm 512M --cmdline \
		'pmem.create=namespace0.0:fsdax:mem "run=poweroff"'
	expect 'namespace0.0 is active, specify -f/--force'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev'
	boot pmem_create_4 0 --dir "$dir" --ram 1G --nvdimm 512M --cmdline \
		'pmem.create=namespace0.0:fsdax:mem:4K:force,bogus "run=poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=mem align 0x1000'
	expect 'pmem.create=bogus: expected NS:fsdax'
}

# Every persistence path writes the same bytes: each write-back instruction,
# non-temporal and cached copies, and a CPU without clwb asked for it.
case_pmem_every_persistence_path() {
	local dir=build/qemu/pmem_paths flush copy
	for flush in clwb clflushopt clflush; do
		for copy in nt cached; do
			rm -rf "$dir"
			boot "pmem_paths_${flush}_$copy" 0 --dir "$dir" --ram 512M --nvdimm 256M --cmdline \
				"pmem.flush=$flush pmem.copy=$copy \"run=create-namespace -f -e namespace0.0 -m fsdax -M mem; write pmem0m 3 1000 seq=5; cmp pmem0m 3 1000 seq=5; poweroff\""
			expect "pmem: persistence by $flush(| \\(forced\\)), $copy copies, sfence"
			expect '^cmp pmem0m: 512000 bytes at 0x600 match'
		done
	done
	rm -rf "$dir"
	boot pmem_paths_noclwb 0 --dir "$dir" --cpu qemu64 --ram 512M --nvdimm 256M --cmdline \
		'pmem.flush=clwb "run=create-namespace -f -e namespace0.0 -m fsdax -M dev; write pmem0m 0 64 seq=9; cmp pmem0m 0 64 seq=9; poweroff"'
	expect 'pmem.flush=clwb: this CPU has no clwb, using clflush'
	expect '^cmp pmem0m: 32768 bytes at 0 match'
}

# Rebuild a Linux BTT fixture's backing file from its chunks (the .txt's
# table: every byte outside them is zero): fixture_image FIXTURE FILE SIZE.
fixture_image() {
	local fx=$1 out=$2 size=$3 n bin file len
	rm -f "$out"
	truncate -s "$size" "$out"
	while read -r n bin file _ len _; do
		dd if="$fx.bin" of="$out" bs=4096 skip=$((bin / 4096)) seek=$((file / 4096)) \
			count=$((len / 4096)) conv=notrunc 2>/dev/null
	done < <(sed -n 's/^ *\([0-9]\+\) \+\(0x[0-9a-f]\+\) \+\([0-9]\+\) (0x[0-9a-f]\+) \+\([0-9]\+\) \+[0-9a-f]\{16\}$/\1 \2 \3 x \4 y/p' "$fx.txt")
}

# Regression (issue 11 item 4): what Linux formatted as sector (BTT) or
# devdax was a writable raw pmemN. Now the BTT attaches as sector (pmem0s,
# read-only probe) and devdax as dax1.0 (issue 13: its block view is
# dax1.0, never pmem1); neither has a raw block device; the BTT's media and
# the devdax info block are unchanged by the probe (a map=dev device stores
# its struct pages in its memmap area, as Linux does: NAMESPACES.md).
case_linux_btt_and_devdax_never_raw() {
	local dir=build/qemu/pers_linux before head
	rm -rf "$dir"
	mkdir -p "$dir"
	fixture_image test/fixtures/linux-6.1-btt-4k-1G "$dir/nvdimm0.img" 1G
	truncate -s 4G "$dir/nvdimm1.img"
	dd if=test/fixtures/linux-6.1-devdax-dev-4G-align2M.head.bin of="$dir/nvdimm1.img" \
		conv=notrunc 2>/dev/null
	before=$(sha1sum <"$dir/nvdimm0.img")
	head=$(head -c 8192 "$dir/nvdimm1.img" | sha1sum)
	boot pers_linux 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm 4G --cmdline \
		'"run=list -N; write pmem0 0 1 pattern=0x66; write pmem1 0 1 pattern=0x66; poweroff"'
	expect 'nd_btt btt0.0: namespace0.0 sector 4096, BTT 1.1, 1 arena: pmem0s, 261624 sectors'
	expect 'nd_pfn dax1.0: namespace1.0 devdax map=dev align 0x200000 dataoff 0x4200000: dax1.0, 4030 MiB'
	expect '"mode":"sector"'
	expect '"blockdev":"pmem0s"'
	expect '"mode":"devdax"'
	expect '"chardev":"dax1.0"'
	expect '^pmem0: no such block device'
	expect '^pmem1: no such block device'
	[ "$(sha1sum <"$dir/nvdimm0.img")" = "$before" ] ||
		{ echo "    FAIL: the Linux-formatted BTT changed"; CASE_FAILED=1; }
	[ "$(head -c 8192 "$dir/nvdimm1.img" | sha1sum)" = "$head" ] ||
		{ echo "    FAIL: the Linux-formatted devdax info block changed"; CASE_FAILED=1; }
}

# Regression (issue 11 item 3): on a read-only region (QEMU unarmed=on: the
# NFIT says not armed) a map=dev device comes up read-only with its struct
# pages in RAM, storing nothing; before, the probe wrote struct pages into it.
# Judged by the file, not only by the kernel's own counter (issue 29 item 5):
# the backing file stays writable (--nvdimm-unarmed), so a stored struct
# page would change its hash.
case_pfn_read_only_region_writes_nothing() {
	local dir=build/qemu/pfn_ro before
	rm -rf "$dir"
	boot pfn_ro_1 0 --dir "$dir" --ram 1G --nvdimm 1G --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; write pmem0m 0 8 pattern=0x5e; poweroff"'
	# Struct pages as another kernel left them: a writable probe stores them all.
	dd if=/dev/zero of="$dir/nvdimm0.img" bs=1M seek=2 count=16 conv=notrunc 2>/dev/null
	before=$(sha1sum <"$dir/nvdimm0.img")
	boot pfn_ro_2 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm-unarmed --cmdline \
		'"run=cmp pmem0m 0 8 pattern=0x5e; write pmem0m 0 8 pattern=0x11; list -N; poweroff"'
	expect 'not armed, region read-only'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev align 0x200000 dataoff 0x1200000: pmem0m, 1006 MiB, read-only \(struct pages in RAM\)'
	expect 'nd_pfn pfn0.0: brought back in [0-9]+ us, 0 bytes stored to pmem'
	expect '^cmp pmem0m: 4096 bytes at 0 match'
	expect '^write pmem0m: read-only'
	expect '"ro":true'
	[ "$(sha1sum <"$dir/nvdimm0.img")" = "$before" ] ||
		{ echo "    FAIL: the read-only boot changed the backing file"; CASE_FAILED=1; }
}

# Regression (issue 11 items 5 and 6): a reconfigure that cannot work is
# refused before anything is detached or written: map=mem with less RAM
# than its struct pages need (named, with -M dev suggested), and -a 1G on a
# 1 GiB namespace. The device stays up; the backing file is unchanged.
case_failed_reconfigure_changes_nothing() {
	local dir=build/qemu/pfn_refuse before
	rm -rf "$dir"
	boot pfn_refuse_1 0 --dir "$dir" --ram 128M --nvdimm 8G --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; write pmem0m 0 8 pattern=0x42; poweroff"'
	before=$(sha1sum <"$dir/nvdimm0.img")
	boot pfn_refuse_2 0 --dir "$dir" --ram 128M --nvdimm 8G --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M mem; cmp pmem0m 0 8 pattern=0x42; poweroff"'
	expect 'namespace0.0: map=mem: need 128 MiB of RAM for struct pages, [0-9]+ MiB free; use -M dev; nothing changed'
	expect '^cmp pmem0m: 4096 bytes at 0 match'
	[ "$(sha1sum <"$dir/nvdimm0.img")" = "$before" ] ||
		{ echo "    FAIL: a refused reconfigure changed the backing file"; CASE_FAILED=1; }
	rm -rf "$dir"
	boot pfn_refuse_3 0 --dir "$dir" --ram 512M --nvdimm 1G --cmdline \
		'"run=write pmem0 8 8 pattern=0x24; create-namespace -f -e namespace0.0 -m fsdax -M dev -a 1G; cmp pmem0 8 8 pattern=0x24; poweroff"'
	expect 'namespace0.0: namespace too small.*nothing changed'
	expect '^cmp pmem0: 4096 bytes at 0x1000 match'
}
