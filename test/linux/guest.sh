# Helpers for scenario scripts in the Linux guest (busybox sh, set -e),
# sourced as /guest.sh from /scenario.sh (test/linux/lib.sh packs both).
# What the host reads back is printed on lines starting with '==== ':
#   ==== json NAME          followed by ndctl's JSON
#   ==== sha NAME HEX       sha256 of a range of a block device
#   ==== NOTE ...           for the person reading the log

# step CMD...: print the command as a shell would, then run it.
step() {
	echo "linux# $*"
	"$@"
}

# ns_of_dimm IDX: the namespace on the IDX-th nvdimm of QEMU's command line.
# QEMU places nvdimms in that order from 4 GiB up; Linux numbers regions in
# NFIT order, which need not be the same, so go by address. Label-less
# regions have one namespace, namespaceN.0 in regionN.
ns_of_dimm() {
	local n
	n=$(region_of_dimm "$1") || return 1
	echo "namespace$n.0"
}

# region_of_dimm IDX: the number N of regionN, the IDX-th nvdimm's region.
region_of_dimm() {
	local r n
	n=$(for r in /sys/bus/nd/devices/region*; do
		echo "$(printf %d "$(cat "$r/resource")") ${r##*/region}"
	done | sort -n | sed -n "$(($1 + 1))s/.* //p")
	[ -n "$n" ] || { echo "==== no region for nvdimm $1" >&2; return 1; }
	echo "$n"
}

# nmem_of_region N: the DIMM under regionN (its first mapping).
nmem_of_region() {
	cut -d, -f1 "/sys/bus/nd/devices/region$1/mapping0"
}

# ns_named REGION NAME: the namespace of regionREGION whose label name is NAME.
ns_named() {
	local ns
	for ns in /sys/bus/nd/devices/namespace$1.*; do
		[ "$(cat "$ns/alt_name" 2>/dev/null)" = "$2" ] && { echo "${ns##*/}"; return 0; }
	done
	echo "==== no namespace named $2 in region$1" >&2
	return 1
}

# ns_head_sha TAG NS: sha256 of the first MiB of NS's block device, or of its
# device-dax device through mmap.
ns_head_sha() {
	local dev
	dev=$(blockdev_of "$2")
	if [ -n "$dev" ]; then
		sha "$1" "$dev" 0 1048576
	else
		dev=$(chardev_of "$2")
		dax_sha "$1" "$dev" 0 1048576
	fi
}

# ns_head_write NS FILE: FILE (1 MiB) to the start of NS's block device or
# device-dax device, durable.
ns_head_write() {
	local dev
	dev=$(blockdev_of "$1")
	if [ -n "$dev" ]; then
		step dd if="$2" of="/dev/$dev" bs=4096 conv=fsync 2>/dev/null
	else
		dev=$(chardev_of "$1")
		step /daxrw w "/dev/$dev" 0 1048576 "$(dax_attr "$dev" align)" <"$2"
	fi
}

# blockdev_of NS: its block device as ndctl lists it (pmemN, pmemNs).
blockdev_of() {
	ndctl list -n "$1" | sed -n 's/.*"blockdev":"\([^"]*\)".*/\1/p'
}

# chardev_of NS: its device-dax character device as ndctl lists it (daxN.M).
chardev_of() {
	ndctl list -n "$1" | sed -n 's/.*"chardev":"\([^"]*\)".*/\1/p'
}

# nslist NS: ndctl's listing; a devdax namespace verbose (-v), as pmemk's
# list always is: its "daxregion" with the device (else only "chardev").
nslist() {
	if ndctl list -n "$1" | grep -q '"mode":"devdax"'; then
		ndctl list -v -n "$1"
	else
		ndctl list -n "$1"
	fi
}

# dax_attr DAX FILE: /sys/bus/dax/devices/DAX/FILE (size, align).
dax_attr() {
	cat "/sys/bus/dax/devices/$1/$2"
}

# dax_sha NAME DAX OFFSET LENGTH: sha256 of bytes [OFFSET, OFFSET+LENGTH) of
# /dev/DAX, read through mmap (Linux's device-dax has no read(): /daxrw).
dax_sha() {
	local s a
	a=$(dax_attr "$2" align)
	s=$(/daxrw r "/dev/$2" "$3" "$4" "$a" | sha256sum)
	echo "==== sha $1 ${s%% *}"
	echo "==== NOTE $1: $(/daxrw r "/dev/$2" "$3" 16 "$a" | od -An -tx1 -N16 | tr -s ' ')"
}

