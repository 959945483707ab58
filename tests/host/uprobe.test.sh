# Uprobes must not change what a traced program does: the libcmix workload
# (printf family, string functions, setjmp/longjmp, a signal, vfork, fork +
# exec, threads, exit paths) prints the same bytes and exits with the same
# status traced as untraced, with every function of libc or of itself
# probed.  libc is a private copy loaded through LD_LIBRARY_PATH: the same
# file contents and symbols as the system's, but only the workload maps it,
# so the probes touch no other process on the machine.
# shellcheck shell=bash

UPROBE_N=20

# uprobe_kmsg_since MARK: kernel log lines after MARK about uprobes or about
# a process of the workload killed by a fault
uprobe_kmsg_since() {
	dmesg | sed -n "/$1/,\$p" | tail -n +2 | grep -Ei 'uprobe|libcmix|general protection' || true
}

# uprobe_same NAME PATTERN LIBDIR: libcmix traced by func PATTERN against
# an untraced run; LIBDIR (or empty) goes to LD_LIBRARY_PATH.
uprobe_same() {
	local name=$1 pat=$2 lib=$3 mark rc want got k
	mark="kdist-test-mark-$name-$$-$RANDOM"
	LD_LIBRARY_PATH=$lib "$WL/libcmix" $UPROBE_N >"$TMP/$name.ref" 2>&1
	want=$?
	echo "$mark" >/dev/kmsg
	"$KDIST" func "$pat" -v -o json --output "$TMP/$name.json" \
		-c "LD_LIBRARY_PATH=$lib $WL/libcmix $UPROBE_N >$TMP/$name.out 2>&1; echo \$? >$TMP/$name.rc" \
		2>"$TMP/$name.err"
	rc=$?
	k=$(uprobe_kmsg_since "$mark")
	[ $rc = 0 ] || { fail "kdist exited $rc: $(tail -3 "$TMP/$name.err")"; return 1; }
	got=$(cat "$TMP/$name.rc")
	[ "$got" = "$want" ] || { fail "exit status $got traced, $want untraced"; return 1; }
	cmp -s "$TMP/$name.ref" "$TMP/$name.out" ||
		{ fail "output differs: $(diff "$TMP/$name.ref" "$TMP/$name.out" | head -5)"; return 1; }
	[ -z "$k" ] || { fail "kernel log: $k"; return 1; }
	return 0
}

# uprobe_count NAME FUNCTION: calls of one function in NAME's JSON
uprobe_count() {
	json "$TMP/$1.json" "sum(g['count'] for g in d['groups'] if g['by']['function'] == '$2')"
}

test_uprobe_libc_unchanged() {
	local lib=$TMP/uprobe-libc so q att
	so=$(ldd "$WL/libcmix" | awk '$1 ~ /^libc\.so/ {print $3}')
	[ -f "$so" ] || { skip "no libc found for libcmix"; return; }
	mkdir -p "$lib" && cp "$so" "$lib/" || { fail "cannot copy $so"; return; }
	uprobe_same libc "u:$lib/libc.so.6:*" "$lib" || return
	# the probes were on the copy the workload ran: one qsort call
	q=$(uprobe_count libc libc.so.6:qsort)
	[ "$q" = 1 ] || { fail "qsort: $q calls, expected 1"; return; }
	att=$(json "$TMP/libc.json" "(d['events'][0]['attach'], d['functions']['attached'], d['functions']['skipped'])")
	pass "same $(wc -c <"$TMP/libc.out") bytes and exit status $(cat "$TMP/libc.rc"), qsort 1 call; (attach, attached, skipped) = $att; no kernel messages"
}

test_uprobe_workload_unchanged() {
	local w f
	uprobe_same self "u:$WL/libcmix:*" "" || return
	# worker: 4 threads, one ends in pthread_exit and never returns
	w=$(uprobe_count self libcmix:worker)
	f=$(uprobe_count self libcmix:format)
	[ "$w" = 3 ] && [ "$f" = $UPROBE_N ] ||
		{ fail "worker $w returns (expected 3), format $f (expected $UPROBE_N)"; return; }
	pass "same output and exit status; worker 3 returns, format $f calls; no kernel messages"
}

