#!/bin/bash
# func-attach.sh: time from start until 100 and 1000 kernel functions are
# traced (entry and return), kdist func against bpftrace, on the same VM
# kernel (QEMU/TCG: absolute times are slow, the ratio is the figure).
# KDIST_BENCH_FLAVORS picks the kernels (default 6.12; 6.1 has no
# kprobe.multi, so both tools attach one kprobe per function there).
# Prints one line per flavor and size.
set -u
cd "$(dirname "$0")/.." || exit 1

if [ -z "${KDIST_VM:-}" ]; then
	for flavor in ${KDIST_BENCH_FLAVORS:-6.12}; do
		KDIST_VM_TIMEOUT=900 tests/vm/run-in-vm "$flavor" bench/func-attach.sh 2>&1 |
			grep -E '^(func-attach|SKIP)' || echo "SKIP func-attach $flavor: the VM run failed"
	done
	exit 0
fi

# Inside the VM.  The functions: pci_* and tcp_*, traceable, not on the
# kprobes blacklist, sorted; the first N of them for both tools.
T=/sys/kernel/tracing
# bpftrace needs a descriptor per probe, more than the default 1024
ulimit -n 65536
# (no /dev/fd in the VM: no process substitution)
awk '{print $2}' /sys/kernel/debug/kprobes/blacklist | sort -u >/tmp/deny
awk '{print $1}' $T/available_filter_functions | grep -E '^(pci|tcp)_' | sort -u |
	comm -23 - /tmp/deny >/tmp/fns
mapfile -t all </tmp/fns

# ms from start until MARKER appears on the command's output
until_marker() {
	local marker=$1 t0 line
	shift
	t0=$(date +%s%N)
	"$@" 2>&1 | while IFS= read -r line; do
		case $line in *"$marker"*) echo $((($(date +%s%N) - t0) / 1000000)) ;; esac
	done
}

for n in 100 1000; do
	if [ ${#all[@]} -lt $n ]; then
		echo "SKIP func-attach $n: only ${#all[@]} functions"
		continue
	fi
	fns=("${all[@]:0:n}")
	list=$(printf 'kprobe:%s,' "${fns[@]}")
	rlist=$(printf 'kretprobe:%s,' "${fns[@]}")
	# kdist prints "Tracing..." once everything is attached
	k_ms=$(until_marker "Tracing" build/kdist func "${fns[@]}" -d 0.1)
	k_attach=$(build/kdist func "${fns[@]}" -d 0.1 -o json 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("%d %s" % (d["functions"]["attach_ms"], d["events"][0]["attach"]))')
	# bpftrace runs BEGIN once its probes are attached
	b_ms=$(until_marker "ready" env BPFTRACE_MAX_PROBES=5000 bpftrace -e "BEGIN { printf(\"ready\\n\"); exit(); }
		${list%,} { @s[tid] = nsecs; }
		${rlist%,} { @t = hist(nsecs - @s[tid]); delete(@s[tid]); }")
	[ -n "$b_ms" ] || b_ms="(bpftrace failed)"
	echo "func-attach $KDIST_VM_FLAVOR $n functions: kdist ${k_ms} ms to attached" \
		"(attach ${k_attach% *} ms, ${k_attach#* }), bpftrace ${b_ms} ms;" \
		"ratio bpftrace/kdist $(awk -v b="$b_ms" -v k="$k_ms" 'BEGIN { if (b + 0 > 0) printf "%.1f", b / k; else printf "n/a" }')"
done
