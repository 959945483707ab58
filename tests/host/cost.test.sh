# BPF run-time statistics (two clock reads per run of every BPF program of
# the machine, and a patch of the kernel's code at each switch) are on only
# with -v, for its exact figures: JSON's cost comes from windows in which
# kdist's programs time themselves (owncost.bpf.h), and plain text times
# nothing.  Whether kdist holds the statistics is seen in its open files
# (the kernel's "bpf-stats" descriptor), not in its programs' counters: on
# a shared machine anyone else holding the statistics on makes those move
# too.
# shellcheck shell=bash

# stats_seen ARGS...: of 300 looks at kdist pair's open files (3 s or more,
# while it traces with ARGS), how many found the statistics descriptor
stats_seen() {
	local pid n=0 i
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit "$@" -d 120 \
		>/dev/null 2>"$TMP/cost.err" &
	pid=$!
	wait_tracing "$TMP/cost.err" || { kill $pid; wait $pid; return 1; }
	for i in $(seq 300); do
		ls -l /proc/$pid/fd 2>/dev/null | grep -q 'anon_inode:bpf-stats' && n=$((n + 1))
		sleep 0.01
	done
	kill -INT $pid
	wait $pid
	echo "$n"
}

test_cost_statistics_only_when_shown() {
	local text json verbose
	text=$(stats_seen) || { fail "not attached: $(cat "$TMP/cost.err")"; return; }
	json=$(stats_seen -o json) || { fail "not attached: $(cat "$TMP/cost.err")"; return; }
	verbose=$(stats_seen -v) || { fail "not attached: $(cat "$TMP/cost.err")"; return; }
	[ "$text" = 0 ] || { fail "text without -v: statistics held at $text of 300 looks"; return; }
	[ "$json" = 0 ] || { fail "-o json: statistics held at $json of 300 looks (timed by the programs: none)"; return; }
	[ "$verbose" -ge 290 ] || { fail "-v: statistics held at $verbose of 300 looks (all)"; return; }
	pass "statistics held at text 0, JSON 0, -v $verbose of 300 looks"
}

# JSON's sampled cost against what the workload makes the programs do: a
# loop of 3 million getppid runs each raw tracepoint program at least once
# per call (other tasks' syscalls add to that), steadily for seconds, so
# the windows' runs scaled up land near 6 million; the time per run is
# that of a short program.
test_cost_json_windows_count_the_runs() {
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit -o json \
		-c "$WL/getppid_loop 3000000" >"$TMP/cw.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local runs sampled ns
	runs=$(json "$TMP/cw.json" 'd["cost"]["runs"]')
	sampled=$(json "$TMP/cw.json" 'd["cost"]["sampled"]')
	ns=$(json "$TMP/cw.json" 'd["cost"]["ns_per_run"]')
	[ "$runs" != None ] || { fail "no runs: $(json "$TMP/cw.json" 'd["cost"]')"; return; }
	awk -v r="$runs" -v s="$sampled" -v n="$ns" \
		'BEGIN { exit !(r >= 3000000 && r <= 24000000 && s > 0 && s < 0.2 && n >= 5 && n < 5000) }' ||
		{ fail "runs $runs (6M expected, within 0.5x-4x), sampled $sampled, $ns ns per run"; return; }
	pass "$runs runs estimated for 6M (sampled $sampled), $ns ns each"
}

# What the sampled cost costs the measured pair (JSON against text)
# is a speed figure: make bench's "kdist pair -o json / kdist pair" ratio,
# measured in one run, not a timed test here; so is what they must not
# change, the latencies: make bench's "p50 -o json / text" of getppid.

# --slower-than with no stack of the START keeps the START's time alone, in
# the tid array as plain pairs do (the task storage lookups cost it 1.58x a
# plain pair's added time); a slow pair's task is taken at its END, the
# same thread: the 3 slow sleeps are printed with the sleeper's name and
# one pid (the shell's wait for it is slow too)
test_cost_slower_than_in_tid_array() {
	local out n pids
	out=$("$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --slower-than 40ms -v \
		-c "$WL/sleeper 3 50" 2>&1)
	grep -q "in-flight starts kept in an array" <<<"$out" ||
		{ fail "START not in the tid array: $(grep in-flight <<<"$out")"; return; }
	n=$(grep -cE '^[0-9:.]+ sleeper +[0-9]+ +[0-9]+ +[0-9]+ [0-9.]+ms$' <<<"$out")
	pids=$(grep -E '^[0-9:.]+ sleeper ' <<<"$out" | awk '{print $3 "/" $4}' | sort -u | wc -l)
	[ "$n" = 3 ] && [ "$pids" = 1 ] ||
		{ fail "$n slow sleeps of the sleeper printed, from $pids threads (3 of one expected): $out"; return; }
	pass "START in the tid array; the 3 sleeps of 50 ms printed, one pid and tid"
}

# README's overhead table comes from a bench.json: bench/compare.py writes
# it between the markers, and --check fails once a figure changed
test_cost_readme_table_from_bench_json() {
	local j=$TMP/bench.json r=$TMP/README.md
	cat >"$j" <<'JSON'
{"rounds": 5, "target_rounds": 15, "calls": 1000000,
 "machine": {"cpus": 2, "kernel": "k", "loadavg": [3.0, 3, 3]},
 "targets": {"none": {"added_ns": 0}, "kdist pair": {"added_ns": 250.0},
             "kdist syscalls": {"added_ns": 280.0}},
 "syscalls": {"none": {"added_ns": 0}, "kdist pair": {"added_ns": 240.0},
              "syscount -L": {"added_ns": 480.0}},
 "ratios": {"kdist syscalls / kdist pair": {"value": 1.12, "rounds": [1.12], "target": 1.15, "met": true}}}
JSON
	sed -n '/^<!-- overhead table/,/^<!-- end of the overhead table/p' "$TOP/README.md" >"$r"
	python3 "$TOP/bench/compare.py" --readme "$j" "$r" &&
		python3 "$TOP/bench/compare.py" --readme "$j" "$r" --check ||
		{ fail "table not written or not matching: $(cat "$r")"; return; }
	grep -q '^| `kdist syscalls` | +280 | 1.12 | ≤ 1.15 (met) |$' "$r" ||
		{ fail "no syscalls row: $(cat "$r")"; return; }
	# a peer against the pair of its own part
	grep -q '^| libbpf-tools `syscount -L` | +480 | 2.00 |  |$' "$r" ||
		{ fail "no syscount row against its part's pair: $(cat "$r")"; return; }
	sed -i 's/280.0/300.0/' "$j"
	python3 "$TOP/bench/compare.py" --readme "$j" "$r" --check 2>/dev/null &&
		{ fail "--check passed over a changed figure"; return; }
	pass "table written from bench.json; --check fails once a figure changed"
}
