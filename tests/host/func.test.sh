# kdist func on the host: user functions of a known call tree (uprobes), the
# errors for kernel patterns on a kernel without kprobes and for patterns
# that match nothing, exclusions, views.
# shellcheck shell=bash

FUNC_N=20	# calltree iterations: outer N, middle 2N, leaf 6N, recurse 5N

# One traced calltree run as JSON, shared by the tests below.
func_calltree_json() {
	if [ ! -s "$TMP/func-calltree.json" ]; then
		KDIST_WL_TIMES=$TMP/func-calltree.times \
			"$KDIST" func "u:$WL/calltree:*" -o json -- "$WL/calltree" $FUNC_N \
			>"$TMP/func-calltree.json" 2>"$TMP/func-calltree.err" ||
			{ cat "$TMP/func-calltree.err"; rm -f "$TMP/func-calltree.json"; return 1; }
	fi
	echo "$TMP/func-calltree.json"
}

# fval FILE FUNCTION FIELD: a field of one function's group
fval() {
	json "$1" "[g['$3'] for g in d['groups'] if g['by']['function'] == 'calltree:$2'][0]"
}

test_func_calltree_counts() {
	local f got want n=$FUNC_N
	f=$(func_calltree_json) || { fail "kdist func failed"; return; }
	for want in outer:$n middle:$((2 * n)) leaf:$((6 * n)) recurse:$((5 * n)) spin_us:$((5 * n)) main:1; do
		got=$(fval "$f" "${want%%:*}" count)
		[ "$got" = "${want#*:}" ] || { fail "${want%%:*}: $got calls, expected ${want#*:}"; return; }
	done
	[ "$(json "$f" "d['lost']")" = 0 ] || { fail "lost $(json "$f" "d['drops']")"; return; }
	pass "outer $n, middle $((2 * n)), leaf $((6 * n)), recurse $((5 * n)) calls, nothing lost"
}

# Self time plus the totals of the traced callees is the total, to the
# nanosecond: self is each call's inclusive time less its traced callees'
# (the probes' own cost lands in the caller's self time, on both sides).
# The leaf's 1 ms sleeps never end early, and each call lies inside the
# time its caller measured around it.
test_func_self_plus_callees() {
	local f o_t o_s m_t m_s l_t l_s r_t wl
	f=$(func_calltree_json) || { fail "kdist func failed"; return; }
	o_t=$(fval "$f" outer total); o_s=$(fval "$f" outer self)
	m_t=$(fval "$f" middle total); m_s=$(fval "$f" middle self)
	l_t=$(fval "$f" leaf total); l_s=$(fval "$f" leaf self)
	r_t=$(fval "$f" recurse total)
	wl=$(wl_times "$TMP/func-calltree.times" leaf 'sum(v)')
	[ $((o_s + m_t + r_t)) = "$o_t" ] ||
		{ fail "outer: self $o_s + middle $m_t + recurse $r_t != total $o_t"; return; }
	[ $((m_s + l_t)) = "$m_t" ] || { fail "middle: self $m_s + leaf $l_t != total $m_t"; return; }
	[ "$l_s" = "$l_t" ] || { fail "leaf has no traced callees: self $l_s != total $l_t"; return; }
	[ "$l_t" -ge $((FUNC_N * 6 * 1000000)) ] ||
		{ fail "leaf total $l_t ns < $((FUNC_N * 6)) sleeps of 1 ms"; return; }
	[ "$l_t" -le "$wl" ] || { fail "leaf total $l_t ns > $wl ns timed around the calls"; return; }
	pass "outer $o_t = $o_s + $m_t + $r_t ns, middle $m_t = $m_s + $l_t; leaf $l_t ns in $((FUNC_N * 6 * 1000000))..$wl"
}

