#!/usr/bin/env bash
# Build newlib (Debian's newlib-source) as the kernel's libc: freestanding
# x86-64, kernel code model, no red zone, no supplied syscalls.
# Usage: tools/build-newlib.sh OUTDIR   (result: OUTDIR/x86_64-elf/{lib,include})
# The result is cached: a stamp file with the flags makes reruns free.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-newlib.sh OUTDIR}")
src=/usr/src/newlib/newlib-3.3.0.tar.xz
cflags="-O2 -g -ffreestanding -fno-stack-protector -mno-red-zone -mcmodel=kernel -fno-pie -fno-builtin"
stamp="$out/.stamp"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$cflags" ]; then
	exit 0
fi
[ -f "$src" ] || { echo "build-newlib: $src missing (apt-get install newlib-source)" >&2; exit 1; }
work="$out.work"
rm -rf "$work" "$out"
mkdir -p "$work/build"
tar -C "$work" -xf "$src"          # unpacks to newlib-salsa/ (FACTS §9)
cd "$work/build"
export CC_FOR_TARGET=gcc AS_FOR_TARGET=as LD_FOR_TARGET=ld AR_FOR_TARGET=ar \
	RANLIB_FOR_TARGET=ranlib NM_FOR_TARGET=nm OBJDUMP_FOR_TARGET=objdump \
	STRIP_FOR_TARGET=strip READELF_FOR_TARGET=readelf
export CFLAGS_FOR_TARGET="$cflags"
../newlib-salsa/configure --target=x86_64-elf --prefix="$out" \
	--disable-multilib --disable-newlib-supplied-syscalls \
	--enable-newlib-io-long-long --enable-newlib-io-c99-formats --disable-nls \
	>configure.log 2>&1 || { tail -30 configure.log >&2; exit 1; }
make -j"$(nproc)" all-target-newlib >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
make install-target-newlib >install.log 2>&1 || { tail -30 install.log >&2; exit 1; }
cd /
rm -rf "$work"
echo "$cflags" >"$stamp"
echo "newlib: built into $out"
