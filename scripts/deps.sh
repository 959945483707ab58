#!/bin/sh
# Install the Debian packages kdist needs, if missing.
#   scripts/deps.sh build   what building and `make demo` need
#   scripts/deps.sh         that and the test tiers' tools (`make check`, bench)
#   --list after either: print the packages, one a line, and install nothing
# As root, apt-get directly; otherwise through sudo when there is one.
set -e
build="make gcc clang libbpf-dev libelf-dev zlib1g-dev libjansson-dev libyaml-dev libssl-dev libcrypt-dev bpftool"
check="llvm libclang-rt-14-dev bpftrace libbpf-tools qemu-system-x86 busybox-static
       libxml2-utils python3 chromium groff-base man-db strace prometheus time linux-perf openssl
       podman runc"
case "${1:-all}" in
build) pkgs=$build ;;
all) pkgs="$build $check" ;;
*) echo "kdist: bad argument '$1': expected build or nothing" >&2; exit 2 ;;
esac
if [ "$2" = --list ]; then
	printf '%s\n' $pkgs
	exit 0
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
$as_root apt-get update -qq
$as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
