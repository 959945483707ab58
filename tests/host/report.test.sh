# -o html, kdist report and --heatmap: pages opened in headless Chromium
# (console and network from its log), screenshots checked pixel by pixel
# against the data the page embeds, the data against the workloads' truth.
# KDIST_UPDATE_DOCS=1 copies the screenshots to docs/.
# shellcheck shell=bash

RCHECK=$TOP/tests/host/report/check.py
NS_PAIR=(pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep)

# page_shot HTML PNG W,H: a screenshot, Chromium's log in PNG.log and its
# network log in PNG.net.json; 2 when there is no Chromium
page_shot() {
	SHOT_LOG=$2.log svg_shot "$1" "$2" "$3" --enable-logging=stderr --log-net-log="$2.net.json"
}

# docs_shot PNG NAME: keep a screenshot for docs/report.md
docs_shot() {
	[ -n "$KDIST_UPDATE_DOCS" ] && cp "$1" "$TOP/docs/$2"
	return 0
}

# 300 sleeps of 1 ms and 30 of 10 ms, side by side, in intervals of 0.1 s
two_bands() {
	"$KDIST" "${NS_PAIR[@]}" -i 0.1 "$@" -c "$WL/sleeper 300 1 & $WL/sleeper 30 10; wait"
}

test_report_heatmap_shows_the_1ms_and_10ms_bands() {
	local out rc
	two_bands -o json >"$TMP/bands.jsonl" 2>"$TMP/err" || { fail "pair: $(cat "$TMP/err")"; return; }
	# truth: 330 sleeps, none shorter than 1 ms, the 30 of 10 ms at 2^23 ns or above
	out=$(python3 -c '
import json, math, sys
n = low = high = 0
for line in open(sys.argv[1]):
    for g in json.loads(line)["groups"]:
        for lo, hi, c in g["buckets"]:
            n += c
            low += c if hi < 1000000 else 0
            high += c if lo >= 1 << 23 else 0
print(n, low, high)' "$TMP/bands.jsonl")
	read -r n low high <<<"$out"
	[ "$n" = 330 ] && [ "$low" = 0 ] && [ "$high" -ge 30 ] ||
		{ fail "data: $n values (330), $low under 1 ms (0), $high at 8.4 ms or more (>= 30)"; return; }
	"$KDIST" report "$TMP/bands.jsonl" -o html >"$TMP/bands.html" 2>"$TMP/err" ||
		{ fail "report: $(cat "$TMP/err")"; return; }
	python3 "$RCHECK" same "$TMP/bands.html" "$TMP/bands.jsonl" >"$TMP/same" ||
		{ fail "the page's data differs from the JSON: $(cat "$TMP/same")"; return; }
	page_shot "$TMP/bands.html" "$TMP/bands.png" 1200,1400; rc=$?
	[ $rc = 2 ] && { skip "no chromium"; return; }
	[ $rc = 0 ] || { fail "no screenshot"; return; }
	python3 "$RCHECK" heatmap "$TMP/bands.png" "$TMP/bands.png.log" "$TMP/bands.html" >"$TMP/heat" ||
		{ fail "heatmap: $(cat "$TMP/heat")"; return; }
	python3 "$RCHECK" hist "$TMP/bands.png" "$TMP/bands.png.log" "$TMP/bands.html" >"$TMP/hist" ||
		{ fail "histogram: $(cat "$TMP/hist")"; return; }
	docs_shot "$TMP/bands.png" report-heatmap.png
	pass "$n sleeps; $(head -1 "$TMP/heat"); $(head -1 "$TMP/hist")"
}

# --explain in HTML: a bar per power of two of the latency, split into the
# parts.  The truth: 20 sleeps of 5 ms are 20 intervals with at least
# 100 ms blocked in S, and every row's parts add up to its latency.
test_report_explain_bars() {
	local out rc
	"$KDIST" "${NS_PAIR[@]}" --explain -o html -c "$WL/sleeper 20 5" >"$TMP/ex.html" 2>"$TMP/err" ||
		{ fail "pair: $(cat "$TMP/err")"; return; }
	out=$(python3 "$RCHECK" data "$TMP/ex.html" | python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
g = d["groups"][0]["explain"]
rows = g["rows"]
print(g["all"]["count"], g["all"]["parts"]["blocked_s"], len(rows),
      all(sum(v or 0 for v in r["parts"].values()) == r["sum"] for r in rows))')
	read -r n s nrows sums <<<"$out"
	[ "$n" = 20 ] && [ "$s" -ge 100000000 ] && [ "$sums" = True ] ||
		{ fail "data: $n intervals (20), $s ns blocked in S (>= 1e8), parts add up per row: $sums"; return; }
	page_shot "$TMP/ex.html" "$TMP/ex.png" 1200,1200; rc=$?
	[ $rc = 2 ] && { skip "no chromium"; return; }
	[ $rc = 0 ] || { fail "no screenshot"; return; }
	python3 "$RCHECK" explain "$TMP/ex.png" "$TMP/ex.png.log" "$TMP/ex.html" >"$TMP/bars" ||
		{ fail "bars: $(cat "$TMP/bars")"; return; }
	docs_shot "$TMP/ex.png" report-explain.png
	pass "20 sleeps, $s ns blocked in S over $nrows rows; $(head -1 "$TMP/bars")"
}

# synth N_GROUPS N_INTERVALS: a measurement of that shape from a saved one
synth() {
	python3 -c '
import json, sys
ng, ni = int(sys.argv[2]), int(sys.argv[3])
d = json.loads(open(sys.argv[1]).readline())
g0 = d["groups"][0]
d["by"] = ["pid"]
for k in range(1, ni + 1):
    d["interval"] = k
    d["groups_total"] = ng
    d["groups"] = []
    for i in range(ng):
        g = dict(g0, by={"pid": str(1000 + i)}, values={"pid": 1000 + i})
        g["buckets"] = [[b[0] << (i % 5), (b[1] << (i % 5)) + (1 << (i % 5)) - 1, b[2]] for b in g0["buckets"]]
        d["groups"].append(g)
    print(json.dumps(d, separators=(",", ":")))' "$@"
}

test_report_every_command_opens_without_errors_or_requests() {
	local pages=() p rc size n calls
	local DIFF_DATA=$TOP/tests/host/diff
	two_bands -o html >"$TMP/p-pair.html" 2>"$TMP/err" &&
	"$KDIST" syscalls -o html -c "$WL/sleeper 20 1" >"$TMP/p-syscalls.html" 2>>"$TMP/err" &&
	"$KDIST" offcpu -o html -- "$WL/sleeper" 20 2 >"$TMP/p-offcpu.html" 2>>"$TMP/err" &&
	"$KDIST" wakeup -o html -- "$WL/pingpong" 200 >"$TMP/p-wakeup.html" 2>>"$TMP/err" &&
	"$KDIST" profile -F 499 -o html -- "$WL/hotspots" 100 >"$TMP/p-profile.html" 2>>"$TMP/err" &&
	"$KDIST" func "u:$WL/calltree:*" -o html -- "$WL/calltree" 4 >"$TMP/p-func.html" 2>>"$TMP/err" &&
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$DIFF_DATA/sleep1.3.json" -o html >"$TMP/p-diff.html" 2>>"$TMP/err" &&
	"$KDIST" diff "$DIFF_DATA/sleep1-a.json" "$DIFF_DATA/sleep1.3.json" -o json >"$TMP/d.json" 2>>"$TMP/err" &&
	"$KDIST" report "$TMP/d.json" -o html >"$TMP/p-report-diff.html" 2>>"$TMP/err" &&
	"$KDIST" report "$DIFF_DATA/pair-intervals.jsonl" --output "$TMP/p-report-jsonl.html" 2>>"$TMP/err" &&
	synth "$DIFF_DATA/sleep1-a.json" 1000 1 >"$TMP/g1000.json" &&
	synth "$DIFF_DATA/sleep1-a.json" 1 600 >"$TMP/i600.jsonl" &&
	"$KDIST" report "$TMP/g1000.json" -o html >"$TMP/p-1000-groups.html" 2>>"$TMP/err" &&
	"$KDIST" report "$TMP/i600.jsonl" -o html >"$TMP/p-600-intervals.html" 2>>"$TMP/err" ||
		{ fail "a page was not written: $(cat "$TMP/err")"; return; }
	for p in 1000-groups 600-intervals; do
		size=$(stat -c %s "$TMP/p-$p.html")
		[ "$size" -lt 2000000 ] || { fail "$p: $size bytes, over 2 MB"; return; }
	done
	grep -q 'id="kdist-flame"' "$TMP/p-profile.html" && grep -q 'id="kdist-flame"' "$TMP/p-offcpu.html" &&
		grep -q 'id="kdist-flame"' "$TMP/p-wakeup.html" ||
		{ fail "a stack measurement's page has no flame graph"; return; }
	# the data of the live pages: the workloads' exact counts
	n=$(python3 "$RCHECK" data "$TMP/p-pair.html" |
		python3 -c 'import json, sys; print(sum(g["count"] for l in sys.stdin for g in json.loads(l)["groups"]))')
	[ "$n" = 330 ] || { fail "pair page: $n sleeps, expected 330"; return; }
	calls=$(python3 "$RCHECK" data "$TMP/p-func.html" | python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
c = {g["by"]["function"].split(":")[-1]: g["count"] for g in d["groups"]}
print(" ".join(f"{k}={c.get(k)}" for k in ("outer", "middle", "leaf", "recurse")))')
	[ "$calls" = "outer=4 middle=8 leaf=24 recurse=20" ] || { fail "func page: $calls"; return; }
	# one browser for every page, in frames, and a control page without
	# kdist's policy that asks the network for something and fails
	printf '<!DOCTYPE html><script>fetch("http://127.0.0.1:9/control").catch(function () {});\nthrow new Error("control");</script>\n' \
		>"$TMP/control.html"
	{
		echo '<!DOCTYPE html><html><body>'
		for p in "$TMP"/p-*.html "$TMP/control.html"; do
			echo "<iframe src=\"$(basename "$p")\" width=\"1000\" height=\"600\"></iframe>"
			pages+=("$p")
		done
		echo '</body></html>'
	} >"$TMP/index.html"
	page_shot "$TMP/index.html" "$TMP/index.png" 1100,800; rc=$?
	[ $rc = 2 ] && { skip "no chromium"; return; }
	[ $rc = 0 ] || { fail "no screenshot"; return; }
	read -r drawn _ errors _ <<<"$(grep -v 'control.html' "$TMP/index.png.log" >"$TMP/kd.log"; python3 "$RCHECK" console "$TMP/kd.log" 2>"$TMP/errors")"
	[ "$drawn" = $((${#pages[@]} - 1)) ] && [ "$errors" = 0 ] ||
		{ fail "$drawn of $((${#pages[@]} - 1)) pages drawn, $errors console errors: $(head -3 "$TMP/errors")"; return; }
	python3 "$RCHECK" console "$TMP/index.png.log" 2>/dev/null | grep -q ' 1 errors$' ||
		{ fail "the control page's error is not on the log: the log is not read right"; return; }
	out=$(python3 "$RCHECK" requests "$TMP/index.png.net.json")
	[ "$out" = "http://127.0.0.1:9/control" ] ||
		{ fail "requests by the pages: '$out' (expected the control page's only)"; return; }
	pass "$drawn pages drawn, no console error, no request but the control's; 1000 groups $(stat -c %s "$TMP/p-1000-groups.html") bytes, 600 intervals $(stat -c %s "$TMP/p-600-intervals.html") bytes"
}

test_report_func_table() {
	local rc out
	"$KDIST" func "u:$WL/calltree:*" -o json -- "$WL/calltree" 3 >"$TMP/func.json" 2>"$TMP/err" &&
		"$KDIST" report "$TMP/func.json" -o html >"$TMP/func.html" 2>>"$TMP/err" ||
		{ fail "func: $(cat "$TMP/err")"; return; }
	python3 "$RCHECK" same "$TMP/func.html" "$TMP/func.json" >/dev/null ||
		{ fail "the page's data differs from the JSON"; return; }
	page_shot "$TMP/func.html" "$TMP/func.png" 1200,700; rc=$?
	[ $rc = 2 ] && { skip "no chromium"; return; }
	[ $rc = 0 ] || { fail "no screenshot"; return; }
	grep -q 'kdist: page drawn' "$TMP/func.png.log" || { fail "the page was not drawn"; return; }
	docs_shot "$TMP/func.png" report-func.png
	# the filter from the link, the rows in order of total: outer holds
	# middle, middle holds leaf, so outer > middle > leaf
	SHOT_OUT=$TMP/func.dom svg_shot "$TMP/func.html#filter=%2F%3A(outer%7Cmiddle%7Cleaf)%24%2F" \
		"$TMP/func-f.png" 1200,700 --dump-dom
	out=$(python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
rows = re.findall(r"<tr class=\"row\"( style=\"display: none;\")?><td class=\"label\"[^>]*>([^<]*)<", dom)
print(" ".join(r[1].split(":")[-1] for r in rows if not r[0]), "|", len(rows))' "$TMP/func.dom")
	[ "${out% |*}" = "outer middle leaf" ] && [ "${out#*| }" -ge 4 ] ||
		{ fail "filtered func table shows '$out' (expected outer middle leaf | all rows)"; return; }
	pass "func table of calltree 3 drawn, data equal to the JSON; filtered by the link: $out rows"
}

# The badges under the title: a loss is red, an END without its START (the
# workload's execve returning, seen without its entry) is not a loss and
# is not red (docs/json.md, loss counters).
test_report_unmatched_badge_not_a_loss() {
	local rc out
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit -o json -- "$WL/sleeper" 2 1 \
		>"$TMP/um.json" 2>"$TMP/err" &&
		"$KDIST" report "$TMP/um.json" -o html >"$TMP/um.html" 2>>"$TMP/err" ||
		{ fail "$(cat "$TMP/err")"; return; }
	[ "$(json "$TMP/um.json" 'd["unmatched"]["end_without_start"] > 0 and d["lost"] == 0')" = True ] ||
		{ fail "no end_without_start without a loss: $(json "$TMP/um.json" 'd["drops"]')"; return; }
	SHOT_OUT=$TMP/um.dom svg_shot "$TMP/um.html" "$TMP/um.png" 1200,700 --dump-dom; rc=$?
	[ $rc = 2 ] && { skip "no chromium"; return; }
	[ $rc = 0 ] || { fail "no screenshot"; return; }
	out=$(grep -o '<span class="drop[a-z ]*">[a-z_]* [0-9]*</span>' "$TMP/um.dom" | sed 's/<span class="//; s/<\/span>//; s/">/: /')
	grep -qx 'drop quiet: end_without_start [1-9][0-9]*' <<<"$out" && grep -qx 'drop: lost 0' <<<"$out" &&
		! grep -q 'bad' <<<"$out" || { fail "badges: $out"; return; }
	pass "$(grep -c . <<<"$out") badges, end_without_start quiet, none red"
}

test_report_terminal_heatmap() {
	local out
	two_bands --heatmap >"$TMP/heat.txt" 2>"$TMP/err" || { fail "pair --heatmap: $(cat "$TMP/err")"; return; }
	# the last map has a row per interval; its counts add up to every sleep
	out=$(awk '/^heatmap:/ { n = 0; rows = 0 } /^ +[0-9]+ \|.*\| [0-9]+$/ { n += $NF; rows++ } END { print rows, n }' "$TMP/heat.txt")
	read -r rows n <<<"$out"
	[ "$n" = 330 ] && [ "$rows" -ge 3 ] || { fail "last map: $rows rows, $n values (330)"; return; }
	# a map with every interval's row, printed in each interval that had
	# events; a loaded machine may let a 0.1 s interval pass with none
	local maps empty
	maps=$(grep -c '^heatmap:' "$TMP/heat.txt")
	empty=$(grep -c '^no events' "$TMP/heat.txt")
	[ $((maps + empty)) = "$rows" ] ||
		{ fail "$maps maps printed and $empty intervals without events for $rows intervals"; return; }
	pass "$rows intervals, the last map counts all $n sleeps"
}

test_report_bad_input() {
	local bad=0 rc
	echo '{"schema":"other"}' >"$TMP/other.json"
	head -c 100 "$TOP/tests/host/diff/pair.json" >"$TMP/cut.json"
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		"$KDIST" $args >"$TMP/out" 2>"$TMP/err"; rc=$?
		if [ $rc = 0 ] || [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -qe "$want" "$TMP/err"; then
			echo "kdist $args: exit $rc, said '$(cat "$TMP/err")'"
			bad=$((bad + 1))
		fi
	done <<EOF2
report|bad arguments
report $TMP/missing.json|failed to read
report $TMP/other.json|not a kdist.measurement
report $TMP/cut.json|line 1
report $TMP/other.json -o jsn|bad output format
pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --heatmap|--heatmap is for
pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep -i 1 --heatmap -o json|--heatmap is for
EOF2
	[ $bad = 0 ] || { fail "$bad bad inputs not refused in one line"; return; }
	pass "7 bad inputs refused with one line each"
}

# kdist report FILE -o json|text: a saved pair run read back into the model
# and written again.  Truth: the sleeper's 50 sleeps; the JSON read gives
# back the same groups, counts, buckets and stats; the text view's
# histogram rows are the buckets folded by power of two (--unit ns: rows on
# bucket edges, so exact) and its stats line is the JSON's numbers.
test_report_round_trip_json_and_text() {
	"$KDIST" "${NS_PAIR[@]}" --by comm -o json -c "$WL/sleeper 50 1" >"$TMP/rt.json" 2>"$TMP/err" ||
		{ fail "pair: $(cat "$TMP/err")"; return; }
	"$KDIST" report "$TMP/rt.json" -o json >"$TMP/rt2.json" 2>"$TMP/err" ||
		{ fail "report -o json: exit $?: $(cat "$TMP/err")"; return; }
	"$KDIST" report "$TMP/rt.json" -o text --unit ns >"$TMP/rt.txt" 2>"$TMP/err" ||
		{ fail "report -o text: exit $?: $(cat "$TMP/err")"; return; }
	python3 - "$TMP/rt.json" "$TMP/rt2.json" "$TMP/rt.txt" <<'PY' || { fail "$(tail -3 "$TMP/py.err")"; return; }
import json, re, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
sl = [g for g in a["groups"] if g["by"]["comm"] == "sleeper"]
assert len(sl) == 1 and sl[0]["count"] == 50, "sleeper's group: %s" % sl
keys = ("by", "values", "count", "sum", "min", "max", "mean", "stddev", "p50", "p90", "p99", "p999", "buckets")
for k in ("command", "kind", "unit", "title", "kernel", "key", "by", "events", "lost", "drops", "duration_s", "groups_total"):
    assert a[k] == b[k], "%s: %r then %r" % (k, a[k], b[k])
assert [[g.get(k) for k in keys] for g in a["groups"]] == [[g.get(k) for k in keys] for g in b["groups"]], "groups differ"
def t(ns):
    u = next((u for u, d in (("s", 1e9), ("ms", 1e6), ("us", 1e3)) if ns >= d), "ns")
    d = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[u]
    return "%.4g%s" % (ns / d, u)
blocks = text.split("\ncomm = ")[1:]
assert len(blocks) == len(a["groups"]), "%d groups in the text" % len(blocks)
for g, blk in zip(a["groups"], blocks):
    rows = {}
    for lo, hi, c in g["buckets"]:
        j = max(lo.bit_length() - 1, 0)
        rows[j] = rows.get(j, 0) + c
    got = {int(lo).bit_length() - 1 if int(lo) else 0: int(c) for lo, c in
           re.findall(r"^\s*(\d+) -> \d+\s*: (\d+)", blk, re.M) if int(c)}
    assert got == rows, "%s: rows %s, buckets give %s" % (g["by"], got, rows)
    stats = "count %d  mean %s  stddev %s  min %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s" % (
        g["count"], t(g["mean"]), t(g["stddev"]), t(g["min"]), t(g["p50"]), t(g["p90"]),
        t(g["p99"]), t(g["p999"]), t(g["max"]))
    assert stats in blk, "%s: no '%s' in\n%s" % (g["by"], stats, blk)
PY
	pass "sleeper's 50 sleeps; $(json "$TMP/rt.json" 'len(d["groups"])') groups: JSON the same read back, text rows and stats the JSON's"
}

# Every view of a saved measurement; -o svg of one without stacks, and a
# comparison in any view but the page, refused in one line.
test_report_views_of_a_saved_measurement() {
	local p=$TOP/tests/host/diff/pair.json f rc bad=0
	for f in text json csv markdown html; do
		"$KDIST" report "$p" -o "$f" >"$TMP/v.$f" 2>"$TMP/err" && [ -s "$TMP/v.$f" ] ||
			{ echo "  -o $f: exit $?, $(cat "$TMP/err")"; bad=$((bad + 1)); }
	done
	grep -q '^0,ns,285,' "$TMP/v.csv" || { echo "  csv: $(cat "$TMP/v.csv")"; bad=$((bad + 1)); }
	grep -q '^| 285 |' "$TMP/v.markdown" && grep -q 'unmatched 2 (end\\_without\\_start 2)' "$TMP/v.markdown" ||
		{ echo "  markdown: $(cat "$TMP/v.markdown")"; bad=$((bad + 1)); }
	grep -q '^count 285 ' "$TMP/v.text" || { echo "  text: no count 285"; bad=$((bad + 1)); }
	"$KDIST" diff "$p" "$p" -o json >"$TMP/cmp.json" 2>/dev/null
	"$KDIST" report "$TMP/cmp.json" -o text >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] ||
		{ echo "  a comparison -o text: exit $rc, $(cat "$TMP/err")"; bad=$((bad + 1)); }
	[ $bad = 0 ] && pass "text, json, csv, markdown, html of pair.json (285 values); a comparison only as a page" ||
		fail "$bad wrong"
}
