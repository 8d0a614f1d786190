#!/usr/bin/env bash
# Fetch jsmn 1.1.0 (FACTS-3 §4: a JSON tokenizer in one header, no
# allocation) from Debian: net/api_json.c includes it, so it is compiled
# with whatever flags that file is (the kernel's, the host tests'). Nothing
# of jsmn is kept in the repository.
#
#   tools/fetch-jsmn.sh OUTDIR
#     OUTDIR/apt/            apt's private state for the fetch (tools/debsrc.sh)
#     OUTDIR/src/ or deb/    what was fetched
#     OUTDIR/include/jsmn.h  the header (one stable -I path)
#
# Where it comes from, in this order:
#  1. Debian's `jsmn` source package (`apt-get source`, a deb-src list);
#  2. if that cannot be fetched (this workplace's Debian mirror answers 404
#     for jsmn_1.1.0-2.debian.tar.xz, the packaging half of the source
#     package), the binary package `libjsmn-dev` built from it, whose
#     /usr/include/jsmn.h is the same file (Debian ships upstream's header
#     unchanged). Only that file is unpacked.
set -euo pipefail
out=$(realpath -m "${1:?usage: fetch-jsmn.sh OUTDIR}")
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/debsrc.sh
. "$here/tools/debsrc.sh"
die() {
	echo "fetch-jsmn: $*" >&2
	exit 1
}

[ -f "$out/include/jsmn.h" ] && exit 0
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
[ -f "$out/include/jsmn.h" ] && exit 0
mkdir -p "$out/include"
if debsrc_source fetch-jsmn "$out" jsmn; then
	h=$(ls "$out"/src/jsmn-1.1.0*/jsmn.h 2>/dev/null | head -1) ||
		die "the jsmn source package is not 1.1.0: $(ls "$out/src")"
	cp "$h" "$out/include/jsmn.h"
else
	echo "fetch-jsmn: trying the binary package libjsmn-dev instead" >&2
	debsrc_download fetch-jsmn "$out" libjsmn-dev || die "cannot fetch jsmn (source or binary package)"
	deb=$(ls "$out"/deb/libjsmn-dev_1.1.0*_all.deb 2>/dev/null | head -1) ||
		die "libjsmn-dev is not 1.1.0: $(ls "$out/deb")"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/include/jsmn.h >"$out/include/jsmn.h.new" ||
		die "no usr/include/jsmn.h in $deb"
	mv "$out/include/jsmn.h.new" "$out/include/jsmn.h"
fi
echo "fetch-jsmn: $out/include/jsmn.h ($(grep -c '' "$out/include/jsmn.h") lines)"
