# Shared by the shell test runners: results, assertions, the kdist binary.
# A test file defines functions named test_*; tests/host/run.sh runs them.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIST=${KDIST:-$TOP/build/kdist}
WL=$TOP/build/tests
TMP=$(mktemp -d /tmp/kdist-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

n_pass=0 n_fail=0 n_skip=0

pass() { n_pass=$((n_pass + 1)); echo "PASS $CURRENT${1:+: $1}"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL $CURRENT: $1"; }
skip() { n_skip=$((n_skip + 1)); echo "SKIP $CURRENT: $1"; }

# Run every test_* function defined so far; print the closing line.
# slowest_cases TOTAL_US "US NAME"...: the runner's time and its ten
# slowest cases, in seconds (tests/run-all.sh gathers the lines)
slowest_cases() {
	local total=$1
	shift
	printf 'time: %d.%d s for %d cases\n' $((total / 1000000)) $((total / 100000 % 10)) $#
	printf '%s\n' "$@" | sort -rn | head -10 |
		awk '$1 >= 100000 { printf "slow: %6.1f s  %s\n", $1 / 1e6, $2 }'
}

run_tests() {
	local t filter=${TEST_FILTER:-} t0 all0=${EPOCHREALTIME/./} times=()
	for t in $(declare -F | awk '{print $3}' | grep '^test_'); do
		[ -n "$filter" ] && [[ $t != *$filter* ]] && continue
		CURRENT=${t#test_}
		t0=${EPOCHREALTIME/./}
		"$t"
		times+=("$(( ${EPOCHREALTIME/./} - t0 )) $CURRENT")
	done
	slowest_cases $(( ${EPOCHREALTIME/./} - all0 )) "${times[@]}"
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" -eq 0 ]
}

# json FILE PYTHON_EXPR: evaluate an expression over the parsed JSON
# document(s) in FILE (d is the last document, docs all of them).
json() {
	python3 -c '
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
d = docs[-1]
print(eval(sys.argv[2]))' "$1" "$2"
}

# lost FILE: the events the measurement in FILE (JSON, or JSON Lines of
# intervals) reports as lost, all loss counters summed (unmatched events
# are not losses, nor are slow-event lines not printed).
lost() {
	json "$1" "sum(v for x in docs for k, v in x.get('drops', {}).items() if k not in ('end_without_start', 'start_replaced', 'output_dropped'))"
}

# exact N WANT FILE: true when a count N of the workload's own events is
# WANT, or short of it by no more than the losses FILE reports.  The kernel
# guarantees every event, not every run of a program: it skips a run when
# the same program is still running on that CPU (a preempted program, an
# interrupt), and kdist counts each skip (skipped_by_kernel).  A loss
# counted and shown is kdist doing its job; a missing event not counted,
# or one too many, fails.
exact() {
	[ "$1" = "$2" ] && return 0
	[ "$1" -lt "$2" ] && [ $(($2 - $1)) -le "$(lost "$3")" ]
}

# folded_sum FILE REGEX: total weight of the folded lines whose stack
# matches REGEX (a Python regular expression).
folded_sum() {
	python3 -c '
import re, sys
t = 0
for line in open(sys.argv[1]):
    path, _, v = line.rstrip("\n").rpartition(" ")
    if re.search(sys.argv[2], path):
        t += int(v)
print(t)' "$1" "$2"
}

# within VALUE EXPECTED PCT: true when |VALUE-EXPECTED| <= PCT% of EXPECTED
within() {
	python3 -c 'import sys; v, e, p = map(float, sys.argv[1:]); sys.exit(abs(v - e) > e * p / 100)' "$@"
}

# BPF programs of kdist's objects that no process holds (a leak), or with
# PID, that PID holds; plus tracefs probe definitions, which would outlive a
# process (legacy kprobe/uprobe events).  0 after any exit.
bpf_leftovers() {
	local names ids held n=0 id
	names=$(for o in "$TOP"/build/*.bpf.o; do llvm-nm "$o" | awk '$2 == "T" {print substr($3, 1, 15)}'; done | sort -u)
	if [ -z "$names" ]; then
		echo "bpf_leftovers: no program names in $TOP/build/*.bpf.o" >&2
		echo 999
		return
	fi
	ids=$(bpftool prog list 2>/dev/null | awk -v names="$names" '
		BEGIN { split(names, a, "\n"); for (i in a) want[a[i]] = 1 }
		/^[0-9]+:/ { for (i = 1; i < NF; i++) if ($i == "name" && ($(i + 1) in want)) print $1 + 0 }')
	if [ -n "${1:-}" ]; then
		held=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -u)
		for id in $ids; do grep -qx "$id" <<<"$held" && n=$((n + 1)); done
	else
		held=$(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -u)
		for id in $ids; do grep -qx "$id" <<<"$held" || n=$((n + 1)); done
	fi
	n=$((n + $(cat /sys/kernel/tracing/kprobe_events /sys/kernel/tracing/uprobe_events 2>/dev/null |
		grep -c libbpf_)))
	echo $n
}

# Programs are freed after an RCU grace period, not at exit, and a busy
# machine stretches that: wait up to 10 s for them to go.
no_leftovers() {
	for _ in $(seq 100); do
		[ "$(bpf_leftovers)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# wait_word WORD FILE [PID]: wait (up to 20 s) until a line of FILE starts
# with WORD (kdist's "Tracing", serve's "Serving"); 1 at the timeout, or at
# once when process PID has ended.
wait_word() {
	for _ in $(seq 200); do
		grep -q "^$1" "$2" 2>/dev/null && return 0
		[ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# Wait (up to 20 s) until a kdist writing to FILE says it is attached.
wait_tracing() {
	wait_word Tracing "$1"
}

# stop_timed SIG PID: send SIG to PID, a child of this shell, and wait for
# it; sets STOP_RC (its exit status) and STOP_MS (ms from the signal to its
# end).  Globals, not output: a $(...) subshell could not wait for it.
stop_timed() {
	local t0
	t0=$(date +%s%N)
	kill -"$1" "$2"
	wait "$2"
	STOP_RC=$?
	STOP_MS=$((($(date +%s%N) - t0) / 1000000))
}

# wl_times FILE NAME PYTHON_EXPR: EXPR over v, the sorted durations (ns) a
# workload reported as NAME to FILE (KDIST_WL_TIMES, tests/workloads/report.h)
wl_times() {
	python3 -c '
import sys
v = sorted(int(l.split()[1]) for l in open(sys.argv[1]) if l.split()[0] == sys.argv[2])
print(eval(sys.argv[3]))' "$1" "$2" "$3"
}

# hist_bucket V: "LOW HIGH" of kdist's histogram bucket holding V (src/model/hist.h:
# exact below 8, then 8 sub-buckets per power of two).  A percentile kdist
# reports is the midpoint of the bucket holding the nearest-rank value.
hist_bucket() {
	python3 -c '
v = int(float(__import__("sys").argv[1]))
if v < 8:
    print(v, v + 1)
else:
    w = 1 << (v.bit_length() - 1 - 3)
    print(v // w * w, v // w * w + w)' "$1"
}

# peer_trace JSON BT_OUT BT_PROG WORKLOAD KDIST_ARGS...: kdist and bpftrace
# on the same stream.  kdist (KDIST_ARGS, JSON to JSON) attaches first;
# bpftrace attaches and then runs WORKLOAD (-c), so both see all of it;
# kdist stops once the workload is done.  BT_OUT gets bpftrace's maps.
#
# bpftrace's tracepoint programs are perf-tracepoint programs: the kernel
# skips one when an interrupt's event (a timer's wakeup) arrives while
# any tracepoint or kprobe program of any tool runs on that CPU, and
# counts it only in the program's recursion_misses.  The workload's last
# act, while bpftrace still holds its programs, writes their sum to
# BT_OUT.misses (peer_agrees reads it).
peer_trace() {
	local json=$1 bt_out=$2 prog=$3 wl=$4 kd
	shift 4
	"$KDIST" "$@" -o json >"$json" 2>"$json.err" &
	kd=$!
	wait_tracing "$json.err" || { kill $kd; wait $kd; return 1; }
	printf '%s\nbpftool -j prog show | python3 %s/tests/peer-misses.py $PPID >%s\n' \
		"$wl" "$TOP" "$bt_out.misses" >"$bt_out.sh"
	bpftrace -e "$prog" -c "/bin/sh $bt_out.sh" >"$bt_out" 2>&1
	kill -INT $kd
	wait $kd
}

# peer_agrees COUNT PEER BT_OUT: kdist's COUNT is bpftrace's PEER, or above
# it by no more than the events the kernel skipped of bpftrace's programs
# (0 on a machine where no other BPF program runs beside the test).
peer_agrees() {
	local misses
	misses=$(cat "$3.misses" 2>/dev/null)
	[ "$1" -ge "$2" ] && [ "$1" -le $(($2 + ${misses:-0})) ]
}

# bt_val BT_OUT NAME: a bpftrace count() map without keys, 0 when unset
bt_val() {
	local v
	v=$(sed -n "s/^@$2: \([0-9]*\)$/\1/p" "$1")
	echo "${v:-0}"
}

# svg_shot SVG PNG W,H [ARGS...]: a screenshot of SVG (or HTML) drawn by
# headless Chromium, with ARGS added to its command line; its stderr (its
# log, with --enable-logging=stderr) goes to $SHOT_LOG when set, its
# stdout (the page with --dump-dom) to $SHOT_OUT.
# 0 when written, 1 when Chromium wrote nothing, 2 when there is none.
svg_shot() {
	local browser dir
	browser=$(command -v chromium || command -v chromium-browser) || return 2
	dir=$(mktemp -d "$TMP/chromium.XXXXXX")
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$dir" --screenshot="$2" --window-size="$3" "${@:4}" "file://$1" \
		>"${SHOT_OUT:-/dev/null}" 2>"${SHOT_LOG:-/dev/null}"
	[ -s "$2" ]
}

# png_colours FILE: number of distinct RGB pixels of a PNG (8-bit).
png_colours() {
	python3 "$TOP/tests/png.py" colours "$1"
}
