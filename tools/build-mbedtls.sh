#!/usr/bin/env bash
# Fetch mbedTLS 2.28 from Debian's `mbedtls` source package and build the
# part pmemk's configuration needs (net/tls/mbedtls_config.h: a TLS 1.2
# server with pre-shared keys or a certificate) into a static library (FACTS-3 §1.3). Nothing of mbedTLS is kept in
# the repository; pmemk's configuration and its entropy source are.
#
#   tools/build-mbedtls.sh OUTDIR          the kernel's library
#   tools/build-mbedtls.sh OUTDIR host     the host's copy for unit tests,
#                                          with the client side too
#     OUTDIR/src/mbedtls-2.28*/   the unpacked source package (Debian's patches applied)
#     OUTDIR/apt/                 apt's private state for the fetch (see below)
#     OUTDIR/include/             -> the source's include/ (one stable -I path)
#     OUTDIR/obj/, OUTDIR/libmbedtls.a              (kernel)
#     OUTDIR/host/obj/, OUTDIR/host/libmbedtls.a    (host)
#   MBEDTLS_CFLAGS in the environment: the code-generation flags (the
#   kernel's, or the host tests' with their sanitizers; the Makefile passes
#   them). This script adds the configuration: -Inet/tls
#   -DMBEDTLS_CONFIG_FILE=<mbedtls_config.h>, and for the host
#   -DPMEMK_TLS_TEST_CLIENT.
#
# The source is fetched once with `apt-get source` through a deb-src list of
# its own (OUTDIR/apt/sources.list, passed with -o Dir::Etc::SourceList, with
# private Dir::State::Lists and Dir::Cache): the machine's apt configuration
# and lists are not touched. A library is rebuilt only when the flags, the
# configuration, the file list or this script change (a stamp). A lock keeps
# the kernel's and the host's builds (make -j) from fetching twice.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-mbedtls.sh OUTDIR [host]}")
mode=${2:-kernel}
here=$(cd "$(dirname "$0")/.." && pwd)
cflags=${MBEDTLS_CFLAGS:?MBEDTLS_CFLAGS not set (run through make)}
die() {
	echo "build-mbedtls: $*" >&2
	exit 1
}

# library/*.c of what the configuration turns on: ciphers, hashes, the
# DRBG, bignum, DH and ECDH, ECDSA and RSA, PEM, keys and X.509
# certificates, the TLS record and handshake layers (server).
files=(aes.c bignum.c chacha20.c chachapoly.c cipher.c cipher_wrap.c constant_time.c
	ctr_drbg.c dhm.c ecdh.c ecp.c ecp_curves.c entropy.c entropy_poll.c gcm.c md.c
	platform_util.c poly1305.c sha256.c ssl_ciphersuites.c ssl_msg.c ssl_srv.c ssl_tls.c
	asn1parse.c asn1write.c base64.c ecdsa.c oid.c pem.c pk.c pk_wrap.c pkparse.c
	rsa.c rsa_internal.c sha512.c x509.c x509_crt.c)
config=(-I"$here/net/tls" '-DMBEDTLS_CONFIG_FILE=<mbedtls_config.h>')
case $mode in
kernel) lib=$out ;;
host)	lib=$out/host
	files+=(ssl_cli.c)
	config+=(-DPMEMK_TLS_TEST_CLIENT) ;;
*)	die "unknown mode $mode (kernel or host)" ;;
esac

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
	echo "build-mbedtls: apt-get source mbedtls (private deb-src list in $apt)"
	apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 ||
		{ tail -5 "$apt/update.log" >&2; die "apt-get update of the private deb-src list failed"; }
	rm -rf "$out/src"/*
	(cd "$out/src" && apt-get "${opts[@]}" source mbedtls) >"$apt/source.log" 2>&1 ||
		{ tail -5 "$apt/source.log" >&2; die "apt-get source mbedtls failed"; }
}

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
src=$(ls -d "$out"/src/mbedtls-2.28*/ 2>/dev/null | head -1) || true
if [ -z "$src" ] || [ ! -f "$src/library/ssl_srv.c" ]; then
	fetch
	src=$(ls -d "$out"/src/mbedtls-2.28*/ 2>/dev/null | head -1) ||
		die "the mbedtls source package is not 2.28: $(ls "$out/src")"
	[ -f "$src/library/ssl_srv.c" ] || die "no library/ssl_srv.c in $src"
fi
src=${src%/}
ln -sfn "$src/include" "$out/include"

stamp=$( (echo "$cflags"; echo "${config[*]}"; echo "${files[*]}"; echo "$src"
	cat "$here/net/tls/mbedtls_config.h" "$0") | sha1sum | cut -c1-16)
if [ -f "$lib/libmbedtls.a" ] && [ "$(cat "$lib/.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
rm -rf "$lib/obj" "$lib/libmbedtls.a" "$lib/.stamp"
mkdir -p "$lib/obj"
# mbedTLS is not held to pmemk's warning set (-Werror, -Wmissing-prototypes, ...).
objs=() pids=()
for f in "${files[@]}"; do
	o=$lib/obj/${f%.c}.o
	objs+=("$o")
	# shellcheck disable=SC2086
	gcc $cflags "${config[@]}" -I"$src/include" -I"$src/library" -w -c "$src/library/$f" -o "$o" \
		2>>"$lib/obj/build.log" &
	pids+=($!)
	if [ ${#pids[@]} -ge "$(nproc)" ]; then
		wait "${pids[0]}" || die "compiling mbedTLS failed (see $lib/obj/build.log)"
		pids=("${pids[@]:1}")
	fi
done
for p in "${pids[@]}"; do
	wait "$p" || die "compiling mbedTLS failed (see $lib/obj/build.log)"
done
ar rcs "$lib/libmbedtls.a" "${objs[@]}"
echo "$stamp" >"$lib/.stamp"
echo "build-mbedtls: $(basename "$src") built into $lib/libmbedtls.a ($mode, ${#files[@]} files)"
