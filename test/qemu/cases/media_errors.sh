# shellcheck shell=bash
# Bad sectors in every namespace mode (issue 29): a read over one fails with
# "I/O error at sector N" and nothing else, reads around it go on, the
# machine keeps running, `list -N -M` shows it in ndctl's fields and units,
# and a write over the whole range heals it. inject-error lists the blocks
# at once; with --no-notify the next read takes a real machine check, which
# lists them. Then the metadata: an info block on a bad sector leaves its
# namespace disabled (never raw), a bad BTT map or log sector its arena
# read-only. All namespaces are label-less over 64 MiB nvdimms: a BTT 1.1
# data block of LBA L (before any write) is at namespace byte 8192 +
# L * lbasize; an fsdax or devdax one's data starts at 2 MiB (block 4096).

# The fields of namespace NS in the log's N-th 'list -N -M', joined on one line.
media_ns_json() {
	awk -v n="$1" -v dev="\"dev\":\"$2\"" '
		/^pmemk> / { inlist = /^pmemk> list -N -M/; if (inlist) k++; found = 0; next }
		inlist && k == n && /"dev":/ { found = index($0, dev) > 0 }
		inlist && k == n && found { gsub(/^ +/, ""); printf "%s", $0 }
	' "$LOG"
}

# media_expect_json N NS TEXT: the N-th listing of NS holds TEXT (fixed string).
media_expect_json() {
	local got
	got=$(media_ns_json "$1" "$2")
	case $got in
	*"$3"*) ;;
	*)
		echo "    FAIL: list #$1 of $2 has no $3"
		echo "    | $got"
		CASE_FAILED=1
		;;
	esac
}

# media_expect_no_json N NS TEXT: it does not.
media_expect_no_json() {
	local got
	got=$(media_ns_json "$1" "$2")
	case $got in
	*"$3"*)
		echo "    FAIL: list #$1 of $2 still has $3"
		echo "    | $got"
		CASE_FAILED=1
		;;
	esac
}

