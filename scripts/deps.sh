#!/bin/sh
# Install the Debian packages kdist needs to build and test, if missing.
set -e
pkgs="make gcc clang llvm libclang-rt-14-dev libbpf-dev libelf-dev zlib1g-dev libjansson-dev bpftool bpftrace
      libbpf-tools qemu-system-x86 busybox-static libxml2-utils python3 chromium
      groff-base man-db strace prometheus podman runc"
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
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
