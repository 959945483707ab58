# kdist diff: saved measurements (tests/host/diff/, recorded with
# `kdist syscalls -o json -c 'sleeper 200 MS'`) and fresh A/A and A/B runs.
# shellcheck shell=bash

DIFF_DATA=$TOP/tests/host/diff

# diff_flagged JSON: "group:verdict" of every group with a verdict, sorted
diff_flagged() {
	json "$1" '" ".join(sorted(g["by"].get("syscall", "") + (":" + g["by"]["error"] if "error" in g["by"] else "") + ":" + g["verdict"] for g in d["groups"] if g["verdict"] != "none"))'
}

# A copy of the measurement $1 with the python statement $2 applied to d
diff_edit() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
print(json.dumps(d))' "$1" "$2"
}

test_diff_saved_ab_flags_the_slower_group() {
	local out rc
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$DIFF_DATA/sleep1.3.json" -o json >"$TMP/ab.json" \
		2>"$TMP/err"; rc=$?
	[ $rc = 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	out=$(diff_flagged "$TMP/ab.json")
	[ "$out" = "nanosleep:ok:slower" ] || { fail "flagged '$out', expected nanosleep:ok:slower only"; return; }
	"$KDIST" diff "$DIFF_DATA/sleep1.3.json" "$DIFF_DATA/sleep1-a.json" -o json >"$TMP/ba.json" 2>/dev/null
	out=$(diff_flagged "$TMP/ba.json")
	[ "$out" = "nanosleep:ok:faster" ] || { fail "reversed: flagged '$out', expected nanosleep:ok:faster"; return; }
	grep -q "different durations" "$TMP/err" || { fail "no warning of the different durations"; return; }
	pass "nanosleep slower, reversed faster; z $(json "$TMP/ab.json" '[g["test"]["z"] for g in d["groups"] if g["verdict"] != "none"][0]')"
}

test_diff_saved_aa_flags_nothing() {
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$DIFF_DATA/sleep1-b.json" -o json >"$TMP/aa.json" \
		2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	local out n
	out=$(diff_flagged "$TMP/aa.json")
	n=$(json "$TMP/aa.json" 'len(d["groups"])')
	[ -z "$out" ] && [ "$n" = 30 ] || { fail "flagged '$out' among $n groups"; return; }
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$DIFF_DATA/sleep1-a.json" -o json >"$TMP/same.json"
	out=$(json "$TMP/same.json" 'max(g["test"]["p"] for g in d["groups"]) == 1 and min(g["test"]["p"] for g in d["groups"]) == 1')
	[ "$out" = True ] || { fail "a file against itself: p not 1 everywhere"; return; }
	pass "30 groups, none flagged"
}

test_diff_new_and_gone_groups() {
	diff_edit "$DIFF_DATA/sleep1-a.json" '
d["groups"] = [g for g in d["groups"] if g["by"]["syscall"] != "getpid"]
g = dict(d["groups"][0]); g["by"] = {"syscall": "kdist_new", "error": "ok"}; g["values"] = {"syscall": 999, "error": 0}
d["groups"].append(g)' >"$TMP/edited.json"
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$TMP/edited.json" -o json >"$TMP/ng.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local gone new text
	gone=$(json "$TMP/ng.json" '" ".join(g["by"]["syscall"] for g in d["gone_groups"])')
	new=$(json "$TMP/ng.json" '" ".join(g["by"]["syscall"] for g in d["new_groups"])')
	[ "$gone" = getpid ] && [ "$new" = kdist_new ] || { fail "gone '$gone', new '$new'"; return; }
	text=$("$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$TMP/edited.json")
	grep -A1 "^gone" <<<"$text" | grep -q "getpid ok" && grep -A1 "^new" <<<"$text" | grep -q "kdist_new ok" ||
		{ fail "text view does not list them: $text"; return; }
	pass "gone getpid, new kdist_new"
}

# Each difference is refused in one line naming it, with exit 2.
test_diff_mismatches_are_refused() {
	local a=$DIFF_DATA/sleep1-a.json what edit rc msg bad=0
	while IFS='|' read -r what edit; do
		diff_edit "$a" "$edit" >"$TMP/mm.json"
		"$KDIST" diff "$a" "$TMP/mm.json" >/dev/null 2>"$TMP/err"; rc=$?
		msg=$(cat "$TMP/err")
		if [ $rc != 2 ] || [ "$(wc -l <"$TMP/err")" != 1 ] || [[ $msg != *"different $what"* ]]; then
			echo "  $what: exit $rc, said '$msg'"; bad=$((bad + 1))
		fi
	done <<'EOF2'
command|d["command"] = "irq"
kind|d["kind"] = "value"
unit|d["unit"] = "bytes"
key|d["key"] = "cpu"
by keys|d["by"] = ["syscall"]
EOF2
	"$KDIST" diff "$a" "$DIFF_DATA/irq.json" >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] && grep -q "different command: BASE 'syscalls', NEW 'irq'" "$TMP/err" ||
		{ echo "  syscalls vs irq: exit $rc, $(cat "$TMP/err")"; bad=$((bad + 1)); }
	diff_edit "$a" 'd["kernel"] = "0.0-other"' >"$TMP/k.json"
	"$KDIST" diff "$a" "$TMP/k.json" >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 0 ] && grep -q "warning: different kernels" "$TMP/err" ||
		{ echo "  kernel: exit $rc, $(cat "$TMP/err")"; bad=$((bad + 1)); }
	[ $bad = 0 ] && pass "command, kind, unit, key, by refused; kernel a warning" || fail "$bad wrong"
}

