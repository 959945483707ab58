# Fields the kernel's types reach: __data_loc texts of tracepoint records,
# paths through the typed arguments of raw tracepoints (BTF), against
# workloads whose exec and exit counts are known, and bpftrace on the same
# stream.
# shellcheck shell=bash

# typed_group JSON NAME VALUE: the count of the group whose component NAME
# is VALUE (0 when there is none)
typed_group() {
	json "$1" "sum(g['count'] for g in d['groups'] if g['by'].get('$2') == '$3')"
}

# typed_drop JSON NAME: a loss counter of JSON
typed_drop() {
	json "$1" "d['drops'].get('$2', 'absent')"
}

# typed_loop N PROG: a shell that runs PROG N times, one after the other
typed_loop() {
	echo "for i in \$(seq $1); do $2; done"
}

test_typed_data_loc_by_and_if() {
	# sched_process_exec's filename is a __data_loc char[]: 37 execs of
	# /bin/true, and only they, pass the --if
	"$KDIST" count sched:sched_process_exec --by filename --if 'filename == "/bin/true"' \
		-o json -- sh -c "$(typed_loop 37 /bin/true)" >"$TMP/dl.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local n all cut
	n=$(typed_group "$TMP/dl.json" filename /bin/true)
	all=$(json "$TMP/dl.json" "sum(g['count'] for g in d['groups'])")
	cut=$(typed_drop "$TMP/dl.json" text_cut)
	[ "$n" = 37 ] && [ "$all" = 37 ] && [ "$cut" = 0 ] ||
		{ fail "filename /bin/true $n of $all execs (text_cut $cut), expected 37 of 37"; return; }
	pass "37 execs of /bin/true grouped and kept by their __data_loc filename"
}

test_typed_data_loc_cut_counted() {
	# a file name longer than a group key's 15 characters: grouped by its
	# first 15, each cut counted, and an --if with the whole name, which
	# the cut text cannot equal, keeps none
	local long=$TMP/a-long-name-for-true
	ln -sf /bin/true "$long"
	"$KDIST" count sched:sched_process_exec --by filename -o json -- \
		sh -c "$(typed_loop 11 "$long")" >"$TMP/cut.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local n cut
	n=$(typed_group "$TMP/cut.json" filename "${long:0:15}")
	cut=$(typed_drop "$TMP/cut.json" text_cut)
	[ "$n" = 11 ] && [ "$cut" = 11 ] ||
		{ fail "${long:0:15}: $n execs, text_cut $cut, expected 11 and 11: $(json "$TMP/cut.json" "d['groups']")"; return; }
	"$KDIST" count sched:sched_process_exec --if "filename == \"${long:0:15}\"" -o json -- \
		sh -c "$(typed_loop 11 "$long")" >"$TMP/cut2.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/cut2.json" "sum(g['count'] for g in d['groups'])")
	[ "$n" = 0 ] || { fail "== its first 15 characters kept $n of 11 longer names"; return; }
	pass "11 file names cut to 15 characters, each counted; a cut text equals no text compared"
}

test_typed_path_by_and_if_exit() {
	# sched_process_exit(struct task_struct *p, bool group_dead): p->comm
	"$KDIST" count sched:sched_process_exit --by 'p->comm,group_dead' -o json -- \
		sh -c "$(typed_loop 23 /bin/true)" >"$TMP/ex.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local n attach
	n=$(json "$TMP/ex.json" "sum(g['count'] for g in d['groups'] if g['by']['p->comm'] == 'true' and g['by']['group_dead'] == '1')")
	attach=$(json "$TMP/ex.json" 'd["events"][0]["attach"]')
	[ "$n" = 23 ] && [ "$attach" = raw_tracepoint ] ||
		{ fail "p->comm true, group_dead 1: $n exits ($attach), expected 23 (raw_tracepoint): $(json "$TMP/ex.json" "d['groups']")"; return; }
	"$KDIST" count sched:sched_process_exit --if 'p->comm == "true" && p->pid > 0' -o json -- \
		sh -c "$(typed_loop 19 /bin/true)" >"$TMP/ex2.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/ex2.json" "sum(g['count'] for g in d['groups'])")
	[ "$n" = 19 ] || { fail "--if p->comm == \"true\": $n exits, expected 19"; return; }
	pass "23 exits by p->comm and group_dead, 19 kept by --if on p->comm and p->pid, from raw arguments"
}