# capacity DEV: bytes.
capacity() {
	echo $(($(cat "/sys/block/$1/size") * 512))
}

# json NAME CMD...: run an ndctl/daxctl command whose JSON the host reads.
json() {
	local name=$1
	shift
	echo "linux# $*"
	echo "==== json $name"
	"$@"
}

# sha NAME DEV OFFSET LENGTH: sha256 of bytes [OFFSET, OFFSET+LENGTH) of
# /dev/DEV (multiples of 512), and its first 16 bytes in hex for people.
# Read in 1 MiB blocks where both are multiples of 1 MiB (whole devices).
sha() {
	local s bs=512
	[ $(($3 % 1048576)) = 0 ] && [ $(($4 % 1048576)) = 0 ] && bs=1048576
	s=$(dd if="/dev/$2" bs=$bs skip=$(($3 / bs)) count=$(($4 / bs)) 2>/dev/null | sha256sum)
	echo "==== sha $1 ${s%% *}"
	echo "==== NOTE $1: $(dd if="/dev/$2" bs=512 skip=$(($3 / 512)) count=1 2>/dev/null |
		od -An -tx1 -N16 | tr -s ' ')"
}

# pmemk_to_linux ROW IDX: the namespace pmemk made on nvdimm IDX, as ndctl
# lists it, and its data: 1 MiB at 0, 32 KiB at the end, the 32 KiB before.
pmemk_to_linux() {
	local row=$1 ns dev cap
	ns=$(ns_of_dimm "$2")
	json "$row.p2l" nslist "$ns"
	dev=$(blockdev_of "$ns")
	if [ -z "$dev" ] && dev=$(chardev_of "$ns") && [ -n "$dev" ]; then
		cap=$(dax_attr "$dev" size)
		echo "==== NOTE $row: nvdimm $2 is $ns, /dev/$dev (devdax), $cap bytes"
		dax_sha "$row.p2l.head" "$dev" 0 1048576
		dax_sha "$row.p2l.guard" "$dev" $((cap - 65536)) 32768
		dax_sha "$row.p2l.tail" "$dev" $((cap - 32768)) 32768
		return 0
	fi
	[ -n "$dev" ] || { echo "==== NOTE $row: $ns has no block device"; return 0; }
	cap=$(capacity "$dev")
	echo "==== NOTE $row: nvdimm $2 is $ns, /dev/$dev, $cap bytes"
	sha "$row.p2l.head" "$dev" 0 1048576
	sha "$row.p2l.guard" "$dev" $((cap - 65536)) 32768
	sha "$row.p2l.tail" "$dev" $((cap - 32768)) 32768
}

# pmemk_to_linux_check ROW IDX: ndctl check-namespace on it (a BTT), which
# needs the namespace disabled; enabled again after.
pmemk_to_linux_check() {
	local ns rc=0
	ns=$(ns_of_dimm "$2")
	step ndctl disable-namespace "$ns"
	step ndctl check-namespace "$ns" || rc=$?
	echo "==== check $1.p2l $rc"
	step ndctl enable-namespace "$ns"
}

