# shellcheck shell=bash
# Machine checks from QEMU's own `mce` monitor command (issue 29, FACTS-3
# §2.2; arch/x86_64/mce.c, nvdimm/media_error.c): a scrub's find on pmem is
# listed and the machine goes on; the same on kernel RAM, or a consumed
# error outside a machine-check-safe copy, stops it with one decoded line
# and EXIT_MACHINE_CHECK (4). Each boot types its commands after the
# machine check (tools/run-qemu --serial-fifo, --monitor; test/qemu/lib.sh).

# QEMU's encodings: action optional (a patrol scrub: VAL|UC|EN|MISCV|ADDRV|S,
# MCACOD 0xC0; MCG_STATUS RIPV|MCIP) and action required (a data load: AR
# too, MCACOD 0x134; MCG_STATUS RIPV|EIPV|MCIP). MISC 0x8c: a physical
# address, 4 KiB granule.
MCE_AO='0xbd000000000000c0 5'
MCE_AR='0xbd80000000000134 7'

# mce_boot NAME: a live boot with one 64 MiB nvdimm (raw pmem0 over all of
# region0); MCE_REGION is region0's physical start, from its boot line.
mce_boot() {
	live_boot "$1" --ram 512M --nvdimm 64M --fresh || return 1
	MCE_REGION=$(live_text | sed -n 's/.*\] nd_region region0: \[mem \(0x[0-9a-f]*\)-.*/\1/p')
	[ -n "$MCE_REGION" ] || {
		echo "    FAIL: no nd_region region0 line"
		CASE_FAILED=1
		return 1
	}
}

# mce_inject STATUS_AND_MCG ADDR: QEMU's mce on CPU 0, bank 9; it must take it.
mce_inject() {
	live_monitor "mce 0 9 $1 $2 0x8c" || return 1
	if [ -n "$MON_OUT" ]; then
		echo "    FAIL: QEMU refused the machine check: $MON_OUT"
		CASE_FAILED=1
		return 1
	fi
}

# A scrub's find on pmem: the 4 KiB granule (sectors 128-135 of pmem0) is
# listed, reads of it fail with an I/O error, reads around it succeed; a
# second one on the next page (the handler cleared MCIP: else QEMU resets
# the machine) joins the same extent; a write over both heals them. The
# machine runs to poweroff.
case_mce_scrub_on_pmem_is_listed() {
	mce_boot mce_scrub_pmem || { live_end 0; return; }
	local page0 page1
	page0=$(printf '%#x' $((MCE_REGION + 0x10000)))
	page1=$(printf '%#x' $((MCE_REGION + 0x11000)))
	mce_inject "$MCE_AO" $((MCE_REGION + 0x10234)) &&
		live_wait "\] region0: media error at $page0 \(4096 bytes\), sectors 128-135: machine check \(scrub\), listed$"
	live_serial 'list -N -M'
	expect_out '^    "badblock_count":8,$'
	expect_out '^        "offset":128,$'
	expect_out '^        "length":8,$'
	expect_out '^          "nmem0"$'
	live_serial 'read pmem0 128 1' 'read pmem0 135 1' 'read pmem0 127 1' 'read pmem0 136 1'
	expect_out '^read pmem0: I/O error at sector 128$'
	expect_out '^read pmem0: I/O error at sector 135$'
	expect_out '^0000fe00: 00 00'
	expect_out '^00011000: 00 00'
	mce_inject "$MCE_AO" "$page1" &&
		live_wait "\] region0: media error at $page1 \(4096 bytes\), sectors 136-143: machine check \(scrub\), listed$"
	live_serial 'list -N -M'
	expect_out '^    "badblock_count":16,$'
	expect_out '^        "length":16,$'
	[ "$(grep -c '"offset":' <<<"$OUT")" = 1 ] ||
		{ echo "    FAIL: the two pages are not one extent"; CASE_FAILED=1; }
	live_serial 'write pmem0 128 16 pattern=0x5a' 'cmp pmem0 128 16 pattern=0x5a' 'list -N -M'
	expect_out '^write pmem0: 8192 bytes at 0x10000$'
	expect_out '^cmp pmem0: 8192 bytes at 0x10000 match$'
	expect_out_not 'badblock'
	live_type poweroff
	live_end 0
	# The boot line's banks and SER (its wording is the handler's business).
	expect '^\[ *[0-9.]+\] mce: machine checks on: 10 banks, MCG_CTL, .*\(SER\)$'
	expect_not 'machine stopped'
}

# The same scrub's find on kernel RAM (16 MiB: no pmem there) stops the machine.
case_mce_scrub_on_ram_stops_the_machine() {
	mce_boot mce_scrub_ram || { live_end 4; return; }
	mce_inject "$MCE_AO" 0x1000000
	live_end 4
	expect '\] mce: CPU 0 bank 9: uncorrected memory scrub error at 0x1000000 \(status 0xbd000000000000c0 misc 0x8c mcg_status 0x5\): not persistent memory: machine stopped$'
	expect_not 'media error'
}

# Action required on pmem while the CPU waits for input (in the idle loop,
# never inside a copy: nothing reads pmem then, so where QEMU delivers it
# is no matter): poison was consumed outside a machine-check-safe copy.
case_mce_action_required_outside_a_copy_stops_the_machine() {
	mce_boot mce_ar_idle || { live_end 4; return; }
	local addr
	addr=$(printf '%#x' $((MCE_REGION + 0x20000)))
	mce_inject "$MCE_AR" "$addr"
	live_end 4
	expect "\] mce: CPU 0 bank 9: uncorrected data read error at $addr \(status 0xbd80000000000134 misc 0x8c mcg_status 0x7\): action required outside a machine-check-safe copy: machine stopped\$"
	expect_not 'media error'
}
