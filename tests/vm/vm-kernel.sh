#!/bin/bash
# vm-kernel.sh FLAVOR
#
# Fetch and unpack a stock Debian kernel for the VM tests, then print the
# directory it was unpacked to (it holds boot/vmlinuz-* and lib/modules/*).
#
#   FLAVOR 6.1   newest linux-image-6.1.0-N-amd64          (kprobes, fentry;
#                                                           no kprobe.multi)
#   FLAVOR 6.12  newest linux-image-6.12.N+deb12-amd64-unsigned
#                                                  (kprobes, fentry, kprobe.multi)
#   FLAVOR 5.10  newest linux-image-5.10.0-N-amd64 of Debian 11 (bullseye):
#                kprobes, fentry; no task storage in tracing programs,
#                attach cookies, bpf_get_func_ip, kprobe.multi
#   FLAVOR arm64-6.1, arm64-6.12: the same series for arm64 (tests/vm/arch.sh)
#
# Environment:
#   KDIST_VM_CACHE       cache directory (default /var/cache/kdist-vm)
#   KDIST_VM_KERNEL_PKG  use this exact package name instead of searching
#
# Packages are found with apt-cache and fetched with `apt-get download`.
# Debian 11's kernels come from the same registry, through an apt
# configuration of our own under $KDIST_VM_CACHE/apt (its sources list and
# package lists): the system's sources stay Debian 12's alone.
# Each package version is unpacked once under $KDIST_VM_CACHE/kernels/;
# later runs reuse it and download nothing.  Only the path goes to stdout,
# progress and errors go to stderr.
set -eu

CACHE=${KDIST_VM_CACHE:-/var/cache/kdist-vm}
KDIR=$CACHE/kernels

log() { printf 'vm-kernel: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# -eq 1 ] || die "usage: $0 5.10|6.1|6.12|arm64-6.1|arm64-6.12"
FLAVOR=$1
# shellcheck source=tests/vm/arch.sh
. "$(dirname "$0")/arch.sh"
vm_arch "$FLAVOR" || die "unknown flavor '$FLAVOR' (expected 5.10, 6.1, 6.12, arm64-6.1 or arm64-6.12)"

# Name patterns (extended regex) of the image packages of each flavor.  A
# flavor's ABI may be published as a signed package (plain name) and as an
# -unsigned one; both are matched and the choice is made below.
case $vm_kflavor in
5.10) NAME_RE="^linux-image-5\\.10\\.0-[0-9]+-$vm_deb_arch(-unsigned)?\$" ;;
6.1)  NAME_RE="^linux-image-6\\.1\\.0-[0-9]+-$vm_deb_arch(-unsigned)?\$" ;;
6.12) NAME_RE="^linux-image-6\\.12\\.[0-9]+\\+deb12-$vm_deb_arch(-unsigned)?\$" ;;
esac
vm_apt || die "cannot write the apt configuration under $CACHE/apt"
apt_opts=("${vm_apt_opts[@]}")
mkdir -p "$KDIR"

# busybox provides depmod: Debian ships kernel packages without
# modules.dep (it is generated at install time) and kmod may be absent here.
if ! command -v busybox >/dev/null 2>&1; then
	log "installing busybox-static"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q busybox-static >&2 ||
		die "cannot install busybox-static"
fi

# Serialise concurrent callers so that two runs never unpack into the same
# directory at once.
exec 9>"$CACHE/.lock"
flock 9

search_names() {
	apt-cache "${apt_opts[@]}" search --names-only "$NAME_RE" 2>/dev/null |
		cut -d' ' -f1 | grep -E "$NAME_RE" || true
}

candidate_version() {
	apt-cache "${apt_opts[@]}" policy "$1" 2>/dev/null |
		sed -n 's/^ *Candidate: *//p' | grep -v '(none)' | head -n1
}

# Newest already-unpacked kernel of this flavor: used when apt knows no
# matching package (e.g. no package lists and no network).
cached_fallback() {
	for d in "$KDIR"/*; do
		[ -f "$d/.ok" ] || continue
		pkg=${d##*/}
		pkg=${pkg%%_*}
		printf '%s\n' "$pkg" | grep -Eq "$NAME_RE" && printf '%s\n' "$d"
	done | sort -V | tail -n1
}

