# Benchmarks (issue 7; the btt bench, issue 13 item 8): a quick run of the
# suite on a small nvdimm so it cannot rot. Times are printed, never judged. Byte counts are judged: a
# map=dev device brought back unchanged stores nothing to pmem, at boot or
# in the bench's own reprobe, while Linux's way (rewrite) stores its memmap.

BENCH_NAMES='memmap overhead lookup blk reprobe'

case_bench_smoke() {
	local dir=build/qemu/bench_smoke mode name
	rm -rf "$dir"
	boot bench_smoke_1 0 --dir "$dir" --ram 1G --nvdimm 256M \
		--cmdline 'bench=all bench.reps=2 bench.ws=4M'
	expect '^bench: tsc_khz=[1-9][0-9]* \(median of 7 calibrations'
	expect '^bench: begin ns=namespace0.0 size=256M reps=2 ws=4M .* memmap_pmem=diff'
	for mode in dev mem; do
		for name in $BENCH_NAMES; do
			expect "^bench: name=$name size=256M mode=$mode metric=[a-z0-9_]+ median=[0-9]+\.[0-9]{3} min=[0-9]+\.[0-9]{3} max=[0-9]+\.[0-9]{3} first=[0-9]+\.[0-9]{3} unit=[A-Za-z/]+ n=[12]$"
		done
		expect "^bench: name=blk size=256M mode=$mode metric=write_rand_4k_vs_memcpy "
		# Machine-check-safe reads against the plain copy, the check alone, one sector listed.
		for name in read_seq_4k_vs_plain read_rand_1m_copy_mc_vs_plain \
			read_seq_1m_checked_vs_copy_mc read_rand_4k_listed_vs_clean; do
			expect "^bench: name=blk size=256M mode=$mode metric=$name median=[0-9]+\.[0-9]{3} .* unit=ratio n=2$"
		done
		expect "^bench: name=reprobe size=256M mode=$mode metric=pmem_bytes median=0\.000 min=0\.000 max=0\.000 "
		# Deferred init: time to a usable device, and to every struct page ready.
		expect "^bench: name=memmap size=256M mode=$mode metric=usable_time median=[0-9]+\.[0-9]{3} .* unit=ms n=2$"
		expect "^bench: name=memmap size=256M mode=$mode metric=ready_time median=[0-9]+\.[0-9]{3} .* unit=ms n=2$"
		expect "^bench: name=memmap size=256M mode=$mode metric=usable_memremap_time median=[0-9]+\.[0-9]{3} .* unit=ms n=2$"
		expect "^bench: name=memmap size=256M mode=$mode metric=usable_vmemmap_time median=[0-9]+\.[0-9]{3} .* unit=ms n=2$"
	done
	# 256 MiB: 65536 pfns, each with a struct page (the reserve's 2 included;
	# Linux 6.1 leaves those 2 alone, so its rewrite is 128 bytes less).
	expect "^bench: name=reprobe size=256M mode=dev metric=pmem_bytes_rewrite median=$((65536 * 64))\.000 "
	expect '^bench: name=overhead size=256M mode=mem metric=ram_struct_pages median=16777216\.000 '
	expect '^bench: name=overhead size=256M mode=dev metric=ram_struct_pages median=0\.000 '
	expect '^bench: name=overhead size=256M mode=dev metric=pmem_struct_pages median=16777216\.000 '
	# BTT against the raw device of the same namespace, once after both passes.
	expect '^bench: name=btt size=256M mode=raw metric=write_seq_4k median=[0-9]+\.[0-9]{3} .* unit=GiB/s n=2$'
	local m
	for mode in s4096 s512; do
		for m in write_seq_4k write_rand_4k read_seq_4k read_rand_4k write_seq_1m write_rand_1m read_seq_1m read_rand_1m; do
			expect "^bench: name=btt size=256M mode=$mode metric=${m}_vs_raw median=[0-9]+\.[0-9]{3} .* unit=ratio n=2\$"
		done
	done
	expect '^bench: end errors=0 '
	expect_not 'error='
	# The next boot brings map=dev back from its info block: nothing stored.
	# The shell command: -f is required; 'bench stat' and meminfo show the counter.
	boot bench_smoke_2 0 --dir "$dir" --ram 1G --nvdimm 256M --cmdline \
		'"run=bench reprobe; bench -f -r 2 -w 4M reprobe; bench stat; meminfo; poweroff"'
	expect 'nd_pfn pfn0.0: namespace0.0 fsdax map=dev'
	expect '^usage: bench -f '
	expect '^bench: name=reprobe size=256M mode=dev metric=boot_pmem_bytes median=0\.000 '
	expect '^bench: name=reprobe size=256M mode=dev metric=boot_time median=[0-9]+\.[0-9]{3} '
	expect '^bench: name=reprobe size=256M mode=dev metric=pmem_bytes median=0\.000 '
	expect '^bench: end errors=0 '
	expect '^pmem_written: total=[0-9]+ block=0 infoblock=[0-9]+ memmap=[0-9]+ btt=0 other=0 '
	expect '^PmemWritten: +[0-9]+ kB'
}

# The usable sweep (bench=usable, make bench's one-boot row): every
# namespace of the boot as map=dev with deferred init, in turn, each size
# reported; a figure per namespace, and the devices left usable.
case_bench_usable() {
	local dir=build/qemu/bench_usable size
	rm -rf "$dir"
	boot bench_usable 0 --dir "$dir" --ram 1G --nvdimm 256M --nvdimm 512M \
		--cmdline 'bench=usable bench.reps=3'
	for size in 256M 512M; do
		expect "^bench: name=usable size=$size mode=dev metric=usable_time median=[0-9]+\.[0-9]{3} .* unit=ms n=3$"
		expect "^bench: name=usable size=$size mode=dev metric=usable_memremap_time median=[0-9]+\.[0-9]{3} .* unit=ms n=3$"
		expect "^bench: name=usable size=$size mode=dev metric=usable_vmemmap_time median=[0-9]+\.[0-9]{3} .* unit=ms n=3$"
	done
	expect '^bench: end errors=0 '
	expect_not 'error='
	expect_not '^bench: name=(memmap|overhead|lookup|blk|reprobe|btt) '
	rm -rf "$dir"
}
