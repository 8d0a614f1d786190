#!/usr/bin/env bash
# Fetch http-parser 2.9.4 from Debian's `http-parser` source package and
# build it into a static library (FACTS-3 §4): the HTTP/1.1 request parser
# under net/http_request.c. Nothing of http-parser is kept in the
# repository.
#
#   tools/build-http-parser.sh OUTDIR          the kernel's library
#   tools/build-http-parser.sh OUTDIR host     the host's copy (unit tests, fuzzing)
#     OUTDIR/src/http-parser-2.9.4*/   the unpacked source package (Debian's patches applied)
#     OUTDIR/apt/                      apt's private state for the fetch (tools/debsrc.sh)
#     OUTDIR/include/                  -> the source directory (http_parser.h; one stable -I path)
#     OUTDIR/libhttp_parser.a          (kernel)
#     OUTDIR/host/libhttp_parser.a     (host)
#   HTTP_PARSER_CFLAGS in the environment: the code-generation flags (the
#   kernel's, or the host tests' with their sanitizers; the Makefile passes
#   them). This script adds -DHTTP_PARSER_STRICT=1: upstream's checked
#   configuration (its own tests run with it), which refuses more of what
#   is not HTTP than Debian's shared library (built with 0) does. Its
#   assert()s stay on, as in Debian's build: the kernel's newlib reports one
#   and stops.
#
# The source is fetched once; a library is rebuilt only when the flags, the
# source or this script change (a stamp). A lock keeps the kernel's and the
# host's builds (make -j) from fetching twice.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-http-parser.sh OUTDIR [host]}")
mode=${2:-kernel}
here=$(cd "$(dirname "$0")/.." && pwd)
cflags=${HTTP_PARSER_CFLAGS:?HTTP_PARSER_CFLAGS not set (run through make)}
# shellcheck source=tools/debsrc.sh
. "$here/tools/debsrc.sh"
die() {
	echo "build-http-parser: $*" >&2
	exit 1
}

case $mode in
kernel) lib=$out ;;
host)	lib=$out/host ;;
*)	die "unknown mode $mode (kernel or host)" ;;
esac

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
src=$(ls -d "$out"/src/http-parser-2.9.4*/ 2>/dev/null | head -1) || true
if [ -z "$src" ] || [ ! -f "$src/http_parser.c" ]; then
	debsrc_source build-http-parser "$out" http-parser || die "cannot fetch http-parser"
	src=$(ls -d "$out"/src/http-parser-2.9.4*/ 2>/dev/null | head -1) ||
		die "the http-parser source package is not 2.9.4: $(ls "$out/src")"
	[ -f "$src/http_parser.c" ] || die "no http_parser.c in $src"
fi
src=${src%/}
ln -sfn "$src" "$out/include"

config=(-DHTTP_PARSER_STRICT=1)
stamp=$( (echo "$cflags"; echo "${config[*]}"; echo "$src"; cat "$0" "$here/tools/debsrc.sh") |
	sha1sum | cut -c1-16)
if [ -f "$lib/libhttp_parser.a" ] && [ "$(cat "$lib/.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
rm -rf "$lib/obj" "$lib/libhttp_parser.a" "$lib/.stamp"
mkdir -p "$lib/obj"
# http-parser is not held to pmemk's warning set (-Werror, -Wmissing-prototypes, ...).
# shellcheck disable=SC2086
gcc $cflags "${config[@]}" -I"$src" -w -c "$src/http_parser.c" -o "$lib/obj/http_parser.o" \
	2>"$lib/obj/build.log" || die "compiling http-parser failed (see $lib/obj/build.log)"
ar rcs "$lib/libhttp_parser.a" "$lib/obj/http_parser.o"
echo "$stamp" >"$lib/.stamp"
echo "build-http-parser: $(basename "$src") built into $lib/libhttp_parser.a ($mode)"