test_diff_bad_input_exit_2() {
	local rc bad=0 args
	printf 'not json\n' >"$TMP/garbage.json"
	printf '{"schema":"other/1"}\n' >"$TMP/other.json"
	for args in "$DIFF_DATA/sleep1-a.json" \
		"$DIFF_DATA/sleep1-a.json $TMP/missing.json" \
		"$DIFF_DATA/sleep1-a.json $TMP/garbage.json" \
		"$DIFF_DATA/sleep1-a.json $TMP/other.json" \
		"$DIFF_DATA/sleep1-a.json $DIFF_DATA/sleep1-b.json --fail-on p98>+10%" \
		"$DIFF_DATA/sleep1-a.json $DIFF_DATA/sleep1-b.json --fail-on p99>-10%" \
		"$DIFF_DATA/sleep1-a.json $DIFF_DATA/sleep1-b.json --fail-on p99>+10" \
		"$DIFF_DATA/sleep1-a.json $DIFF_DATA/sleep1-b.json --alpha 2" \
		"$DIFF_DATA/sleep1-a.json $DIFF_DATA/sleep1-b.json -o svg" \
		"$DIFF_DATA/pair.json $DIFF_DATA/pair-intervals.jsonl -i 9"; do
		# shellcheck disable=SC2086
		"$KDIST" diff $args >/dev/null 2>"$TMP/err"; rc=$?
		if [ $rc != 2 ] || [ "$(wc -l <"$TMP/err")" != 1 ]; then
			echo "  diff $args: exit $rc, said '$(cat "$TMP/err")'"; bad=$((bad + 1))
		fi
	done
	[ $bad = 0 ] && pass "10 bad inputs: exit 2, one line each" || fail "$bad wrong"
}

# What a file is: a "[" or a truncated JSON file is a bad measurement, not
# folded stacks; a byte order mark (as some editors save UTF-8) changes
# nothing, in JSON or in folded stacks.
test_diff_input_kinds() {
	local rc out
	printf '[' >"$TMP/bracket.json"
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$TMP/bracket.json" >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] && [ "$(cat "$TMP/err")" = "kdist: bad measurement $TMP/bracket.json: line 1: expected a JSON object" ] ||
		{ fail "'[': exit $rc, said '$(cat "$TMP/err")'"; return; }
	{ printf '\xef\xbb\xbf'; cat "$DIFF_DATA/sleep1-a.json"; } >"$TMP/bom.json"
	out=$("$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$TMP/bom.json" -o json 2>"$TMP/err") ||
		{ fail "JSON with a byte order mark: exit $?, said '$(cat "$TMP/err")'"; return; }
	printf 'main;a 3\nmain;b 1\n' >"$TMP/plain.folded"
	{ printf '\xef\xbb\xbf'; cat "$TMP/plain.folded"; } >"$TMP/bom.folded"
	out=$("$KDIST" diff "$TMP/plain.folded" "$TMP/bom.folded" 2>"$TMP/err") ||
		{ fail "folded with a byte order mark: exit $?, said '$(cat "$TMP/err")'"; return; }
	grep -qE '^ +\+0\.00% +75\.00% +75\.00% +main;a$' <<<"$out" ||
		{ fail "folded with a byte order mark: $out"; return; }
	pass "'[' a bad measurement (one line, exit 2); JSON and folded stacks with a byte order mark read as without"
}

