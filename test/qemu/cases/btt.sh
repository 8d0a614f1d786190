# Sector mode (BTT, issue 13): namespaces pmemk formats as sector keep
# their data across a reboot, and Linux's own BTTs (the fixtures, rebuilt
# into backing files) attach with Linux's capacity and sectors, unchanged.

# A sector of the Linux fixtures starts with the 16 bytes 'BTT-LBA-%08x'.
btt_fixture_line() {
	local off=$1 lba=$2
	printf '^%08x:' "$off"
	printf '%s' "BTT-LBA-$(printf %08x "$lba")" | od -An -tx1 | tr -s ' ' | sed 's/ *$//'
}

# create-namespace -m sector (ndctl's 4096) and -l 512, write, reboot: the
# same devices with the same data, check-namespace clean, nothing repaired.
case_btt_survives_reboot() {
	local dir=build/qemu/btt_reboot
	rm -rf "$dir"
	boot btt_reboot_1 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm 512M --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m sector; create-namespace -f -e namespace1.0 -m sector -l 512; write pmem0s 0 64 seq=11; write pmem0s 261623 1 pattern=0x3c; write pmem1s 100 64 pattern=0x5a; write pmem1s 100 1 pattern=0xa5; poweroff"'
	expect 'nd_btt btt0.0: namespace0.0 sector 4096, BTT 1.1, 1 arena: pmem0s, 261624 sectors'
	expect 'nd_btt btt1.0: namespace1.0 sector 512, BTT 1.1, 1 arena: pmem1s'
	expect '"mode":"sector",'
	expect '"sector_size":512,'
	expect '^write pmem0s: 262144 bytes at 0$'
	# Linux's layout: bytes 0-4095 zero, the info block at 4096, info2 in the last 4 KiB.
	[ "$(head -c 4096 "$dir/nvdimm0.img" | tr -d '\0' | wc -c)" = 0 ] &&
		[ "$(dd if="$dir/nvdimm0.img" bs=4096 skip=1 count=1 2>/dev/null | head -c 14)" = BTT_ARENA_INFO ] &&
		cmp -s <(dd if="$dir/nvdimm0.img" bs=4096 skip=1 count=1 2>/dev/null) \
			<(dd if="$dir/nvdimm0.img" bs=4096 skip=$((0x3ffff)) count=1 2>/dev/null) ||
		{ echo "    FAIL: nvdimm0.img does not hold a BTT 1.1 at 4 KiB with info2 at the end"; CASE_FAILED=1; }
	boot btt_reboot_2 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm 512M --cmdline \
		'"run=list -N; cmp pmem0s 0 64 seq=11; cmp pmem0s 261623 1 pattern=0x3c; cmp pmem0s 64 1 pattern=0; cmp pmem1s 100 1 pattern=0xa5; cmp pmem1s 101 63 pattern=0x5a; check-namespace namespace0.0; check-namespace namespace1.0; poweroff"'
	expect 'nd_btt btt0.0: namespace0.0 sector 4096, BTT 1.1, 1 arena: pmem0s, 261624 sectors \(1021 MiB\)'
	expect '"size":1071611904,'
	expect '^cmp pmem0s: 262144 bytes at 0 match'
	expect '^cmp pmem0s: 4096 bytes at 0x3fdf7000 match'
	expect '^cmp pmem0s: 4096 bytes at 0x40000 match'
	expect '^cmp pmem1s: 512 bytes at 0xc800 match'
	expect '^cmp pmem1s: 32256 bytes at 0xca00 match'
	[ "$(grep -c '^checked 1 namespace' "$LOG")" = 2 ] ||
		{ echo "    FAIL: check-namespace not clean on both"; CASE_FAILED=1; }
	expect_not 'rolled forward|mismatch|error checking'
	# Back to fsdax and to raw: ndctl zeroes the first 8 KiB first.
	boot btt_reboot_3 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm 512M --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; destroy-namespace -f namespace1.0; list -N; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev'
	expect 'nd_pmem namespace1.0: raw, pmem1'
	[ "$(head -c 8192 "$dir/nvdimm1.img" | tr -d '\0' | wc -c)" = 0 ] ||
		{ echo "    FAIL: destroy left bytes in the first 8 KiB"; CASE_FAILED=1; }
}

# Linux 6.1's BTTs (4096 and 512 on 1 GiB, test/fixtures) attach with
# ndctl's size, show the sectors Linux wrote, check clean, and the boot
# stores nothing.
case_btt_linux_fixtures_attach() {
	local dir=build/qemu/btt_linux before
	rm -rf "$dir"
	mkdir -p "$dir"
	fixture_image test/fixtures/linux-6.1-btt-4k-1G "$dir/nvdimm0.img" 1G
	fixture_image test/fixtures/linux-6.1-btt-512-1G "$dir/nvdimm1.img" 1G
	before=$(cat "$dir"/nvdimm*.img | sha1sum)
	boot btt_linux 0 --dir "$dir" --ram 1G --nvdimm 1G --nvdimm 1G --cmdline \
		'"run=list -N; read pmem0s 0 1; read pmem0s 1 1; read pmem0s 261623 1; cmp pmem0s 2 1 pattern=0; read pmem1s 0 1; read pmem1s 2080574 1; check-namespace namespace0.0; check-namespace namespace1.0; poweroff"'
	expect 'nd_btt btt0.0: namespace0.0 sector 4096, BTT 1.1, 1 arena: pmem0s, 261624 sectors'
	expect 'nd_btt btt1.0: namespace1.0 sector 512, BTT 1.1, 1 arena: pmem1s, 2080575 sectors'
	expect '"size":1071611904,'
	expect '"size":1065254400,'
	expect '"uuid":"0ad70b71-71c6-4e58-be61-99ab9bd274f5"'
	expect "$(btt_fixture_line 0 0)"
	expect "$(btt_fixture_line 4096 1)"
	expect "$(btt_fixture_line $((261623 * 4096)) 261623)"
	expect "$(btt_fixture_line $((2080574 * 512)) 2080574)"
	expect '^cmp pmem0s: 4096 bytes at 0x2000 match'
	[ "$(grep -c '^checked 1 namespace' "$LOG")" = 2 ] ||
		{ echo "    FAIL: check-namespace not clean on Linux's BTTs"; CASE_FAILED=1; }
	[ "$(cat "$dir"/nvdimm*.img | sha1sum)" = "$before" ] ||
		{ echo "    FAIL: attaching Linux's BTTs changed the media"; CASE_FAILED=1; }
}
