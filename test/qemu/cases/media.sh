# shellcheck shell=bash
# The media path (issue 28, nvdimm/nsio.c): one door to a namespace's bytes.

# media_file_sums DIR: "name sha1" for each backing file of DIR, one a line.
media_file_sums() {
	local f
	for f in "$1"/nvdimm*.img; do
		printf '%s %s\n' "${f##*/}" "$(sha1sum <"$f" | cut -d' ' -f1)"
	done
}

# On a read-only region (QEMU unarmed=on: the NFIT says not armed) every
# writer is refused and no byte changes: block writes to raw, sector,
# devdax and fsdax devices, a store through a devdax mapping, the
# nbd-memcpy benchmark's durable copy, an NBD export (served read-only),
# info blocks (create and destroy), and the BTT checker's repair. Reads go
# on and see what the writable boot wrote. Judged by the files (issue 29
# item 5): the backing files stay writable (--nvdimm-unarmed, not
# --nvdimm-ro, whose read-only files no store could change), so any store
# that reached the media would show in their hashes, taken before and after.
case_media_read_only_refuses_every_writer() {
	local dir=build/qemu/media_ro before after
	rm -rf "$dir"
	boot media_ro_1 0 --dir "$dir" --ram 1G --nvdimm 64M --nvdimm 64M --nvdimm 64M \
		--nvdimm 64M --cmdline '"run=create-namespace -f -e namespace1.0 -m sector; create-namespace -f -e namespace2.0 -m devdax -a 2M; create-namespace -f -e namespace3.0 -m fsdax -M dev; write pmem0 0 8 pattern=0x11; write pmem1s 0 8 pattern=0x22; write dax2.0 0 8 pattern=0x33; write pmem3m 0 8 pattern=0x44; poweroff"'
	expect '^write pmem3m: 4096 bytes at 0'
	before=$(media_file_sums "$dir")
	boot media_ro_2 0 --dir "$dir" --ram 1G --nvdimm 64M --nvdimm 64M --nvdimm 64M \
		--nvdimm 64M --nvdimm-unarmed --nic virtio --cmdline '"run=write pmem0 0 8 pattern=0x55; write pmem1s 0 8 pattern=0x55; write dax2.0 0 8 pattern=0x55; write pmem3m 0 8 pattern=0x55; dax-map dax2.0 0 0x200000; dax-write 0 0 4096 pattern=0x55; dax-unmap 0; nbd-memcpy pmem3m 1M; nbd-memcpy pmem0 1M; nbd-export pmem3m; create-namespace -f -e namespace0.0 -m fsdax; destroy-namespace -f namespace3.0; check-namespace --repair namespace1.0; cmp pmem0 0 8 pattern=0x11; cmp pmem1s 0 8 pattern=0x22; cmp dax2.0 0 8 pattern=0x33; cmp pmem3m 0 8 pattern=0x44; poweroff"'
	after=$(media_file_sums "$dir")
	expect 'not armed, region read-only'
	local d
	for d in pmem0 pmem1s dax2\\.0 pmem3m; do
		expect "^write $d: read-only"
	done
	expect '^dax-write dax2\.0: read-only \(error -30\)$'
	expect '^nbd-memcpy: pmem3m: read-only \(error -30\)$'
	expect '^nbd-memcpy: pmem0: read-only \(error -30\)$'
	expect '\] nbd: exporting pmem3m \([0-9]+ bytes, read-only, READ zero copy\)$'
	expect '\] namespace0\.0: region region0 is read-only$'
	expect '\] namespace3\.0: region region3 is read-only$'
	expect 'namespace1\.0: read-only region: cannot repair'
	expect '^cmp pmem0: 4096 bytes at 0 match'
	expect '^cmp pmem1s: 32768 bytes at 0 match'
	expect '^cmp dax2\.0: 4096 bytes at 0 match'
	expect '^cmp pmem3m: 4096 bytes at 0 match'
	if [ "$(wc -l <<<"$before")" != 4 ] || [ "$before" != "$after" ]; then
		echo "    FAIL: a read-only boot changed a backing file:"
		diff <(echo "$before") <(echo "$after") | sed -n 's/^> /    | now /p'
		CASE_FAILED=1
	fi
	rm -rf "$dir"
}