# linux_to_pmemk ROW IDX TAILBYTE NDCTL-ARGS...: ndctl create-namespace on
# nvdimm IDX; /data/ROW.head (the host's seq pattern) to its first 1 MiB,
# TAILBYTE to its last 32 KiB (the 32 KiB before stay zero), durable
# (conv=fsync); then ndctl's listing for the host to set against pmemk's.
linux_to_pmemk() {
	local row=$1 idx=$2 byte=$3 ns dev cap
	shift 3
	ns=$(ns_of_dimm "$idx")
	step ndctl create-namespace -f -e "$ns" "$@"
	dev=$(blockdev_of "$ns")
	if [ -n "$dev" ] && [ -f "/data/$row.head" ]; then
		cap=$(capacity "$dev")
		echo "==== NOTE $row: nvdimm $idx is $ns, /dev/$dev, $cap bytes"
		step dd if="/data/$row.head" of="/dev/$dev" bs=4096 conv=fsync 2>/dev/null
		echo "linux# dd if=/dev/zero bs=512 count=64 | tr '\\000' '\\$(printf %o "$byte")' |" \
			"dd of=/dev/$dev bs=512 seek=$((cap / 512 - 64)) conv=fsync"
		dd if=/dev/zero bs=512 count=64 2>/dev/null | tr '\000' "\\$(printf %o "$byte")" |
			dd of="/dev/$dev" bs=512 seek=$((cap / 512 - 64)) conv=fsync 2>/dev/null
		sha "$row.l2p.tail" "$dev" $((cap - 32768)) 32768
	elif dev=$(chardev_of "$ns") && [ -n "$dev" ] && [ -f "/data/$row.head" ]; then
		# devdax: the same bytes stored through a mapping of /dev/daxN.M.
		local a
		cap=$(dax_attr "$dev" size)
		a=$(dax_attr "$dev" align)
		echo "==== NOTE $row: nvdimm $idx is $ns, /dev/$dev (devdax), $cap bytes"
		step /daxrw w "/dev/$dev" 0 1048576 "$a" <"/data/$row.head"
		echo "linux# dd if=/dev/zero bs=512 count=64 | tr '\\000' '\\$(printf %o "$byte")' |" \
			"/daxrw w /dev/$dev $((cap - 32768)) 32768 $a"
		dd if=/dev/zero bs=512 count=64 2>/dev/null | tr '\000' "\\$(printf %o "$byte")" |
			/daxrw w "/dev/$dev" $((cap - 32768)) 32768 "$a"
		dax_sha "$row.l2p.tail" "$dev" $((cap - 32768)) 32768
	fi
	json "$row.l2p" nslist "$ns"
}

# Linux's NBD client against pmemk (test/linux/cases/nbd_client.sh).

# net_up: eth0 at 10.0.2.15/24, the gateway 10.0.2.2 (QEMU's user network;
# pmemk's forwarded port is on the host's loopback, which 10.0.2.2 reaches).
net_up() {
	ip link set lo up
	ip link set eth0 up
	ip addr add 10.0.2.15/24 dev eth0
	ip route add default via 10.0.2.2
}

# guest_tools: the versions of the client side's tools, one line, and the md
# personalities the kernel has (raid1 for mirrors over /dev/nbdN).
guest_tools() {
	echo "==== NOTE tools: $(nbd-client -V 2>&1 | head -1); $(e2fsck -V 2>&1 | head -1);" \
		"$(mdadm --version 2>&1); md $(grep Personalities /proc/mdstat)"
}

# nbd_attach DEV PORT EXPORT CONNS BLOCK: /dev/DEV on pmemk's EXPORT at
# 10.0.2.2:PORT with CONNS connections and BLOCK-byte blocks (-: nbd-client's
# default); then what the driver made of it (the queue's limits, the flags
# pmemk sent), two lines.
nbd_attach() {
	local q=/sys/block/$1/queue c= b=
	[ "$4" -gt 1 ] && c="-C $4"
	[ "$5" = - ] || b="-b $5"
	# shellcheck disable=SC2086
	step nbd-client 10.0.2.2 "$2" "/dev/$1" -N "$3" $b $c
	echo "==== nbd $1 $3: $(cat "/sys/block/$1/size") sectors, $4 connections," \
		"logical_block_size $(cat $q/logical_block_size)," \
		"max_hw_sectors_kb $(cat $q/max_hw_sectors_kb)," \
		"max_sectors_kb $(cat $q/max_sectors_kb)," \
		"discard_max_bytes $(cat $q/discard_max_bytes)," \
		"write_cache $(cat $q/write_cache), fua $(cat $q/fua)"
	[ -d /sys/kernel/debug/nbd ] || mount -t debugfs debugfs /sys/kernel/debug
	echo "==== nbd $1 flags: $(tr '\n' ' ' <"/sys/kernel/debug/nbd/$1/flags")"
}

# nbd_no_discard DEV: pmemk does not offer TRIM, so the driver has no
# discard: blkdiscard fails in Linux, before anything reaches the server.
nbd_no_discard() {
	if blkdiscard "/dev/$1" 2>/tmp/blkdiscard.err; then
		echo "==== nbd $1: blkdiscard went through"
		return 1
	fi
	echo "==== nbd $1: blkdiscard refused by Linux: $(cat /tmp/blkdiscard.err)"
}

