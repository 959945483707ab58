# kdist pair on the host kernel, against workloads with known truth.
# shellcheck shell=bash

NS_ENTER=syscalls:sys_enter_nanosleep
NS_EXIT=syscalls:sys_exit_nanosleep

# check_sleeps JSON TIMES NAME N NS: the one group of JSON holds N durations
# of sleeps of NS that the workload timed itself as NAME in TIMES: none
# shorter than NS (a sleep never ends early), none longer than the longest
# the workload saw, and the p50 between the bucket of NS and the bucket of
# the workload's own median (each traced sleep lies inside its timed one).
check_sleeps() {
	local json=$1 times=$2 name=$3 n=$4 ns=$5 count min p50 max wl_max wl_med lo hi
	read -r count min p50 max <<<"$(json "$json" '" ".join(str(d["groups"][0][k]) for k in ("count", "min", "p50", "max"))')"
	read -r wl_max wl_med <<<"$(wl_times "$times" "$name" 'f"{v[-1]} {v[(len(v) + 1) // 2 - 1]}"')"
	[ "$count" = "$n" ] || { echo "count $count, expected $n"; return 1; }
	[ "$min" -ge "$ns" ] || { echo "min ${min}ns: a sleep of ${ns}ns ended early"; return 1; }
	[ "$max" -le "$wl_max" ] || { echo "max ${max}ns > ${wl_max}ns, the longest the workload timed"; return 1; }
	lo=$(hist_bucket "$ns" | cut -d' ' -f1)
	hi=$(hist_bucket "$wl_med" | cut -d' ' -f2)
	python3 -c "import sys; sys.exit(not $lo <= $p50 <= $hi)" ||
		{ echo "p50 ${p50}ns outside ${lo}..${hi}ns (workload's median ${wl_med}ns)"; return 1; }
	echo "count $n, min ${min}ns, p50 ${p50}ns (workload's median ${wl_med}ns)"
}

test_pair_nanosleep_count_and_p50() {
	KDIST_WL_TIMES=$TMP/ns.times "$KDIST" pair $NS_ENTER $NS_EXIT -o json -- "$WL/sleeper" 40 10 \
		>"$TMP/ns.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(check_sleeps "$TMP/ns.json" "$TMP/ns.times" nanosleep 40 10000000) || { fail "$msg"; return; }
	pass "$msg"
}

test_pair_raw_tracepoint_by_thread() {
	# no record field read: attached as raw tracepoints, matched in task storage
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit -o json -- "$WL/sleeper" 30 5 \
		>"$TMP/raw.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	# the same workload without sleeps: its other syscalls, exactly
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit -o json -- "$WL/sleeper" 0 5 \
		>"$TMP/raw0.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local attach n5 all base lo
	attach=$(json "$TMP/raw.json" 'd["events"][0]["attach"]')
	[ "$attach" = raw_tracepoint ] || { fail "attached as $attach"; return; }
	lo=$(hist_bucket 5000000 | cut -d' ' -f1)
	n5=$(json "$TMP/raw.json" "sum(b[2] for b in d['groups'][0]['buckets'] if b[0] >= $lo)")
	all=$(json "$TMP/raw.json" 'd["groups"][0]["count"]')
	base=$(json "$TMP/raw0.json" 'd["groups"][0]["count"]')
	# 30 sleeps of 5 ms never end early; a busy machine may stretch one of
	# the others too, so those are counted, not bounded
	# (exact, or off by no more than what either run reports lost)
	exact "$all" $((base + 30)) "$TMP/raw.json" || exact $((base + 30)) "$all" "$TMP/raw0.json" ||
		{ fail "$all syscalls, expected $base + 30 sleeps ($(lost "$TMP/raw.json") and $(lost "$TMP/raw0.json") lost)"; return; }
	[ "$n5" -ge 30 ] || { fail "$n5 syscalls of 5 ms or more, expected 30 sleeps"; return; }
	pass "$base + 30 syscalls, $n5 of them of 5 ms or more"
}

# kdist's own cost: every run of its programs is counted (BPF run-time
# statistics), and only the measurement's: uprobes on a binary only the
# workload runs fire exactly once per call and side.
# (-v: the statistics on the whole run, exact counts; JSON alone samples them)
test_pair_cost_counts_every_run() {
	local bin=$WL/calltree
	"$KDIST" pair "u:$bin:leaf" "ur:$bin:leaf" -v -o json -- "$bin" 5 >"$TMP/cu.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local unknown runs progs ns
	unknown=$(json "$TMP/cu.json" 'd["cost"].get("unknown", "")')
	[ -z "$unknown" ] || { skip "the kernel refused BPF run-time statistics: $unknown"; return; }
	runs=$(json "$TMP/cu.json" 'd["cost"]["runs"]')
	progs=$(json "$TMP/cu.json" 'd["cost"]["programs"]')
	ns=$(json "$TMP/cu.json" 'd["cost"]["ns_per_run"]')
	[ "$runs" = 60 ] && [ "$progs" = 2 ] ||
		{ fail "$runs runs of $progs programs, expected 60 of 2 (30 leaf calls, entry and return)"; return; }
	# 2000 getppid: a tracepoint program runs for every syscall of the
	# system (the workload filter is inside it), at least twice per call
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit -v -o json \
		-- "$WL/getppid_loop" 2000 >"$TMP/cg.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local graw
	graw=$(json "$TMP/cg.json" 'd["cost"]["runs"]')
	[ "$graw" -ge 4000 ] || { fail "$graw runs for 2000 getppid, expected >= 4000"; return; }
	"$KDIST" pair "u:$bin:leaf" "ur:$bin:leaf" -v -- "$bin" 1 >"$TMP/cu.txt" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	grep -qE '^cost: 12 program runs, [0-9]+ ns each, [0-9.e+-]+% of one CPU over [0-9.e+-]+ s; maps [0-9.]+ MB$' "$TMP/cu.txt" ||
		{ fail "no cost line with -v: $(grep cost "$TMP/cu.txt")"; return; }
	pass "60 runs for 30 uprobe pairs (${ns} ns each), $graw for 2000 getppid, cost line with -v"
}

test_pair_field_key_across_threads() {
	command -v bpftrace >/dev/null || { skip "bpftrace not installed for the exact count"; return; }
	# the wakee's pid at sched_wakeup, matched to next_pid at sched_switch;
	# --by comm is sched_wakeup's own comm field: the wakee's name.  How
	# many of pingpong's wakeups of its own threads are followed by a
	# switch-in is up to the scheduler (a write may find the reader not yet
	# asleep: no wakeup, or not yet switched out: no switch-in), so the
	# truth is bpftrace pairing the same stream the same way.
	local comm=kdxpp$$ count peer
	cp "$WL/pingpong" "$TMP/$comm"
	peer_trace "$TMP/wk.json" "$TMP/wk.bt" "
tracepoint:sched:sched_wakeup /comm == \"$comm\" && args->comm == \"$comm\"/ { @s[args->pid] = 1; }
tracepoint:sched:sched_switch /@s[args->next_pid]/ { @n = count(); delete(@s[args->next_pid]); }" \
		"$TMP/$comm 500 200" pair sched:sched_wakeup sched:sched_switch --key pid=next_pid \
		--by comm --comm $comm || { fail "kdist: $(cat "$TMP/wk.json.err")"; return; }
	count=$(json "$TMP/wk.json" "sum(g['count'] for g in d['groups'] if g['by']['comm'] == '$comm')")
	peer=$(bt_val "$TMP/wk.bt" n)
	[ "$peer" -gt 0 ] || { fail "bpftrace paired nothing: $(head -c 300 "$TMP/wk.bt")"; return; }
	peer_agrees "$count" "$peer" "$TMP/wk.bt" ||
		{ fail "$count wakeup->switch pairs for pingpong, bpftrace $peer with $(cat "$TMP/wk.bt.misses") of its runs skipped"; return; }
	[ "$(json "$TMP/wk.json" 'd["key"]')" = pid=next_pid ] || { fail "key not recorded"; return; }
	pass "$count pairs matched by pid=next_pid, bpftrace $peer and $(cat "$TMP/wk.bt.misses") of its runs skipped"
}

test_pair_uprobe_uretprobe() {
	local bin=$WL/calltree msg
	KDIST_WL_TIMES=$TMP/u.times "$KDIST" pair "u:$bin:leaf" "ur:$bin:leaf" -o json -- "$bin" 5 \
		>"$TMP/u.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	[ "$(json "$TMP/u.json" 'd["events"][1]["attach"]')" = uretprobe ] ||
		{ fail "END attached as $(json "$TMP/u.json" 'd["events"][1]["attach"]')"; return; }
	# 5 x 6 calls of leaf, each a nanosleep of 1 ms
	msg=$(check_sleeps "$TMP/u.json" "$TMP/u.times" leaf 30 1000000) || { fail "$msg"; return; }
	pass "leaf: $msg"
}

test_pair_workload_traced_alone() {
	# a noisy neighbour doing the same syscalls must not be counted
	"$WL/sleeper" 400 1 & local noise=$!
	"$KDIST" pair $NS_ENTER $NS_EXIT -o json -c "$WL/sleeper 20 5" >"$TMP/alone.json" 2>"$TMP/err"
	local rc=$?
	kill $noise 2>/dev/null; wait $noise 2>/dev/null
	[ $rc = 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	local count
	count=$(json "$TMP/alone.json" 'd["groups"][0]["count"]')
	exact "$count" 20 "$TMP/alone.json" || { fail "count $count, expected exactly the workload's 20 ($(lost "$TMP/alone.json") lost)"; return; }
	pass "20 of the workload, none of the neighbour's"
}

test_pair_children_traced() {
	# -c runs a shell; the sleepers are its children
	"$KDIST" pair $NS_ENTER $NS_EXIT -o json -c "$WL/sleeper 5 2; $WL/sleeper 7 2" \
		>"$TMP/kids.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local count
	count=$(json "$TMP/kids.json" 'd["groups"][0]["count"]')
	exact "$count" 12 "$TMP/kids.json" || { fail "count $count, expected 12 ($(lost "$TMP/kids.json") lost)"; return; }
	pass "12 nanosleeps from two children"
}

test_pair_intervals_add_up() {
	"$KDIST" pair $NS_ENTER $NS_EXIT -i 0.25 -o json -- "$WL/sleeper" 40 20 \
		>"$TMP/iv.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local n total
	n=$(json "$TMP/iv.json" 'len(docs)')
	total=$(json "$TMP/iv.json" 'sum(g["count"] for x in docs for g in x["groups"])')
	[ "$n" -ge 3 ] || { fail "only $n intervals"; return; }
	exact "$total" 40 "$TMP/iv.json" || { fail "intervals sum to $total, expected 40 ($(lost "$TMP/iv.json") lost)"; return; }
	[ "$(json "$TMP/iv.json" '[x["interval"] for x in docs] == list(range(1, len(docs) + 1))')" = True ] ||
		{ fail "intervals not numbered 1..$n"; return; }
	pass "$n intervals summing to 40"
}

test_pair_interval_count_stops() {
	local t0 t1 rc
	t0=$(date +%s%N)
	# exits by itself: killed after a minute (a busy machine may slow the
	# start, never by that much), that is a failure
	timeout 60 "$KDIST" pair $NS_ENTER $NS_EXIT -i 0.2 -n 3 -o json >"$TMP/n.json" 2>"$TMP/err"
	rc=$?
	t1=$(date +%s%N)
	[ $rc = 124 ] && { fail "still running after 60 s"; return; }
	[ $rc = 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	[ "$(json "$TMP/n.json" 'len(docs)')" = 3 ] || { fail "not 3 intervals"; return; }
	# three intervals of 0.2 s never take less than 0.6 s
	[ $(((t1 - t0) / 1000000)) -ge 600 ] || { fail "3 intervals in $(((t1 - t0) / 1000000)) ms"; return; }
	pass "3 intervals then exit after $(((t1 - t0) / 1000000)) ms"
}

test_pair_by_field_ksym() {
	# timer expiry grouped by the callback's symbol: tracepoint field + ksym;
	# a sleeper beside it makes sure hrtimer_wakeup runs in that second
	"$WL/sleeper" 2000 5 & local wl=$!
	"$KDIST" pair timer:hrtimer_expire_entry timer:hrtimer_expire_exit --key hrtimer \
		--by function:ksym -d 1 -o json >"$TMP/ks.json" 2>"$TMP/err"
	local rc=$?
	kill $wl 2>/dev/null; wait $wl 2>/dev/null
	[ $rc = 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	local names
	names=$(json "$TMP/ks.json" '",".join(sorted(g["by"]["function:ksym"] for g in d["groups"]))')
	[[ ,$names, == *,hrtimer_wakeup,* ]] || { fail "no hrtimer_wakeup among: $names"; return; }
	pass "callbacks: ${names:0:80}"
}

test_pair_csv_and_text() {
	"$KDIST" pair $NS_ENTER $NS_EXIT -o csv -- "$WL/sleeper" 10 2 >"$TMP/p.csv" 2>"$TMP/err" ||
		{ fail "csv exit $?"; return; }
	python3 - "$TMP/p.csv" <<'PY' || { fail "csv: $(cat "$TMP/p.csv")"; return; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["count"] == "10" and rows[0]["unit"] == "ns", rows
PY
	"$KDIST" pair $NS_ENTER $NS_EXIT -- "$WL/sleeper" 10 2 >"$TMP/p.txt" 2>"$TMP/err" ||
		{ fail "text exit $?"; return; }
	grep -q 'count 10 ' "$TMP/p.txt" && grep -q 'msecs' "$TMP/p.txt" && grep -q '^lost: 0' "$TMP/p.txt" ||
		{ fail "text: $(cat "$TMP/p.txt")"; return; }
	# --by unit: its column is by_unit beside the value's unit, and the
	# label of a task in no unit, "-", stays "-"
	"$KDIST" pair $NS_ENTER $NS_EXIT --by unit -o csv -- "$WL/sleeper" 10 2 >"$TMP/u.csv" 2>"$TMP/err" ||
		{ fail "csv --by unit exit $?"; return; }
	python3 - "$TMP/u.csv" <<'PY' || { fail "csv --by unit: $(cat "$TMP/u.csv")"; return; }
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
assert head.count("unit") == 1 and "by_unit" in head, head
assert all(r[head.index("by_unit")] != "'-" for r in rows[1:]), rows
assert sum(int(r[head.index("count")]) for r in rows[1:]) == 10, rows
PY
	pass
}

# Many groups: the text view shows the first ten, and one line says how
# many more there are and what they hold; JSON keeps them all.  syserr's
# 25 close() of fds 100000..100024 are 25 groups of one call each, so ten
# shown leave 15 groups and 60.0% of the events.
test_pair_text_top_of_many_groups() {
	local pair=(pair syscalls:sys_enter_close syscalls:sys_exit_close --by fd --if 'fd >= 100000')
	"$KDIST" "${pair[@]}" -- "$WL/syserr" 0 0 25 >"$TMP/top.txt" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local rows
	rows=$(grep -cE '^1000(0[0-9]|1[0-9]|2[0-4]) +1 ' "$TMP/top.txt")
	[ "$rows" = 10 ] && grep -q '^FD  *COUNT  *TOTAL' "$TMP/top.txt" &&
		grep -q '^(15 more groups, 60.0% of the events and [0-9.]*% of the time: --top N shows N, --all every group' "$TMP/top.txt" ||
		{ fail "default: $(cat "$TMP/top.txt")"; return; }
	"$KDIST" "${pair[@]}" --sort key -- "$WL/syserr" 0 0 25 >"$TMP/top.txt" 2>"$TMP/err" ||
		{ fail "--sort key exit $?: $(cat "$TMP/err")"; return; }
	[ "$(grep -oE '^1000[0-9]{2}' "$TMP/top.txt" | tr '\n' ' ')" = "$(seq -s ' ' 100000 100009) " ] ||
		{ fail "--sort key: $(cat "$TMP/top.txt")"; return; }
	"$KDIST" "${pair[@]}" --all -- "$WL/syserr" 0 0 25 >"$TMP/top.txt" 2>"$TMP/err" ||
		{ fail "--all exit $?: $(cat "$TMP/err")"; return; }
	[ "$(grep -c '^fd = 1000' "$TMP/top.txt")" = 25 ] && ! grep -q 'more group' "$TMP/top.txt" ||
		{ fail "--all: $(cat "$TMP/top.txt")"; return; }
	"$KDIST" "${pair[@]}" -o json -- "$WL/syserr" 0 0 25 >"$TMP/top.json" 2>"$TMP/err" ||
		{ fail "json exit $?: $(cat "$TMP/err")"; return; }
	[ "$(json "$TMP/top.json" 'd["groups_total"], len(d["groups"]), sum(g["count"] for g in d["groups"])')" = "(25, 25, 25)" ] ||
		{ fail "json: $(json "$TMP/top.json" 'd["groups_total"], len(d["groups"])')"; return; }
	pass "10 of 25 groups in text, 15 more said; --all and JSON all 25"
}

# 2000 new groups in a burst: the kernel allocates a group's per-CPU
# histogram on the hot path from memory it keeps ready, and a burst finds
# none (-ENOMEM) long before the table is full; those events come through
# the spill ring (2000 records fit in it), so every close is counted, each
# in its own group, none lost.
test_pair_group_burst_counts_every_event() {
	"$KDIST" pair syscalls:sys_enter_close syscalls:sys_exit_close --by fd -v -o json \
		-- "$WL/syserr" 0 0 2000 >"$TMP/burst.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(tail -3 "$TMP/err")"; return; }
	local got spilled
	got=$(json "$TMP/burst.json" '"%d %d %d %d" % (
		len([g for g in d["groups"] if 100000 <= int(g["by"]["fd"]) < 102000]),
		sum(g["count"] for g in d["groups"] if 100000 <= int(g["by"]["fd"]) < 102000),
		d["drops"]["group_table_full"], d["drops"]["group_memory_failed"])')
	spilled=$(grep -o '^kdist: [0-9]* events came through the spill ring' "$TMP/err" | cut -d' ' -f2)
	[ "$got" = "2000 2000 0 0" ] ||
		{ fail "groups, closes, group_table_full, group_memory_failed: $got (2000 2000 0 0)"; return; }
	pass "2000 closes in 2000 groups, none lost (${spilled:-0} came through the spill ring)"
}

# The same at scale, again and again: 50,000 new groups per run of the
# workload, four runs, in intervals of 0.5 s.  Each interval takes its
# groups out of the kernel's table, so each run creates them anew, and
# thousands at a time find no memory, more than a ring of the default size
# holds: the spill ring grows with the table (--max-groups).
test_pair_group_bursts_at_scale() {
	"$KDIST" pair syscalls:sys_enter_close syscalls:sys_exit_close --by fd --max-groups 65536 -v \
		-i 0.5 -o json -c "for i in 1 2 3 4; do $WL/syserr 0 0 50000; done" \
		>"$TMP/bursts.json" 2>"$TMP/err" || { fail "exit $?: $(tail -3 "$TMP/err")"; return; }
	local got spilled
	got=$(json "$TMP/bursts.json" '"%d %d" % (
		sum(g["count"] for x in docs for g in x["groups"] if 100000 <= int(g["by"]["fd"]) < 150000),
		sum(x["lost"] for x in docs))')
	spilled=$(grep -o '^kdist: [0-9]* events came through the spill ring' "$TMP/err" | cut -d' ' -f2)
	[ "$got" = "200000 0" ] ||
		{ fail "closes, lost: $got (200000 0): $(json "$TMP/bursts.json" '[x["drops"] for x in docs if x["lost"]]')"; return; }
	pass "4 x 50000 closes in 50000 groups, none lost (${spilled:-0} came through the spill ring)"
}

test_pair_bpftrace_cross_check() {
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	local comm=kdxsleep$$
	cp "$WL/sleeper" "$TMP/$comm"
	"$KDIST" pair $NS_ENTER $NS_EXIT --comm $comm -d 60 -o json >"$TMP/cc.json" 2>"$TMP/err" &
	local kd=$!
	wait_tracing "$TMP/err"
	# bpftrace runs the workload once it is attached itself, and the
	# workload starts once kdist is attached too: both see the same stream
	bpftrace -e "tracepoint:syscalls:sys_exit_nanosleep /comm == \"$comm\"/ { @n = count(); }" \
		-c "$TMP/$comm 77 3" >"$TMP/bt.out" 2>&1
	kill -INT $kd; wait $kd
	local bc kc
	bc=$(grep -oE '@n: [0-9]+' "$TMP/bt.out" | awk '{print $2}')
	kc=$(json "$TMP/cc.json" 'd["groups"][0]["count"]')
	[ "$bc" = 77 ] && [ "$kc" = 77 ] || { fail "bpftrace $bc, kdist $kc, expected 77"; return; }
	pass "bpftrace 77 = kdist 77"
}

# --- bad input: one line on stderr, non-zero exit, nothing left behind ---

expect_error() {
	local what=$1 pattern=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	local rc=$?
	if [ $rc = 0 ]; then fail "$what: exit 0"; return 1; fi
	if [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -qE "^kdist: .*$pattern" "$TMP/err"; then
		fail "$what: stderr: $(cat "$TMP/err")"; return 1
	fi
	return 0
}

test_bad_input() {
	local ok=1
	expect_error "unknown event" "unknown event 'sched:no_such'" \
		"$KDIST" pair sched:no_such sched:sched_switch -d 1 || ok=0
	expect_error "unknown field" "unknown field 'nope'" \
		"$KDIST" pair sched:sched_wakeup sched:sched_switch --key nope -d 1 || ok=0
	expect_error "field on one side only" "unknown field 'prev_pid' of START" \
		"$KDIST" pair sched:sched_wakeup sched:sched_switch --key prev_pid -d 1 || ok=0
	expect_error "bad syntax" "bad event" "$KDIST" pair nosuchthing sched:sched_switch || ok=0
	expect_error "bad key syntax" "bad --key" \
		"$KDIST" pair sched:sched_wakeup sched:sched_switch --key 'pid=' || ok=0
	expect_error "missing END" "expected START END" "$KDIST" pair sched:sched_wakeup || ok=0
	expect_error "unknown command" "unknown command" "$KDIST" frobnicate || ok=0
	expect_error "unknown option" "unknown option" "$KDIST" pair a:b c:d --frob || ok=0
	expect_error "no kprobes or bad symbol" "failed to attach|no kprobes" \
		"$KDIST" pair k:vfs_read kr:vfs_read -d 1 || ok=0
	expect_error "missing uprobe symbol" "no function 'no_such_fn'" \
		"$KDIST" pair "u:$WL/calltree:no_such_fn" "ur:$WL/calltree:leaf" -d 1 || ok=0
	expect_error "missing binary" "/no/such/bin: No such file" \
		"$KDIST" pair u:/no/such/bin:f ur:/no/such/bin:f -d 1 || ok=0
	expect_error "retval on entry" "not a return event" \
		"$KDIST" pair "u:$WL/calltree:leaf" "u:$WL/calltree:middle" --by retval -d 1 || ok=0
	expect_error "not root" "needs root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$KDIST" pair $NS_ENTER $NS_EXIT -d 1 || ok=0
	no_leftovers || { fail "probes left after failed runs"; ok=0; }
	[ $ok = 1 ] && pass "13 bad inputs rejected with one line each"
}

test_no_leftovers_after_exit_and_signals() {
	local sig ok=1 rc pid
	"$KDIST" pair $NS_ENTER $NS_EXIT -d 0.3 >/dev/null 2>&1 & pid=$!
	wait $pid || { fail "normal run failed"; return; }
	no_leftovers || { fail "left over after normal exit"; ok=0; }
	for sig in INT TERM; do
		"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit >"$TMP/sig.out" 2>&1 &
		pid=$!
		wait_tracing "$TMP/sig.out"
		[ "$(bpf_leftovers $pid)" -gt 0 ] || { fail "nothing attached while running"; ok=0; }
		kill -$sig $pid; wait $pid; rc=$?
		[ $rc = 0 ] || { fail "SIG$sig: exit $rc"; ok=0; }
		grep -q '^count ' "$TMP/sig.out" || { fail "SIG$sig: no result printed"; ok=0; }
		no_leftovers || { fail "left over after SIG$sig"; ok=0; }
	done
	# SIGKILL: the kernel drops links and programs with their last fd
	"$KDIST" pair "u:$WL/calltree:leaf" "ur:$WL/calltree:leaf" >"$TMP/kill.out" 2>&1 &
	pid=$!; wait_tracing "$TMP/kill.out"; kill -KILL $pid; wait $pid 2>/dev/null; sleep 0.2
	no_leftovers || { fail "left over after SIGKILL"; ok=0; }
	[ $ok = 1 ] && pass "clean after exit, SIGINT, SIGTERM, SIGKILL"
}

# A START that keeps only its time goes to an array slot by tid (task
# storage above the array's size), tagged with the thread's start time.
# tidreuse runs two processes with one tid, 200 ms apart, each making 100
# getppid calls and then exit_group, whose sys_enter never ends: the second
# one's first sys_exit must not pair with the first one's exit_group.  Both
# ways: a tid inside the array, and (pid_max raised above the array's
# 262,144 slots for the run) a tid above it.
test_pair_thread_slot_not_inherited() {
	local pid_max where tid n msg=""
	pid_max=$(cat /proc/sys/kernel/pid_max)
	for where in array storage; do
		if [ $where = storage ] && [ "$pid_max" -le 266240 ]; then
			echo 266240 >/proc/sys/kernel/pid_max || { fail "cannot raise pid_max"; return; }
		fi
		"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --if 'id == 110' -o json -v \
			-- "$WL/tidreuse" 0 100 >"$TMP/slot.json" 2>"$TMP/slot.err"
		"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --if 'id == 231' -o json \
			-- "$WL/tidreuse" 0 100 >"$TMP/slot0.json" 2>>"$TMP/slot.err"
		echo "$pid_max" >/proc/sys/kernel/pid_max
		tid=$(sed -n 's/^tidreuse: tid \([0-9]*\) twice$/\1/p' "$TMP/slot.err" | tail -1)
		[ -n "$tid" ] || { fail "$where: no workload: $(cat "$TMP/slot.err")"; return; }
		grep -q 'kept in an array of 262144 threads\|kept in an array of '"$pid_max"' threads' "$TMP/slot.err" ||
			{ fail "$where: no tid array: $(grep in-flight "$TMP/slot.err")"; return; }
		if [ $where = array ] && [ "$tid" -ge "$pid_max" ]; then fail "tid $tid beyond the array"; return; fi
		if [ $where = storage ] && [ "$tid" -lt 262144 ]; then fail "tid $tid inside the array"; return; fi
		n=$(json "$TMP/slot.json" 'sum(g["count"] for g in d["groups"])')
		exact "$n" 200 "$TMP/slot.json" ||
			{ fail "$where (tid $tid): $n getppid pairs, expected 200 ($(lost "$TMP/slot.json") lost)"; return; }
		n=$(json "$TMP/slot0.json" 'sum(g["count"] for g in d["groups"])')
		[ "$n" = 0 ] || { fail "$where (tid $tid): $n exit_group pairs, expected none"; return; }
		msg+="$where: tid $tid, 200 getppid pairs, no exit_group pair; "
	done
	pass "${msg%; }"
}
