#!/bin/bash
# uprobe-attach.sh: attach and detach time of 100 and of all libc functions
# (entry and return), kdist func against bpftrace, on this host.  The
# probes go on a private copy of libc that no process maps, so nothing on
# the machine runs into them.  Prints one line per tool and size.
# UPROBE_BENCH_BPFTRACE_TIMEOUT (default 60 s) bounds each bpftrace run.
set -u
cd "$(dirname "$0")/.." || exit 1
K=build/kdist
so=$(ldd build/tests/libcmix | awk '$1 ~ /^libc\.so/ {print $3}')
dir=$(mktemp -d /tmp/kdist-uprobe-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$so" "$dir/" || exit 1
lib=$dir/$(basename "$so")
limit=${UPROBE_BENCH_BPFTRACE_TIMEOUT:-60}
ulimit -n "$(ulimit -Hn)"

# the first 100 exported functions, the same names for both tools
mapfile -t first < <(nm -D --defined-only "$lib" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' |
	sort -u | head -100)

ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# kdist: attach and detach as it reports them with -v
kdist_run() {
	local what=$1 out
	shift
	out=$("$K" func "$@" -d 0.5 -v 2>&1 >/dev/null)
	echo "uprobe-attach kdist $what: $(grep -o '[0-9]* functions attached with [^,]*' <<<"$out" | head -1)," \
		"attach $(grep -o 'skipped, in [0-9.]* ms' <<<"$out" | grep -o '[0-9.]* ms')," \
		"detach $(grep -o 'detached in [0-9.]* ms' <<<"$out" | grep -o '[0-9.]* ms')"
}

# bpftrace: start to its BEGIN probe (everything attached), and from
# SIGINT to its exit (everything detached)
bpftrace_run() {
	local what=$1 prog=$2 t0 t1 pid a d n
	t0=$(date +%s%N)
	BPFTRACE_MAX_PROBES=100000 timeout -s KILL "$limit" bpftrace -e "BEGIN { printf(\"ready\\n\"); } $prog" \
		>"$dir/bt.out" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null && ! grep -q ready "$dir/bt.out"; do sleep 0.05; done
	a=$(ms "$t0")
	n=$(grep -o 'Attaching [0-9]* probes' "$dir/bt.out")
	if ! grep -q ready "$dir/bt.out"; then
		echo "uprobe-attach bpftrace $what: no result within ${limit} s ($(tail -1 "$dir/bt.out"))"
		return
	fi
	t1=$(date +%s%N)
	kill -INT $pid
	wait $pid
	d=$(ms "$t1")
	[ "$d" -ge $((limit * 1000 - a)) ] && d="more than $((limit - a / 1000)) s (killed)" || d="$d ms"
	echo "uprobe-attach bpftrace $what: ${n:-?}, attach $a ms, detach $d"
}

kdist_run "100 functions" $(printf "u:$lib:%s " "${first[@]}")
kdist_run "all functions" "u:$lib:*"
prog=$(printf "uprobe:$lib:%s," "${first[@]}")
rprog=$(printf "uretprobe:$lib:%s," "${first[@]}")
bpftrace_run "100 functions" "${prog%,} { @s[tid] = nsecs; } ${rprog%,} { @t = hist(nsecs - @s[tid]); }"
bpftrace_run "all functions" "uprobe:$lib:* { @s[tid] = nsecs; } uretprobe:$lib:* { @t = hist(nsecs - @s[tid]); }"