# nbd_detach DEV: disconnect (DISC on every connection), and what the
# block layer sent on it: /sys/block/DEV/stat's reads, writes, discards
# and flushes (requests, each one NBD command).
nbd_detach() {
	# shellcheck disable=SC2046
	set -- "$1" $(cat "/sys/block/$1/stat")
	echo "==== nbd $1 requests: $2 reads ($4 sectors), $6 writes ($8 sectors)," \
		"${13} discards, ${17} flushes"
	step nbd-client -d "/dev/$1"
}

# ext4_fill DEV: a new ext4 on /dev/DEV with /data/tree on it, its hashes
# checked as the page cache has them, unmounted, checked with fsck.
ext4_fill() {
	step mkfs.ext4 -q -F "/dev/$1"
	mkdir -p "/mnt/$1"
	step mount -t ext4 "/dev/$1" "/mnt/$1"
	step cp -a /data/tree/. "/mnt/$1/"
	step sync
	(cd "/mnt/$1" && sha256sum -c -s /data/SHA256SUMS)
	step umount "/mnt/$1"
	step fsck.ext4 -fn "/dev/$1"
	echo "==== ext4 $1 written"
}

# ext4_check DEV: fsck the ext4 on /dev/DEV (nothing changed), mount it and
# check every file's hash against /data/SHA256SUMS; unmount.
ext4_check() {
	step fsck.ext4 -fn "/dev/$1"
	mkdir -p "/mnt/$1"
	step mount -t ext4 -o ro "/dev/$1" "/mnt/$1"
	(cd "/mnt/$1" && sha256sum -c -s /data/SHA256SUMS)
	echo "==== ext4 $1 read back: $(wc -l </data/SHA256SUMS) files, every hash right"
	step umount "/mnt/$1"
}

# ext4_acked_writes PORT N: on /dev/nbd0 (attached, its nbd-client with -p
# in the background): a new ext4 with /data/tree, then N files of 1 MiB
# (random), each with fsync, a line each saying whether it returned; the
# server is killed and rebooted meanwhile. Then, whatever the client did:
# unmount, detach, attach again (up to two minutes), mount (the journal
# replayed), unmount, fsck -fn, and every hash of the tree and of the files
# whose fsync returned.
ext4_acked_writes() {
	local i=0
	step mkfs.ext4 -q -F /dev/nbd0
	mkdir -p /mnt/nbd0
	step mount -t ext4 /dev/nbd0 /mnt/nbd0
	step cp -a /data/tree/. /mnt/nbd0/
	step sync
	: >/tmp/acked
	while [ $i -lt "$2" ]; do
		dd if=/dev/urandom of=/tmp/w bs=65536 count=16 2>/dev/null
		if dd if=/tmp/w of="/mnt/nbd0/w$i" bs=65536 conv=fsync 2>/tmp/dd.err; then
			echo "$(sha256sum </tmp/w | cut -d' ' -f1)  w$i" >>/tmp/acked
			echo "==== persist: w$i fsync returned"
		else
			echo "==== persist: w$i failed: $(tail -1 /tmp/dd.err)"
		fi
		sleep 0.3
		i=$((i + 1))
	done
	if pidof nbd-client >/dev/null; then
		echo "==== NOTE persist: nbd-client -p still running, /dev/nbd0 $(cat /sys/block/nbd0/size) sectors"
	else
		echo "==== NOTE persist: nbd-client -p has quit"
	fi
	echo "==== NOTE persist: the kernel said: $(dmesg | grep -E 'nbd0: |Aborting journal|Remounting filesystem read-only' | sed 's/^\[[ 0-9.]*\] //' | sort -u | tr '\n' ';')"
	step umount /mnt/nbd0 || true
	step nbd-client -d /dev/nbd0 || true
	nbd_attach_retry nbd0 "$1" pmem0
	echo "==== NOTE persist: attached again after $ATTACH_RETRIES retries"
	step mount -t ext4 /dev/nbd0 /mnt/nbd0
	step umount /mnt/nbd0
	step fsck.ext4 -fn /dev/nbd0
	step mount -t ext4 -o ro /dev/nbd0 /mnt/nbd0
	(cd /mnt/nbd0 && sha256sum -c -s /data/SHA256SUMS && sha256sum -c -s /tmp/acked)
	echo "==== persist: after attaching again: the tree and $(wc -l </tmp/acked) files whose fsync returned read back, fsck clean"
	step umount /mnt/nbd0
	step nbd-client -d /dev/nbd0
}