# Unpack the .deb $1 into $2/root and generate modules.dep there.
unpack() {
	deb=$1 dest=$2
	rm -rf "$dest/root.tmp"
	dpkg-deb -x "$deb" "$dest/root.tmp"
	for m in "$dest"/root.tmp/lib/modules/*/; do
		kver=${m%/}
		kver=${kver##*/}
		if [ ! -f "$m/modules.dep" ]; then
			log "running depmod for $kver"
			busybox depmod -b "$dest/root.tmp" "$kver"
		fi
	done
	rm -rf "$dest/root"
	mv "$dest/root.tmp" "$dest/root"
	touch "$dest/.ok"
}

# Make sure package $1 at version $2 is unpacked.  Returns 1 if the
# package turns out not to contain a kernel image and modules (a signed
# meta/template package), remembering that so it is not fetched again.
ensure() {
	pkg=$1 ver=$2
	dest=$KDIR/${pkg}_$ver
	[ -f "$dest/.ok" ] && return 0
	[ -f "$dest.noimage" ] && return 1
	mkdir -p "$dest"
	log "downloading $pkg=$ver"
	# The sandbox user _apt cannot write into our cache; download as root.
	(cd "$dest" && apt-get download -q -o APT::Sandbox::User=root "${apt_opts[@]}" \
		"$pkg:$vm_deb_arch=$ver" >&2) || die "apt-get download $pkg=$ver failed"
	deb=$(ls "$dest"/*.deb)
	listing=$(dpkg-deb -c "$deb")
	if ! printf '%s\n' "$listing" | grep -q ' \./boot/vmlinuz-' ||
	   ! printf '%s\n' "$listing" | grep -q ' \./lib/modules/.*\.ko'; then
		log "$pkg has no /boot/vmlinuz or modules, skipping it"
		rm -rf "$dest"
		touch "$dest.noimage"
		return 1
	fi
	log "unpacking $pkg"
	unpack "$deb" "$dest"
	rm -f "$deb"
	return 0
}

# Debian 11 is past its last point release: its kernel, once unpacked, is
# used as it is (a search of its lists takes minutes on a loaded machine).
if [ "$vm_kflavor" = 5.10 ] && [ -z "${KDIST_VM_KERNEL_PKG:-}" ] && d=$(cached_fallback) && [ -n "$d" ]; then
	printf '%s\n' "$d/root"
	exit 0
fi

if [ -n "${KDIST_VM_KERNEL_PKG:-}" ]; then
	names=$KDIST_VM_KERNEL_PKG
else
	names=$(search_names)
	if [ -z "$names" ]; then
		log "no package matches $NAME_RE, running apt-get update"
		apt-get update -q "${apt_opts[@]}" >&2 || log "apt-get update failed"
		names=$(search_names)
	fi
fi

if [ -z "$names" ]; then
	d=$(cached_fallback)
	[ -n "$d" ] || die "no kernel package found for flavor $FLAVOR"
	log "apt knows no $FLAVOR kernel, using cached ${d##*/}"
	printf '%s\n' "$d/root"
	exit 0
fi

# Newest ABI first: strip the -unsigned suffix, sort by version.
newest=$(printf '%s\n' "$names" | sed 's/-unsigned$//' | sort -uV | tail -n1)

# Prefer the plain (for 6.1: signed) package, which is what a Debian system
# installs and whose modules carry signatures; fall back to -unsigned.
for pkg in "$newest" "$newest-unsigned"; do
	if [ -n "${KDIST_VM_KERNEL_PKG:-}" ] && [ "$pkg" != "$KDIST_VM_KERNEL_PKG" ]; then
		continue
	fi
	ver=$(candidate_version "$pkg:$vm_deb_arch")
	[ -n "$ver" ] || continue
	if ensure "$pkg" "$ver"; then
		printf '%s\n' "$KDIR/${pkg}_$ver/root"
		exit 0
	fi
done
die "no package for flavor $FLAVOR contains a kernel image (tried $newest{,-unsigned})"
