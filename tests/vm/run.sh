#!/bin/bash
# VM tier (make check-vm, and make check through tests/run-all.sh): kernel
# functions and the command matrix (tests/matrix.sh) on stock Debian
# kernels under QEMU/TCG, one VM per flavor, booted side by side: 6.1
# (kprobes, no kprobe.multi) and 6.12 (kprobe.multi).  Each VM runs
# tests/vm/func-vm.sh.  Ends with "N passed, N failed, N skipped".
# Where QEMU or the kernel packages cannot be had, the flavors are skipped
# with the reason.
cd "$(dirname "$0")/../.." || exit 1
flavors=${KDIST_VM_FLAVORS:-6.1 6.12}
p=0 f=0 s=0
out=$(mktemp -d /tmp/kdist-vmtier.XXXXXX)
trap 'rm -rf "$out"' EXIT

skip_flavor() { echo "SKIP vm-$1: $2"; s=$((s + 1)); }

# one flavor's VM, its output to $out/$flavor.log and its seconds to .time
run_flavor() {
	local flavor=$1 t0
	t0=$(date +%s)
	# the matrix's result lines go to build/matrix/$flavor.tsv (make matrix-doc)
	KDIST_VM_OUT=$PWD/build/matrix KDIST_VM_TIMEOUT=${KDIST_VM_TIMEOUT:-1800} \
		tests/vm/run-in-vm "$flavor" tests/vm/func-vm.sh >"$out/$flavor.log" 2>&1
	echo $? >"$out/$flavor.rc"
	echo $(($(date +%s) - t0)) >"$out/$flavor.time"
}

started=()
for flavor in $flavors; do
	if [ "$(id -u)" != 0 ]; then
		skip_flavor "$flavor" "the VM tier needs root (to install QEMU and fetch kernels)"
		continue
	fi
	if ! command -v qemu-system-x86_64 >/dev/null &&
	   ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-system-x86 busybox-static >/dev/null 2>&1; then
		skip_flavor "$flavor" "no qemu-system-x86_64 and it cannot be installed"
		continue
	fi
	if ! err=$(tests/vm/vm-kernel.sh "$flavor" 2>&1 >/dev/null); then
		skip_flavor "$flavor" "cannot get the Debian $flavor kernel: $(echo "$err" | tail -1)"
		continue
	fi
	mkdir -p build/matrix
	run_flavor "$flavor" &
	started+=("$flavor")
done
wait

for flavor in "${started[@]}"; do
	echo "--- VM $flavor"
	sed 's/^/  /' "$out/$flavor.log"
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
