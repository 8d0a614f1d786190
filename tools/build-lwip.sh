#!/usr/bin/env bash
# Fetch lwIP 2.1.3 from Debian's `lwip` source package and build it into a
# static library for the kernel (FACTS-2 §5.1). Nothing of lwIP is kept in
# the repository; pmemk's lwipopts.h and arch/cc.h (net/lwip/include) are.
#
#   tools/build-lwip.sh OUTDIR
#     OUTDIR/src/lwip-2.1.3*/     the unpacked source package (Debian's patches applied)
#     OUTDIR/apt/                 apt's private state for the fetch (see below)
#     OUTDIR/obj/, OUTDIR/liblwip.a
#   LWIP_CFLAGS in the environment: the kernel's code-generation flags and
#   include paths (the Makefile passes them).
#
# The source is fetched once with `apt-get source` through a deb-src list of
# its own (OUTDIR/apt/sources.list, passed with -o Dir::Etc::SourceList, with
# private Dir::State::Lists and Dir::Cache): the machine's apt configuration
# and lists are not touched. The library is rebuilt only when the flags,
# pmemk's lwIP headers, the file list or this script change (a stamp).
set -euo pipefail
out=$(realpath -m "${1:?usage: build-lwip.sh OUTDIR}")
here=$(cd "$(dirname "$0")/.." && pwd)
cflags=${LWIP_CFLAGS:?LWIP_CFLAGS not set (run through make)}
die() {
	echo "build-lwip: $*" >&2
	exit 1
}

# What pmemk uses (src/Filelists.mk COREFILES/CORE4FILES, minus DNS,
# AutoIP, IGMP and IPv6; the Ethernet netif glue).
files=(core/init.c core/def.c core/inet_chksum.c core/ip.c core/mem.c core/memp.c
	core/netif.c core/pbuf.c core/raw.c core/stats.c core/sys.c core/tcp.c
	core/tcp_in.c core/tcp_out.c core/timeouts.c core/udp.c
	core/ipv4/dhcp.c core/ipv4/etharp.c core/ipv4/icmp.c core/ipv4/ip4.c
	core/ipv4/ip4_addr.c core/ipv4/ip4_frag.c netif/ethernet.c)

fetch() {
	command -v dpkg-source >/dev/null || "$here/tools/deps.sh"	# installs dpkg-dev (root)
	command -v dpkg-source >/dev/null || die "dpkg-source missing (apt-get install dpkg-dev)"
	local apt=$out/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$out/src"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
		>"$apt/sources.list"
	local opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
		-o APT::Sandbox::User=root -q)
	echo "build-lwip: apt-get source lwip (private deb-src list in $apt)"
	apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 ||
		{ tail -5 "$apt/update.log" >&2; die "apt-get update of the private deb-src list failed"; }
	rm -rf "$out/src"/*
	(cd "$out/src" && apt-get "${opts[@]}" source lwip) >"$apt/source.log" 2>&1 ||
		{ tail -5 "$apt/source.log" >&2; die "apt-get source lwip failed"; }
}

src=$(ls -d "$out"/src/lwip-2.1.3*/ 2>/dev/null | head -1) || true
if [ -z "$src" ] || [ ! -f "$src/src/core/tcp.c" ]; then
	fetch
	src=$(ls -d "$out"/src/lwip-2.1.3*/ 2>/dev/null | head -1) ||
		die "the lwip source package is not 2.1.3: $(ls "$out/src")"
	[ -f "$src/src/core/tcp.c" ] || die "no src/core/tcp.c in $src"
fi
src=${src%/}
ln -sfn "$src/src/include" "$out/include"	# one stable -I path for net/

stamp=$( (echo "$cflags"; echo "${files[*]}"; echo "$src"
	cat "$here"/net/lwip/include/lwipopts.h "$here"/net/lwip/include/arch/*.h "$0") |
	sha1sum | cut -c1-16)
if [ -f "$out/liblwip.a" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
rm -rf "$out/obj" "$out/liblwip.a" "$out/.stamp"
mkdir -p "$out/obj"
# lwIP is not held to pmemk's warning set (-Werror, -Wmissing-prototypes, ...).
objs=() pids=()
for f in "${files[@]}"; do
	o=$out/obj/$(echo "$f" | tr / _).o
	objs+=("$o")
	# shellcheck disable=SC2086
	gcc $cflags -I"$here/net/lwip/include" -I"$src/src/include" -w -c "$src/src/$f" -o "$o" \
		2>>"$out/obj/build.log" &
	pids+=($!)
	if [ ${#pids[@]} -ge "$(nproc)" ]; then
		wait "${pids[0]}" || die "compiling lwIP failed (see $out/obj/build.log)"
		pids=("${pids[@]:1}")
	fi
done
for p in "${pids[@]}"; do
	wait "$p" || die "compiling lwIP failed (see $out/obj/build.log)"
done
ar rcs "$out/liblwip.a" "${objs[@]}"
echo "$stamp" >"$out/.stamp"
echo "build-lwip: $(basename "$src") built into $out/liblwip.a (${#files[@]} files)"