# md RAID1 over two pmemk appliances (test/linux/cases/nbd_mirror.sh).

# nbd_attach_retry DEV PORT EXPORT [OPTION...]: /dev/DEV on EXPORT of the
# pmemk at 10.0.2.2:PORT with 4 KiB blocks, retried every half second for up
# to two minutes while it boots; ATTACH_RETRIES says how many retries it took.
nbd_attach_retry() {
	local dev=$1 port=$2 exp=$3
	shift 3
	ATTACH_RETRIES=0
	echo "linux# nbd-client 10.0.2.2 $port /dev/$dev -N $exp -b 4096 $*"
	until nbd-client 10.0.2.2 "$port" "/dev/$dev" -N "$exp" -b 4096 "$@" >/tmp/attach.out 2>&1; do
		ATTACH_RETRIES=$((ATTACH_RETRIES + 1))
		[ $ATTACH_RETRIES -lt 240 ] || { cat /tmp/attach.out; return 1; }
		sleep 0.5
	done
}

# mirror_attach DEV PORT: /dev/DEV on pmem0 of the pmemk at 10.0.2.2:PORT,
# requests timing out after 5 s (-t) so that a dead appliance fails them in
# seconds.
mirror_attach() {
	nbd_attach_retry "$1" "$2" pmem0 -t 5
	[ $ATTACH_RETRIES = 0 ] || echo "==== NOTE mirror: /dev/$1 attached after $ATTACH_RETRIES retries"
}

# uptime_cs: hundredths of a second since Linux booted.
uptime_cs() {
	sed 's/^\([0-9]*\)\.\([0-9][0-9]\).*/\1\2/' /proc/uptime
}

# md_sync_wait WHAT: until md0 runs no resync or recovery and has both
# members in sync (up to 90 s), then one line saying how long it took.
md_sync_wait() {
	local t0 t n=0 md=/sys/block/md0/md
	t0=$(uptime_cs)
	sleep 0.2
	while [ "$(cat $md/sync_action)" != idle ] || [ "$(cat $md/degraded)" != 0 ]; do
		n=$((n + 1))
		[ $n -lt 900 ] || { echo "==== mirror: $1 still running after 90 s"; cat /proc/mdstat; return 1; }
		sleep 0.1
	done
	t=$(($(uptime_cs) - t0 + 20))
	echo "==== mirror: $1 done in $((t / 100)).$((t / 10 % 10)) s"
}

# mirror_write NAME: 256 KiB of random bytes to /mnt/md0/NAME with fsync;
# its hash goes to /tmp/acked if the fsync returned, else to /tmp/failed.
mirror_write() {
	dd if=/dev/urandom of=/tmp/w bs=65536 count=4 2>/dev/null
	if dd if=/tmp/w of="/mnt/md0/$1" bs=65536 conv=fsync 2>/tmp/dd.err; then
		echo "$(sha256sum </tmp/w | cut -d' ' -f1)  $1" >>/tmp/acked
	else
		echo "$1: $(tail -1 /tmp/dd.err)" >>/tmp/failed
	fi
}

# mirror_check WHEN: the page cache dropped, every hash of /data/tree and
# of the files whose fsync returned read back from /mnt/md0.
mirror_check() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	(cd /mnt/md0 && sha256sum -c -s /data/SHA256SUMS)
	[ ! -s /tmp/acked ] || (cd /mnt/md0 && sha256sum -c -s /tmp/acked)
	echo "==== mirror: $1: the tree and $(wc -l </tmp/acked) files read back, every hash right"
}

