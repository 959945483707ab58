# Outliers and single events: --if, kdist trace, --slower-than, oncpu and
# offcpu-dist on the host kernel, against workloads with known truth.
# shellcheck shell=bash

# slow_bounds: the events a histogram group allows over a threshold: python
# expression of a group g and threshold t giving (LOW, HIGH), the counts of
# its buckets (bounds inclusive) wholly above t and reaching above t.  A
# sleep of 1 ms may take longer than any threshold on a loaded machine; the
# events printed must lie within what the histogram of the same calls says.
SLOW_BOUNDS="(lambda g, t: (sum(b[2] for b in g['buckets'] if b[0] > t), sum(b[2] for b in g['buckets'] if b[1] > t)))"

# --if keeps exactly the pairs whose terms hold: syserr makes N getppid and
# M failing close(-1); a START term (the syscall id) and an END term (the
# return value) each select one of them.
test_if_pair_keeps_matching_pairs() {
	local n
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --if 'id == 110' -o json \
		-- "$WL/syserr" 300 70 >"$TMP/if1.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/if1.json" 'd["groups"][0]["count"]')
	exact "$n" 300 "$TMP/if1.json" || { fail "--if 'id == 110' (getppid): $n pairs, expected 300 ($(lost "$TMP/if1.json") lost)"; return; }
	"$KDIST" pair syscalls:sys_enter_close syscalls:sys_exit_close --if 'ret == -9 && fd > 1000' \
		-o json -- "$WL/syserr" 300 70 >"$TMP/if2.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/if2.json" 'd["groups"][0]["count"] if d["groups"] else 0')
	exact "$n" 70 "$TMP/if2.json" || { fail "--if 'ret == -9 && fd > 1000' (close(-1)): $n pairs, expected 70 ($(lost "$TMP/if2.json") lost)"; return; }
	"$KDIST" count syscalls:sys_exit_close --if 'ret < 0' -o json \
		-- "$WL/syserr" 300 70 >"$TMP/if3.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/if3.json" 'd["groups"][0]["count"]')
	exact "$n" 70 "$TMP/if3.json" || { fail "count --if 'ret < 0': $n, expected 70 ($(lost "$TMP/if3.json") lost)"; return; }
	pass "300 getppid by START id, 70 close(-1) by END ret and fd, 70 by count --if"
}

# Each bad condition is one line on stderr and exit 2, before anything is
# loaded (no BPF program left, none attached meanwhile), for every command
# that takes --if.
test_if_bad_conditions() {
	local c out lines
	local -a bad=(
		'nosuch == 1' 'comm < "x"' 'comm == 5' 'pid == "x"' 'ret =< 3' 'ret' 'fd == -1'
		'a == 1 && b == 2 && c == 3 && d == 4 && e == 5' 'comm == "0123456789abcdefg"'
		'ret & 4 == 1' 'ret == 1 &&'
	)
	local -a cmds=(
		"pair syscalls:sys_enter_close syscalls:sys_exit_close"
		"trace syscalls:sys_exit_close" "count syscalls:sys_exit_close" "dist syscalls:sys_exit_close ret"
	)
	local cmd
	for cmd in "${cmds[@]}"; do
		for c in "${bad[@]}"; do
			# shellcheck disable=SC2086
			out=$("$KDIST" $cmd --if "$c" -d 1 2>&1)
			rc=$?
			lines=$(printf '%s\n' "$out" | wc -l)
			[ $rc = 2 ] && [ "$lines" = 1 ] && [[ $out == "kdist: "* ]] && [[ $out != *Tracing* ]] ||
				{ fail "${cmd%% *} --if '$c': exit $rc, $lines lines: $out"; return; }
		done
	done
	out=$("$KDIST" trace syscalls:sys_exit_close --if 'nosuch == 1' 2>&1)
	[[ $out == "kdist: "*nosuch* ]] || { fail "trace --if 'nosuch == 1' does not name the field: $out"; return; }
	no_leftovers || { fail "BPF programs left behind"; return; }
	pass "${#bad[@]} bad conditions each for pair, trace, count and dist: one line each, exit 2 (bad input)"
}

