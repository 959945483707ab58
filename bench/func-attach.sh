#!/bin/bash
# func-attach.sh: time from start until 100, 1000 and 10000 kernel
# functions are traced (entry and return) and from the end of tracing until
# the tracer has exited (detach), kdist func against bpftrace, on the same
# VM kernel (QEMU/TCG: absolute times are slow, the ratio is the figure).
# Then the added CPU time per call of one traced function (getppid's
# syscall function on a getppid loop): kdist func, kdist func as built
# from BENCH_BASE (a checkout of an earlier kdist, built), bpftrace and
# libbpf-tools funclatency.  kdist goes by fentry for one function; "kdist
# kprobe.multi" forces the method an earlier build used, so that the two
# builds are compared on the same hook.  FUNC_BENCH_ROUNDS rounds (3).
# KDIST_BENCH_FLAVORS picks the kernels (default 6.12; 6.1 has no
# kprobe.multi, so both tools attach one kprobe per function there).
# Prints one line per flavor and size.
set -u
cd "$(dirname "$0")/.." || exit 1

if [ -z "${KDIST_VM:-}" ]; then
	for flavor in ${KDIST_BENCH_FLAVORS:-6.12}; do
		KDIST_VM_TIMEOUT=1200 tests/vm/run-in-vm "$flavor" bench/func-attach.sh 2>&1 |
			grep -E '^(func-attach|func-call|SKIP|run-in-vm: error)' || echo "SKIP func-attach $flavor: the VM run failed"
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
# 10,000: any traceable functions, not on the blacklist, one per name
awk '$1 !~ /\./ && NF == 1 {print $1}' $T/available_filter_functions | sort | uniq -u |
	comm -23 - /tmp/deny | grep -v -E '^(bpf|__bpf|rcu|_raw_spin|preempt|lock|trace|__trace|ftrace|fprobe|rethook|kprobe|arch_|native_|__x86|irq|do_int3|exc_|entry_|sched_clock|ktime|perf|__perf)' |
	head -10000 >/tmp/fns10k
mapfile -t all </tmp/fns

# ms from start until MARKER appears on the output of the command, which
# ends by itself (killed after FUNC_BENCH_WAIT s); nothing and a SKIP line
# on stderr when it never comes
until_marker() {
	local marker=$1 t0 line ms
	shift
	t0=$(date +%s%N)
	ms=$(timeout -s KILL "${FUNC_BENCH_WAIT:-120}" "$@" 2>&1 | while IFS= read -r line; do
		case $line in *"$marker"*) echo $((($(date +%s%N) - t0) / 1000000)) ;; esac
	done)
	[ -n "$ms" ] && echo "$ms" ||
		echo "SKIP func-attach $KDIST_VM_FLAVOR: no \"$marker\" from $1 (it failed, or ran past FUNC_BENCH_WAIT, ${FUNC_BENCH_WAIT:-120} s)" >&2
}