# mirror_up PORT_A PORT_B: /dev/nbd0 on appliance A, /dev/nbd1 on B, md
# RAID1 over them (metadata 1.2, an internal bitmap of 1 MiB chunks: a
# member that comes back resyncs only the chunks written while it was
# away), the initial resync awaited, an ext4 on /dev/md0 with /data/tree.
mirror_up() {
	mirror_attach nbd0 "$1"
	mirror_attach nbd1 "$2"
	echo 200000 >/proc/sys/dev/raid/speed_limit_min
	step mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal --bitmap-chunk=1024 /dev/nbd0 /dev/nbd1
	md_sync_wait "initial resync of $(capacity md0) bytes"
	echo "==== mirror: data offset $(mdadm --examine /dev/nbd1 |
		sed -n 's/.*Data Offset : \([0-9]*\) sectors.*/\1/p') sectors"
	step mkfs.ext4 -q -F /dev/md0
	mkdir -p /mnt/md0
	step mount -t ext4 /dev/md0 /mnt/md0
	step cp -a /data/tree/. /mnt/md0/
	step sync
	: >/tmp/acked
	: >/tmp/failed
	mirror_check "both appliances up"
}

# mirror_degrade: '==== mirror: ready-to-kill' (the host then kills
# appliance B), files written with fsync every quarter second until md
# fails /dev/nbd1 (up to a minute), eight more on the degraded array, and
# every hash checked; a failed fsync fails the scenario.
mirror_degrade() {
	local i=0 t0 t
	t0=$(uptime_cs)
	echo "==== mirror: ready-to-kill"
	while [ "$(cat /sys/block/md0/md/degraded)" = 0 ]; do
		[ $i -lt 240 ] || { echo "==== mirror: md never failed /dev/nbd1"; return 1; }
		mirror_write "k$i"
		sleep 0.25
		i=$((i + 1))
	done
	t=$(($(uptime_cs) - t0))
	echo "==== mirror: degraded $((t / 100)).$((t / 10 % 10)) s after ready-to-kill, $i files written meanwhile"
	echo "==== NOTE mirror: the kernel said: $(dmesg | grep -E 'nbd1|raid1' | sed 's/^\[[ 0-9.]*\] //' |
		head -6 | tr '\n' ';')"
	echo "==== NOTE mirror: $(grep -A1 '^md0' /proc/mdstat | tr -s ' \n' ' ')"
	i=0
	while [ $i -lt 8 ]; do
		mirror_write "g$i"
		i=$((i + 1))
	done
	if [ -s /tmp/failed ]; then
		echo "==== mirror: an fsync failed: $(tr '\n' ';' </tmp/failed)"
		return 1
	fi
	mirror_check "degraded"
}

# mirror_readd PORT_B: /dev/nbd1 detached from the dead appliance, attached
# again once B is back (same file, same port), --re-add to md0, the
# recovery awaited; every hash; then md0 stopped and both detached.
mirror_readd() {
	step mdadm /dev/md0 --remove /dev/nbd1
	step nbd-client -d /dev/nbd1
	mirror_attach nbd1 "$1"
	step mdadm /dev/md0 --re-add /dev/nbd1
	md_sync_wait "recovery after --re-add"
	echo "==== NOTE mirror: the kernel said: $(dmesg | grep -E 'md: (recovery|md0)' | sed 's/^\[[ 0-9.]*\] //' |
		tail -3 | tr '\n' ';')"
	mirror_check "both again"
	step umount /mnt/md0
	step mdadm --stop /dev/md0
	step nbd-client -d /dev/nbd0
	step nbd-client -d /dev/nbd1
	echo "==== mirror: stopped clean"
}

# Crash consistency (test/linux/cases/nbd_crash.sh): ext4 on /dev/nbd0 and
# /dev/nbd1 while the host SIGKILLs the pmemk serving them, round after
# round. /tmp/acked.DEV lists the sha256 of every file whose fsync returned.

# crash_writer DEV ROUND: files of 4-32 KiB (random bytes) in ROUND's
# directory, each written with fsync, until one fails (the server died) or
# 300 are written; each whose fsync returned is added to /tmp/acked.DEV.
crash_writer() {
	local dev=$1 i=0
	while [ $i -lt 300 ]; do
		dd if=/dev/urandom of="/tmp/w.$dev" bs=4096 count=$((1 + RANDOM % 8)) 2>/dev/null
		dd if="/tmp/w.$dev" of="/mnt/$dev/r$2/f$i" bs=65536 conv=fsync 2>/dev/null || break
		echo "$(sha256sum <"/tmp/w.$dev" | cut -d' ' -f1)  r$2/f$i" >>"/tmp/acked.$dev"
		i=$((i + 1))
	done
	echo $i >"/tmp/written.$dev"
}