# Raw, fsdax map=mem and map=dev, devdax: sector 40 of each device's data
# (raw: 24-25). Listed at once for raw and map=dev, found by a machine
# check for map=mem and devdax. fsdax's direct access stops before the bad
# sector and refuses it; a devdax mapping made before reads and partially
# writes over it with an I/O error, and no new mapping lends it.
case_media_errors_raw_fsdax_devdax() {
	local dir=build/qemu/media_errors_1 ns
	rm -rf "$dir"
	boot media_errors_1 0 --dir "$dir" --ram 1G --nvdimm 64M --nvdimm 64M --nvdimm 64M --nvdimm 64M \
		--cmdline '"pmem.create=namespace1.0:fsdax:mem,namespace2.0:fsdax:dev,namespace3.0:devdax" "run=write pmem0 16 32 pattern=0x5a; write pmem1m 32 16 pattern=0x5b; write pmem2m 32 16 pattern=0x5c; write dax3.0 32 16 pattern=0x5d; dax-map dax3.0 0 0x200000; inject-error namespace0.0 --block=24 --count=2; inject-error namespace1.0 --block=4136 --no-notify; inject-error namespace2.0 --block=4136; inject-error namespace3.0 --block=4136 -N; read pmem0 24 1; read pmem0 25 1; cmp pmem0 16 8 pattern=0x5a; cmp pmem0 26 6 pattern=0x5a; read pmem1m 40 1; cmp pmem1m 32 8 pattern=0x5b; cmp pmem1m 41 7 pattern=0x5b; cmp pmem2m 32 16 pattern=0x5c; cmp pmem2m 32 8 pattern=0x5c; cmp pmem2m 41 7 pattern=0x5c; dax pmem2m 32 1; dax pmem2m 40 1; dax-cmp 0 0x4000 0x2000 pattern=0x5d; dax-cmp 0 0x4000 0x1000 pattern=0x5d; dax-cmp 0 0x5200 0xe00 pattern=0x5d; dax-write 0 0x5008 8 pattern=0x11; read dax3.0 40 1; dax-unmap 0; dax-map dax3.0 0 0x200000; list -N -M; write pmem0 24 2 pattern=0x77; write pmem1m 40 1 pattern=0x77; write pmem2m 40 1 pattern=0x77; write dax3.0 40 1 pattern=0x77; list -N -M; cmp pmem0 24 2 pattern=0x77; cmp pmem1m 40 1 pattern=0x77; cmp pmem2m 40 1 pattern=0x77; dax pmem2m 40 1; dax-map dax3.0 0 0x200000; dax-cmp 0 0x5000 0x200 pattern=0x77; poweroff"'
	expect 'nd_pfn pfn1\.0: namespace1\.0 fsdax map=mem align 0x200000 dataoff 0x200000'
	expect 'nd_pfn pfn2\.0: namespace2\.0 fsdax map=dev align 0x200000 dataoff 0x200000'
	expect 'nd_pfn dax3\.0: namespace3\.0 devdax map=dev align 0x200000 dataoff 0x200000'
	expect '^read pmem0: I/O error at sector 24$'
	expect '^read pmem0: I/O error at sector 25$'
	expect '^cmp pmem0: 4096 bytes at 0x2000 match'
	expect '^cmp pmem0: 3072 bytes at 0x3400 match'
	expect 'region1: media error at 0x104205000 \(512 bytes\), sectors 4136-4136: machine check on a read, listed'
	expect '^read pmem1m: I/O error at sector 40$'
	expect '^cmp pmem1m: 4096 bytes at 0x4000 match'
	expect '^cmp pmem1m: 3584 bytes at 0x5200 match'
	expect '^cmp pmem2m: I/O error at sector 40$'
	expect '^cmp pmem2m: 3584 bytes at 0x5200 match'
	expect '^dax pmem2m: sector 32 at pfn 0x108204 dev map, 4096 bytes mappable'
	expect '^dax pmem2m: I/O error at sector 40$'
	expect 'region3: media error at 0x10c205000 \(512 bytes\), sectors 4136-4136: machine check on a read, listed'
	expect '^dax-cmp dax3\.0: I/O error at sector 40 \(mapping offset 0x5000\)$'
	expect '^dax-cmp dax3\.0: 4096 bytes at mapping offset 0x4000 match'
	expect '^dax-cmp dax3\.0: 3584 bytes at mapping offset 0x5200 match'
	expect '^dax-write dax3\.0: I/O error at sector 40 \(mapping offset 0x5008\)$'
	expect '^read dax3\.0: I/O error at sector 40$'
	expect '^dax-map dax3\.0: I/O error at sector 40: a mapping would lend it \(error -5\)$'
	media_expect_json 1 namespace0.0 '"badblock_count":2,"badblocks":[{"offset":24,"length":2,"dimms":["nmem0"]}]'
	for ns in 1 2 3; do
		media_expect_json 1 namespace$ns.0 "\"badblock_count\":1,\"badblocks\":[{\"offset\":40,\"length\":1,\"dimms\":[\"nmem$ns\"]}]"
		media_expect_no_json 2 namespace$ns.0 badblock
	done
	media_expect_no_json 2 namespace0.0 badblock
	expect '^cmp pmem0: 1024 bytes at 0x3000 match'
	expect '^cmp pmem1m: 512 bytes at 0x5000 match'
	expect '^cmp pmem2m: 512 bytes at 0x5000 match'
	expect '^dax pmem2m: sector 40 at pfn 0x108205 dev map, [0-9]+ bytes mappable'
	expect '^dax-cmp dax3\.0: 512 bytes at mapping offset 0x5000 match'
	expect_not 'panic|fatal'
}

