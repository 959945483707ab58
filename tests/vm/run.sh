#!/bin/bash
# VM tier (make check-vm, and make check through tests/run-all.sh): kernel
# functions on stock Debian kernels under QEMU/TCG, one VM per flavor:
# 6.1 (kprobes, no kprobe.multi) and 6.12 (kprobe.multi).  Each VM runs
# tests/vm/func-vm.sh.  Ends with "N passed, N failed, N skipped".
# Where QEMU or the kernel packages cannot be had, the flavors are skipped
# with the reason.
cd "$(dirname "$0")/../.." || exit 1
flavors=${KDIST_VM_FLAVORS:-6.1 6.12}
p=0 f=0 s=0

skip_flavor() { echo "SKIP vm-$1: $2"; s=$((s + 1)); }

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
	echo "--- VM $flavor"
	t0=$(date +%s)
	out=$(KDIST_VM_TIMEOUT=${KDIST_VM_TIMEOUT:-400} tests/vm/run-in-vm "$flavor" tests/vm/func-vm.sh 2>&1)
	rc=$?
	echo "$out" | sed 's/^/  /'
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL vm-$flavor: the VM ended without a result line (exit $rc)"
		f=$((f + 1))
		continue
	fi
	read -r a _ b _ c _ <<<"${line//,/}"
	p=$((p + a)) f=$((f + b)) s=$((s + ${c:-0}))
	echo "  ($flavor: $(($(date +%s) - t0)) s including boot)"
done
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]