# await WHAT MARKER FILE PID: until the tracer PID (WHAT, for the
# messages) writes MARKER to FILE.  Bounded (FUNC_BENCH_WAIT s, 120): a
# tracer that exits first, or runs on without it, fails with a line on
# stderr saying which and why (its last line); the host keeps the SKIP lines.
await() {
	local what=$1 marker=$2 file=$3 pid=$4 t0=$SECONDS
	while ! grep -q "$marker" "$file"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null
			echo "SKIP func-attach $KDIST_VM_FLAVOR: $what exited (status $?) before \"$marker\": $(grep . "$file" | tail -1)" >&2
			return 1
		fi
		if [ $((SECONDS - t0)) -ge "${FUNC_BENCH_WAIT:-120}" ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			echo "SKIP func-attach $KDIST_VM_FLAVOR: gave up on $what: no \"$marker\" within ${FUNC_BENCH_WAIT:-120} s (FUNC_BENCH_WAIT)" >&2
			return 1
		fi
		sleep 0.05
	done
}

# ms from the tracer's SIGINT until it has exited (at most 60 s, then killed)
until_exit() {
	local pid=$1 t0 i
	t0=$(date +%s%N)
	kill -INT "$pid"
	for i in $(seq 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo $((($(date +%s%N) - t0) / 1000000))
}

# ms to attached and ms to detach: kdist func, bpftrace on the same set
# (attach_detach WHAT MARKER COMMAND...; WHAT names it in a SKIP line)
attach_detach() {
	local name=$1 marker=$2 out=/tmp/ad.out pid t0 a
	shift 2
	: >$out
	t0=$(date +%s%N)
	"$@" >$out 2>&1 &
	pid=$!
	await "$name" "$marker" $out $pid ||
		{ echo "failed after $((($(date +%s%N) - t0) / 1000000)) ms"; return; }
	a=$((($(date +%s%N) - t0) / 1000000))
	sleep 1
	echo "$a ms to attached, $(until_exit $pid) ms to detach"
}

# FUNC_BENCH_PARTS: "big" (10,000 functions), "call" (per call), "sets" (100, 1000)
parts=" ${FUNC_BENCH_PARTS:-big call sets} "
mapfile -t big </tmp/fns10k
n=${#big[@]}
if [[ $parts == *" big "* ]] && [ "$n" -ge 1000 ]; then
	k=$(attach_detach "kdist on $n functions" Tracing build/kdist func "${big[@]}")
	printf 'kprobe:%s\n' "${big[@]}" | paste -sd, >/tmp/bl
	printf 'kretprobe:%s\n' "${big[@]}" | paste -sd, >/tmp/brl
	# the program from a file: 20,000 probe names are more than one
	# argument may hold (E2BIG); BEGIN runs once every probe is attached
	printf 'BEGIN { printf("ready\\n"); }\n%s { @s[tid] = nsecs; }\n%s { @t = hist(nsecs - @s[tid]); delete(@s[tid]); }\n' \
		"$(cat /tmp/bl)" "$(cat /tmp/brl)" >/tmp/big.bt
	b=$(FUNC_BENCH_WAIT=${FUNC_BENCH_BIG_WAIT:-600} \
		attach_detach "bpftrace on $n functions" ready env BPFTRACE_MAX_PROBES=30000 bpftrace /tmp/big.bt)
	echo "func-attach $KDIST_VM_FLAVOR $n functions: kdist $k; bpftrace $b"
fi

# added ns per call of one function: getppid's, the syscall wrapper where
# ftrace can trace it (6.1), else the function it calls (6.12 marks the
# __x64_sys_ wrappers notrace: kprobe.multi and fentry cannot attach there)
fn=__x64_sys_getppid
grep -qx "$fn" $T/available_filter_functions || fn=__do_sys_getppid
loop=build/tests/getppid_loop
export KDIST_WL_CPU=1	# the loop prints its CPU ns per call too
calls=200000
per_call() {	# tool marker command...; prints the loop's CPU ns per call
	local tool=$1 marker=$2 out=/tmp/pc.out pid r
	shift 2
	if [ "$marker" = none ]; then
		r=$(echo | $loop $calls wait)
		echo "${r#* }"
		return
	fi
	mkfifo /tmp/pc.go 2>/dev/null
	$loop $calls wait </tmp/pc.go >/tmp/pc.loop &
	local lp=$!
	: >$out
	"${@//PID/$lp}" >$out 2>&1 &
	pid=$!
	await "$tool per call" "$marker" $out $pid || { echo failed; kill $lp; return; }
	sleep 0.3
	echo >/tmp/pc.go
	wait $lp
	until_exit $pid >/dev/null
	r=$(cat /tmp/pc.loop)
	echo "${r#* }"
}
declare -A pc
tools="none kdist kdist-kpm base bpftrace funclatency"
if [[ $parts == *" call "* ]]; then
for round in $(seq "${FUNC_BENCH_ROUNDS:-3}"); do
	for t in $tools; do
		case $t in
		none) v=$(per_call none none) ;;
		kdist) v=$(per_call $t Tracing build/kdist func $fn -p PID) ;;
		kdist-kpm) v=$(per_call $t Tracing build/kdist func $fn --attach kprobe.multi -p PID) ;;
		base) if [ -x "${BENCH_BASE:-/nonexistent}/build/kdist" ]; then
			v=$(per_call $t Tracing "$BENCH_BASE/build/kdist" func $fn -p PID)
		      else v=""; fi ;;
		bpftrace) v=$(per_call $t Attaching bpftrace -e "kprobe:$fn /pid == PID/ { @s[tid] = nsecs; }
			kretprobe:$fn /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }") ;;
		funclatency) v=$(per_call $t Tracing stdbuf -oL funclatency -p PID $fn) ;;
		esac
		pc[$t]="${pc[$t]:-} $v"
	done
done
median() { printf '%s\n' $* | grep -v failed | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "n/a"}'; }
none=$(median ${pc[none]})
line="func-call $KDIST_VM_FLAVOR $fn, CPU ns per call (median of ${FUNC_BENCH_ROUNDS:-3}): none $none"
for t in kdist kdist-kpm base bpftrace funclatency; do
	m=$(median ${pc[$t]:-})
	line="$line, $t $m (added $(awk -v m="$m" -v n="$none" 'BEGIN { if (m + 0 > 0) printf "%.0f", m - n; else printf "n/a" }'))"
done
echo "$line"
fi

for n in 100 1000; do
	[[ $parts == *" sets "* ]] || break
	if [ ${#all[@]} -lt $n ]; then
		echo "SKIP func-attach $n: only ${#all[@]} functions"
		continue
	fi
	fns=("${all[@]:0:n}")
	list=$(printf 'kprobe:%s,' "${fns[@]}")
	rlist=$(printf 'kretprobe:%s,' "${fns[@]}")
	# kdist prints "Tracing..." once everything is attached
	k_ms=$(until_marker "Tracing" build/kdist func "${fns[@]}" -d 0.1)
	k_attach=$(timeout -s KILL "${FUNC_BENCH_WAIT:-120}" build/kdist func "${fns[@]}" -d 0.1 -o json 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("%d %s" % (d["functions"]["attach_ms"], d["events"][0]["attach"]))')
	# bpftrace runs BEGIN once its probes are attached
	b_ms=$(until_marker "ready" env BPFTRACE_MAX_PROBES=5000 bpftrace -e "BEGIN { printf(\"ready\\n\"); exit(); }
		${list%,} { @s[tid] = nsecs; }
		${rlist%,} { @t = hist(nsecs - @s[tid]); delete(@s[tid]); }")
	[ -n "$k_ms" ] || k_ms="(kdist failed)"
	[ -n "$b_ms" ] || b_ms="(bpftrace failed)"
	echo "func-attach $KDIST_VM_FLAVOR $n functions: kdist ${k_ms} ms to attached" \
		"(attach ${k_attach% *} ms, ${k_attach#* }), bpftrace ${b_ms} ms;" \
		"ratio bpftrace/kdist $(awk -v b="$b_ms" -v k="$k_ms" 'BEGIN { if (b + 0 > 0) printf "%.1f", b / k; else printf "n/a" }')"
done
