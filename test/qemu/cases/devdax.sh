# Device-dax (issue 13 items 4 and 5): Linux's devdax attaches as daxN.0,
# pmemk's own devdax namespaces (2M and 1G, map=mem and map=dev) come back
# after a reboot, mappings with leaves of the align, and what the struct
# pages of a 4 GiB map=mem device cost with the vmemmap dedup against the
# 64 MiB they cost without.

# The figure line a devdax bring-up prints; echoed into the test output.
dax_memmap_figure() {
	local line
	line=$(grep -o "nd_pfn $1: struct pages for .*" "$LOG" | tail -1)
	if [ -z "$line" ]; then
		echo "    FAIL: no struct page figure for $1"
		CASE_FAILED=1
		return
	fi
	echo "    figure: ${line#nd_pfn }"
}

# Linux's devdax (map=dev, align 2M, 4 GiB: the fixture's first 8 KiB on a
# fresh sparse file) attaches as dax0.0 with ndctl's size and listing; its
# data reads as Linux left it (zeros: the fixture holds no pattern, its
# file has only the metadata allocated); a 2 MiB mapping reads and writes
# the same bytes as the block view and holds the device (destroy-namespace
# is refused while it is mapped); the info block is not touched.
case_devdax_linux_fixture_attaches() {
	local dir=build/qemu/devdax_linux info
	rm -rf "$dir"
	mkdir -p "$dir"
	truncate -s 4G "$dir/nvdimm0.img"
	dd if=test/fixtures/linux-6.1-devdax-dev-4G-align2M.head.bin of="$dir/nvdimm0.img" \
		conv=notrunc 2>/dev/null
	info=$(head -c 8192 "$dir/nvdimm0.img" | sha1sum)
	boot devdax_linux 0 --dir "$dir" --ram 1G --nvdimm 4G --cmdline \
		'"run=list -N; daxctl list; cmp dax0.0 0 4096 pattern=0; cmp dax0.0 8253432 8 pattern=0; dax-map dax0.0 0x200000 0x400000; dax-cmp 0 0 0x400000 pattern=0; dax-write 0 0x1000 0x10000 seq=0x77; cmp dax0.0 4104 128 seq=0x77; destroy-namespace -f namespace0.0; dax-unmap 0; list -N; poweroff"'
	expect 'nd_pfn dax0.0: namespace0.0 devdax map=dev align 0x200000 dataoff 0x4200000: dax0.0, 4030 MiB'
	expect 'nd_pfn dax0.0: struct pages in the device \(map=dev, [0-9]+ KiB of its pmem\), 2015 compound pages of 2048 KiB, no vmemmap dedup'
	expect '"mode":"devdax",'
	expect '"map":"dev",'
	expect '"size":4225761280,'
	expect '"uuid":"28b43fb3-0bf0-44bd-877c-6574b8550bab",'
	expect '"chardev":"dax0.0",'
	# daxctl list: what Linux's daxctl printed for this media (the fixture's .txt).
	local want got
	want=$(sed -n 's/^daxctl list: //p' test/fixtures/linux-6.1-devdax-dev-4G-align2M.txt | tr -d ' ')
	got=$(sed -n '/^pmemk> daxctl list$/,/^\]/p' "$LOG" | sed 1d | tr -d ' \n')
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		{ echo "    FAIL: daxctl list '$got', Linux's '$want'"; CASE_FAILED=1; }
	# list -N against ndctl list -N -v on the same media, field by field
	# (test/linux/interop.py same: names and NUMA fields aside).
	want=$(sed -n 's/^ndctl list -N -v (enabled): \[\(.*\)\]$/\1/p' \
		test/fixtures/linux-6.1-devdax-dev-4G-align2M.txt)
	got=$(python3 test/linux/interop.py json "$LOG" 'pmemk> list -N' namespace0.0) &&
		python3 test/linux/interop.py same pmemk "$got" linux "$want" ||
		{ echo "    FAIL: list -N differs from ndctl's"; CASE_FAILED=1; }
	expect '^cmp dax0.0: 2097152 bytes at 0 match'
	expect '^cmp dax0.0: 4096 bytes at 0xfbdff000 match'
	expect '^dax-map dax0.0: mapping 0: offset 0x200000 length 0x400000 at 0xffffc90000000000, pfn 0x104400 PFN_DEV\|PFN_MAP, 2 MiB pages \(page tables: 2 MiB leaf -> 0x104400000\)'
	expect '^dax-cmp dax0.0: 4194304 bytes at mapping offset 0 match'
	expect '^cmp dax0.0: 65536 bytes at 0x201000 match'
	# The mapping holds the device: destroying it is refused, nothing written.
	expect '\] dax0\.0: busy: 1 mapping of its pages \(dax-map mapping 0; dax-unmap 0\)$'
	expect_not '^destroyed 1 namespace'
	expect '^dax-unmap dax0.0: mapping 0 unmapped'
	expect_not 'not supported yet'
	[ "$(head -c 8192 "$dir/nvdimm0.img" | sha1sum)" = "$info" ] ||
		{ echo "    FAIL: Linux's info block changed"; CASE_FAILED=1; }
}

