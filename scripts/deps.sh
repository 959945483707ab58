#!/bin/sh
# Install the Debian packages kdist needs, if missing.
#   scripts/deps.sh build   what building and `make demo` need
#   scripts/deps.sh         that and the test tiers' tools (`make check`, bench)
#   scripts/deps.sh arm64   the cross build's (`make ARCH=arm64`) and the arm64
#                           tiers': the cross compiler, the arm64 builds of the
#                           libraries kdist links statically (multiarch -dev
#                           packages, after `dpkg --add-architecture arm64`),
#                           QEMU for user emulation and for a whole machine,
#                           mmdebstrap for the arm64 VM's root filesystem
#   --list after either: print the packages, one a line, and install nothing
# As root, apt-get directly; otherwise through sudo when there is one.
set -e
build="make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev libjansson-dev libyaml-dev libssl-dev libcrypt-dev bpftool"
check="llvm libclang-rt-14-dev bpftrace libbpf-tools qemu-system-x86 busybox-static
       libxml2-utils python3 chromium groff-base man-db strace prometheus time linux-perf openssl
       podman runc python3-protobuf golang-go"
# busybox-static is Multi-Arch "foreign": its arm64 build would replace the
# x86 one the x86 VM tier boots with, so tests/vm/run-in-vm fetches it with
# `apt-get download` into its cache instead of installing it.
arm64="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64 libelf-dev:arm64
       zlib1g-dev:arm64 libjansson-dev:arm64 libyaml-dev:arm64 libssl-dev:arm64
       libcrypt-dev:arm64 qemu-system-arm qemu-user-static mmdebstrap"
case "${1:-all}" in
build) pkgs=$build ;;
arm64) pkgs=$arm64 ;;
all) pkgs="$build $check" ;;
*) echo "kdist: bad argument '$1': expected build, arm64 or nothing" >&2; exit 2 ;;
esac
if [ "$2" = --list ]; then
	printf '%s\n' $pkgs
	exit 0
fi
# Debian 13's prometheus and OTLP classes, unpacked beside the system's
if [ "${1:-all}" = all ] && [ "$(id -u)" = 0 ]; then
	"$(dirname "$0")/trixie.sh" >/dev/null ||
		echo "kdist: scripts/trixie.sh failed: the native histogram tests will skip" >&2
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
as_root=""
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "kdist: failed to install packages:$missing: not root and no sudo (run as root)" >&2
		exit 1
	fi
	as_root="sudo DEBIAN_FRONTEND=noninteractive"
fi
export DEBIAN_FRONTEND=noninteractive
if [ "$1" = arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$as_root dpkg --add-architecture arm64
fi
$as_root apt-get update -qq
$as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