# recurse(4..0): 5 activations per outer call, each spinning at least
# 0.2 ms.  The total counts outermost activations only (at least 1 ms per
# outer call, and no more than outer timed around recurse(4)); the
# histogram's sum counts every activation (at least 1 + 0.8 + ... + 0.2 =
# 3 ms per outer call, and no more than the callers timed around them all).
# Counted twice, the total would exceed what outer timed.
test_func_recursion() {
	local f r_t r_s r_sum s_t wl_outer wl_all t=$TMP/func-calltree.times
	f=$(func_calltree_json) || { fail "kdist func failed"; return; }
	r_t=$(fval "$f" recurse total); r_s=$(fval "$f" recurse self)
	r_sum=$(fval "$f" recurse sum); s_t=$(fval "$f" spin_us total)
	wl_outer=$(wl_times "$t" recurse_outer 'sum(v)')
	wl_all=$(wl_times "$t" recurse 'sum(v)')
	[ "$r_t" -ge $((FUNC_N * 1000000)) ] && [ "$r_t" -le "$wl_outer" ] ||
		{ fail "recurse total $r_t ns, expected $((FUNC_N * 1000000))..$wl_outer (double counted?)"; return; }
	[ $((r_s + s_t)) = "$r_t" ] || { fail "recurse: self $r_s + spin_us $s_t != total $r_t"; return; }
	[ "$r_sum" -ge $((FUNC_N * 3000000)) ] && [ "$r_sum" -le "$wl_all" ] ||
		{ fail "recurse: sum over activations $r_sum, expected $((FUNC_N * 3000000))..$wl_all"; return; }
	pass "recurse total $r_t ns once per recursion (<= $wl_outer), activations sum $r_sum (<= $wl_all)"
}

test_func_kernel_needs_kprobes() {
	local out rc
	if "$KDIST" probe | grep -Eq '^ +kprobes +yes'; then
		skip "this kernel has kprobes; kernel functions are tested in the VM tier"
		return
	fi
	out=$("$KDIST" func 'vfs_*' -d 1 2>&1); rc=$?
	[ $rc -ne 0 ] || { fail "exit 0"; return; }
	[ "$(echo "$out" | wc -l)" = 1 ] && grep -q "no kprobes" <<<"$out" ||
		{ fail "expected one line about kprobes, got: $out"; return; }
	# mixed with user functions: the same error, not a partial run
	"$KDIST" func 'vfs_*' "u:$WL/calltree:leaf" -d 1 >/dev/null 2>&1 &&
		{ fail "mixed kernel and user patterns exit 0"; return; }
	pass "$out"
}

test_func_no_match() {
	local out rc
	out=$("$KDIST" func "u:$WL/calltree:no_such_fn*" -d 1 2>&1); rc=$?
	[ $rc -ne 0 ] && grep -q "failed to find functions" <<<"$out" ||
		{ fail "rc $rc: $out"; return; }
	out=$("$KDIST" func "u:/no/such/binary:x" -d 1 2>&1); rc=$?
	[ $rc -ne 0 ] && grep -q "failed to find" <<<"$out" || { fail "rc $rc: $out"; return; }
	out=$("$KDIST" func "u:nopath" -d 1 2>&1); rc=$?
	[ $rc -ne 0 ] && grep -q "bad pattern" <<<"$out" || { fail "rc $rc: $out"; return; }
	pass "$(head -1 <<<"$out")"
}

test_func_exclusion() {
	local f=$TMP/func-excl.json n=5
	"$KDIST" func "u:$WL/calltree:*" '!leaf' '!spin_*' -o json -- "$WL/calltree" $n >"$f" 2>/dev/null ||
		{ fail "kdist func failed"; return; }
	[ "$(json "$f" "sorted(g['by']['function'] for g in d['groups'] if 'leaf' in g['by']['function'] or 'spin' in g['by']['function'])")" = "[]" ] ||
		{ fail "excluded functions present"; return; }
	[ "$(json "$f" "[g['count'] for g in d['groups'] if g['by']['function'] == 'calltree:middle'][0]")" = $((2 * n)) ] ||
		{ fail "middle not counted"; return; }
	# with leaf untraced, middle's sleeps are its own time
	[ "$(json "$f" "[g['self'] == g['total'] for g in d['groups'] if g['by']['function'] == 'calltree:middle'][0]")" = True ] ||
		{ fail "middle self != total without traced callees"; return; }
	pass "!leaf !spin_* excluded; middle self = total"
}

