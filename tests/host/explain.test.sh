# kdist --explain: intervals split into on-CPU, irq, runnable and blocked
# time, against the references the workload takes inside each interval
# (tests/workloads/splitwork.c).
# shellcheck shell=bash

# explain_run NAME SPLITWORK_ARGS...: pair --explain on split_step with a
# line per interval (--slower-than 1ns), JSON Lines into $TMP/NAME.json, the
# workload's references into $TMP/NAME.times.
explain_run() {
	local name=$1 sw=$WL/splitwork
	shift
	rm -f "$TMP/$name.times"
	KDIST_WL_TIMES=$TMP/$name.times "$KDIST" pair --explain --slower-than 1ns -o json \
		"u:$sw:split_step" "ur:$sw:split_step" -- "$sw" "$@" >"$TMP/$name.json" 2>"$TMP/err"
}

test_explain_spin_and_sleep_against_references() {
	# 20 calls: 6 ms of CPU time, then a 4 ms sleep.  The sleep's timer is
	# armed a few microseconds before the thread leaves its CPU: blocked
	# at least 4 ms less those (0.1 ms here)
	explain_run spin 20 6000 4000 || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(python3 "$TOP/tests/explain_check.py" "$TMP/spin.json" "$TMP/spin.times" \
		count=20 sum cpu runnable min_blocked_s=3900000) || { fail "$msg"; return; }
	pass "$msg"
}

# --explain full: each slow read of the wakee names its longest block (in
# S, in the pipe's read) and the thread that woke it: the waker thread,
# by the id it reported itself, from the pipe's write
test_explain_full_names_the_waker() {
	local msg
	rm -f "$TMP/wk.times"
	KDIST_WL_TIMES=$TMP/wk.times "$KDIST" pair syscalls:sys_enter_read syscalls:sys_exit_read \
		--explain full --slower-than 2ms -o json -- "$WL/waker" 20 5 >"$TMP/wk.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 - "$TMP/wk.json" "$TMP/wk.times" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if '"event":"slow"' in l.replace(" ", "")]
tid = [int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("waker_tid ")][0]
wakee = [e for e in lines if e["comm"] == "wakee"]
bad = [e for e in wakee if not (
    e["waker_tid"] == tid and e["waker_comm"] == "waker" and e["block_state"] == "S"
    and 0 < e["block_ns"] <= e["latency_ns"]
    and any("pipe_read" in f for f in e["block_kstack"])
    and any("pipe_write" in f for f in e["waker_kstack"]))]
if len(wakee) < 15 or bad:
    print(f"{len(wakee)} slow reads of the wakee (>= 15 of 20), wrong: {bad[:1]}")
    sys.exit(1)
print(f"{len(wakee)} slow reads of the wakee, each blocked in a pipe read and woken by tid {tid} (waker) from a pipe write; longest block {max(e['block_ns'] for e in wakee)} ns")
PY
) || { fail "$msg"; return; }
	"$KDIST" pair syscalls:sys_enter_read syscalls:sys_exit_read --explain full -d 1 >/dev/null 2>"$TMP/err"
	[ $? = 2 ] && grep -q "needs --slower-than" "$TMP/err" || { fail "without --slower-than: $(cat "$TMP/err")"; return; }
	pass "$msg"
}

test_explain_fifo_competitor_is_runnable_time() {
	# pinned beside a SCHED_FIFO thread that spins 20 ms of each call
	explain_run fifo 10 500 0 20 || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(python3 "$TOP/tests/explain_check.py" "$TMP/fifo.json" "$TMP/fifo.times" \
		count=10 sum runnable min_runnable=19000000) || { fail "$msg"; return; }
	pass "$msg"
}