# Regression (issue 29 item 5): a devdax info block with a stale checksum
# came back as a writable raw pmem0, without a word. Now it is damaged, as
# a BTT's would be: dax0.0 disabled with one line naming the namespace and
# the reason, no block device at all (neither pmem0 nor dax0.0), and a boot
# that tries to write both leaves the backing file as it was.
case_devdax_stale_checksum_never_raw() {
	local dir=build/qemu/devdax_stale before
	rm -rf "$dir"
	boot devdax_stale_1 0 --dir "$dir" --ram 1G --nvdimm 1G --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m devdax -a 2M; write dax0.0 0 8 pattern=0x5a; poweroff"'
	expect 'nd_pfn dax0\.0: namespace0\.0 devdax map=dev align 0x200000'
	build/tools/pmemk-infoblock set "$dir/nvdimm0.img" dataoff=0x601000 --stale-checksum >/dev/null ||
		{ echo "    FAIL: pmemk-infoblock set"; CASE_FAILED=1; return; }
	before=$(sha1sum <"$dir/nvdimm0.img")
	boot devdax_stale_2 0 --dir "$dir" --ram 1G --nvdimm 1G --cmdline \
		'"run=list -N; write pmem0 0 1 pattern=0x66; write dax0.0 0 1 pattern=0x66; poweroff"'
	expect '\] nd_pfn dax0\.0: namespace0\.0 devdax map=none disabled: invalid info block: info block checksum mismatch$'
	expect '"mode":"devdax"'
	expect '"state":"disabled"'
	expect '^pmem0: no such block device'
	expect '^dax0\.0: no such block device'
	expect_not 'nd_pmem namespace0\.0: raw'
	[ "$(sha1sum <"$dir/nvdimm0.img")" = "$before" ] ||
		{ echo "    FAIL: the boot changed the backing file"; CASE_FAILED=1; }
}

