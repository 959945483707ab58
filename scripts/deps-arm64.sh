#!/bin/sh
# Install what `make ARCH=arm64` and the arm64 tiers need on an x86-64
# Debian 12 machine, if missing: the cross compiler, the arm64 builds of the
# libraries kdist links statically (multiarch -dev packages, after
# `dpkg --add-architecture arm64`), QEMU for user emulation (the unit tier)
# and for a whole arm64 machine (the VM tier).
#
# busybox-static is Multi-Arch "foreign": its arm64 build would replace the
# x86 one the x86 VM tier boots with, so tests/vm/run-in-vm fetches it with
# `apt-get download` into its cache instead of installing it.
set -e
pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64 libelf-dev:arm64
      zlib1g-dev:arm64 libjansson-dev:arm64 qemu-system-arm qemu-user-static"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "kdist: failed to install packages:$missing: run as root" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
