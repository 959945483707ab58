# Sourced by the VM scripts: what differs between the architectures of the
# VM tier, in one place.  vm_arch FLAVOR sets, for a flavor 5.10, 6.1, 6.12,
# arm64-6.1 or arm64-6.12:
#   vm_deb_arch   Debian architecture of the kernel package (amd64, arm64)
#   vm_kflavor    the kernel series (5.10, 6.1, 6.12)
#   vm_qemu       QEMU system emulator and vm_qemu_pkg its Debian package
#   vm_machine    QEMU machine and CPU options (an array)
#   vm_console    the kernel's serial console device
#   vm_build      where `make ARCH=...` puts kdist and the workloads for it
#   vm_karch      the kernel's ARCH= (for a module, tests/vm/seed-module.sh)
#   vm_triplet    the GNU triplet (its cross compiler's prefix)
# Returns 1 for an unknown flavor.
vm_arch() {
	case $1 in
	5.10|6.1|6.12)
		vm_deb_arch=amd64 vm_kflavor=$1 vm_build=build
		vm_karch=x86 vm_triplet=x86_64-linux-gnu
		vm_qemu=qemu-system-x86_64 vm_qemu_pkg=qemu-system-x86
		vm_machine=(-cpu max) vm_console=ttyS0 ;;
	arm64-6.1|arm64-6.12)
		# -M virt has PCI, so the same virtio-9p-pci devices serve
		vm_deb_arch=arm64 vm_kflavor=${1#arm64-} vm_build=build/arm64
		vm_karch=arm64 vm_triplet=aarch64-linux-gnu
		vm_qemu=qemu-system-aarch64 vm_qemu_pkg=qemu-system-arm
		vm_machine=(-M virt -cpu max) vm_console=ttyAMA0 ;;
	*) return 1 ;;
	esac
}

# vm_apt: set vm_apt_opts, the apt-get/apt-cache options that find the
# flavor's packages (kernel image, headers).  Debian 12's own sources for
# 6.1 and 6.12; for 5.10 an apt configuration of our own under
# $KDIST_VM_CACHE/apt/bullseye (Debian 11's suites, same registry), so that
# the system's sources stay Debian 12's alone.  The package lists are
# fetched by the caller (apt-get update with these options).
vm_apt() {
	local dir=${KDIST_VM_CACHE:-/var/cache/kdist-vm}/apt/bullseye
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	vm_apt_opts=()
	[ "$vm_kflavor" = 5.10 ] || return 0
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" || return 1
	cat >"$dir/sources.list" <<-EOF
	deb [arch=$vm_deb_arch signed-by=$key] http://deb.debian.org/debian bullseye main
	deb [arch=$vm_deb_arch signed-by=$key] http://deb.debian.org/debian-security bullseye-security main
	EOF
	vm_apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		     -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		     -o "APT::Architectures::=$vm_deb_arch")
}

# vm_busybox DEB_ARCH: print the path of a static busybox for that
# architecture.  The host's own for amd64; busybox-static is Multi-Arch
# "foreign" (its arm64 build would replace the host's), so the arm64 one is
# fetched with `apt-get download` and unpacked into the cache.
vm_busybox() {
	local arch=$1 dir deb
	if [ "$arch" = amd64 ]; then
		command -v busybox && return 0
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q busybox-static >&2 || return 1
		command -v busybox
		return
	fi
	dir=${KDIST_VM_CACHE:-/var/cache/kdist-vm}/busybox-$arch
	if [ ! -x "$dir/bin/busybox" ]; then
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" || return 1
		(cd "$dir.tmp" && apt-get download -q -o APT::Sandbox::User=root "busybox-static:$arch" >&2) ||
			{ rm -rf "$dir.tmp"; return 1; }
		dpkg-deb -x "$dir.tmp"/busybox-static_*.deb "$dir.tmp/root" &&
			rm -rf "$dir" && mkdir -p "$dir/bin" &&
			mv "$dir.tmp/root/bin/busybox" "$dir/bin/busybox" || return 1
		rm -rf "$dir.tmp"
	fi
	echo "$dir/bin/busybox"
}

# The programs the VM's tests run (tests/vm/func-vm.sh, tests/lib.sh,
# tests/matrix.sh): bash, python3, coreutils, util-linux, iproute2,
# bpftool, llvm-nm (bpf_leftovers), busybox (insmod, xzcat)
vm_rootfs_pkgs=bash,coreutils,dash,python3,util-linux,mount,grep,sed,gawk,findutils,procps,iproute2,busybox,bpftool,llvm,kmod,diffutils

# vm_rootfs DEB_ARCH: print the path of a Debian root filesystem of that
# architecture holding vm_rootfs_pkgs, for a guest that cannot run this
# machine's programs (its root instead of the host's /).  Made once per
# package list with mmdebstrap from Debian's archive, the packages only
# unpacked (variant extract: nothing of the other architecture runs
# here); awk is the one alternative the tests call by its generic name,
# linked here.
vm_rootfs() {
	local arch=$1 cache=${KDIST_VM_CACHE:-/var/cache/kdist-vm} dir
	dir=$cache/rootfs-$arch-$(echo "$vm_rootfs_pkgs" | sha256sum | cut -c1-12)
	if [ ! -x "$dir/usr/bin/python3" ]; then
		command -v mmdebstrap >/dev/null ||
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q mmdebstrap >&2 || return 1
		rm -rf "$dir.tmp" "$cache/rootfs-$arch-"*
		mmdebstrap --mode=root --variant=extract --architectures="$arch" --skip=check/qemu \
			--include="$vm_rootfs_pkgs" bookworm "$dir.tmp" >&2 &&
			mv "$dir.tmp" "$dir" || { rm -rf "$dir.tmp"; return 1; }
	fi
	# awk by its generic name: extract runs no maintainer script to make
	# the alternative (nor, on every mmdebstrap, a customize hook)
	[ -e "$dir/usr/bin/awk" ] || ln -sf gawk "$dir/usr/bin/awk" || return 1
	echo "$dir"
}