test_explain_irq_bounded_by_proc_stat() {
	# irq time is what the irq tracepoints saw while the thread ran: at
	# most the machine's irq and softirq time over the run (/proc/stat,
	# jiffies: one tick of slack per CPU)
	local before after hz=100 msg
	before=$(awk '/^cpu /{print $7 + $8}' /proc/stat)
	explain_run irq 20 5000 0 || { fail "exit $?: $(cat "$TMP/err")"; return; }
	after=$(awk '/^cpu /{print $7 + $8}' /proc/stat)
	hz=$(getconf CLK_TCK)
	msg=$(json "$TMP/irq.json" "(d['groups'][0]['explain']['all']['parts']['irq'], d['groups'][0]['explain']['irq'])")
	python3 - "$msg" "$before" "$after" "$hz" "$(nproc)" <<'PY' || { fail "irq $msg above /proc/stat's"; return; }
import sys
irq, on = eval(sys.argv[1])
before, after, hz, ncpu = map(int, sys.argv[2:])
bound = (after - before + ncpu) * 1e9 / hz
print(f"irq {irq} ns (attached: {on}), /proc/stat irq+softirq <= {bound:.0f} ns")
sys.exit(not (on and irq is not None and irq <= bound))
PY
	pass "irq $(json "$TMP/irq.json" "d['groups'][0]['explain']['all']['parts']['irq']") ns within /proc/stat's irq and softirq time"
}

test_explain_refused_where_no_thread() {
	local rc sw=$WL/splitwork
	# runq's START is about the woken task, not the thread it runs on
	"$KDIST" runq --explain -d 1 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] && grep -q -- "--explain" "$TMP/err" || { fail "runq: exit $rc: $(cat "$TMP/err")"; return; }
	# the longest block is one interval's only by thread
	"$KDIST" pair --explain full --slower-than 1ms --key arg0 "u:$sw:hand_begin" "u:$sw:hand_end" \
		-d 1 >/dev/null 2>"$TMP/err2"
	rc=$?
	[ $rc = 2 ] && grep -q -- "--explain full" "$TMP/err2" || { fail "full by key: exit $rc: $(cat "$TMP/err2")"; return; }
	pass "$(head -1 "$TMP/err"); $(head -1 "$TMP/err2")"
}

# --key: each interval starts on the main thread (hand_begin) and ends on
# the finisher thread (hand_end); the split is the main thread's, against
# its own references from before hand_begin to the finisher's answer
test_explain_key_ends_on_another_thread() {
	local sw=$WL/splitwork msg
	rm -f "$TMP/hand.times"
	KDIST_WL_TIMES=$TMP/hand.times "$KDIST" pair --explain --key arg0 --slower-than 1ns -o json \
		"u:$sw:hand_begin" "u:$sw:hand_end" -- "$sw" 20 6000 4000 handoff >"$TMP/hand.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 "$TOP/tests/explain_check.py" "$TMP/hand.json" "$TMP/hand.times" \
		count=20 sum cpu min_blocked_s=3900000) || { fail "$msg"; return; }
	pass "$msg"
}