# Sector mode, 512 and 4096: the data block of LBA 40 bad (listed; found
# by a machine check). Only LBA 40 fails; list -M counts the bad sectors
# (ndctl gives a BTT no offsets: its sectors move); a write of LBA 40 lands
# in a free block and the bad block it leaves is zeroed, which heals it.
case_media_errors_sector() {
	local dir=build/qemu/media_errors_2 ns
	rm -rf "$dir"
	boot media_errors_2 0 --dir "$dir" --ram 1G --nvdimm 64M --nvdimm 64M \
		--cmdline '"pmem.create=namespace1.0:sector" "run=create-namespace -f -e namespace0.0 -m sector -l 512; inject-error namespace0.0 --block=56; inject-error namespace1.0 --block=338 -N; read pmem0s 40 1; cmp pmem0s 32 8 pattern=0; cmp pmem0s 41 7 pattern=0; cmp pmem0s 32 16 pattern=0; read pmem1s 40 1; cmp pmem1s 39 1 pattern=0; cmp pmem1s 41 1 pattern=0; cmp pmem1s 36 8 pattern=0; list -N -M; write pmem0s 40 1 pattern=0x77; write pmem1s 40 1 pattern=0x77; list -N -M; cmp pmem0s 40 1 pattern=0x77; cmp pmem1s 40 1 pattern=0x77; cmp pmem0s 32 8 pattern=0; cmp pmem1s 41 1 pattern=0; check-namespace namespace0.0; check-namespace namespace1.0; poweroff"'
	expect 'nd_btt btt0\.0: namespace0\.0 sector 512, BTT 1\.1, 1 arena: pmem0s'
	expect 'nd_btt btt1\.0: namespace1\.0 sector 4096, BTT 1\.1, 1 arena: pmem1s'
	expect '^read pmem0s: I/O error at sector 40$'
	expect '^cmp pmem0s: 4096 bytes at 0x4000 match'
	expect '^cmp pmem0s: 3584 bytes at 0x5200 match'
	expect '^cmp pmem0s: I/O error at sector 40$'
	expect 'region1: media error at 0x10402a400 \(512 bytes\), sectors 338-338: machine check on a read, listed'
	expect '^read pmem1s: I/O error at sector 40$'
	expect '^cmp pmem1s: 4096 bytes at 0x27000 match'
	expect '^cmp pmem1s: 4096 bytes at 0x29000 match'
	expect '^cmp pmem1s: I/O error at sector 40$'
	for ns in 0 1; do
		media_expect_json 1 namespace$ns.0 '"badblock_count":1'
		media_expect_no_json 1 namespace$ns.0 '"badblocks"'
		media_expect_no_json 2 namespace$ns.0 badblock
	done
	expect 'btt0\.0: arena 0: free block [0-9]+ had a bad sector \(56 of the namespace\): zeroed, healed'
	expect 'btt1\.0: arena 0: free block [0-9]+ had a bad sector \(338 of the namespace\): zeroed, healed'
	expect '^cmp pmem0s: 512 bytes at 0x5000 match'
	expect '^cmp pmem1s: 4096 bytes at 0x28000 match'
	[ "$(grep -c '^checked 1 namespace' "$LOG")" = 2 ] ||
		{ echo "    FAIL: check-namespace not clean on both after the heal"; CASE_FAILED=1; }
	expect_not 'panic|fatal|read-only'
}

