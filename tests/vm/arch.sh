# Sourced by the VM scripts: what differs between the architectures of the
# VM tier, in one place.  vm_arch FLAVOR sets, for a flavor 5.10, 6.1, 6.12,
# arm64-6.1 or arm64-6.12:
#   vm_deb_arch   Debian architecture of the kernel package (amd64, arm64)
#   vm_kflavor    the kernel series (5.10, 6.1, 6.12)
#   vm_qemu       QEMU system emulator and vm_qemu_pkg its Debian package
#   vm_machine    QEMU machine options, vm_machine_cpu its CPU under TCG (arrays)
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
		vm_machine=() vm_machine_cpu=(-cpu max) vm_console=ttyS0 ;;
	arm64-6.1|arm64-6.12)
		# -M virt has PCI, so the same virtio-9p-pci devices serve
		vm_deb_arch=arm64 vm_kflavor=${1#arm64-} vm_build=build/arm64
		vm_karch=arm64 vm_triplet=aarch64-linux-gnu
		vm_qemu=qemu-system-aarch64 vm_qemu_pkg=qemu-system-arm
		vm_machine=(-M virt) vm_machine_cpu=(-cpu max) vm_console=ttyAMA0 ;;
	*) return 1 ;;
	esac
}

# vm_accel: set vm_accel_opts, QEMU's accelerator and CPU for the flavor:
# KVM where the flavor is this machine's architecture and a KVM guest
# really runs here (vm_kvm_works), else TCG.  KDIST_VM_ACCEL=tcg or kvm
# chooses; KDIST_VM_TCG_THREAD is TCG's "single" (default: QEMU runs the
# virtual CPUs in turn on one thread) or "multi".
vm_accel() {
	local want=${KDIST_VM_ACCEL:-auto}
	if [ "$want" = kvm ] || { [ "$want" = auto ] && vm_kvm_works; }; then
		# the CPU as it is: -cpu max or host with ARCH_CAPABILITIES
		# fails where KVM is nested ("failed to set MSR 0x10a")
		vm_accel_opts=(-accel kvm -cpu ${KDIST_VM_KVM_CPU:-host,-arch-capabilities})
	else
		vm_accel_opts=(-accel "tcg,thread=${KDIST_VM_TCG_THREAD:-single}" "${vm_machine_cpu[@]}")
	fi
}

# vm_kvm_works: /dev/kvm opens, the flavor is this machine's architecture,
# and a KVM guest really boots here: where KVM is nested badly, QEMU starts
# and the kernel hangs before its first line (seen on this project's CI
# machines).  The verdict of one boot (20 s at most: KVM boots in a few) is
# kept in the cache for this host kernel and QEMU.
vm_kvm_works() {
	local verdict
	[ "$(uname -m)" = "${vm_triplet%%-*}" ] && [ -c /dev/kvm ] && { : <>/dev/kvm; } 2>/dev/null || return 1
	verdict=${KDIST_VM_CACHE:-/var/cache/kdist-vm}/kvm-$(uname -r)-$("$vm_qemu" --version | awk 'NR == 1 { print $4 }')
	if [ ! -f "$verdict" ]; then
		mkdir -p "$(dirname "$verdict")"
		if KDIST_VM_ACCEL=kvm KDIST_VM_TIMEOUT=20 "$(dirname "${BASH_SOURCE[0]}")/run-in-vm" \
			"$vm_kflavor" true >/dev/null 2>&1; then
			echo yes >"$verdict"
		else
			echo no >"$verdict"
		fi
	fi
	[ "$(cat "$verdict")" = yes ]
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