# The functions a probe would break are skipped and named with -v.
test_uprobe_unsafe_named() {
	local e=$TMP/libc.err want miss=""
	[ -s "$e" ] || { skip "needs test_uprobe_libc_unchanged's run"; return; }
	for want in "__restore_rt.*no size" "__strchr_evex.*emulated by the kernel as a branch" \
		"__memset_evex_unaligned_erms.*as a branch" "dlsym.*return address" "_setjmp.*return address" "\.cold in .*entered by a jump"; do
		grep -q "skipping .*$want" "$e" || miss="$miss '$want'"
	done
	[ -z "$miss" ] || { fail "not named with -v:$miss"; return; }
	pass "$(grep -c '^kdist: skipping' "$e") functions skipped and named, e.g. $(grep -m1 'skipping __strchr_evex' "$e")"
}

test_uprobe_refuses_itself() {
	local out rc t0 t1
	t0=$(date +%s%N)
	out=$("$KDIST" func "u:$KDIST:*" -d 1 2>&1)
	rc=$?
	t1=$(date +%s%N)
	[ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && grep -q "kdist itself" <<<"$out" ||
		{ fail "rc $rc: $out"; return; }
	out=$("$KDIST" func "u:/proc/self/exe:main" -d 1 2>&1) && { fail "traced /proc/self/exe: $out"; return; }
	grep -q "kdist itself" <<<"$out" || { fail "$out"; return; }
	no_leftovers || { fail "$(bpf_leftovers) programs or probes left"; return; }
	pass "$out ($(((t1 - t0) / 1000000)) ms)"
}

# An ELF object of another machine (the aarch64 libc of the cross
# toolchain, or an arm64 build) takes probes nothing here runs into: refused
# in one line before anything is attached, not an empty measurement.
test_uprobe_foreign_machine() {
	local so out rc
	so=$(ls /usr/aarch64-linux-gnu/lib/libc.so.6 "$TOP"/build/arm64/tests/calltree 2>/dev/null | head -1)
	[ -n "$so" ] || { skip "no aarch64 ELF (scripts/deps.sh arm64 installs one)"; return; }
	out=$("$KDIST" func "u:$so:*" -d 1 2>&1)
	rc=$?
	[ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && grep -q "Exec format error" <<<"$out" ||
		{ fail "func rc $rc: $out"; return; }
	out=$("$KDIST" pair "u:$so:malloc" "ur:$so:malloc" -d 1 2>&1)
	rc=$?
	[ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && grep -q "Exec format error" <<<"$out" ||
		{ fail "pair rc $rc: $out"; return; }
	no_leftovers || { fail "$(bpf_leftovers) programs or probes left"; return; }
	pass "$out"
}

# pair's u:/ur: events get the same check: one line, nothing attached.  On
# the private libc copy, so a missed refusal would touch no other process.
test_uprobe_unsafe_pair_refused() {
	local so=$TMP/uprobe-libc/libc.so.6 out rc
	[ -f "$so" ] || { skip "needs test_uprobe_libc_unchanged's libc copy"; return; }
	out=$("$KDIST" pair "u:$so:__strchr_evex" "ur:$so:__strchr_evex" -d 1 2>&1)
	rc=$?
	[ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && grep -q "refusing to probe.*as a branch" <<<"$out" ||
		{ fail "rc $rc: $out"; return; }
	out=$("$KDIST" pair "u:$so:_setjmp" "ur:$so:_setjmp" -d 1 2>&1) &&
		{ fail "ur:_setjmp accepted"; return; }
	grep -q "refusing to probe ur:.*return address" <<<"$out" || { fail "$out"; return; }
	no_leftovers || { fail "$(bpf_leftovers) programs or probes left"; return; }
	pass "$out"
}