# --explain end: the interval followed from the main thread to the thread
# it ends on, through the wakeups that hand it over (the workload hands
# over only to a thread asleep in its read, so each handoff is a wakeup
# by the thread handing over).  Directly (main -> finisher) and through a
# relay (main -> relay -> finisher): on-CPU is the CPU time of every
# thread on the way (main's 3 ms, relay's 1.5 ms, the finisher's 4 ms),
# against their own references; by the START's thread (plain --explain)
# the finisher's spin would be main's blocked time
test_explain_end_follows_the_wakeups() {
	local sw=$WL/splitwork msg msg2 msg3 rc
	rm -f "$TMP/end1.times" "$TMP/end2.times"
	KDIST_WL_TIMES=$TMP/end1.times "$KDIST" pair --explain end --key arg0 --slower-than 1ns -o json \
		"u:$sw:hand_begin" "u:$sw:hand_end" -- "$sw" 20 3000 4000 handoff 4000 >"$TMP/end1.json" 2>"$TMP/err" ||
		{ fail "direct: exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 "$TOP/tests/explain_check.py" "$TMP/end1.json" "$TMP/end1.times" count=20 sum \
		cpu=hand_cpu+fin_cpu followed=main min_blocked_s=3900000) || { fail "direct: $msg"; return; }
	KDIST_WL_TIMES=$TMP/end2.times "$KDIST" pair --explain end --key arg0 --slower-than 1ns -o json \
		"u:$sw:hand_begin" "u:$sw:hand_end" -- "$sw" 20 3000 4000 handoff 4000 1500 >"$TMP/end2.json" 2>"$TMP/err" ||
		{ fail "relay: exit $?: $(cat "$TMP/err")"; return; }
	msg2=$(python3 "$TOP/tests/explain_check.py" "$TMP/end2.json" "$TMP/end2.times" count=20 sum \
		cpu=hand_cpu+relay_cpu+fin_cpu followed=relay min_blocked_s=3900000) || { fail "relay: $msg2"; return; }
	# a pool: the relay, woken for interval A, hands B over too, begun
	# after that wakeup: B is the main thread's (asleep, or waiting for
	# its CPU) up to the finisher's wakeup, then the finisher's spin
	rm -f "$TMP/end3.times"
	KDIST_WL_TIMES=$TMP/end3.times "$KDIST" pair --explain end --key arg0 --slower-than 1ns -o json \
		"u:$sw:hand_begin" "u:$sw:hand_end" -- "$sw" 10 0 4000 pool 4000 1500 >"$TMP/end3.json" 2>"$TMP/err" ||
		{ fail "pool: exit $?: $(cat "$TMP/err")"; return; }
	msg3=$(python3 - "$TMP/end3.json" "$TMP/end3.times" <<'PY'
import json, sys
P = ("oncpu", "irq", "runnable", "blocked_s", "blocked_d", "blocked_other", "unattributed")
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"event"')]
ref = {}
for l in open(sys.argv[2]):
    k, v = l.split()
    ref.setdefault(k, []).append(int(v))
def die(msg):
    print(msg)
    sys.exit(1)
fin, relay = ref["tid_finisher"][0], ref["tid_relay"][0]
ab = {int(e["arg0"], 16): e for e in ev}
if sorted(ab) != list(range(1, 21)):
    die(f"intervals {sorted(ab)}, expected 1..20")
for i in range(1, 11):
    a, b = ab[2 * i - 1], ab[2 * i]
    for e in (a, b):
        if sum(e[p + "_ns"] or 0 for p in P) != e["latency_ns"] or (e.get("end_tid"), e.get("end_waker_tid")) != (fin, relay):
            die(f"round {i}: not followed to the finisher {fin} woken by the relay {relay}, or parts not adding up: {e}")
    ran = lambda e: e["oncpu_ns"] + (e["irq_ns"] or 0) + e["runnable_ns"]
    if i > 1 and ran(a) < ref["relay_wall"][i - 1] - 100000:
        die(f"round {i}: A ran {ran(a)} ns, < the relay's spin {ref['relay_wall'][i - 1]}: {a}")
    if i > 1 and ran(b) < ref["fin_wall"][i - 1] - 100000:
        die(f"round {i}: B ran {ran(b)} ns, < the finisher's spin {ref['fin_wall'][i - 1]}: {b}")
    off = b["blocked_s_ns"] + b["runnable_ns"]
    if i > 1 and off < b["handoff_ns"] - 200000:
        die(f"round {i}: B blocked S and runnable {off} ns: the main thread, asleep or waiting "
            f"for its CPU until the handoff ({b['handoff_ns']} ns), ran: {b}")
print("pool: 10 rounds, A through the relay's spin, B the main thread off its CPU until the finisher's wakeup, then its spin")
PY
) || { fail "$msg3"; return; }
	# by thread, or for a call, an interval ends where it started
	"$KDIST" pair --explain end "u:$sw:hand_begin" "u:$sw:hand_end" -d 1 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "needs --key" "$TMP/err" ||
		{ fail "by thread: exit $rc: $(cat "$TMP/err")"; return; }
	"$KDIST" func --explain end "u:$sw:split_step" -d 1 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "--explain end" "$TMP/err" ||
		{ fail "func: exit $rc: $(cat "$TMP/err")"; return; }
	pass "direct: $msg; relay: $msg2; $msg3"
}

# --match lifo and fifo: overlapping intervals of one thread, each split
# from its own START (tests/workloads/inflight.c): a recursion level d
# lasts d sleeps of 300 us, the i-th pair of a FIFO round 4 + i sleeps of
# 400 us; the thread sleeps nearly all of it, each sleep's blocked part
# at least 90% of the sleep (its timer is armed before it leaves its CPU)
test_explain_overlapping_intervals() {
	local wl=$WL/inflight msg
	"$KDIST" pair --explain --match lifo --slower-than 1ns -o json \
		"u:$wl:recurse" "ur:$wl:recurse" -- "$wl" recurse 10 6 300 >"$TMP/exl.json" 2>"$TMP/err" ||
		{ fail "lifo: exit $?: $(cat "$TMP/err")"; return; }
	"$KDIST" pair --explain --match fifo --key arg0 --slower-than 1ns -o json \
		"u:$wl:fifo_begin" "u:$wl:fifo_end" -- "$wl" fifo 5 4 400 >"$TMP/exf.json" 2>"$TMP/err" ||
		{ fail "fifo: exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 - "$TMP/exl.json" "$TMP/exf.json" <<'PY'
import json, sys
P = ("oncpu", "irq", "runnable", "blocked_s", "blocked_d", "blocked_other", "unattributed")
out = []
for path, n, bound in ((sys.argv[1], 60, lambda i: (i % 6 + 1) * 300000),
                       (sys.argv[2], 20, lambda i: (4 + i % 4) * 400000)):
    ev = [json.loads(l) for l in open(path) if l.startswith('{"event"')]
    if len(ev) != n:
        sys.exit(f"{path}: {len(ev)} intervals, expected {n}")
    for i, e in enumerate(ev):
        if sum(e[p + "_ns"] or 0 for p in P) != e["latency_ns"]:
            sys.exit(f"{path}: interval {i}: parts do not add up: {e}")
        if e["blocked_s_ns"] < 0.9 * bound(i) or e["blocked_s_ns"] > e["latency_ns"]:
            sys.exit(f"{path}: interval {i}: blocked_s {e['blocked_s_ns']} ns for {bound(i)} ns of sleeps: {e}")
    out.append(f"{n} intervals, each blocked_s >= 90% of its sleeps and its parts adding up")
print("lifo: %s; fifo: %s" % tuple(out))
PY
) || { fail "$msg"; return; }
	pass "$msg"
}

# func --explain: each call of split_step against the references it took
# inside itself, as for pair; and a recursion 6 levels deep (10 calls,
# each level sleeping 300 us), every level an interval of its own: the
# group's 60 calls hold 10 x (1 + ... + 6) sleeps of 300 us, blocked at
# least 90% of that, and its parts add up to its sum
test_explain_func_calls() {
	local sw=$WL/splitwork wl=$WL/inflight msg
	rm -f "$TMP/fx.times"
	KDIST_WL_TIMES=$TMP/fx.times "$KDIST" func --explain --slower-than 1ns -o json "u:$sw:split_step" \
		-- "$sw" 20 6000 4000 >"$TMP/fx.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	msg=$(python3 "$TOP/tests/explain_check.py" "$TMP/fx.json" "$TMP/fx.times" \
		count=20 sum cpu runnable min_blocked_s=3900000) || { fail "split_step: $msg"; return; }
	"$KDIST" func --explain -o json "u:$wl:recurse" -- "$wl" recurse 10 6 300 >"$TMP/fr.json" 2>"$TMP/err" ||
		{ fail "recurse: exit $?: $(cat "$TMP/err")"; return; }
	local rec
	rec=$(json "$TMP/fr.json" "(lambda g, a: 'ok' if g['count'] == 60 and a['count'] == 60
		and a['sum'] == g['sum'] == sum(a['parts'].values()) and a['parts']['blocked_s'] >= 0.9 * 63000000
		else str((g['count'], g['sum'], a)))(d['groups'][0], d['groups'][0]['explain']['all'])")
	[ "$rec" = ok ] || { fail "recurse: $rec"; return; }
	"$KDIST" func --explain full --slower-than 1ms "u:$sw:split_step" -d 1 >/dev/null 2>"$TMP/err"
	[ $? = 2 ] && grep -q -- "--explain full" "$TMP/err" || { fail "full: $(cat "$TMP/err")"; return; }
	pass "split_step: $msg; recurse: 60 calls, each level its own interval, parts adding up"
}

test_explain_syscalls_recipe_splits_sleeps() {
	# the syscalls recipe with --explain: 20 nanosleeps of 5 ms are blocked S
	"$KDIST" syscalls --explain -o json -- "$WL/sleeper" 20 5 >"$TMP/sys.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local msg
	msg=$(json "$TMP/sys.json" "[(g['count'], g['explain']['all']['parts']['blocked_s'], g['sum'], sum(v or 0 for v in g['explain']['all']['parts'].values())) for g in d['groups'] if g['by'].get('syscall') == 'nanosleep'][0]") ||
		{ fail "no nanosleep group: $(head -c 300 "$TMP/sys.json")"; return; }
	python3 -c "
import sys
n, s, total, parts = $msg
sys.exit(not (n == 20 and s >= 20 * 5000000 and parts == total))" ||
		{ fail "nanosleep (count, blocked S, sum, parts) = $msg"; return; }
	pass "nanosleep (count, blocked S, sum, parts) = $msg"
}

test_explain_fsync_shows_d_time() {
	# fsync of written data waits for its writeback: uninterruptible (D)
	local f=$TMP/exfsync msg
	"$KDIST" pair --explain --slower-than 1ns -o json syscalls:sys_enter_fsync syscalls:sys_exit_fsync \
		-- sh -c "for i in 1 2 3 4 5; do dd if=/dev/zero of=$f bs=64k count=8 conv=fsync status=none; done" \
		>"$TMP/fs.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	rm -f "$f"
	msg=$(json "$TMP/fs.json" "(len([e for e in docs if e.get('event') == 'slow']), sum(e['blocked_d_ns'] for e in docs if e.get('event') == 'slow'))")
	python3 -c "import sys; n, d = $msg; sys.exit(not (n == 5 and d > 0))" ||
		{ fail "(fsyncs, blocked D ns) = $msg"; return; }
	pass "(fsyncs, blocked D ns) = $msg"
}

# serve with --explain: counters of each group's time by part, which add
# up to the histogram's sum exactly, and of switches; 20 nanosleeps of
# 5 ms of a process of our own name are blocked S for at least 100 ms
test_explain_served_counters() {
	local comm=kdex$$ m
	source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"
	cp "$WL/sleeper" "$TMP/$comm"
	serve_start --measure "name=ex: syscalls --explain --comm $comm" || { fail "start"; return; }
	"$TMP/$comm" 20 5
	# the read of a served measurement is at most a second old
	sleep 1.5
	curl -s --max-time 5 "$SERVE_URL/metrics" >"$TMP/ex.prom"
	serve_stop || { fail "stop"; return; }
	m=$(python3 - "$TMP/ex.prom" <<'PY'
import re, sys
v = {}
for l in open(sys.argv[1]):
    m = re.match(r'(kdist_ex_\w+)\{syscall="nanosleep",error="ok"(?:,part="(\w+)")?\} (\S+)$', l)
    if m:
        v[(m.group(1), m.group(2))] = float(m.group(3))
parts = {p: x for (n, p), x in v.items() if n == "kdist_ex_explain_seconds_total"}
total, count = v[("kdist_ex_seconds_sum", None)], v[("kdist_ex_seconds_count", None)]
sw = v[("kdist_ex_explain_switches_total", None)]
print(f"count {count:.0f}, sum {total} s = parts {sum(parts.values()):.9f} s, "
      f"blocked_s {parts['blocked_s']} s, switches {sw:.0f}")
sys.exit(not (count == 20 and abs(sum(parts.values()) - total) < 1e-8 and
              parts["blocked_s"] >= 0.1 and sw >= 20 and "unattributed" in parts))
PY
) || { fail "${m:-no nanosleep series}: $(grep -c . "$TMP/ex.prom") lines scraped"; return; }
	pass "$m"
}

# served --explain end: the intervals followed to the thread they ended on
# are a counter beside the count (splitwork's relay: every one of them)
test_explain_served_followed() {
	local sw=$WL/splitwork m i
	source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"
	serve_start --measure "name=exe: pair --explain end --key arg0 u:$sw:hand_begin u:$sw:hand_end" ||
		{ fail "start"; return; }
	"$sw" 10 1000 1000 handoff 1000 500
	# a served measurement is read every second or so: until its count
	# says all 10 (at most 10 s)
	for i in $(seq 20); do
		sleep 0.5
		curl -s --max-time 5 "$SERVE_URL/metrics" >"$TMP/exe.prom"
		grep -qE '^kdist_exe_seconds_count(\{[^}]*\})? 10$' "$TMP/exe.prom" && break
	done
	serve_stop || { fail "stop"; return; }
	m=$(python3 - "$TMP/exe.prom" <<'PY'
import re, sys
v = {}
for l in open(sys.argv[1]):
    m = re.match(r'(kdist_exe_\w+)(?:\{[^}]*\})? (\S+)$', l)
    if m and "part=" not in l and "le=" not in l:
        v[m.group(1)] = float(m.group(2))
count, fol = v.get("kdist_exe_seconds_count"), v.get("kdist_exe_explain_followed_total")
print(f"count {count}, followed {fol}")
sys.exit(not (count == 10 and fol == 10))
PY
) || { fail "$m: $(grep -c . "$TMP/exe.prom") lines scraped"; return; }
	pass "$m"
}
