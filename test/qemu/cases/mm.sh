# Memory model cases (issue 4): struct pages, sparse vmemmap, vmem_altmap,
# ZONE_DEVICE. 8 GiB of guest RAM: RAM [0, 3G) and [4G, 9G); memmap= turns
# [4G, 8G) into a 4 GiB legacy pmem range and [8G+64M, 8G+128M) into a small
# one that shares its 128 MiB section with RAM.

MM_PMEM='memmap=4G!0x100000000 memmap=64M!0x204000000'
# Every test of ktest=mm_*: each must run on this layout, none may skip.
MM_KTESTS='mm_ram_has_normal_struct_pages mm_memremap_4g_map_dev_uses_no_ram_for_struct_pages
	mm_memremap_4g_map_mem_uses_64m_of_ram mm_memremap_pin_keeps_range_until_unpinned
	mm_memremap_1000_cycles_leak_nothing mm_memremap_rejects_bad_ranges_and_leaves_nothing
	mm_memremap_adjacent_to_ram_shares_its_section mm_memremap_every_enomem_unwinds
	mm_kmap_pfn_maps_ram_and_refuses_holes mm_memremap_4g_devdax_dedup_ram'

case_mm_ktests() {
	boot mm_ktests 0 --ram 8G --cmdline "$MM_PMEM ktest=mm_*"
	expect '^\[.*\] sparse: struct pages for RAM in 64512 KiB of vmemmap'
	expect '^# mm: 4 GiB map=dev: struct pages 0 KiB of RAM, 65536 KiB of pmem \(\+2040 KiB alignment\); page tables \+[0-9]+ KiB'
	expect '^# mm: 4 GiB map=mem: struct pages 65536 KiB of RAM'
	# devdax compound pages (issue 13 item 5): 4 x 8 KiB and 2048 x 8 KiB of frames.
	expect '^# mm: 4 GiB devdax map=mem align 1G: struct pages 32 KiB of RAM; page tables \+[0-9]+ KiB; RAM used [0-9]+ KiB; 4 compound pages'
	expect '^# mm: 4 GiB devdax map=mem align 2M: struct pages 16384 KiB of RAM; page tables \+[0-9]+ KiB; RAM used [0-9]+ KiB; 2048 compound pages'
	expect '^# mm: 1000 register/unregister cycles'
	expect '^# mm: [1-9][0-9]* allocation failures injected, each unwound'
	expect '^ktest: [1-9][0-9]* passed, 0 failed, 0 skipped$'
	# shellcheck disable=SC2086
	expect_ktest_ran $MM_KTESTS
	expect_ktest_pass
	lines '^# mm: 4 GiB' | sed 's/^/    | /'
}

# The same without 1 GiB pages: the direct map of the range costs PD pages.
case_mm_ktests_without_1g_pages() {
	boot mm_ktests_qemu64 0 --cpu qemu64 --ram 8G \
		--cmdline "$MM_PMEM ktest=mm_memremap_4g_*,mm_ram_has_normal_struct_pages"
	expect 'cpu: pse yes, pdpe1gb no'
	expect '^# mm: 4 GiB map=dev: struct pages 0 KiB of RAM'
	expect_ktest_ran mm_memremap_4g_map_dev_uses_no_ram_for_struct_pages \
		mm_memremap_4g_map_mem_uses_64m_of_ram mm_ram_has_normal_struct_pages \
		mm_memremap_4g_devdax_dedup_ram
	expect_ktest_pass
	lines '^# mm: 4 GiB' | sed 's/^/    | /'
}