test_diff_fail_on_exit_codes() {
	local a=$DIFF_DATA/sleep1-a.json b=$DIFF_DATA/sleep1.3.json rule want rc bad=0
	# p50 +26 %, p99 +3.9 % (not significant: below --min-change 5), count
	# per second -24 % (durations differ); p99.9 +614 % of about 200 values
	# is not judged (too few values above it to bound it)
	while read -r rule want; do
		"$KDIST" diff "$a" "$b" --fail-on "$rule" >/dev/null 2>&1; rc=$?
		[ $rc = "$want" ] || { echo "  --fail-on $rule: exit $rc, expected $want"; bad=$((bad + 1)); }
	done <<'EOF2'
p50>+10% 1
p50>+30% 0
p90>+20% 1
p99>+1% 0
mean>+30% 1
p50<-10% 0
count<-20% 1
count>+20% 0
p999>+100% 0
p999>+100%,p90>+20% 1
EOF2
	"$KDIST" diff "$b" "$a" --fail-on 'p50<-10%' >/dev/null 2>&1; rc=$?
	[ $rc = 1 ] || { echo "  reversed p50<-10%: exit $rc"; bad=$((bad + 1)); }
	"$KDIST" diff "$a" "$DIFF_DATA/sleep1-b.json" --fail-on 'p50>+1%,p99>+1%,mean>+1%' >/dev/null 2>&1; rc=$?
	[ $rc = 0 ] || { echo "  A/A: exit $rc"; bad=$((bad + 1)); }
	[ $bad = 0 ] && pass "12 rules: exit 0/1 as expected" || fail "$bad wrong"
}

# A failed --fail-on rule says which group broke it and by how much, in
# the text and the markdown views (sleep1.3's nanosleeps: p50 +26.4%).
test_diff_fail_on_names_the_group() {
	local a=$DIFF_DATA/sleep1-a.json b=$DIFF_DATA/sleep1.3.json out
	out=$("$KDIST" diff "$a" "$b" --fail-on 'p99>+10%,p50>+10%' 2>/dev/null)
	grep -qx -- '--fail-on p99>+10%: passed' <<<"$out" &&
		grep -qx -- '--fail-on p50>+10%: FAILED by 1 group (nanosleep ok: p50 1.115ms -> 1.409ms +26.4%)' <<<"$out" ||
		{ fail "text: $(tail -3 <<<"$out")"; return; }
	out=$("$KDIST" diff "$a" "$b" --fail-on 'p99>+10%,p50>+10%' -o markdown 2>/dev/null)
	grep -qx -- '- \*\*--fail-on p50>+10%: FAILED\*\* by 1 group (nanosleep ok: p50 1.115ms → 1.409ms +26.4%)' <<<"$out" &&
		grep -qx -- '- \*\*--fail-on p99>+10%: passed\*\*' <<<"$out" ||
		{ fail "markdown: $(tail -3 <<<"$out")"; return; }
	pass "the failed rule, its group and change in text and markdown"
}

test_diff_intervals_summed_or_picked() {
	local p=$DIFF_DATA/pair.json i=$DIFF_DATA/pair-intervals.jsonl sum one
	"$KDIST" diff "$p" "$i" -o json >"$TMP/iv.json" 2>/dev/null || { fail "exit $?"; return; }
	sum=$(json "$i" 'sum(g["count"] for x in docs for g in x["groups"])')
	[ "$(json "$TMP/iv.json" 'int(d["groups"][0]["count"]["new"])')" = "$sum" ] &&
	[ "$(json "$TMP/iv.json" 'd["new"]["intervals"]')" = 3 ] || { fail "summed: $(cat "$TMP/iv.json")"; return; }
	"$KDIST" diff "$i" "$i" -i 2 -o json >"$TMP/i2.json" 2>/dev/null || { fail "-i 2: exit $?"; return; }
	one=$(json "$i" 'docs[1]["groups"][0]["count"]')
	[ "$(json "$TMP/i2.json" 'int(d["groups"][0]["count"]["base"])')" = "$one" ] ||
		{ fail "-i 2: count not interval 2's $one"; return; }
	pass "3 intervals summed ($sum values), -i 2 alone ($one)"
}

test_diff_views() {
	local a=$DIFF_DATA/sleep1-a.json b=$DIFF_DATA/sleep1.3.json bad=0 first
	"$KDIST" diff "$a" "$b" -o json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"] == "kdist.diff/1", d["schema"]
for k in ("base", "new", "alpha", "min_change_pct", "groups", "gone_groups", "new_groups", "fail_on", "failed"):
    assert k in d, k
g = d["groups"][0]
assert g["verdict"] == "slower" and g["p50"]["significant"] and g["test"]["z"] > 0
' || { echo "  json"; bad=$((bad + 1)); }
	"$KDIST" diff "$a" "$b" -o csv >"$TMP/d.csv" 2>/dev/null
	python3 -c '
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert len(r) == 30 and r[0]["group"] == "nanosleep ok" and r[0]["verdict"] == "slower", r[0]
assert all(x["verdict"] == "none" for x in r[1:])
' "$TMP/d.csv" || { echo "  csv"; bad=$((bad + 1)); }
	"$KDIST" diff "$a" "$b" -o markdown >"$TMP/d.md" 2>/dev/null
	first=$(sed -n 3p "$TMP/d.md")
	[[ $first == "| nanosleep ok | **slower** |"* ]] && [ "$(grep -c '^|' "$TMP/d.md")" = 32 ] ||
		{ echo "  markdown: $first"; bad=$((bad + 1)); }
	# not a terminal: no colour
	"$KDIST" diff "$a" "$b" 2>/dev/null | grep -q $'\033' && { echo "  colour in a pipe"; bad=$((bad + 1)); }
	[ $bad = 0 ] && pass "json kdist.diff/1, csv, markdown; largest change first" || fail "$bad wrong"
}

