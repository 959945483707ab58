# BPF run-time statistics (two clock reads per run of every BPF program of
# the machine) are on only while kdist's cost is shown: JSON, -v.
# shellcheck shell=bash

# cost_run_ns ARGS...: the run time the kernel kept for kdist pair's START
# program, run with ARGS over 2,000 getppid calls of its own workload
cost_run_ns() {
	local pid ns
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit "$@" \
		-c "sleep 1; $WL/getppid_loop 2000; sleep 30" >/dev/null 2>"$TMP/cost.err" &
	pid=$!
	wait_tracing "$TMP/cost.err" || { kill $pid; wait $pid; return 1; }
	sleep 2
	ns=$(bpftool -j prog show | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    # by the pid holding it where bpftool can tell (under the lock no
    # other kdist runs)
    if p.get("name") == "raw_start" and (
            "pids" not in p or any(x["pid"] == '$pid' for x in p["pids"])):
        print(p.get("run_time_ns", 0))
        break')
	kill -INT $pid
	wait $pid
	echo "$ns"
}

test_cost_statistics_only_when_shown() {
	command -v bpftool >/dev/null || { skip "no bpftool to read the programs' statistics"; return; }
	local off on
	off=$(cost_run_ns) || { fail "not attached: $(cat "$TMP/cost.err")"; return; }
	on=$(cost_run_ns -o json) || { fail "not attached: $(cat "$TMP/cost.err")"; return; }
	[ -n "$on" ] && [ "$on" -gt 0 ] ||
		{ fail "-o json: run time '$on' (statistics should be on)"; return; }
	[ "$off" = 0 ] || { fail "text without -v: run time '$off' (statistics should be off)"; return; }
	pass "START program run time: text 0 ns (statistics off), JSON $on ns"
}
