#!/usr/bin/env bash
# Fetch ACPICA from Debian and build its interpreter core (no debugger, no
# disassembler, no compiler) into a static library for the kernel. Nothing
# of ACPICA is kept in the repository; pmemk's OS services layer is
# (drivers/acpica/).
#
#   tools/build-acpica.sh OUTDIR
#     OUTDIR/apt/           apt's private state for the fetch (see below)
#     OUTDIR/src/           what was fetched and unpacked
#     OUTDIR/components/    -> the directory of ACPICA's .c files and internal headers
#     OUTDIR/include/       -> ACPICA's public headers (acpi.h, platform/)
#     OUTDIR/obj/, OUTDIR/libacpica.a
#   ACPICA_CFLAGS in the environment: the kernel's code-generation flags
#   (the Makefile passes them).
#
# Where ACPICA comes from, in this order:
#  1. Debian's `acpica-unix` source package (`apt-get source`), ACPICA's own
#     release (source/components/*, source/include/);
#  2. if its files cannot be fetched (this workplace's Debian mirror answers
#     404 for every acpica-unix source archive, bookworm to sid), the binary
#     package `linux-source-6.1`, whose tarball carries the copy of ACPICA
#     that Linux ships (drivers/acpi/acpica/, include/acpi/; those files are
#     dual-licensed BSD-3-Clause OR GPL-2.0, and pmemk uses them under the
#     BSD licence). Only those two directories are unpacked.
# Both go through apt with a list of its own (OUTDIR/apt/sources.list,
# passed with -o Dir::Etc::SourceList, with private Dir::State::Lists and
# Dir::Cache): the machine's apt configuration and lists are not touched.
# The library is rebuilt only when the flags, the sources or this script
# change (a stamp).
set -euo pipefail
out=$(realpath -m "${1:?usage: build-acpica.sh OUTDIR}")
here=$(cd "$(dirname "$0")/.." && pwd)
cflags=${ACPICA_CFLAGS:?ACPICA_CFLAGS not set (run through make)}
die() {
	echo "build-acpica: $*" >&2
	exit 1
}

apt=$out/apt
aptopts() {	# aptopts SUITE_LINE...: write the private list, print the options
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	printf '%s\n' "$@" >"$apt/sources.list"
	opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
		-o APT::Sandbox::User=root -q)
	apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 ||
		{ tail -5 "$apt/update.log" >&2; die "apt-get update of the private list failed"; }
}

