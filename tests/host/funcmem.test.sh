# kdist func's bucket pool (--max-buckets) and the map memory it reports:
# a call whose bucket page the pool cannot give is counted as buckets_full,
# never lost silently, and the pool's size shows in cost.map_bytes.
# shellcheck shell=bash

FUNCMEM_N=20	# calltree iterations: outer N, middle 2N, leaf 6N, recurse 5N, spin_us 5N

# funcmem_run NAME ARGS...: calltree's five functions traced as JSON in $TMP/NAME.json
funcmem_run() {
	local name=$1 fn pats=()
	shift
	for fn in outer middle leaf recurse spin_us; do
		pats+=("u:$WL/calltree:$fn")
	done
	"$KDIST" func "${pats[@]}" -o json "$@" -- "$WL/calltree" $FUNCMEM_N \
		>"$TMP/$name.json" 2>"$TMP/$name.err" || { cat "$TMP/$name.err"; return 1; }
}

# One page of 16 buckets per CPU cannot hold five functions whose times
# span 0.2 ms to 10 ms: some calls find no page.  Every call is either in
# its function's count or in buckets_full, exactly; no function gets more
# calls than it made; nothing else is lost.
test_funcmem_buckets_full_counted() {
	local f=$TMP/fm-small.json n=$FUNCMEM_N got full want=$((19 * FUNCMEM_N)) other
	funcmem_run fm-small --max-buckets 16 || { fail "kdist func --max-buckets 16 failed"; return; }
	got=$(json "$f" "sum(g['count'] for g in d['groups'])")
	full=$(json "$f" "d['drops'].get('buckets_full', 0)")
	other=$(json "$f" "sum(v for k, v in d['drops'].items() if k != 'buckets_full')")
	[ "$full" -gt 0 ] || { fail "no buckets_full with one page per CPU ($got calls recorded)"; return; }
	[ $((got + full)) = "$want" ] ||
		{ fail "$got recorded + $full buckets_full != $want calls"; return; }
	[ "$other" = 0 ] || { fail "other losses: $(json "$f" "d['drops']")"; return; }
	for c in outer:$n middle:$((2 * n)) leaf:$((6 * n)) recurse:$((5 * n)) spin_us:$((5 * n)); do
		local g
		g=$(json "$f" "sum(g['count'] for g in d['groups'] if g['by']['function'] == 'calltree:${c%%:*}')")
		[ "$g" -le "${c#*:}" ] || { fail "${c%%:*}: $g calls recorded, it made ${c#*:}"; return; }
	done
	pass "$got calls recorded + $full buckets_full = $want calls made"
}

# The pool is allocated at load: 1,000 pages more per CPU are at least
# 1,000 x 128 bytes x CPUs more in the kernel's account of the maps.
test_funcmem_map_bytes() {
	local small big cpus diff
	funcmem_run fm-mem1 --max-buckets 16 || { fail "kdist func failed"; return; }
	funcmem_run fm-mem2 --max-buckets 16016 || { fail "kdist func failed"; return; }
	small=$(json "$TMP/fm-mem1.json" "d['cost']['map_bytes']")
	big=$(json "$TMP/fm-mem2.json" "d['cost']['map_bytes']")
	cpus=$(nproc --all)	# present CPUs: no more than the kernel allocates for
	diff=$((big - small))
	[ "$small" -gt 0 ] || { fail "no map_bytes in the JSON cost"; return; }
	[ "$diff" -ge $((1000 * 128 * cpus)) ] ||
		{ fail "map_bytes $small -> $big: +$diff < 1000 pages x 128 B x $cpus CPUs"; return; }
	[ "$(json "$TMP/fm-mem2.json" "d['drops'].get('buckets_full', 0)")" = 0 ] ||
		{ fail "buckets_full with 1,001 pages per CPU"; return; }
	pass "map_bytes $small with 1 page per CPU, $big with 1,001 (+$diff >= $((1000 * 128 * cpus)))"
}
