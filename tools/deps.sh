#!/usr/bin/env bash
# Install the Debian 12 packages pmemk's build and tests need, if missing.
# Run as root (apt-get); does nothing when everything is present.
set -euo pipefail
pkgs=(gcc make binutils qemu-system-x86 ovmf seabios grub-common grub-pc-bin
	grub-efi-amd64-bin xorriso mtools newlib-source gnu-efi ipxe-qemu
	libcmocka-dev clang python3 gnuplot-nox gnutls-bin
	cpio kmod dpkg-dev xz-utils libnbd-bin python3-libnbd qemu-utils acpica-tools
	curl chromium python3-prometheus-client)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install: apt-get install ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