# 3 sleeps of 50 ms among 100 of 1 ms: the 3 are printed (a sleep never
# ends early), with the workload's pid (the histogram's one group by pid)
# and comm, none longer than the workload timed it; a short one only when
# its histogram bucket says it took over 20 ms; the histogram counts all.
test_slower_than_prints_the_outliers() {
	KDIST_WL_TIMES=$TMP/out.times "$KDIST" pair syscalls:sys_enter_nanosleep \
		syscalls:sys_exit_nanosleep --slower-than 20ms --by pid -o json \
		-- "$WL/outliers" 3 50 100 1 >"$TMP/slow.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg wl_max wl_over
	wl_max=$(wl_times "$TMP/out.times" long 'v[-1]')
	wl_over=$(wl_times "$TMP/out.times" short 'len([x for x in v if x > 20000000])')
	msg=$(json "$TMP/slow.json" "
(lambda ev, m, b: 'ok' if len(m['groups']) == 1 and b[0] <= len(ev) <= b[1] and 3 <= len(ev) <= 3 + $wl_over
 and len([e for e in ev if e['latency_ns'] >= 50000000]) >= 3
 and all(e['comm'] == 'outliers' and int(e['tid']) == int(e['pid']) == int(m['groups'][0]['by']['pid'])
 and 20000000 < e['latency_ns'] <= $wl_max for e in ev)
 and m['groups'][0]['count'] == 103 and m['drops']['output_dropped'] == 0
 else f'{len(ev)} events {ev}, histogram {m[\"groups\"]}')(
 [x for x in docs if x.get('event') == 'slow'], d, $SLOW_BOUNDS(d['groups'][0], 20000000))") || { fail "$msg"; return; }
	[ "$msg" = ok ] || { fail "$msg"; return; }
	# text: one line each, the kernel and user stack under it: each long
	# sleep once (others come from short_sleep)
	"$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --slower-than 20ms \
		--stack -- "$WL/outliers" 3 50 100 1 >"$TMP/slow.txt" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local lines stacks short
	lines=$(grep -cE '^[0-9:.]+ outliers +[0-9]+ +[0-9]+ +[0-9]+ [0-9.]+(ms|s)$' "$TMP/slow.txt")
	stacks=$(grep -c '^    long_sleep$' "$TMP/slow.txt")
	short=$(grep -c '^    short_sleep$' "$TMP/slow.txt")
	[ "$stacks" = 3 ] && [ "$lines" = $((stacks + short)) ] ||
		{ fail "$lines lines, $stacks stacks with long_sleep, $short with short_sleep: $(head -c 2000 "$TMP/slow.txt")"; return; }
	# at the END the thread is still inside long_sleep's syscall (user
	# frames are named while the process lives: the short sleeps keep it
	# alive after the long ones)
	"$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --slower-than 20ms \
		--stack end -- "$WL/outliers" 3 50 100 1 >"$TMP/slowe.txt" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	stacks=$(grep -c '^    long_sleep$' "$TMP/slowe.txt")
	[ "$stacks" = 3 ] || { fail "--stack end: $stacks stacks with long_sleep: $(head -c 2000 "$TMP/slowe.txt")"; return; }
	pass "$(json "$TMP/slow.json" "len(docs) - 1") of 103 sleeps printed (the 3 long ones, short ones over 20 ms as the histogram says), same pid; --stack and --stack end name long_sleep 3 times"
}

# The latency recipes take it too: syscalls prints the same 3 sleeps (and
# any call the histogram puts over 20 ms), its key components named as in
# its histogram (syscall, error).
test_slower_than_recipe() {
	"$KDIST" syscalls --slower-than 20ms -o json -- "$WL/outliers" 3 50 20 1 \
		>"$TMP/rs.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg n
	msg=$(json "$TMP/rs.json" "
(lambda ev, m: 'ok' if d['by'] == ['syscall', 'error'] and len([e for e in ev if e['syscall'] == 'nanosleep' and e['latency_ns'] >= 50000000]) >= 3
 and all('error' in e and e['latency_ns'] > 20000000 for e in ev)
 and all($SLOW_BOUNDS(g, 20000000)[0] <= len([e for e in ev if e['syscall'] == g['by']['syscall'] and e['error'] == g['by']['error']])
         <= $SLOW_BOUNDS(g, 20000000)[1] for g in m['groups'])
 else f'{ev} {m[\"by\"]}')([x for x in docs if x.get('event') == 'slow'], d)")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	"$KDIST" syscalls --slower-than 20ms -- "$WL/outliers" 3 50 20 1 >"$TMP/rs.txt" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(grep -c ' syscall="nanosleep" error="ok"$' "$TMP/rs.txt")
	[ "$n" -ge 3 ] || { fail "$n text lines with syscall="nanosleep": $(head -c 1500 "$TMP/rs.txt")"; return; }
	pass "syscalls --slower-than 20ms: the 3 sleeps of 50 ms (and what each group's histogram puts over 20 ms), syscall=nanosleep as the histogram names it"
}

# Event lines are JSON objects without two members of one name: a parser
# that rejects duplicates reads each.  A --by value the head carries (pid,
# tid, comm of the START's task) is the head's, once; the START's CPU, which
# the head's (the END's) may not be, is start_cpu, each line's in a group
# of the histogram as many times as that group allows over the threshold.
# mmap-lock's key (mm,tid) and default --by comm, a trace record's own pid
# field (field_pid) and a CSV header the same.
test_slower_than_events_json_unique_keys() {
	cat >"$TMP/unique.py" <<'EOF'
import csv, json, sys
def unique(pairs):
    names = [k for k, _ in pairs]
    dup = sorted({k for k in names if names.count(k) > 1})
    if dup:
        raise SystemExit(f"duplicate members {dup}: {pairs}"[:3000])
    return dict(pairs)
by, t = sys.argv[2], 20000000
docs = [json.loads(l, object_pairs_hook=unique) for l in open(sys.argv[1])]
m, ev = docs[-1], [x for x in docs if x.get('event')]
bounds = SLOW_BOUNDS
if by == 'trace':
    ok = len(ev) == 1 and ev[0]['field_pid'] == ev[0]['pid'] and ev[0]['filename'] == '/bin/true'
elif by == 'mmap-lock':
    ok = len(ev) > 0 and all(('mm' in e) == (e['measure'] == 'hold') and 'lock' in e for e in ev)
elif by == 'cpu':
    ok = len([e for e in ev if e['latency_ns'] >= 50000000]) >= 3 and all(
        bounds(g, t)[0] <= len([e for e in ev if e['start_cpu'] == g['by']['cpu']]) <= bounds(g, t)[1]
        for g in m['groups']) and sum(g['count'] for g in m['groups']) == 13
else:
    g = m['groups']
    ok = (len(g) == 1 and g[0]['count'] == 13 and bounds(g[0], t)[0] <= len(ev) <= bounds(g[0], t)[1]
          and len(ev) >= 3 and all(str(e[by]) == g[0]['by'][by] for e in ev))
print('ok' if ok else f'{ev} {m["groups"]}'[:3000])
EOF
	sed -i "s/^bounds = SLOW_BOUNDS$/bounds = $SLOW_BOUNDS/" "$TMP/unique.py"
	local by msg
	for by in pid tid comm cpu; do
		"$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --slower-than 20ms \
			--by $by -o json -- "$WL/outliers" 3 50 10 1 >"$TMP/u.json" 2>"$TMP/err" ||
			{ fail "--by $by: exit $?: $(cat "$TMP/err")"; return; }
		msg=$(python3 "$TMP/unique.py" "$TMP/u.json" $by 2>&1)
		[ "$msg" = ok ] || { fail "--by $by: $msg"; return; }
	done
	"$KDIST" mmap-lock --slower-than 1us -o json -- "$WL/mmaplock" 1 100 >"$TMP/u.json" 2>"$TMP/err" ||
		{ fail "mmap-lock: exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 "$TMP/unique.py" "$TMP/u.json" mmap-lock 2>&1)
	[ "$msg" = ok ] || { fail "mmap-lock: $msg"; return; }
	"$KDIST" trace sched:sched_process_exec -o json -- /bin/true >"$TMP/u.json" 2>"$TMP/err" ||
		{ fail "trace: exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 "$TMP/unique.py" "$TMP/u.json" trace 2>&1)
	[ "$msg" = ok ] || { fail "trace: $msg"; return; }
	"$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --slower-than 20ms \
		--by pid,tid,comm,cpu -o csv -- "$WL/outliers" 3 50 10 1 >"$TMP/u.csv" 2>"$TMP/err" ||
		{ fail "csv: exit $?: $(cat "$TMP/err")"; return; }
	msg=$(head -1 "$TMP/u.csv")
	[ "$msg" = event,time,comm,pid,tid,cpu,latency_ns,start_cpu ] || { fail "csv header: $msg"; return; }
	pass "--by pid, tid, comm, cpu; mmap-lock; trace sched_process_exec: no member twice; the START's CPU as start_cpu"
}

# -o csv: event rows under their own header row (first column "event"),
# then the measurement's CSV.
test_events_csv() {
	"$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --slower-than 20ms -o csv \
		-- "$WL/outliers" 3 50 10 1 >"$TMP/slow.csv" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
n = len(rows) - 3
ev = [dict(zip(rows[0], r)) for r in rows[1:1 + n]]
ok = (rows[0] == ["event", "time", "comm", "pid", "tid", "cpu", "latency_ns"] and 3 <= n <= 13
      and all(e["event"] == "slow" and e["comm"] == "outliers" and int(e["latency_ns"]) > 20000000 for e in ev)
      and len([e for e in ev if int(e["latency_ns"]) >= 50000000]) >= 3
      and rows[-2][:3] == ["interval", "unit", "count"] and rows[-1][2] == "13")
print("ok" if ok else rows)' "$TMP/slow.csv")
	[ "$msg" = ok ] || { fail "pair: $msg"; return; }
	"$KDIST" trace syscalls:sys_exit_openat --fields ret,filename -o csv -- "$WL/openmiss" 2 "$TMP/nonexistent" \
		>"$TMP/open.csv" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = ["event", "time", "comm", "pid", "tid", "cpu", "ret", "error", "filename"]
ev = [dict(zip(hdr, r)) for r in rows if r and r[0] == "syscalls:sys_exit_openat"]
miss = sorted(e["filename"] for e in ev if e["error"] == "ENOENT" and e["ret"] == "-2")
ok = (rows[0] == hdr and all(len(r) == len(hdr) for r in rows[1:len(ev) + 1])
      and miss == [sys.argv[2] + "/missing-0", sys.argv[2] + "/missing-1"]
      and all(e["error"] == "" for e in ev if int(e["ret"]) >= 0))
print("ok" if ok else rows)' "$TMP/open.csv" "$TMP/nonexistent")
	[ "$msg" = ok ] || { fail "trace: $msg"; return; }
	pass "pair: one header, the slow rows (3 of 50 ms), then the measurement (count 13); trace: ENOENT rows with file names, an empty error column on success"
}

# kdist trace of a failed openat: the error's name and the file name, read
# from user memory at the syscall's entry.
test_trace_failed_openat() {
	"$KDIST" trace syscalls:sys_exit_openat --if 'ret < 0' -- "$WL/openmiss" 5 "$TMP/nonexistent" \
		>"$TMP/open.txt" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local n i
	n=$(grep -c ' ret=-2 error="ENOENT" ' "$TMP/open.txt")
	[ "$n" = 5 ] || { fail "$n ENOENT lines, expected 5: $(cat "$TMP/open.txt")"; return; }
	for i in 0 1 2 3 4; do
		grep -q "^[0-9:.]\+ openmiss .* error=\"ENOENT\" .*filename=\"$TMP/nonexistent/missing-$i\"" "$TMP/open.txt" ||
			{ fail "no line for missing-$i: $(cat "$TMP/open.txt")"; return; }
	done
	grep -q '^count 5$' "$TMP/open.txt" || { fail "no 'count 5': $(cat "$TMP/open.txt")"; return; }
	# JSON Lines with the fields asked for, then the measurement
	"$KDIST" trace syscalls:sys_exit_openat --if 'ret == -2' --fields ret,filename -o json \
		-- "$WL/openmiss" 2 "$TMP/nonexistent" >"$TMP/open.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/open.json" "sorted(x['filename'] for x in docs[:-1] if x['ret'] == -2 and x['error'] == 'ENOENT' and set(x) >= {'time', 'comm', 'pid', 'tid', 'cpu'})")
	[ "$n" = "['$TMP/nonexistent/missing-0', '$TMP/nonexistent/missing-1']" ] ||
		{ fail "JSON events: $n"; return; }
	pass "5 lines with ENOENT and each file name; JSON Lines with --fields"
}

# --max-rate: every event is printed or counted as rate_limited.
test_trace_max_rate() {
	"$KDIST" trace syscalls:sys_enter_getppid --max-rate 100/s -o json -- "$WL/getppid_loop" 5000 \
		>"$TMP/rate.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	# (the workload prints its ns per call, a number line among the events)
	msg=$(json "$TMP/rate.json" "
(lambda n, m: 'ok' if n + m['drops']['rate_limited'] + m['drops']['output_dropped'] == 5000 == m['groups'][0]['count']
 and 1 <= n <= 100 * (int(m['duration_s']) + 2) else f'{n} printed, {m[\"drops\"]}, {m[\"groups\"]}')(
 len([x for x in docs if isinstance(x, dict) and 'event' in x]), d)")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "$(json "$TMP/rate.json" 'd["drops"]["rate_limited"]') of 5000 counted as rate_limited, the others printed"
}

# A flood (a getppid loop: a million events a second or more) overflows the
# ring buffer: the losses are counted, and Ctrl-C still ends kdist at once.
# Every event the measurement counted is printed or dropped; the final
# drain prints a little more: the events of the read itself (its counters
# are read one after the other) and of a millisecond after it, here at
# most 50 ms' worth.
test_trace_flood_drops_and_stays_responsive() {
	local pid
	"$KDIST" trace syscalls:sys_enter_getppid -o json -- "$WL/getppid_loop" 100000000 \
		>"$TMP/flood.json" 2>"$TMP/flood.err" &
	pid=$!
	wait_tracing "$TMP/flood.err" || { kill $pid; wait $pid; fail "not attached"; return; }
	sleep 2
	stop_timed INT $pid
	[ $STOP_RC = 0 ] || { fail "exit $STOP_RC: $(cat "$TMP/flood.err")"; return; }
	[ $STOP_MS -lt 3000 ] || { fail "took $STOP_MS ms to end after SIGINT"; return; }
	local msg
	msg=$(json "$TMP/flood.json" "
(lambda n, m, c: 'ok' if m['drops']['output_dropped'] > 0
 and c <= n + m['drops']['output_dropped'] <= c + c / m['duration_s'] * 0.05 + 2
 else f'{n} printed, {m[\"drops\"]}, {c} matched in {m[\"duration_s\"]} s')(
 len([x for x in docs if isinstance(x, dict) and 'event' in x]), d, d['groups'][0]['count'])")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	no_leftovers || { fail "BPF programs left behind"; return; }
	pass "ended $STOP_MS ms after SIGINT; $(json "$TMP/flood.json" 'd["drops"]["output_dropped"]') events dropped of $(json "$TMP/flood.json" 'd["groups"][0]["count"]')"
}

# func's user functions: the 3 long_sleep calls, by their function; a
# short_sleep call only as often as its histogram puts it over 20 ms.
test_slower_than_func() {
	"$KDIST" func "u:$WL/outliers:*_sleep" --slower-than 20ms --hist -o json -- "$WL/outliers" 3 50 10 1 \
		>"$TMP/fs.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(json "$TMP/fs.json" "
(lambda ev, g: 'ok' if len([e for e in ev if e['function'] == 'outliers:long_sleep' and e['latency_ns'] >= 50000000]) == 3
 and all(e['latency_ns'] > 20000000 for e in ev)
 and all($SLOW_BOUNDS(g[f], 20000000)[0] <= len([e for e in ev if e['function'] == f]) <= $SLOW_BOUNDS(g[f], 20000000)[1] for f in g)
 else str(ev))([x for x in docs if x.get('event') == 'slow'], {x['by']['function']: x for x in d['groups']})")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "3 calls of long_sleep >= 50 ms printed; short_sleep as its histogram allows"
}

# func --stack: a slow call's stacks, taken at its return, are its callers'.
# nap() is called by long_sleep() and short_sleep(), which main() calls: the
# user stacks of the 3 naps of 50 ms must start with long_sleep, then main
# (the workload keeps its frame pointers); any other slow nap's with
# short_sleep, then main.
test_slower_than_func_stack() {
	"$KDIST" func "u:$WL/outliers:nap" --slower-than 20ms --stack -o json -- "$WL/outliers" 3 50 100 1 \
		>"$TMP/fst.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(json "$TMP/fst.json" "
(lambda ev: 'ok' if len([e for e in ev if e['ustack'][:2] == ['long_sleep', 'main'] and e['latency_ns'] >= 50000000]) == 3
 and all(e['function'] == 'outliers:nap' and e['latency_ns'] > 20000000 and isinstance(e['kstack'], list)
 and e['ustack'][:2] in (['long_sleep', 'main'], ['short_sleep', 'main']) for e in ev)
 else str(ev))([x for x in docs if x.get('event') == 'slow'])")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	# text: the frames under the line, leaf first
	"$KDIST" func "u:$WL/outliers:nap" --slower-than 20ms --stack -- "$WL/outliers" 1 50 100 1 \
		>"$TMP/fst.txt" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	[ "$(grep -cx '    long_sleep' "$TMP/fst.txt")" = 1 ] &&
		[ "$(grep -c ' function="outliers:nap"$' "$TMP/fst.txt")" = $((1 + $(grep -cx '    short_sleep' "$TMP/fst.txt"))) ] ||
		{ fail "not one long_sleep frame and one line per frame: $(head -c 2000 "$TMP/fst.txt")"; return; }
	pass "3 naps of 50 ms, each called from long_sleep, called from main"
}

# A burst of slow calls just before the workload exits, while kdist's
# output is blocked (its reader waits for the workload's end): the ring
# buffer (16384 such events) is full when kdist stops, and all it holds is
# printed then.  Every call is printed or counted
# as dropped, none lost.
# User frames of a process whose lines are all printed after it exited:
# the workload's first process fills kdist's output, a pipe nobody reads
# yet (kdist blocks on it), with 1000 short sleeps; the second sleeps twice
# 30 ms in long_sleep() and exits, and only then the reader starts.  Its
# lines name long_sleep and main: the programs told kdist of the process
# (at a START for pair, at a slow return for func) and its maps were read
# while it ran.
test_slower_than_stack_after_exit() {
	local cmd="$WL/outliers 0 0 1000 0; $WL/outliers 2 30 0 1" what msg
	for what in "pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep" "func u:$WL/outliers:nap"; do
		rm -f "$TMP/ae.times"
		# shellcheck disable=SC2086
		KDIST_WL_TIMES=$TMP/ae.times "$KDIST" $what --slower-than 1ns --stack -o json -c "$cmd" 2>"$TMP/err" |
			{ for _ in $(seq 600); do [ "$(grep -c '^long' "$TMP/ae.times" 2>/dev/null)" = 2 ] && break; sleep 0.1; done
			  sleep 0.5; cat; } >"$TMP/ae.json"
		[ "${PIPESTATUS[0]}" = 0 ] || { fail "${what%% *}: exit ${PIPESTATUS[0]}: $(cat "$TMP/err")"; return; }
		msg=$(json "$TMP/ae.json" "
(lambda ev, m: 'ok' if len([e for e in ev if 'long_sleep' in e['ustack'] and 'main' in e['ustack']
                            and e['latency_ns'] >= 30000000]) == 2
 and 1000 - m['drops']['output_dropped'] <= len([e for e in ev if 'short_sleep' in e['ustack']]) <= 1000
 else str([e for e in ev if 'short_sleep' not in e['ustack']])[:3000] + str(m['drops']))(
 [x for x in docs if x.get('event') == 'slow'], d)")
		[ "$msg" = ok ] || { fail "${what%% *}: $msg"; return; }
	done
	pass "pair and func: the exited process's 2 long sleeps under long_sleep and main; 1000 short ones under short_sleep"
}

test_slower_than_final_drain() {
	# the reader starts once the workload has written its 20000 times (at
	# its exit): kdist is blocked on the pipe meanwhile
	KDIST_WL_TIMES=$TMP/burst.times "$KDIST" func "u:$WL/outliers:short_sleep" --slower-than 1ns -o json \
		-- "$WL/outliers" 0 0 20000 0 2>"$TMP/err" |
		{ for _ in $(seq 600); do [ "$(wc -l 2>/dev/null <"$TMP/burst.times")" = 20000 ] && break; sleep 0.1; done; cat; } \
		>"$TMP/burst.json"
	local rc=${PIPESTATUS[0]} msg
	[ "$rc" = 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	msg=$(json "$TMP/burst.json" "
(lambda n, m: 'ok' if n + m['drops']['output_dropped'] == 20000 == m['groups'][0]['count']
 else f'{n} printed, {m[\"drops\"]}, {m[\"groups\"][0][\"count\"]} calls')(
 len([x for x in docs if x.get('event') == 'slow']), d)")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "20000 calls: $(json "$TMP/burst.json" "len(docs) - 1") printed, $(json "$TMP/burst.json" 'd["drops"]["output_dropped"]') counted as dropped"
}

# oncpu and offcpu-dist against libbpf-tools cpudist -O on the same stream:
# one process (known before it runs, so all three filter on its pid) makes
# 30 sleeps of 10 ms.  Off-CPU periods are counted alike by both tools; the
# process's on-CPU periods are one more (its exit switches it out for good),
# and each of the 30 sleeps is an off-CPU period.
test_oncpu_offcpu_dist_vs_cpudist() {
	local cpudist
	cpudist=$(command -v cpudist || ls /usr/sbin/cpudist 2>/dev/null)
	[ -x "$cpudist" ] || { skip "no cpudist (Debian package libbpf-tools)"; return; }
	mkfifo "$TMP/go"
	(read -r _ <"$TMP/go"; exec "$WL/sleeper" 30 10) &
	local wpid=$! k1 k2 cd
	"$KDIST" offcpu-dist -p $wpid -o json >"$TMP/off.json" 2>"$TMP/off.err" &
	k1=$!
	"$KDIST" oncpu -p $wpid -o json >"$TMP/on.json" 2>"$TMP/on.err" &
	k2=$!
	# line-buffered: its "Tracing" line says it is attached
	stdbuf -oL "$cpudist" -O -p $wpid >"$TMP/cd.txt" 2>&1 &
	cd=$!
	local ok=1
	wait_tracing "$TMP/off.err" && wait_tracing "$TMP/on.err" || ok=0
	for _ in $(seq 200); do grep -q '^Tracing' "$TMP/cd.txt" && break; sleep 0.1; done
	grep -q '^Tracing' "$TMP/cd.txt" || ok=0
	echo go >"$TMP/go"
	wait $wpid
	sleep 0.3
	kill -INT $k1 $k2 $cd
	wait $k1 $k2 $cd
	[ $ok = 1 ] || { fail "not attached: $(cat "$TMP/off.err" "$TMP/on.err" "$TMP/cd.txt")"; return; }
	local off on peer long
	off=$(json "$TMP/off.json" 'd["groups"][0]["count"]')
	on=$(json "$TMP/on.json" 'd["groups"][0]["count"]')
	# buckets whose upper end reaches 10 ms: every sleep is in one of them
	long=$(json "$TMP/off.json" 'sum(b[2] for b in d["groups"][0]["buckets"] if b[1] >= 10000000)')
	peer=$(awk -F'[:|]' '/->/ {n += $2} END {print n + 0}' "$TMP/cd.txt")
	[ "$off" = "$peer" ] || { fail "offcpu-dist counted $off periods, cpudist -O $peer: $(cat "$TMP/cd.txt")"; return; }
	[ "$on" = $((off + 1)) ] || { fail "oncpu counted $on periods, offcpu-dist $off (expected one more)"; return; }
	# a sleep is one period at most: none when the host held the vCPU for
	# the whole 10 ms between arming the timer and switching out (the sleep
	# then ends without blocking), and one may be a little shorter than the
	# sleep (the timer is armed before the switch-out); a busy machine adds
	# periods of preemption: the two tools' counts above are the exact check
	[ "$long" -ge 1 ] || { fail "$off off-CPU periods, none near 10 ms, for 30 sleeps of 10 ms"; return; }
	pass "off-CPU periods: kdist $off = cpudist -O $peer ($long in the 10 ms buckets); on-CPU periods $on"
}

# --stack on a recipe whose START is about another task (runq: the woken
# one): the stacks are the waker's, taken in the waker's process, and its
# user frames are named from the waker's program.  waker 10 2 cat: cat, a
# process of its own, woken 10 times by pipe writes from waker_loop().
# Both on one CPU: a wakeup of a task on another CPU may be queued to that
# CPU and done there in an interrupt (sched_ttwu_pending), whose stacks are
# not the waker's; the kernel does one on the waker's own CPU at once,
# inside pipe_write.
test_slower_than_stack_of_another_task() {
	"$KDIST" runq --slower-than 1ns --stack -o json -c "taskset -c 0 $WL/waker 10 2 cat" \
		>"$TMP/xw.json" 2>"$TMP/xw.err" || { fail "exit $?: $(tail -1 "$TMP/xw.err")"; return; }
	local msg
	msg=$(python3 - "$TMP/xw.json" <<-'PY'
	import json, sys
	ev = [json.loads(l) for l in open(sys.argv[1]) if '"event":"slow"' in l]
	pipe = [e for e in ev if e["comm"] == "cat" and
	        any(f in ("pipe_write", "anon_pipe_write") for f in e.get("kstack", []))]
	bad = [e["ustack"] for e in pipe if "waker_loop" not in e.get("ustack", [])]
	if not pipe or bad:
	    print(f"{len(pipe)} wakeups of cat by a pipe write, {len(bad)} without waker_loop: {bad[:1]}")
	    sys.exit(1)
	print(f"{len(pipe)} wakeups of cat by a pipe write, each under waker_loop in the waker's user stack")
	PY
	) || { fail "$msg"; return; }
	pass "$msg"
}

# --every 100ms --fields jiffies for 1.05 s: a line per timer expiry (2 to
# 11: a loaded machine may run a late timer once for several periods), and
# jiffies, read there, follows the lines' clock at one rate, the kernel's
# HZ (100, 250, 300 or 1000), each step within a tick of it.
test_trace_every_jiffies() {
	"$KDIST" trace --every 100ms --fields jiffies -d 1.05 -o json >"$TMP/every.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(json "$TMP/every.json" "
(lambda ev: (lambda t, j: (lambda hz: 'ok %d lines, HZ %d' % (len(ev), hz)
 if 2 <= len(ev) <= 11 and all(abs((j[i+1] - j[i]) - (t[i+1] - t[i]) * hz) <= 1.5 for i in range(len(ev) - 1))
 and all(e['event'] == 'every 100ms' for e in ev)
 else '%d lines, HZ %s: %s' % (len(ev), hz, list(zip(t, j))))(
 min((100, 250, 300, 1000), key=lambda h: abs((j[-1] - j[0]) / max(t[-1] - t[0], 1e-9) - h)) if len(ev) > 1 else 0))(
 [e['time'] for e in ev], [e['jiffies'] for e in ev]))(
 [x for x in docs if isinstance(x, dict) and 'event' in x])")
	[ "${msg%% *}" = ok ] || { fail "$msg"; return; }
	pass "--every 100ms --fields jiffies: ${msg#ok }, each step within a tick"
}

# --fields ret,jiffies on an event: each line's jiffies, read at the event,
# never goes back, and advances with the events' clock at the same HZ.
test_trace_event_with_jiffies() {
	"$KDIST" trace syscalls:sys_exit_nanosleep --fields ret,jiffies -o json -- "$WL/sleeper" 5 50 \
		>"$TMP/ej.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(json "$TMP/ej.json" "
(lambda ev: 'ok' if len(ev) == 5 and all(e['ret'] == 0 for e in ev)
 and all(0 < ev[i+1]['jiffies'] - ev[i]['jiffies'] for i in range(4))
 else str([(e['time'], e['ret'], e['jiffies']) for e in ev]))(
 [x for x in docs if isinstance(x, dict) and x.get('event') == 'syscalls:sys_exit_nanosleep'])")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "5 nanosleeps of 50 ms: 5 lines, jiffies rising at each"
}

# Lines do not wake kdist one by one (events.h): a wake-up of the reader
# may preempt the traced thread on its CPU.  40 lines of nanosleep exits,
# 10 ms apart; bpftrace counts, while the workload runs (from its exec to
# its exit), how often kdist (a copy under a name of its own, so that no
# other kdist counts) went to sleep interruptibly (switched out in state
# S: each such sleep ends in a wake-up): about once per EVENTS_PERIOD_MS
# (200 ms) of the workload's run, against once per line (40) when every
# line woke it.
test_trace_lines_batched() {
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	local name=kdlb$$ ms lines wakes bound
	name=${name:0:15}
	cp "$KDIST" "$TMP/$name"
	cat >"$TMP/lb.sh" <<-EOF
	"$TMP/$name" trace syscalls:sys_exit_nanosleep -- "$WL/sleeper" 40 10 >"$TMP/lb.out" 2>"$TMP/lb.err"
	EOF
	bpftrace -e "
	tracepoint:sched:sched_process_exec /comm == \"sleeper\"/ { @t0 = nsecs; @on = 1; }
	tracepoint:sched:sched_process_exit /comm == \"sleeper\" && @on/ { @ms = (nsecs - @t0) / 1000000; @on = 0; }
	tracepoint:sched:sched_switch /@on && args->prev_comm == \"$name\" && args->prev_state == 1/ { @w = count(); }" \
		-c "/bin/sh $TMP/lb.sh" >"$TMP/lb.bt" 2>&1 ||
		{ fail "bpftrace: $(tail -2 "$TMP/lb.bt")"; return; }
	ms=$(bt_val "$TMP/lb.bt" ms)
	lines=$(grep -c " sleeper .* ret=0 " "$TMP/lb.out")
	wakes=$(bt_val "$TMP/lb.bt" w)
	bound=$(((ms + 199) / 200 + 3))
	[ "$lines" = 40 ] || { fail "$lines lines of 40 nanosleep exits: $(tail -2 "$TMP/lb.err")"; return; }
	[ "$ms" -ge 400 ] && [ "$wakes" -le "$bound" ] ||
		{ fail "kdist slept and woke $wakes times while the workload ran $ms ms for 40 lines (at most $bound: once per 200 ms and 3)"; return; }
	pass "40 lines while the workload ran $ms ms: kdist slept and woke $wakes times (at most $bound)"
}
