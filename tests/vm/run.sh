#!/bin/bash
# VM tier (make check-vm, and make check through tests/run-all.sh): kernel
# functions and the command matrix (tests/matrix.sh) on stock Debian
# kernels under QEMU (KVM where it works, else TCG: tests/vm/arch.sh), one VM
# per flavor, one per core, the longest first: 6.1 (kprobes,
# no kprobe.multi), 6.12 (kprobe.multi) and 5.10 (no task storage, no
# attach cookies, no bpf_mem_alloc).  Each VM runs tests/vm/func-vm.sh.
# The arm64 flavors (arm64-6.1, arm64-6.12: Debian's arm64 kernels under
# qemu-system-aarch64) run it with the arm64 build (make ARCH=arm64) on a
# Debian arm64 root filesystem, and prove the release binary build/dist/kdist-*-aarch64 runs there when
# make dist made one.
# Ends with "N passed, N failed, N skipped".
# Where QEMU or the kernel packages cannot be had, the flavors are skipped
# with the reason.
cd "$(dirname "$0")/../.." || exit 1
flavors=${KDIST_VM_FLAVORS:-5.10 6.1 6.12 arm64-6.1 arm64-6.12}
. tests/vm/arch.sh
p=0 f=0 s=0
out=$(mktemp -d /tmp/kdist-vmtier.XXXXXX)
trap 'rm -rf "$out"' EXIT

skip_flavor() { echo "SKIP vm-$1: $2"; s=$((s + 1)); }

# one flavor's VM, its output to $out/$flavor.log and its seconds to .time
run_flavor() {
	local flavor=$1 t0
	t0=$(date +%s)
	# the seed module (func-vm.sh loads it), built for this kernel
	: >"$out/$flavor.log"
	tests/vm/seed-module.sh "$flavor" >/dev/null 2>"$out/$flavor.seed" ||
		echo "no seed module for $flavor: $(tail -1 "$out/$flavor.seed")" >"$out/$flavor.log"
	# the matrix's result lines go to build/matrix/$flavor.tsv (make matrix-doc)
	KDIST_VM_OUT=$PWD/build/matrix KDIST_VM_TIMEOUT=${KDIST_VM_TIMEOUT:-1800} \
		tests/vm/run-in-vm "$flavor" tests/vm/func-vm.sh >>"$out/$flavor.log" 2>&1
	echo $? >"$out/$flavor.rc"
	echo $(($(date +%s) - t0)) >"$out/$flavor.time"
}

started=()
for flavor in $flavors; do
	if ! vm_arch "$flavor"; then
		skip_flavor "$flavor" "unknown flavor"
		continue
	fi
	if [ "$(id -u)" != 0 ]; then
		skip_flavor "$flavor" "the VM tier needs root (to install QEMU and fetch kernels)"
		continue
	fi
	if ! command -v "$vm_qemu" >/dev/null &&
	   ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$vm_qemu_pkg" >/dev/null 2>&1; then
		skip_flavor "$flavor" "no $vm_qemu and it cannot be installed"
		continue
	fi
	if [ ! -x "$vm_build/kdist" ]; then
		skip_flavor "$flavor" "no $vm_build/kdist (make ARCH=arm64 builds it)"
		continue
	fi
	if ! err=$(tests/vm/vm-kernel.sh "$flavor" 2>&1 >/dev/null); then
		skip_flavor "$flavor" "cannot get the Debian $flavor kernel: $(echo "$err" | tail -1)"
		continue
	fi
	mkdir -p build/matrix
	started+=("$flavor")
done
# As many VMs at a time as the machine has cores (each runs its virtual
# CPUs on one host thread under TCG), the longest first by the last run's
# times (kept in the cache; the order given for a flavor never timed): the
# next flavor starts as soon as one ends.
times=${KDIST_VM_CACHE:-/var/cache/kdist-vm}/times
mkdir -p "$times"
export -f run_flavor
export out
order=$(for i in "${!started[@]}"; do
	echo "$(cat "$times/${started[$i]}" 2>/dev/null || echo 0) $i ${started[$i]}"
done | sort -k1,1nr -k2,2n | awk '{ print $3 }')
[ ${#started[@]} -eq 0 ] || echo "$order" | xargs -P "$(nproc)" -I{} bash -c 'run_flavor {}'
for flavor in "${started[@]}"; do
	[ "$(cat "$out/$flavor.rc" 2>/dev/null)" = 0 ] && cp "$out/$flavor.time" "$times/$flavor"
done

for flavor in "${started[@]}"; do
	echo "--- VM $flavor"
	sed -e "s/^\(slow: .*\)$/\1 ($flavor)/" -e 's/^/  /' "$out/$flavor.log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/$flavor.log" | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL vm-$flavor: the VM ended without a result line (exit $(cat "$out/$flavor.rc"))"
		f=$((f + 1))
		continue
	fi
	read -r a _ b _ c _ <<<"${line//,/}"
	p=$((p + a)) f=$((f + b)) s=$((s + ${c:-0}))
	echo "  ($flavor: $(cat "$out/$flavor.time") s including boot)"
done
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]
