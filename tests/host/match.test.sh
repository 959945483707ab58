# kdist pair --match fifo|lifo: several STARTs in flight per key, against
# a workload whose pairing is known (tests/workloads/inflight.c).
# shellcheck shell=bash

# match_check JSONL TIMES NAME PER EXPECT_N: the slow lines of JSONL (one per
# pair, in END order) against the workload's NAME times in TIMES (the same
# order): EXPECT_N lines, each no longer than the workload's own time around
# it and no shorter than its known lower bound, k * PER us (k: 1..D by
# recursion level, M+i for the i-th pair of a FIFO round: given by python).
match_check() {
	python3 - "$@" <<'PY'
import json, sys
lines, times, name, n, bound = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
ev = [json.loads(l)["latency_ns"] for l in open(lines) if l.startswith('{"event"')]
ref = [int(l.split()[1]) for l in open(times) if l.split()[0] == name]
if len(ev) != n:
    sys.exit(f"{len(ev)} pairs, expected {n}")
for i, (got, r) in enumerate(zip(ev, ref)):
    lo = eval(bound)
    if not lo <= got <= r:
        sys.exit(f"pair {i}: {got} ns outside [{lo}, {r}] (known bound, workload's time)")
print(f"{n} pairs, each within [known bound, workload's own time]")
PY
}

test_match_lifo_measures_every_recursion_level() {
	local wl=$WL/inflight msg
	# 10 calls of a recursion 6 deep, each level sleeping 300 us
	KDIST_WL_TIMES=$TMP/rec.times "$KDIST" pair --match lifo --slower-than 1ns -o json \
		"u:$wl:recurse" "ur:$wl:recurse" -- "$wl" recurse 10 6 300 >"$TMP/rec.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	# innermost first: the i-th line of a call is level i % 6 + 1
	msg=$(match_check "$TMP/rec.json" "$TMP/rec.times" level 60 '(i % 6 + 1) * 300000') ||
		{ fail "$msg"; return; }
	[ "$(json "$TMP/rec.json" "d['drops']['start_replaced'] + d['drops']['end_without_start']")" = 0 ] ||
		{ fail "unmatched: $(json "$TMP/rec.json" "d['drops']")"; return; }
	pass "$msg"
}

test_match_lifo_deeper_than_queue_counts_loss() {
	local wl=$WL/inflight n lost
	# 20 levels, 16 kept: the 4 innermost of each of 5 calls are lost, counted
	"$KDIST" pair --match lifo -o json "u:$wl:recurse" "ur:$wl:recurse" -- "$wl" recurse 5 20 10 \
		>"$TMP/deep.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/deep.json" "d['groups'][0]['count']")
	lost=$(json "$TMP/deep.json" "d['drops']['match_queue_full']")
	[ "$n" = 80 ] && [ "$lost" = 20 ] || { fail "$n pairs, $lost match_queue_full; expected 80, 20"; return; }
	# the outermost level (20 sleeps of 10 us) pairs with its own START
	[ "$(json "$TMP/deep.json" "d['groups'][0]['max'] >= 200000")" = True ] ||
		{ fail "longest pair $(json "$TMP/deep.json" "d['groups'][0]['max']") ns"; return; }
	pass "80 pairs, 20 levels beyond the queue counted as match_queue_full"
}

test_match_fifo_overlapping_pairs_per_key() {
	local wl=$WL/inflight msg
	# 5 rounds of 4 pairs in flight on one key, begins 400 us apart
	KDIST_WL_TIMES=$TMP/fifo.times "$KDIST" pair --match fifo --key arg0 --slower-than 1ns -o json \
		"u:$wl:fifo_begin" "u:$wl:fifo_end" -- "$wl" fifo 5 4 400 >"$TMP/mf.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	msg=$(match_check "$TMP/mf.json" "$TMP/fifo.times" pair 20 '(4 + i % 4) * 400000') ||
		{ fail "$msg"; return; }
	[ "$(json "$TMP/mf.json" "d['drops']['start_replaced']")" = 0 ] ||
		{ fail "start_replaced $(json "$TMP/mf.json" "d['drops']['start_replaced']")"; return; }
	# the same stream without --match: one START per key, the others replaced
	"$KDIST" pair --key arg0 -o json "u:$wl:fifo_begin" "u:$wl:fifo_end" -- "$wl" fifo 5 4 400 \
		>"$TMP/mr.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	[ "$(json "$TMP/mr.json" "(d['groups'][0]['count'], d['drops']['start_replaced'])")" = "(5, 15)" ] ||
		{ fail "replace: $(json "$TMP/mr.json" "(d['groups'][0]['count'], d['drops'])")"; return; }
	pass "$msg; replace: 5 pairs, 15 start_replaced"
}

test_match_refusals() {
	local rc
	"$KDIST" pair --match lifo --key arg0 sched:sched_wakeup sched:sched_switch -d 1 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] && grep -q "match lifo" "$TMP/err" || { fail "lifo by key: exit $rc: $(cat "$TMP/err")"; return; }
	"$KDIST" pair --match stack raw_syscalls:sys_enter raw_syscalls:sys_exit -d 1 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] && grep -q "bad --match" "$TMP/err" || { fail "bad mode: exit $rc: $(cat "$TMP/err")"; return; }
	pass "$(head -1 "$TMP/err")"
}