# create-namespace -m devdax at 1G and 2M with map=mem (and pmem.create= at
# 2M map=dev), written through a mapping; after a reboot the same devices
# with the same data; the 1G device's mapping has 1 GiB leaves. The RAM
# the struct pages of each 4 GiB map=mem device cost, against 64 MiB.
case_devdax_create_reboot_and_dedup() {
	local dir=build/qemu/devdax_create opts
	rm -rf "$dir"
	opts=(--dir "$dir" --ram 1G --nvdimm 4G --nvdimm 4G --nvdimm 1G)
	boot devdax_create_1 0 "${opts[@]}" --cmdline \
		'pmem.create=namespace2.0:devdax:dev:2M "run=meminfo; create-namespace -f -e namespace0.0 -m devdax -M mem -a 1G; meminfo; create-namespace -f -e namespace1.0 -m devdax -M mem -a 2M; meminfo; dax-map dax0.0 0x40000000 0x40000000; dax-write 0 0x3ff00000 0x100000 seq=0x1d; write dax1.0 100 64 seq=0x2d; write dax2.0 0 8 pattern=0x3d; poweroff"'
	expect 'nd_pfn dax2.0: namespace2.0 devdax map=dev align 0x200000'
	expect 'nd_pfn dax0.0: namespace0.0 devdax map=mem align 0x40000000 dataoff 0x40000000: dax0.0, 3072 MiB'
	expect 'nd_pfn dax0.0: struct pages for 4096 MiB in 32 KiB of RAM \+ [0-9]+ KiB of page tables, 4 compound pages of 1048576 KiB, vmemmap deduplicated; 65536 KiB without dedup'
	expect 'nd_pfn dax1.0: namespace1.0 devdax map=mem align 0x200000 dataoff 0x200000: dax1.0, 4094 MiB'
	expect 'nd_pfn dax1.0: struct pages for 4096 MiB in 16384 KiB of RAM \+ [0-9]+ KiB of page tables, 2048 compound pages of 2048 KiB, vmemmap deduplicated; 65536 KiB without dedup'
	expect '^dax-map dax0.0: mapping 0: offset 0x40000000 length 0x40000000 at 0xffffc90000000000, pfn 0x180000 PFN_DEV\|PFN_MAP, 1 GiB pages \(page tables: 1 GiB leaf -> 0x180000000\)'
	expect '^dax-write dax0.0: 1048576 bytes at mapping offset 0x3ff00000'
	dax_memmap_figure dax0.0
	dax_memmap_figure dax1.0
	# meminfo before and after each create: Vmemmap and VmemmapShared as measured.
	grep -E '^(Vmemmap|VmemmapShared|PageTables):' "$LOG" | paste -sd' ' | sed 's/^/    meminfo: /'
	boot devdax_create_2 0 "${opts[@]}" --cmdline \
		'pmem.create=namespace2.0:devdax:dev:2M "run=list -N; cmp dax0.0 4192256 2048 seq=0x1d; cmp dax1.0 100 64 seq=0x2d; cmp dax2.0 0 8 pattern=0x3d; dax-map dax1.0 0 0x200000; dax-cmp 0 0xc800 0x8000 seq=0x2d; dax-unmap 0; destroy-namespace -f namespace0.0; poweroff"'
	expect 'nd_pfn dax0.0: namespace0.0 devdax map=mem align 0x40000000 dataoff 0x40000000: dax0.0, 3072 MiB'
	expect 'nd_pfn dax1.0: namespace1.0 devdax map=mem align 0x200000 dataoff 0x200000: dax1.0, 4094 MiB'
	expect 'pmem.create: namespace2.0 already configured'
	expect '"size":3221225472,'
	expect '"size":4292870144,'
	expect '^cmp dax0.0: 1048576 bytes at 0x7ff00000 match'
	expect '^cmp dax1.0: 32768 bytes at 0xc800 match'
	expect '^cmp dax2.0: 4096 bytes at 0 match'
	expect '^dax-cmp dax1.0: 32768 bytes at mapping offset 0xc800 match'
	expect '^destroyed 1 namespace'
	expect 'nd_pmem namespace0.0: raw, pmem0'
}

# A CPU without 1 GiB pages (qemu64: no pdpe1gb): Linux's 1G devdax (map=mem,
# the fixture) still attaches with ndctl's size and 1 GiB compound pages, its
# mappings get 2 MiB leaves, and creating a 1G one is refused up front.
case_devdax_1g_without_pdpe1gb() {
	local dir=build/qemu/devdax_nogb
	rm -rf "$dir"
	mkdir -p "$dir"
	truncate -s 4G "$dir/nvdimm0.img"
	dd if=test/fixtures/linux-6.1-devdax-mem-4G-align1G.head.bin of="$dir/nvdimm0.img" \
		conv=notrunc 2>/dev/null
	boot devdax_nogb 0 --dir "$dir" --cpu qemu64 --ram 1G --nvdimm 4G --cmdline \
		'"run=list -N; dax-map dax0.0 0 0x40000000; dax-write 0 0x3fff0000 0x10000 pattern=0x5d; cmp dax0.0 2097024 128 pattern=0x5d; create-namespace -f -e namespace0.0 -m devdax -M mem -a 1G; dax-unmap 0; poweroff"'
	expect 'nd_pfn dax0.0: namespace0.0 devdax map=mem align 0x40000000 dataoff 0x40000000: dax0.0, 3072 MiB'
	expect 'nd_pfn dax0.0: struct pages for 4096 MiB in 32 KiB of RAM'
	expect '"size":3221225472,'
	expect '"uuid":"fb1d77dd-8445-4431-abea-5fb238ea4225",'
	expect '^dax-map dax0.0: mapping 0: offset 0 length 0x40000000 at 0xffffc90000000000, pfn 0x140000 PFN_DEV\|PFN_MAP, 2 MiB pages \(page tables: 2 MiB leaf -> 0x140000000\)'
	expect '^cmp dax0.0: 65536 bytes at 0x3fff0000 match'
	expect "align '1G': this CPU has no 1 GiB pages"
}