# crash_verify DEV ROUND: after a crash, mount (the journal replayed),
# unmount, fsck -fn, mount and check every file in /tmp/acked.DEV. One line
# either way; non-zero when something is lost.
crash_verify() {
	local dev=$1 n bad=0 sum name got
	n=$(wc -l <"/tmp/acked.$dev")
	if ! mount -t ext4 "/dev/$dev" "/mnt/$dev" 2>/tmp/mount.err; then
		echo "==== crash: round $2 $dev: LOST: mount failed: $(tail -1 /tmp/mount.err)"
		return 1
	fi
	umount "/mnt/$dev"
	if ! fsck.ext4 -fn "/dev/$dev" >/tmp/fsck.out 2>&1; then
		echo "==== crash: round $2 $dev: LOST: fsck -fn found errors: $(grep -v '^Pass\|^e2fsck\|^/dev' /tmp/fsck.out | head -3 | tr '\n' ';')"
		return 1
	fi
	mount -t ext4 -o ro "/dev/$dev" "/mnt/$dev"
	if ! (cd "/mnt/$dev" && sha256sum -c -s "/tmp/acked.$dev" 2>/dev/null); then
		while read -r sum name; do
			got=$(sha256sum <"/mnt/$dev/$name" 2>/dev/null | cut -d' ' -f1) || got=
			[ "$got" = "$sum" ] || bad=$((bad + 1))
		done <"/tmp/acked.$dev"
	fi
	umount "/mnt/$dev"
	if [ $bad != 0 ]; then
		echo "==== crash: round $2 $dev: LOST: $bad of the $n files whose fsync returned are missing or changed"
		return 1
	fi
	echo "==== crash: round $2 $dev: fsck clean, all $n files whose fsync returned intact"
}

# crash_rounds PORT ROUNDS MODE: /dev/nbd0 on pmem0m (fsdax) and /dev/nbd1
# on pmem1s (sector); a new ext4 on each, then ROUNDS times: write with
# crash_writer on both ('==== crash: round R writing', the host's cue to
# kill), unmount and detach once the writers stop, attach again (pmemk
# booted again), crash_verify both. MODE strict: a loss fails the scenario;
# mutation: it ends it, with '==== crash: caught in round R'.
crash_rounds() {
	local port=$1 r=0 dev
	for dev in nbd0 nbd1; do
		mkdir -p "/mnt/$dev"
		: >"/tmp/acked.$dev"
	done
	nbd_attach_retry nbd0 "$port" pmem0m -t 5
	nbd_attach_retry nbd1 "$port" pmem1s -t 5
	step mkfs.ext4 -q -F /dev/nbd0
	step mkfs.ext4 -q -F /dev/nbd1
	while [ $r -lt "$2" ]; do
		for dev in nbd0 nbd1; do
			mount -t ext4 "/dev/$dev" "/mnt/$dev"
			mkdir "/mnt/$dev/r$r"
		done
		sync
		echo "==== crash: round $r writing"
		crash_writer nbd0 $r &
		crash_writer nbd1 $r &
		wait
		echo "==== crash: round $r: the writers stopped after $(cat /tmp/written.nbd0) and $(cat /tmp/written.nbd1) files"
		for dev in nbd0 nbd1; do
			umount "/mnt/$dev" 2>/dev/null || umount -l "/mnt/$dev"
			nbd-client -d "/dev/$dev" >/dev/null 2>&1 || true
		done
		nbd_attach_retry nbd0 "$port" pmem0m -t 5
		nbd_attach_retry nbd1 "$port" pmem1s -t 5
		for dev in nbd0 nbd1; do
			if ! crash_verify $dev $r; then
				[ "$3" = mutation ] || return 1
				echo "==== crash: caught in round $r"
				return 0
			fi
		done
		r=$((r + 1))
	done
	nbd-client -d /dev/nbd0
	nbd-client -d /dev/nbd1
	echo "==== crash: $2 rounds, nothing lost"
}