# meminfo shows what each mode costs, and everything comes back.
case_mm_meminfo_figures() {
	boot mm_meminfo 0 --ram 8G --cmdline "$MM_PMEM \"run=meminfo; \
memremap 0x100000000 4G dev -f; meminfo; memunmap 0x100000000; \
memremap 0x100000000 4G mem -f; meminfo; memunmap 0x100000000; meminfo; \
memremap 0x100001000 2M mem -f; memremap 0x0 2M mem; poweroff\""
	expect '^memremap: \[mem 0x100000000-0x1ffffffff\] map=dev: vmemmap RAM 0 KiB, page tables \+[0-9]+ KiB, altmap 65536 KiB used \+ 2040 KiB alignment of 67576 KiB'
	expect '^memremap: \[mem 0x100000000-0x1ffffffff\] map=mem: vmemmap RAM 65536 KiB'
	expect '^AltmapUsed: +65536 kB'
	expect '^AltmapWaste: +2040 kB'
	expect '^DeviceMapped: +4194304 kB'
	expect '^Vmemmap: +130048 kB'	# RAM's 63 MiB plus the range's 64 MiB
	expect 'is not a 2 MiB aligned range'
	expect 'memremap: \[mem 0-0x1fffff\] is not pmem of one namespace'
	# Every meminfo line outside a registration is identical: nothing leaked.
	local free
	free=$(grep -E '^(MemFree|PageTables|Vmemmap|SectionTables):' "$LOG" | paste -sd' ' | \
		awk '{print $2,$5,$8,$11; print $14,$17,$20,$23; print $26,$29,$32,$35; print $38,$41,$44,$47}')
	local first last
	first=$(sed -n 1p <<<"$free") last=$(sed -n 4p <<<"$free")
	if [ -z "$first" ] || [ "$first" != "$last" ]; then
		echo "    FAIL: meminfo before and after differ: '$first' vs '$last'"
		CASE_FAILED=1
	fi
}

# Regression (issue 11 item 7): the memremap command took any range, even a
# namespace's user data under a pfn device or a raw block device. Now only
# pmem of one namespace nothing claims; a raw one only with -f, and it comes
# back when the range goes.
case_mm_memremap_only_unclaimed_pmem() {
	local dir=build/qemu/mm_claims
	rm -rf "$dir"
	boot mm_claims 0 --dir "$dir" --ram 1G --nvdimm 512M --nvdimm 512M --cmdline \
		'"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; write pmem1 0 8 pattern=0x31; memremap 0x100000000 256M dev -f; memremap 0x120000000 256M dev; memremap 0x120000000 512M mem -f; list -N; write pmem1 0 8 pattern=0x32; memunmap 0x120000000; cmp pmem1 0 8 pattern=0x31; memremap 0x20000000 2M mem -f; poweroff"'
	expect '^memremap: namespace0.0 is claimed \(pfn\); refused'
	expect '^memremap: namespace1.0 is the raw block device pmem1; -f takes it'
	expect '^memremap: \[mem 0x120000000-0x13fffffff\] map=mem'
	expect '"reason":"claimed by memremap \(map=mem\)"'
	expect '^pmem1: no such block device'	# gone while the command holds it
	expect '^memunmap: \[mem 0x120000000-0x13fffffff\] removed'
	expect '^cmp pmem1: 4096 bytes at 0 match'	# back, data untouched by map=mem
	expect 'memremap: \[mem 0x20000000-0x201fffff\] is not pmem of one namespace'
}

# Regression (issue 11 item 8): direct_access handed out addresses with no
# pin. An address held (dax ... hold) holds its device: reconfiguring is
# refused until it is given back (dax put).
case_mm_dax_address_holds_device() {
	local dir=build/qemu/mm_dax_hold
	rm -rf "$dir"
	boot mm_dax_hold 0 --dir "$dir" --ram 1G --nvdimm 512M --cmdline \
		'"run=dax pmem0 16 1 hold; create-namespace -f -e namespace0.0 -m fsdax -M dev; dax put; create-namespace -f -e namespace0.0 -m fsdax -M dev; dax pmem0m 0 1 hold; destroy-namespace -f namespace0.0; list -N; dax put; destroy-namespace -f namespace0.0; poweroff"'
	expect '\] pmem0: busy: 1 direct-access address lent \(dax \.\.\. hold; dax put\)$'
	expect '^dax: 1 held address given back'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev'
	expect '\] pmem0m: busy: 1 direct-access address lent \(dax \.\.\. hold; dax put\)$'
	expect '^destroyed 1 namespace'
}
