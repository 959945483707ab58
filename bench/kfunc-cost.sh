#!/bin/bash
# kfunc-cost.sh: the added time per traced kernel-function call, by attach
# method, on the VM kernels (QEMU/TCG: absolute times are inflated, the
# ratios between methods are the figure).  dd makes N one-byte reads of
# /dev/zero, one vfs_read() each; kdist traces vfs_read entry and return
# for dd only while dd runs: pair by kprobes and by fentry/fexit, func by
# each of its methods (--attach fentry, kprobe.multi where the kernel has
# it, kprobe).  Rounds interleaved; the figure
# is the fastest round of each (an emulated VM on a shared host: noise only
# adds time), the median beside it.
# KDIST_BENCH_FLAVORS picks the kernels (default "5.10 6.1 6.12": 5.10 has
# no attach cookies, so func loads a copy of its programs per function).
set -u
cd "$(dirname "$0")/.." || exit 1

if [ -z "${KDIST_VM:-}" ]; then
	for flavor in ${KDIST_BENCH_FLAVORS:-5.10 6.1 6.12}; do
		KDIST_VM_TIMEOUT=1200 tests/vm/run-in-vm "$flavor" bench/kfunc-cost.sh 2>&1 |
			grep -E '^(kfunc-cost|SKIP|run-in-vm: error)' || echo "SKIP kfunc-cost $flavor: the VM run failed"
	done
	exit 0
fi

N=${KDIST_BENCH_CALLS:-50000}
ROUNDS=${KDIST_BENCH_ROUNDS:-7}
declare -A t dead

dd_ns() {
	local t0
	t0=$(date +%s%N)
	dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
	echo $(($(date +%s%N) - t0))
}

# traced METHOD: dd's time while kdist traces it with METHOD
traced() {
	local pid ns
	case $1 in
	kprobe) build/kdist pair kprobe:vfs_read kretprobe:vfs_read --comm dd 2>/tmp/kc.err >/dev/null & ;;
	fentry) build/kdist pair fentry:vfs_read fexit:vfs_read --comm dd 2>/tmp/kc.err >/dev/null & ;;
	func-*) build/kdist func vfs_read --attach "${1#func-}" --comm dd 2>/tmp/kc.err >/dev/null & ;;
	esac
	pid=$!
	for _ in $(seq 600); do
		grep -q '^Tracing' /tmp/kc.err 2>/dev/null && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^Tracing' /tmp/kc.err; then
		wait $pid
		echo "SKIP kfunc-cost $KDIST_VM_FLAVOR $1: $(tail -1 /tmp/kc.err)"
		return 1
	fi
	ns=$(dd_ns)
	kill -INT $pid
	wait $pid
	echo "$ns"
}

methods="none kprobe fentry func-fentry func-kprobe.multi func-kprobe"
for r in $(seq "$ROUNDS"); do
	for m in $methods; do
		[ -z "${dead[$m]:-}" ] || continue
		if [ $m = none ]; then v=$(dd_ns); else v=$(traced $m) || { echo "$v"; dead[$m]=1; continue; }; fi
		t[$m]+="$v "
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
fastest() { tr ' ' '\n' | grep . | sort -n | head -1; }
base=$(echo "${t[none]}" | fastest)
mbase=$(echo "${t[none]}" | median)
line="kfunc-cost $KDIST_VM_FLAVOR ($N calls, $ROUNDS rounds, fastest/median): untraced $((base / N))/$((mbase / N)) ns per read"
for m in kprobe fentry func-fentry func-kprobe.multi func-kprobe; do
	[ -n "${t[$m]:-}" ] || continue
	v=$(echo "${t[$m]}" | fastest)
	mv=$(echo "${t[$m]}" | median)
	line+="; ${m/-/ } +$(((v - base) / N))/+$(((mv - mbase) / N)) ns"
done
echo "$line"