test_typed_path_keys_text_and_number() {
	# exec to exit of each /bin/true: matched by p->pid (a number through
	# a pointer), and again by p->comm (a text, matched by its hash)
	local key n un
	for key in 'p->pid' 'p->comm'; do
		"$KDIST" pair sched:sched_process_exec sched:sched_process_exit --key "$key" \
			--if 'p->comm == "true"' -o json -- sh -c "$(typed_loop 17 /bin/true)" \
			>"$TMP/key.json" 2>"$TMP/err" || { fail "$key: exit $?: $(cat "$TMP/err")"; return; }
		n=$(json "$TMP/key.json" "sum(g['count'] for g in d['groups'])")
		un=$(json "$TMP/key.json" "d['drops']['start_replaced']")
		[ "$n" = 17 ] && [ "$un" = 0 ] ||
			{ fail "--key $key: $n pairs, $un starts replaced, expected 17 and 0"; return; }
	done
	pass "17 exec->exit pairs matched by p->pid and by p->comm"
}

# typed_peer COMM N KDIST-ARGS...: N sleeps of 2 ms by a copy of sleeper
# named COMM, while kdist (JSON in $TMP/peer.json) and bpftrace count the
# switches out of it, bpftrace by prev_comm, the record field the kernel
# copies from prev->comm at the same event (this bpftrace has no raw
# tracepoint arguments); sets BC, bpftrace's count
typed_peer() {
	local comm=$1 n=$2
	shift 2
	cp "$WL/sleeper" "$TMP/$comm"
	peer_trace "$TMP/peer.json" "$TMP/peer.bt" \
		"tracepoint:sched:sched_switch /args->prev_comm == \"$comm\"/ { @n = count(); }" \
		"$TMP/$comm $n 2" "$@" || { fail "peer run failed: $(cat "$TMP/peer.json.err")"; return 1; }
	BC=$(bt_val "$TMP/peer.bt" n)
}

test_typed_path_peer_bpftrace() {
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	# prev->comm read through the raw tracepoint's argument
	local comm=kdxpath$$ kc
	typed_peer $comm 60 count sched:sched_switch --if "prev->comm == \"$comm\"" || return
	kc=$(json "$TMP/peer.json" "sum(g['count'] for g in d['groups'])")
	[ "$kc" -ge 60 ] && peer_agrees "$kc" "$BC" "$TMP/peer.bt" ||
		{ fail "prev->comm == $comm: kdist $kc, bpftrace $BC with $(cat "$TMP/peer.bt.misses") of its runs skipped (at least 60 sleeps)"; return; }
	pass "switches out of $comm by prev->comm: kdist $kc, bpftrace $BC with $(cat "$TMP/peer.bt.misses") of its runs skipped"
}

test_typed_path_refused_before_loading() {
	# one line naming the member and the type it was looked up in, exit 2
	local spec want out rc
	while IFS='|' read -r spec want; do
		out=$("$KDIST" pair sched:sched_switch sched:sched_switch --by "$spec" -d 1 2>&1)
		rc=$?
		[ "$rc" = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == *"$want"* ]] ||
			{ fail "--by '$spec': exit $rc, '$out', expected 2 and '$want'"; return; }
	done <<'EOF'
prev->comx|bad field 'prev->comx' of sched:sched_switch: struct task_struct has no member 'comx'
prevv->comm|no argument 'prevv' (its arguments: preempt, prev, next, prev_state)
prev.comm|'.comm' on struct task_struct *, a pointer (use '->')
prev->comm->x|'->x' on char[16], not a pointer (use '.')
prev->mm->owner->mm->owner->mm->pgd|more than 4 pointers to follow
prev->se|struct sched_entity is not a number, text or pointer: name a member
prev_state->x|'->x' on unsigned int, not a pointer (use '.')
EOF
	no_leftovers || { fail "programs left behind"; return; }
	pass "7 bad paths refused in one line each, nothing loaded"
}

# A|B: the first alternative this kernel's types resolve (the bio recipe's
# disk is rq->q->disk on new kernels, rq->rq_disk on 5.10)
test_typed_alternatives_first_that_resolves() {
	local spec='prev->no_such|prev->comm' n out rc
	"$KDIST" count sched:sched_switch --by "$spec" -o json -c "$WL/sleeper 20 2" \
		>"$TMP/alt.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	n=$(json "$TMP/alt.json" "sum(g['count'] for g in d['groups'] if g['by']['$spec'] == 'sleeper')")
	[ "$n" -ge 20 ] || { fail "$n switches away from sleeper for 20 sleeps: $(json "$TMP/alt.json" "d['groups']")"; return; }
	out=$("$KDIST" count sched:sched_switch --by 'prev->no_such|prev->comx' -d 1 2>&1)
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == *"struct task_struct has no member 'comx'"* ]] ||
		{ fail "none resolving: exit $rc, '$out', expected 2 and the last one's error"; return; }
	no_leftovers || { fail "programs left behind"; return; }
	pass "'$spec' grouped by comm: $n switches away from sleeper (>= 20); none resolving: '$out'"
}