# Metadata on a bad sector. namespace0.0 (fsdax): its info block (block 8)
# bad; probed again (disable + enable) it stays disabled, never raw, with
# the sector in list; create-namespace -f -e rewrites the block, which
# heals it (and a bad sector among its map=dev struct pages, block 100),
# and the data is still there. namespace1.0 (sector 4096): the
# map sector of LBAs 0-127 bad (found by a machine check): the arena turns
# read-only on the first read that needs it, check-namespace names the
# sector and --repair stores nothing over it. namespace2.0 (sector 4096):
# a bad log sector found when the BTT is opened: read-only from the start.
# The 64 MiB BTTs' map is at namespace block 130904, the log at 131032
# (Linux's layout: 16360 internal blocks of 4096, the map and log after).
case_media_errors_metadata() {
	local dir=build/qemu/media_errors_3
	rm -rf "$dir"
	boot media_errors_3 0 --dir "$dir" --ram 1G --nvdimm 64M --nvdimm 64M --nvdimm 64M \
		--cmdline '"pmem.create=namespace0.0:fsdax,namespace1.0:sector,namespace2.0:sector" "run=write pmem0m 0 8 pattern=0x21; write pmem1s 0 4 pattern=0x31; write pmem2s 5 1 pattern=0x41; inject-error namespace0.0 --block=8; disable-namespace namespace0.0; enable-namespace namespace0.0; read pmem0 0 1; read pmem0m 0 1; list -N -M; enable-namespace namespace0.0; inject-error namespace0.0 --block=100 -N; create-namespace -f -e namespace0.0 -m fsdax; cmp pmem0m 0 8 pattern=0x21; inject-error namespace1.0 --block=130904 -N; cmp pmem1s 200 1 pattern=0; cmp pmem1s 0 4 pattern=0x31; write pmem1s 200 1 pattern=0x32; cmp pmem1s 200 1 pattern=0; check-namespace namespace1.0; check-namespace --repair namespace1.0; inject-error namespace2.0 --block=131032; disable-namespace namespace2.0; enable-namespace namespace2.0; cmp pmem2s 5 1 pattern=0x41; write pmem2s 6 1 pattern=0x42; list -N -M; poweroff"'
	expect 'nd_pmem namespace0\.0: media error at sector 8 of its info blocks \(the first 8 KiB\): not probed, disabled \(not raw\)'
	[ "$(grep -c 'nd_pmem namespace0\.0: media error at sector 8 of its info blocks' "$LOG")" = 2 ] ||
		{ echo "    FAIL: enable-namespace did not probe again"; CASE_FAILED=1; }
	expect '^pmem0: no such block device$'
	expect '^pmem0m: no such block device$'
	media_expect_json 1 namespace0.0 '"mode":"unknown","size":67108864,"sector_size":512,"state":"disabled","reason":"media error at sector 8 of its info blocks'
	media_expect_json 1 namespace0.0 '"badblock_count":1,"badblocks":[{"offset":8,"length":1,"dimms":["nmem0"]}]'
	media_expect_no_json 1 namespace0.0 '"blockdev"'
	expect 'namespace0\.0: sector 8 of its info blocks was bad: zeroed, healed'
	expect 'nd_pfn pfn0\.0: 1 bad sector among its struct pages \(map=dev\): zeroed, healed'
	expect '^cmp pmem0m: 4096 bytes at 0 match'
	media_expect_no_json 2 namespace0.0 badblock
	media_expect_json 2 namespace0.0 '"blockdev":"pmem0m"'
	expect '^cmp pmem1s: 4096 bytes at 0xc8000 match'
	expect 'region1: media error at 0x107feb000 \(512 bytes\), sectors 130904-130904: machine check on a read, listed'
	expect 'btt1\.0: arena 0: a media error in its map at sector 130904 of the namespace: the arena is read-only'
	expect '^cmp pmem1s: I/O error at sector 0$'
	expect '^write pmem1s: read-only \(error -30\)$'
	[ "$(grep -c 'namespace1\.0: arena 0: map: media error at sector 130904 of the namespace (not repairable' "$LOG")" = 2 ] ||
		{ echo "    FAIL: check-namespace did not name the bad map sector twice"; CASE_FAILED=1; }
	expect_not 'namespace1\.0: .*repaired'
	expect 'btt2\.0: arena 0: a media error in its log at sector 131032 of the namespace: the arena is read-only'
	expect 'nd_btt btt2\.0: namespace2\.0 sector 4096, BTT 1\.1, 1 arena: pmem2s, 16104 sectors \(62 MiB\), 1 arena read-only$'
	expect '^cmp pmem2s: 4096 bytes at 0x5000 match'
	expect '^write pmem2s: read-only \(error -30\)$'
	media_expect_json 2 namespace1.0 '"badblock_count":1'
	media_expect_json 2 namespace2.0 '"badblock_count":1'
	expect_not 'panic|fatal'
}