# diff_split JSON A B: a measurement of two workloads run side by side as
# ab-base and ab-new, grouped by comm and one more key, as two measurements
# grouped by that key, one per workload.
diff_split() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sk = [k for k in d["by"] if k != "comm"][0]
for comm, out in zip(("ab-base", "ab-new"), sys.argv[2:]):
    e = dict(d, by=[sk], groups=[])
    for g in d["groups"]:
        if g["by"]["comm"] == comm:
            g = dict(g, by={sk: g["by"][sk]})
            if sk in g.get("values", {}):
                g["values"] = {sk: g["values"][sk]}
            e["groups"].append(g)
    if not e["groups"]:
        sys.exit("no groups of " + comm)
    json.dump(e, open(out, "w"))' "$@"
}

# Fresh runs, BASE and NEW side by side on one CPU (diff_ab_run), so that
# both see the same machine (runs one after the other differ for real when
# other processes load the machine in one of them, see docs/diff.md).  A/B:
# the sleeper at 1.0 ms against 1.3 ms.  A/A: abwork's four sleeping
# syscalls, BASE and NEW alike.
test_diff_live_ab_and_aa() {
	local i n=${DIFF_AA_RUNS:-20} fp=0 out
	diff_ab_run sleeper 1.3 pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm,arg1:syscall ||
		{ fail "$(cat "$TMP/err")"; return; }
	out=$(diff_ab_verdicts arg1:syscall) || { fail "$(tail -1 "$TMP/err")"; return; }
	[ "$out" = "nanosleep:slower / nanosleep:faster" ] || { fail "A/B flagged: $out"; return; }
	for i in $(seq 1 "$n"); do
		diff_ab_run abwork 1 pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm,arg1:syscall ||
			{ fail "run $i: $(cat "$TMP/err")"; return; }
		out=$(diff_ab_verdicts arg1:syscall) || { fail "run $i: $(tail -1 "$TMP/err")"; return; }
		[ "$out" != " / " ] && { echo "  A/A $i flagged: $out"; fp=$((fp + 1)); }
	done
	# Each comparison tests 4 groups at alpha 0.01 (the reversed one is the
	# same test): by chance at most about 4% of A/A comparisons flag
	# something, and under load the two copies' wakeups differ by a little
	# more.  More than 3 of 20 has P < 1% at 4% (2 of 20 happened once on
	# a loaded machine), while a diff that flags identical runs as a rule
	# flags most of them.
	[ $((fp * 20)) -le $((3 * n)) ] || { fail "A/A: $fp of $n comparisons flagged something"; return; }
	pass "A/B: nanosleep alone slower (faster reversed); A/A: $fp of $n flagged (4 sleeping syscalls each)"
}