test_typed_pointer_hex_and_null_counted() {
	# prev->mm: a pointer, printed in hex; kernel threads have none, and
	# reading through it (prev->mm->owner) meets NULL, counted per event;
	# each is in the group 0x0, beside the switches of a task whose mm has
	# no owner left (it exits: mm_update_next_owner found no other)
	"$KDIST" count sched:sched_switch --by 'prev->mm' -d 1 -o json >"$TMP/mm.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	local hex nulls
	hex=$(json "$TMP/mm.json" "all(g['by']['prev->mm'].startswith('0x') for g in d['groups'])")
	[ "$hex" = True ] || { fail "prev->mm not hex: $(json "$TMP/mm.json" "d['groups'][:3]")"; return; }
	"$KDIST" count sched:sched_switch --by 'prev->mm->owner' -d 1 -o json >"$TMP/mo.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	nulls=$(typed_drop "$TMP/mo.json" path_null)
	local zero
	zero=$(typed_group "$TMP/mo.json" 'prev->mm->owner' 0x0)
	[ "$nulls" -gt 0 ] && [ "$nulls" -le "$zero" ] ||
		{ fail "path_null $nulls, group 0x0 $zero: kernel threads switch out every second"; return; }
	pass "pointers in hex; $nulls switches of kernel threads (prev->mm NULL) counted as path_null, in the $zero of group 0x0"
}

# typed_switches FIELDS: kdist trace of the switches away from a workload
# of 5 sleeps of 20 ms with --fields FIELDS, into $TMP/sw.json; 1 after
# failing the test when kdist fails
typed_switches() {
	"$KDIST" trace sched:sched_switch --fields "$1" -o json -- "$WL/sleeper" 5 20 \
		>"$TMP/sw.json" 2>"$TMP/err" || { fail "exit $?: $(cat "$TMP/err")"; return 1; }
}

# typed_lines EXPR: EXPR (Python, on ev, the lines of typed_switches, and
# d, its measurement)
typed_lines() {
	json "$TMP/sw.json" "(lambda ev: $1)([x for x in docs if isinstance(x, dict) and x.get('event') == 'sched:sched_switch'])"
}

# trace --fields through the raw tracepoint's arguments: at each switch away
# from a workload of 5 sleeps, prev is the current task (prev->pid is the
# line's tid, prev->comm its comm), and at least 5 of them are sleeps
# (prev_state, the argument, has TASK_INTERRUPTIBLE); prev_state is also a
# record field, but beside paths it is the argument.
test_typed_trace_fields_paths() {
	local msg
	typed_switches 'prev->pid,prev->comm,next->comm,prev_state' || return
	msg=$(typed_lines "
'ok %d' % sum(1 for e in ev if e['prev_state'] & 1 and e['comm'] == 'sleeper')
 if ev and all(e['prev->pid'] == e['tid'] and e['prev->comm'] == e['comm'] for e in ev)
 and d['events'][0]['attach'] == 'raw_tracepoint' else 'bad: %s' % ev[:2]")
	[ "${msg%% *}" = ok ] && [ "${msg#ok }" -ge 5 ] || { fail "$msg"; return; }
	pass "each switch away from the workload: prev->pid = tid, prev->comm = comm; ${msg#ok } sleeps (>= 5), on the raw tracepoint"
}

# A NULL on the way (prev->pi_blocked_on: no rt_mutex waited on) omits the
# field from the line and is counted, once per line.
test_typed_trace_null_counted() {
	local msg
	typed_switches 'prev->pid,prev->pi_blocked_on->task' || return
	msg=$(typed_lines "
'ok' if len(ev) >= 5 and d['drops']['path_null'] == len(ev) and d['drops']['output_dropped'] == 0
 and not any('prev->pi_blocked_on->task' in e for e in ev) else '%d lines, drops %s' % (len(ev), d['drops'])")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "prev->pi_blocked_on->task: NULL at every switch, each line without it, path_null = lines"
}

# --if on a text through a path, against bpftrace on the same stream
# (its prev_comm, the record field the kernel copies from prev->comm).
test_typed_trace_if_path_peer_bpftrace() {
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	local comm=kdxtr$$ kc lines
	typed_peer $comm 40 trace sched:sched_switch --fields 'prev->comm,next->pid' --if "prev->comm == '$comm'" ||
		return
	kc=$(json "$TMP/peer.json" "d['groups'][0]['count'] if d['groups'] else 0")
	lines=$(json "$TMP/peer.json" "sum(1 for x in docs if x.get('prev->comm') == '$comm')")
	[ "$kc" -ge 40 ] && [ "$lines" = "$kc" ] && peer_agrees "$kc" "$BC" "$TMP/peer.bt" ||
		{ fail "prev->comm == $comm: kdist $kc ($lines lines), bpftrace $BC with $(cat "$TMP/peer.bt.misses") of its runs skipped (at least 40 sleeps)"; return; }
	pass "switches out of $comm: kdist $kc lines, bpftrace $BC with $(cat "$TMP/peer.bt.misses") of its runs skipped"
}
