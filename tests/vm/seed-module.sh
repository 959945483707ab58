#!/bin/bash
# seed-module.sh FLAVOR
#
# Build the test module tests/vm/seed/ (kdist_seed: the smmu:io_fault_entry
# and io_fault_exit tracepoints) for a VM flavor's kernel (vm-kernel.sh),
# and print the path of the .ko.  The kernel's headers come from Debian's
# packages of the same version as its image: linux-headers-KVER (the
# kernel's configuration, for its architecture), linux-headers-*-common
# (the sources' headers) and linux-kbuild-* of this machine's architecture
# (Kbuild's programs, run here); they are unpacked once under
# $KDIST_VM_CACHE/headers/.  For arm64 the module is cross-built with the
# cross compiler scripts/deps.sh arm64 installs.  The .ko goes to
# build/vm-modules/FLAVOR/.  Progress and errors go to stderr.
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
die() { echo "seed-module: error: $*" >&2; exit 1; }
[ $# = 1 ] || die "usage: $0 FLAVOR"
flavor=$1
# shellcheck source=tests/vm/arch.sh
. tests/vm/arch.sh
vm_arch "$flavor" || die "unknown flavor '$flavor'"
vm_apt || die "cannot write the apt configuration"
cache=${KDIST_VM_CACHE:-/var/cache/kdist-vm}

kroot=$(tests/vm/vm-kernel.sh "$flavor") || die "no $flavor kernel"
kver=$(ls "$kroot/lib/modules")
# .../kernels/PACKAGE_VERSION/root: the image's version is the headers'
ver=$(basename "$(dirname "$kroot")")
ver=${ver#*_}
hpkg=linux-headers-$kver
dest=$cache/headers/${hpkg}_$ver
src=$dest/root/usr/src/$hpkg

exec 9>"$cache/.headers.lock"
flock 9
if [ ! -f "$dest/.ok" ]; then
	rm -rf "$dest" && mkdir -p "$dest"
	deps=$(apt-cache "${vm_apt_opts[@]}" show "$hpkg:$vm_deb_arch=$ver" | sed -n 's/^Depends: //p' | head -1) ||
		die "apt knows no $hpkg=$ver"
	common=$(grep -oE 'linux-headers-[^ ,]*-common' <<<"$deps" | head -1)
	kbuild=$(grep -oE 'linux-kbuild-[^ ,]*' <<<"$deps" | head -1)
	[ -n "$common" ] && [ -n "$kbuild" ] || die "no -common or linux-kbuild in $hpkg's Depends: $deps"
	echo "seed-module: downloading $hpkg $common $kbuild ($ver)" >&2
	(cd "$dest" && apt-get download -q -o APT::Sandbox::User=root "${vm_apt_opts[@]}" \
		"$hpkg:$vm_deb_arch=$ver" "$common=$ver" >&2) || die "apt-get download failed"
	# Kbuild's programs run here: this machine's architecture, from its
	# own suite (for 5.10, Debian 11's build of them runs on Debian 12)
	kopts=("${vm_apt_opts[@]}")
	[ ${#kopts[@]} -eq 0 ] || kopts+=(-o "APT::Architectures::=$(dpkg --print-architecture)")
	(cd "$dest" && apt-get download -q -o APT::Sandbox::User=root "${kopts[@]}" \
		"$kbuild:$(dpkg --print-architecture)" >&2) || die "apt-get download of $kbuild failed"
	for d in "$dest"/*.deb; do dpkg-deb -x "$d" "$dest/root"; done
	rm -f "$dest"/*.deb
	# the configuration's Makefile includes the -common one by its
	# installed path
	sed -i "s,^include /usr/src/,include $dest/root/usr/src/," "$src/Makefile"
	touch "$dest/.ok"
fi
flock -u 9

out=build/vm-modules/$flavor
mkdir -p "$out"
cp -p tests/vm/seed/* "$out/"
cross=
[ "$vm_deb_arch" = amd64 ] || cross=$vm_triplet-
# the headers hold no vmlinux to base a module's BTF on: none is made
# (which also spares pahole, 6.12's Kbuild calls it)
# Debian's headers name the compiler the kernel was built with
# (.kernelvariables: gcc-12 for Debian 12's, gcc-10 for Debian 11's);
# where this machine has no such one, its own gcc builds the module (the
# module's version magic does not hold the compiler's).
ccs=()
kcc=$(sed -n 's/^CC = .*)gcc-\([0-9]*\)$/gcc-\1/p' "$src/.kernelvariables" 2>/dev/null)
[ -z "$kcc" ] || command -v "$cross$kcc" >/dev/null || ccs=(CC="${cross}gcc")
make -s -C "$src" M="$PWD/$out" ARCH="$vm_karch" CROSS_COMPILE="$cross" "${ccs[@]}" \
	CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2 ||
	die "building the module for $kver failed"
echo "$PWD/$out/kdist_seed.ko"