# func: calls, total and self per function, on a func measurement made from
# a recorded one (each group's total = its sum, self = half); in NEW,
# nanosleep is called twice as often with the same distribution.
test_diff_func_totals() {
	local mk='d["command"] = "func"; d["kind"] = "func"
for g in d["groups"]: g["total"] = g["sum"]; g["self"] = g["sum"] // 2'
	diff_edit "$DIFF_DATA/sleep1-a.json" "$mk" >"$TMP/f1.json"
	diff_edit "$DIFF_DATA/sleep1-a.json" "$mk
for g in d[\"groups\"]:
    if g[\"by\"][\"syscall\"] == \"nanosleep\":
        for k in (\"count\", \"sum\", \"total\", \"self\"): g[k] *= 2
        for b in g[\"buckets\"]: b[2] *= 2" >"$TMP/f2.json"
	"$KDIST" diff "$TMP/f1.json" "$TMP/f2.json" -o json >"$TMP/fd.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local got rc
	got=$(json "$TMP/fd.json" '" ".join("%s:%s:%s:%s:%s" % (g["by"]["syscall"], g["verdict"], g["count"]["significant"], g["total"]["significant"], round(g["self"]["change_pct"])) for g in d["groups"] if g["count"]["change_pct"] or g["total"]["change_pct"])')
	[ "$got" = "nanosleep:none:True:True:100" ] || { fail "got '$got'"; return; }
	"$KDIST" diff "$TMP/f1.json" "$TMP/f2.json" --fail-on 'total>+50%' >/dev/null 2>&1; rc=$?
	[ $rc = 1 ] || { fail "--fail-on total>+50%: exit $rc"; return; }
	"$KDIST" diff "$TMP/f1.json" "$TMP/f2.json" --fail-on 'self>+50%' >/dev/null 2>&1; rc=$?
	[ $rc = 2 ] || { fail "--fail-on self: exit $rc, expected 2 (no test)"; return; }
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$DIFF_DATA/sleep1-b.json" -o json | grep -q '"total"' &&
		{ fail "total shown for a latency measurement"; return; }
	pass "calls +100% and total +100% significant, distribution unchanged, self +100% shown"
}

# Folded stacks with known shares: BASE 200 samples (a 25 %, b 25 %, idle
# 50 %), NEW 240 (a 37.5 %, b 12.5 %, idle 41.67 %, new 8.33 %).
diff_folded_pair() {
	printf 'main;work;a 50\nmain;work;b 50\nmain;idle 100\n' >"$TMP/f1.folded"
	printf 'main;work;a 90\nmain;work;b 30\nmain;idle 100\nmain;new 20\n' >"$TMP/f2.folded"
}

test_diff_folded_top() {
	diff_folded_pair
	local got rc
	got=$("$KDIST" diff "$TMP/f1.folded" "$TMP/f2.folded" --top 3 | tail -n +6 | awk '{print $1, $4}' | tr '\n' ' ')
	[ "$got" = "+12.50% main;work;a -12.50% main;work;b +8.33% main;new " ] ||
		{ fail "top 3: '$got'"; return; }
	"$KDIST" diff "$TMP/f1.folded" "$DIFF_DATA/sleep1-a.json" >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] && grep -q "different formats" "$TMP/err" || { fail "folded vs JSON: exit $rc"; return; }
	pass "a +12.5, b -12.5, new +8.33 points, in that order; folded vs JSON refused"
}

test_diff_folded_svg() {
	diff_folded_pair
	"$KDIST" diff "$TMP/f1.folded" "$TMP/f2.folded" -o svg --output "$TMP/d.svg" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	xmllint --noout "$TMP/d.svg" 2>"$TMP/xml.err" || { fail "not well-formed: $(head -2 "$TMP/xml.err")"; return; }
	local fills
	# a grew most (the strongest red), b shrank most (the strongest blue),
	# work and main held (grey), idle shrank, new grew
	fills=$(python3 -c '
import re, sys
s = open(sys.argv[1]).read()
f = dict(re.findall(r"<title>(\w+) \([^<]*</title><rect[^>]*fill=\"rgb\(([0-9,]+)\)\"", s))
print(" ".join(f[k] for k in ("a", "b", "work", "idle", "new")))' "$TMP/d.svg")
	[ "$fills" = "255,40,40 40,40,255 215,215,215 73,73,255 255,73,73" ] || { fail "fills: $fills"; return; }
	grep -q 'red grew, blue shrank' "$TMP/d.svg" || { fail "no legend"; return; }
	grep -q 'id="search"' "$TMP/d.svg" || { fail "no search"; return; }
	local rc colours
	svg_shot "$TMP/d.svg" "$TMP/d.png" 1200,400; rc=$?
	[ $rc = 2 ] && { skip "SVG is well-formed; no chromium to render it"; return; }
	[ $rc = 0 ] || { fail "chromium wrote no screenshot"; return; }
	colours=$(png_colours "$TMP/d.png") || { fail "screenshot is not a readable PNG"; return; }
	[ "$colours" -ge 10 ] || { fail "rendered with only $colours colours: blank?"; return; }
	pass "well-formed; reds and blues as the shares changed; rendered with $colours colours"
}

# One syscall and one function slowed, the others unchanged: abwork makes
# nanosleep 1 ms, clock_nanosleep 1.5 ms, poll 2 ms and select SELECT_MS
# per round, each from its own function.
# diff_ab_run WORKLOAD NEW_MS KDIST-ARGS: "WORKLOAD 200 1" (BASE) and
# "WORKLOAD 200 NEW_MS" (NEW) run side by side under the names ab-base and
# ab-new, on one CPU at a real-time priority, so that both see the same
# machine: the same CPU's timer interrupts and time taken by the
# hypervisor, and each wakes when its timer fires rather than when the
# loaded machine gets round to it (two processes on two CPUs differ for
# real: see docs/diff.md).  Split into ab1.json and ab2.json.
diff_ab_run() {
	local wl=$1 ms=$2 cpu run
	shift 2
	cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
	run="taskset -c $cpu chrt -f 10"
	ln -sf "$WL/$wl" "$TMP/ab-base"
	ln -sf "$WL/$wl" "$TMP/ab-new"
	"$KDIST" "$@" -o json -c "$run $TMP/ab-base 200 1 & $run $TMP/ab-new 200 $ms; wait" \
		>"$TMP/ab.json" 2>"$TMP/err" &&
		diff_split "$TMP/ab.json" "$TMP/ab1.json" "$TMP/ab2.json" 2>"$TMP/err"
}

# "key:verdict" of every group with a verdict, for BASE->NEW and NEW->BASE;
# fails when either comparison cannot be read
diff_ab_verdicts() {
	local k=$1 a b
	local expr='" ".join(sorted(g["by"]["'"$k"'"] + ":" + g["verdict"] for g in d["groups"] if g["verdict"] != "none"))'
	"$KDIST" diff "$TMP/ab1.json" "$TMP/ab2.json" -o json >"$TMP/abd.json" 2>"$TMP/err" &&
		a=$(json "$TMP/abd.json" "$expr" 2>>"$TMP/err") &&
		"$KDIST" diff "$TMP/ab2.json" "$TMP/ab1.json" -o json >"$TMP/abd.json" 2>>"$TMP/err" &&
		b=$(json "$TMP/abd.json" "$expr" 2>>"$TMP/err") || return 1
	echo "$a / $b"
}

test_diff_live_one_syscall_slowed() {
	local got
	diff_ab_run abwork 1.3 pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm,arg1:syscall ||
		{ fail "$(cat "$TMP/err")"; return; }
	got=$(diff_ab_verdicts arg1:syscall) || { fail "$(tail -1 "$TMP/err")"; return; }
	[ "$got" = "select:slower / select:faster" ] || { fail "flagged: $got"; return; }
	pass "select alone slower (and faster reversed) of $(json "$TMP/ab1.json" 'len(d["groups"])') syscalls"
}

test_diff_live_one_function_slowed() {
	local got
	diff_ab_run abwork 1.3 func "u:$WL/abwork:sleep_*" --by comm || { fail "$(cat "$TMP/err")"; return; }
	got=$(diff_ab_verdicts function) || { fail "$(tail -1 "$TMP/err")"; return; }
	[ "$got" = "abwork:sleep_select:slower / abwork:sleep_select:faster" ] ||
		{ fail "flagged: $got"; return; }
	got=$(json "$TMP/ab1.json" '" ".join(sorted("%s:%d" % (g["by"]["function"], g["count"]) for g in d["groups"]))')
	[ "$got" = "abwork:sleep_clock:200 abwork:sleep_nanosleep:200 abwork:sleep_poll:200 abwork:sleep_select:200" ] ||
		{ fail "calls: $got"; return; }
	pass "sleep_select alone slower (and faster reversed) of 4 functions, 200 calls each"
}

# Byte values print as the measurement's own views print them (KiB, MiB),
# and JSON Lines of many intervals with many groups sum in good time.
test_diff_bytes_and_many_intervals() {
	diff_edit "$DIFF_DATA/sleep1-a.json" 'd["kind"] = "value"; d["unit"] = "bytes"' >"$TMP/ba.json"
	diff_edit "$DIFF_DATA/sleep1-b.json" 'd["kind"] = "value"; d["unit"] = "bytes"' >"$TMP/bb.json"
	"$KDIST" diff "$TMP/ba.json" "$TMP/bb.json" >"$TMP/bytes.txt" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	grep -q '^execve ok .* [0-9.]* MiB→' "$TMP/bytes.txt" || { fail "execve's sizes not in MiB: $(grep execve "$TMP/bytes.txt")"; return; }
	# 100 intervals of 1,000 groups each: every group counted 100 times
	python3 -c '
import copy, json, sys
d = json.load(open(sys.argv[1]))
g0 = d["groups"][0]
gs = []
for k in range(1000):
    g = copy.deepcopy(g0)
    g["by"] = {"syscall": "s%d" % k, "error": "ok"}
    g.pop("values", None)
    gs.append(g)
d["groups"] = gs
with open(sys.argv[2], "w") as f:
    for i in range(1, 101):
        d["interval"] = i
        f.write(json.dumps(d) + "\n")' "$DIFF_DATA/sleep1-a.json" "$TMP/many.jsonl"
	local t0 t
	t0=$(date +%s%N)
	"$KDIST" diff "$TMP/many.jsonl" "$TMP/many.jsonl" -o json >"$TMP/many.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	t=$((($(date +%s%N) - t0) / 1000000))
	[ "$(json "$TMP/many.json" "len(d['groups']) == 1000 and all(g['count']['base'] == g['count']['new'] == 100 * $(json "$DIFF_DATA/sleep1-a.json" 'd["groups"][0]["count"]') for g in d['groups'])")" = True ] ||
		{ fail "100 intervals of 1,000 groups not summed: $(json "$TMP/many.json" 'd["groups"][0]')"; return; }
	pass "bytes in KiB/MiB; 100 intervals x 1,000 groups summed in $t ms"
}

# Inputs that never end or never come: one line, a non-zero exit, at once
# (a pipe that stays open and silent: after read_input's 10 s idle bound).
# Before: diff and report blocked or spun on each, report /dev/zero ate
# memory until refused.
test_diff_report_inputs_that_never_end() {
	local a=$DIFF_DATA/sleep1-a.json bad=0 rc t0 t cmd w
	mkfifo "$TMP/nowriter" "$TMP/idle"
	truncate -s 300M "$TMP/huge.json"
	while IFS='|' read -r cmd want; do
		t0=$(date +%s%N)
		# shellcheck disable=SC2086
		timeout 60 "$KDIST" $cmd >/dev/null 2>"$TMP/err"; rc=$?
		t=$((($(date +%s%N) - t0) / 1000000))
		if [ $rc = 0 ] || [ $rc = 124 ] || [ "$(wc -l <"$TMP/err")" != 1 ] ||
		   ! grep -q -- "$want" "$TMP/err" || [ $t -gt 5000 ]; then
			echo "  kdist $cmd: exit $rc after $t ms, said '$(cat "$TMP/err")'"; bad=$((bad + 1))
		fi
	done <<EOF2
diff $a /dev/zero|failed to read /dev/zero: not a regular file or a pipe
diff /dev/zero $a|failed to read /dev/zero: not a regular file or a pipe
diff $a $TMP/nowriter|bad measurement $TMP/nowriter: empty
diff $a $TMP/huge.json|failed to read $TMP/huge.json: larger than 256 MiB
diff $a $TMP|failed to read $TMP: Is a directory
report /dev/zero|failed to read /dev/zero: not a regular file or a pipe
report $TMP/nowriter|bad measurement $TMP/nowriter: empty
report $TMP/huge.json|failed to read $TMP/huge.json: larger than 256 MiB
EOF2
	# a writer that holds the pipe open and sends nothing
	sleep 30 >"$TMP/idle" & w=$!
	t0=$(date +%s)
	timeout 60 "$KDIST" diff "$a" "$TMP/idle" >/dev/null 2>"$TMP/err"; rc=$?
	t=$(($(date +%s) - t0))
	kill $w 2>/dev/null; wait $w 2>/dev/null
	[ $rc = 2 ] && [ $t -le 20 ] && grep -q "nothing to read for 10 s" "$TMP/err" ||
		{ echo "  idle pipe: exit $rc after $t s, said '$(cat "$TMP/err")'"; bad=$((bad + 1)); }
	rm -f "$TMP/huge.json"
	[ $bad = 0 ] && pass "8 endless or absent inputs refused at once, an idle pipe after $t s" ||
		fail "$bad wrong"
}

# Documents that do not hold together: diff and report say the first
# inconsistency in one line and exit 2 (before: diff exited 0 with a
# verdict, or 1 through --fail-on; report 0 with a page whose script threw).
test_diff_report_refuse_inconsistent_documents() {
	local a=$DIFF_DATA/sleep1-a.json bad=0 rc edit want cmd n=0
	while IFS='|' read -r edit want; do
		diff_edit "$a" "d['groups'].sort(key=lambda g: -len(g['buckets'])); g = d['groups'][0]; $edit" >"$TMP/bad.json"
		for cmd in diff report; do
			if [ $cmd = diff ]; then
				"$KDIST" diff "$a" "$TMP/bad.json" --fail-on 'p50>+1%' >/dev/null 2>"$TMP/err"; rc=$?
			else
				"$KDIST" report "$TMP/bad.json" >/dev/null 2>"$TMP/err"; rc=$?
			fi
			if [ $rc != 2 ] || [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -qF -- "$want" "$TMP/err"; then
				echo "  $cmd, $edit: exit $rc, said '$(cat "$TMP/err")', expected '$want'"; bad=$((bad + 1))
			fi
		done
		n=$((n + 1))
	done <<'EOF2'
d["schema"] = "kdist.measurement/1x"|not a kdist.measurement/1
g["count"] = -5|group 1: count is not a non-negative integer
g["count"] += 1|group 1: count 17 is not the sum of its buckets (16)
g["buckets"][0][2] = str(g["buckets"][0][2])|group 1: bucket 1 is not [low, high, count] of non-negative integers
g["buckets"][0][2] = -g["buckets"][0][2]|group 1: bucket 1 is not [low, high, count]
g["buckets"].reverse()|group 1: bucket 2 [
g["min"] = g["max"] + 1|group 1: min and max are not 0 <= min <= max
g["sum"] = -1|group 1: sum is not a non-negative number below 2^64
g["sum"] = 1e30|group 1: sum is not a non-negative number below 2^64
g["mean"] = "fast"|group 1: mean is not a number
g["by"]["syscall"] = 5|group 1: "by" is not an object of labels
del g["by"]["error"]|group 1: no label for 'error'
d["groups"] = {}|"groups" is not an array
d["duration_s"] = "1"|duration_s is not a non-negative number
d["by"] = [1]|"by" name 1 is not a string
EOF2
	# a comparison the page cannot draw
	"$KDIST" diff "$a" "$DIFF_DATA/sleep1-b.json" -o json >"$TMP/cmp.json" 2>/dev/null
	diff_edit "$TMP/cmp.json" 'del d["groups"][1]["p50"]' >"$TMP/badcmp.json"
	"$KDIST" report "$TMP/badcmp.json" >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] && grep -q "group 2: p50: missing" "$TMP/err" ||
		{ echo "  report of a comparison without p50: exit $rc, '$(cat "$TMP/err")'"; bad=$((bad + 1)); }
	"$KDIST" report "$TMP/cmp.json" >/dev/null 2>"$TMP/err" || { echo "  report of a good comparison: $(cat "$TMP/err")"; bad=$((bad + 1)); }
	[ $bad = 0 ] && pass "$n broken measurements refused by diff and report, one line each naming it; a comparison without p50 by report" ||
		fail "$bad wrong"
}

# Memory within a small multiple of the input (docs/diff.md): 20,000 groups
# of 12 buckets (7 MB), diffed against itself and drawn by report.  Before:
# diff 579 MB (41 times its two inputs), report 122 MB (17 times).
test_diff_report_memory_bounded_by_the_input() {
	local f=$TMP/many.json size r d rx dx
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g0 = max(d["groups"], key=lambda g: len(g["buckets"]))
d["by"] = ["pid"]
d["groups"] = [dict(g0, by={"pid": str(1000 + i)}, values={"pid": 1000 + i}) for i in range(20000)]
open(sys.argv[2], "w").write(json.dumps(d, separators=(",", ":")))' "$DIFF_DATA/sleep1-a.json" "$f"
	size=$(stat -c %s "$f")
	# GNU time's maximum resident set size, in KiB
	r=$(/usr/bin/time -f %M "$KDIST" report "$f" 2>&1 >/dev/null | tail -1)
	d=$(/usr/bin/time -f %M "$KDIST" diff "$f" "$f" 2>&1 >/dev/null | tail -1)
	rx=$(python3 -c "print('%.1f' % ($r * 1024 / $size))")
	dx=$(python3 -c "print('%.1f' % ($d * 1024 / (2 * $size)))")
	python3 -c "import sys; sys.exit(not ($rx <= 4 and $dx <= 6))" ||
		{ fail "$((size / 1000000)) MB: report $rx times the input (<= 4), diff $dx times its two inputs (<= 6)"; return; }
	pass "$((size / 1000000)) MB of 20,000 groups: report $rx times the input, diff $dx times its two inputs"
}

# Both inputs' loss counters in the text, JSON and markdown views: pair.json
# records 2 ENDs without a START (unmatched by nature, docs/json.md), and a
# copy of it 5 STARTs the table had no room for (a loss).
test_diff_shows_both_inputs_losses() {
	local p=$DIFF_DATA/pair.json want bad=0
	want=$(json "$p" 'd["drops"]["end_without_start"]')
	[ "$want" = 2 ] || { fail "pair.json records $want ENDs without a START, not 2"; return; }
	diff_edit "$p" 'd["drops"]["match_table_full"] = 5' >"$TMP/lossy.json"
	"$KDIST" diff "$p" "$TMP/lossy.json" >"$TMP/l.txt" 2>/dev/null
	"$KDIST" diff "$p" "$TMP/lossy.json" -o json >"$TMP/l.json" 2>/dev/null
	"$KDIST" diff "$p" "$TMP/lossy.json" -o markdown >"$TMP/l.md" 2>/dev/null
	grep -q "^BASE .*, lost 0, unmatched 2 (end_without_start 2)$" "$TMP/l.txt" &&
	grep -q "^NEW .*, lost 5 (match_table_full 5), unmatched 2 (end_without_start 2)$" "$TMP/l.txt" ||
		{ echo "  text: $(head -2 "$TMP/l.txt")"; bad=$((bad + 1)); }
	[ "$(json "$TMP/l.json" '(d["base"]["lost"], d["base"]["unmatched"], d["new"]["lost"], d["new"]["unmatched"], d["new"]["drops"]["match_table_full"])')" = "(0, 2, 5, 2, 5)" ] ||
		{ echo "  json: $(json "$TMP/l.json" 'd["base"], d["new"]')"; bad=$((bad + 1)); }
	grep -qF 'BASE lost 0, unmatched 2 (end\_without\_start 2); NEW lost 5 (match\_table\_full 5), unmatched 2 (end\_without\_start 2).' "$TMP/l.md" ||
		{ echo "  markdown: $(tail -1 "$TMP/l.md")"; bad=$((bad + 1)); }
	[ $bad = 0 ] && pass "BASE unmatched 2, NEW lost 5 and unmatched 2: in text, json and markdown" || fail "$bad wrong"
}