fetch_acpica_unix() {
	command -v dpkg-source >/dev/null || "$here/tools/deps.sh"	# installs dpkg-dev (root)
	command -v dpkg-source >/dev/null || return 1
	aptopts "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main"
	echo "build-acpica: apt-get source acpica-unix (private deb-src list in $apt)"
	rm -rf "$out/src" && mkdir -p "$out/src"
	(cd "$out/src" && apt-get "${opts[@]}" source acpica-unix) >"$apt/source.log" 2>&1 || {
		tail -3 "$apt/source.log" | sed 's/^/build-acpica:   /' >&2
		return 1
	}
	local s
	s=$(ls -d "$out"/src/acpica-unix*/ 2>/dev/null | head -1)
	[ -n "$s" ] && [ -f "$s/source/components/dispatcher/dsmethod.c" ] || return 1
	mkdir -p "$out/src/flat"
	# One flat directory of .c files and internal headers, as Linux has it.
	for d in dispatcher events executer hardware namespace parser resources tables utilities; do
		cp "$s/source/components/$d"/*.c "$out/src/flat/"
	done
	cp "$s"/source/include/*.h "$out/src/flat/"
	ln -sfn "$s/source/include" "$out/src/public"
	ln -sfn "$out/src/flat" "$out/components"
	ln -sfn "$s/source/include" "$out/include"
}

fetch_linux_source() {
	local pkg=linux-source-6.1
	aptopts "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main"
	echo "build-acpica: apt-get download $pkg (private list in $apt; ~140 MB, once)"
	rm -rf "$out/src" && mkdir -p "$out/src"
	(cd "$out/src" && apt-get "${opts[@]}" download "$pkg") >"$apt/download.log" 2>&1 ||
		{ tail -5 "$apt/download.log" >&2; die "apt-get download $pkg failed"; }
	local deb
	deb=$(ls "$out"/src/${pkg}_*.deb | head -1)
	# The .deb holds usr/src/linux-source-6.1.tar.xz; take ACPICA out of it.
	(cd "$out/src" && dpkg-deb --fsys-tarfile "$deb" |
		tar -xf - "./usr/src/$pkg.tar.xz" &&
		tar -xJf "usr/src/$pkg.tar.xz" "$pkg/drivers/acpi/acpica" "$pkg/include/acpi" &&
		rm -rf usr "$deb") || die "unpacking ACPICA out of $pkg failed"
	ln -sfn "$out/src/$pkg/drivers/acpi/acpica" "$out/components"
	ln -sfn "$out/src/$pkg/include" "$out/include"	# <acpi/acpi.h>
}

if [ ! -f "$out/components/dsmethod.c" ]; then
	fetch_acpica_unix || {
		echo "build-acpica: the acpica-unix source package could not be fetched; using linux-source-6.1's ACPICA" >&2
		fetch_linux_source
	}
	[ -f "$out/components/dsmethod.c" ] || die "no dsmethod.c after the fetch"
fi

# The interpreter core: every .c file except the debugger (db*, and
# rsdump.c, which only it uses), the disassembler (dm*), the allocation
# tracker (uttrack.c, for ACPI_DBG_TRACK_ALLOCATIONS) and ACPICA's own
# printf (utprint.c: newlib's is used). ACPI_DEBUGGER and ACPI_DISASSEMBLER
# are not defined, so what remains is the table manager, namespace, parser,
# dispatcher, executer, events, hardware, resources and utilities, with
# ACPICA's object caches (utcache.c, ACPI_USE_LOCAL_CACHE).
mapfile -t files < <(cd "$out/components" && ls ./*.c | sed 's|^\./||' |
	grep -v -E '^(db|dm|acpi_|osl)|^(rsdump|uttrack|utprint)\.c$' | sort)
[ ${#files[@]} -gt 100 ] || die "only ${#files[@]} ACPICA sources found in $out/components"

# pmemk's environment header (drivers/acpica/include/acpi/platform/) before
# ACPICA's own; ACPICA is not the kernel of <linux/...> headers.
extra="-U__KERNEL__ -I$here/drivers/acpica/include -I$out/components -I$out/include"
stamp=$( (echo "$cflags $extra"; echo "${files[*]}"; readlink -f "$out/components"
	cat "$here"/drivers/acpica/include/*/*.h "$here"/drivers/acpica/include/acpi/platform/*.h "$0") | sha1sum | cut -c1-16)
if [ -f "$out/libacpica.a" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
rm -rf "$out/obj" "$out/libacpica.a" "$out/.stamp"
mkdir -p "$out/obj"
# ACPICA is not held to pmemk's warning set.
objs=() pids=()
for f in "${files[@]}"; do
	o=$out/obj/${f%.c}.o
	objs+=("$o")
	# shellcheck disable=SC2086
	gcc $cflags $extra -w -c "$out/components/$f" -o "$o" 2>>"$out/obj/build.log" &
	pids+=($!)
	if [ ${#pids[@]} -ge "$(nproc)" ]; then
		wait "${pids[0]}" || die "compiling ACPICA failed (see $out/obj/build.log)"
		pids=("${pids[@]:1}")
	fi
done
for p in "${pids[@]}"; do
	wait "$p" || die "compiling ACPICA failed (see $out/obj/build.log)"
done
ar rcs "$out/libacpica.a" "${objs[@]}"
echo "$stamp" >"$out/.stamp"
echo "build-acpica: ACPICA ($(readlink -f "$out/components")) built into $out/libacpica.a (${#files[@]} files)"
