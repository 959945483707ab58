# Sourced by the VM scripts: what differs between the architectures of the
# VM tier, in one place.  vm_arch FLAVOR sets, for a flavor 5.10, 6.1, 6.12,
# arm64-6.1 or arm64-6.12:
#   vm_deb_arch   Debian architecture of the kernel package (amd64, arm64)
#   vm_kflavor    the kernel series (5.10, 6.1, 6.12)
#   vm_qemu       QEMU system emulator and vm_qemu_pkg its Debian package
#   vm_machine    QEMU machine and CPU options (an array)
#   vm_console    the kernel's serial console device
#   vm_build      where `make ARCH=...` puts kdist and the workloads for it
# Returns 1 for an unknown flavor.
vm_arch() {
	case $1 in
	5.10|6.1|6.12)
		vm_deb_arch=amd64 vm_kflavor=$1 vm_build=build
		vm_qemu=qemu-system-x86_64 vm_qemu_pkg=qemu-system-x86
		vm_machine=(-cpu max) vm_console=ttyS0 ;;
	arm64-6.1|arm64-6.12)
		# -M virt has PCI, so the same virtio-9p-pci devices serve
		vm_deb_arch=arm64 vm_kflavor=${1#arm64-} vm_build=build/arm64
		vm_qemu=qemu-system-aarch64 vm_qemu_pkg=qemu-system-arm
		vm_machine=(-M virt -cpu max) vm_console=ttyAMA0 ;;
	*) return 1 ;;
	esac
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
