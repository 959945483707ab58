# Process churn under `--by comm,pid -i 1`: the kernel's group table holds
# one interval's groups (pair takes them out at every read), so a run with
# several times more groups than the table holds loses nothing and measures
# the workload's syscalls exactly; a table too small says so on stderr.
# shellcheck shell=bash

CHURN_N=6000 CHURN_K=10

# JSON Lines of intervals: the "churnkid" groups' syscall count, distinct
# pids, groups in total, intervals, and the sum of the drop counters named
# (comma-separated) over the intervals.
churn_sum() {
	python3 -c '
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
kid = [g for d in docs for g in d["groups"] if g["by"]["comm"] == "churnkid"]
print(sum(g["count"] for g in kid), len({g["by"]["pid"] for g in kid}),
      sum(d["groups_total"] for d in docs), len(docs),
      sum(d["drops"].get(n, 0) for d in docs for n in sys.argv[2].split(",")))' "$1" "$2"
}

test_churn_default_table() {
	local count pids groups docs lost spilled truth=$((CHURN_N * CHURN_K))
	# 6000 processes at most 400 a second: 12,000 groups (each child is
	# two: its name changes), three times the default 4,096-entry table
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm,pid -i 1 -o json -v \
		-- "$WL/churn" $CHURN_N $CHURN_K 400 >"$TMP/churn.json" 2>"$TMP/churn.err" ||
		{ fail "exit $?: $(cat "$TMP/churn.err")"; return; }
	read -r count pids groups docs lost < <(churn_sum "$TMP/churn.json" group_table_full,group_memory_failed)
	spilled=$(sed -n 's/^kdist: \([0-9]*\) events came through the spill ring.*/\1/p' "$TMP/churn.err" | tail -1)
	# The whole run's groups far past the table (a table that kept them
	# would lose two thirds), the intervals add up to the truth exactly,
	# and nothing is lost: the groups a burst could not allocate came
	# through the spill ring (-v says how many).
	if [ "$count" = "$truth" ] && [ "$pids" = "$CHURN_N" ] && [ "$lost" = 0 ] && [ "$groups" -gt 8192 ]; then
		pass "$count of $truth syscalls of $pids processes in $docs intervals, $groups groups, none lost (${spilled:-0} came through the spill ring)"
	else
		fail "$count syscalls (truth $truth) of $pids processes (truth $CHURN_N), $groups groups, lost $lost (group_table_full, group_memory_failed), ${spilled:-0} spilled"
	fi
}

test_churn_small_table() {
	local count pids groups docs lost said truth=$((600 * CHURN_K))
	# --comm churnkid: only the children's K getppid pairs are traced (the
	# naming prctl's END has no START, exit_group no END), so what is kept
	# plus what is counted lost is the truth exactly
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm,pid -i 1 -o json \
		--comm churnkid --max-groups 16 -- "$WL/churn" 600 $CHURN_K 400 \
		>"$TMP/small.json" 2>"$TMP/small.err" || { fail "exit $?: $(cat "$TMP/small.err")"; return; }
	read -r count pids groups docs lost < <(churn_sum "$TMP/small.json" \
		group_table_full,group_memory_failed,match_table_full,storage_failed,skipped_by_kernel)
	said=$(grep -c 'group table full: [0-9]* events lost in interval [0-9]*; raise --max-groups (now 16)' "$TMP/small.err")
	if [ "$lost" -gt 0 ] && [ $((count + lost)) = "$truth" ] && [ "$said" -ge 1 ] && [ "$said" -le "$docs" ]; then
		pass "$count kept + $lost counted lost = $truth, said in $said of $docs intervals"
	else
		fail "kept $count + lost $lost, truth $truth; said $said times in $docs intervals"
	fi
}

# Three bursts of the same 2,000 new groups (close of fds 100000..101999
# that are not open), a third of a second apart, read every 0.2 s: the
# table is swapped between bursts, so each burst allocates its groups anew
# and many of its events come through the spill ring (-ENOMEM); each
# spilled event counts in the interval whose read took it, once.  The
# intervals add up to 3 closes per fd exactly, none lost.
test_churn_spill_intervals() {
	local got spilled
	"$KDIST" pair syscalls:sys_enter_close syscalls:sys_exit_close --by fd -i 0.2 -o json -v \
		-c "$WL/syserr 0 0 2000; sleep 0.3; $WL/syserr 0 0 2000; sleep 0.3; $WL/syserr 0 0 2000" \
		>"$TMP/spill.json" 2>"$TMP/spill.err" || { fail "exit $?: $(tail -3 "$TMP/spill.err")"; return; }
	got=$(python3 -c '
import json, sys, collections
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n = collections.Counter()
for d in docs:
    for g in d["groups"]:
        if 100000 <= int(g["by"]["fd"]) < 102000:
            n[g["by"]["fd"]] += g["count"]
print(len(n), sum(n.values()), len(set(n.values())), min(n.values(), default=0),
      sum(d["drops"]["group_table_full"] + d["drops"]["group_memory_failed"] for d in docs),
      sum(1 for d in docs if any(100000 <= int(g["by"]["fd"]) < 102000 for g in d["groups"])))' "$TMP/spill.json")
	spilled=$(grep -o '^kdist: [0-9]* events came through the spill ring' "$TMP/spill.err" | cut -d' ' -f2)
	set -- $got
	# fds, closes, distinct per-fd totals, smallest, lost, intervals with closes
	[ "$1 $2 $3 $4 $5" = "2000 6000 1 3 0" ] ||
		{ fail "fds, closes, distinct totals, min, lost: $1 $2 $3 $4 $5 (2000 6000 1 3 0)"; return; }
	pass "6000 closes of 2000 fds in $6 intervals, 3 per fd, none lost (${spilled:-0} came through the spill ring)"
}