test_func_csv_and_text() {
	local out
	out=$("$KDIST" func "u:$WL/calltree:middle" "u:$WL/calltree:leaf" -o csv -- "$WL/calltree" 3 2>/dev/null) ||
		{ fail "csv run failed"; return; }
	[ "$(head -1 <<<"$out")" = "function,calls,total_us,self_us,avg_us" ] || { fail "header: $out"; return; }
	grep -Eq '^calltree:leaf,18,[0-9.]+,[0-9.]+,[0-9.]+$' <<<"$out" || { fail "no leaf row: $out"; return; }
	out=$("$KDIST" func "u:$WL/calltree:leaf" --hist -- "$WL/calltree" 3 2>/dev/null) ||
		{ fail "--hist run failed"; return; }
	# 18 calls; a busy machine stretches some sleeps into other rows
	grep -q "FUNCTION" <<<"$out" &&
		[ "$(awk '/^ +[0-9]+ -> [0-9]+ +: [0-9]+ / { n += $5 } END { print n + 0 }' <<<"$out")" = 18 ] ||
		{ fail "--hist: no table or no histogram rows summing to 18 calls: $out"; return; }
	pass "csv columns, --hist"
}

test_func_by_comm_tid() {
	local f=$TMP/func-by.json
	"$KDIST" func "u:$WL/calltree:outer" --by comm,tid -o json -- "$WL/calltree" 4 >"$f" 2>/dev/null ||
		{ fail "kdist func failed"; return; }
	[ "$(json "$f" "[(g['by']['comm'], g['count']) for g in d['groups']]")" = "[('calltree', 4)]" ] ||
		{ fail "groups: $(json "$f" "d['groups'][0]['by']")"; return; }
	[ "$(json "$f" "d['by']")" = "['function', 'comm', 'tid']" ] || { fail "by: $(json "$f" "d['by']")"; return; }
	pass "--by comm,tid: one group, calltree, 4 calls"
}

test_func_json_attach_fields() {
	local f
	f=$(func_calltree_json) || { fail "kdist func failed"; return; }
	[ "$(json "$f" "(d['kind'], d['events'][0]['attach'] in ('uprobe', 'uprobe.multi'), d['functions']['skipped'] >= 1, d['functions']['attached'] >= 6, d['functions']['attach_ms'] > 0)")" = "('func', True, True, True, True)" ] ||
		{ fail "$(json "$f" "(d['kind'], d['events'], d['functions'])")"; return; }
	pass "$(json "$f" "d['functions']")"
}

# Ctrl-C while attaching a large set: a prompt, clean exit, nothing left.
# Uprobes go into one sleeping process only (-p), not the whole system.
# With uprobe.multi the set is one link per side, attached before the
# signal is read: then the run ends with its measurement instead.
test_func_interrupt_attach() {
	local sp kp t0 t1 msg
	sleep 600 & sp=$!
	t0=$(date +%s%N)
	"$KDIST" func -v 'u:libc:*' -p $sp -d 30 >"$TMP/func-int.out" 2>&1 & kp=$!
	# at once: every attached uprobe costs ~0.1 s to detach on this kernel
	for _ in $(seq 1000); do grep -q "attaching" "$TMP/func-int.out" && break; sleep 0.005; done
	kill -INT $kp
	wait $kp
	t1=$(date +%s%N)
	kill $sp 2>/dev/null; wait $sp 2>/dev/null
	msg=$(grep -o "interrupted while attaching.*" "$TMP/func-int.out") ||
		msg=$(grep -o "functions attached with uprobe.multi.*" "$TMP/func-int.out") ||
		{ fail "no interruption message: $(cat "$TMP/func-int.out")"; return; }
	[ $((t1 - t0)) -lt 30000000000 ] || { fail "took $(((t1 - t0) / 1000000)) ms: $msg"; return; }
	no_leftovers || { fail "$(bpf_leftovers) programs or probes left"; return; }
	pass "$msg; exited $(((t1 - t0) / 1000000)) ms after start"
}

test_func_no_leftovers() {
	func_calltree_json >/dev/null || { fail "kdist func failed"; return; }
	no_leftovers && pass || fail "$(bpf_leftovers) programs or probes left"
}
