#!/bin/sh
# The arm64 VM's tests (tests/vm/run.sh runs them under Debian's arm64
# kernels).  The guest cannot run this machine's x86 bash and python3, so
# this is busybox sh and awk on kdist's CSV; kdist and the workloads are the
# arm64 build (make ARCH=arm64).  Each case asserts exact counts of the
# workload's own events, latencies against its sleeps, and what only an
# arm64 build has to get right: syscall names from arm64's numbers,
# arguments and return values from arm64 registers (x0-x7), the uprobe
# rules on an arm64 libc.  With KDIST_MATRIX_OUT, each case appends its
# line as tests/matrix.sh's cases do.  Ends with "N passed, N failed, N skipped".
KDIST=${KDIST:-$PWD/build/arm64/kdist}
WL=$(dirname "$KDIST")/tests
TMP=$(mktemp -d)
p=0 f=0 s=0
CASE=
export KDIST_MATRIX_OUT=${KDIST_MATRIX_OUT:-${KDIST_VM_OUT:+$KDIST_VM_OUT/$KDIST_VM_FLAVOR.tsv}}
[ -n "$KDIST_MATRIX_OUT" ] && printf '#kernel\t%s\t%s\n' "$(uname -r)" "$KDIST_VM_FLAVOR" >"$KDIST_MATRIX_OUT"

pass() { echo "PASS $CASE: $1"; p=$((p + 1)); rec pass "$1"; }
fail() { echo "FAIL $CASE: $1"; f=$((f + 1)); rec fail "$1"; }
skip() { echo "SKIP $CASE: $1"; s=$((s + 1)); rec skip "$1"; }
# rec RESULT DETAIL: CASE COMMAND RESULT ATTACH DETAIL, as tests/matrix.sh
rec() {
	[ -n "${KDIST_MATRIX_OUT:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\n' "$CASE" "$CMD" "$1" "${ATTACH:--}" \
		"$(echo "$2" | tr '\t\n' '  ')" >>"$KDIST_MATRIX_OUT"
}
begin() { CASE=$1 CMD=$2 ATTACH=; }

# kd NAME ARGS...: kdist ARGS -o csv into $TMP/NAME.csv; its -v lines (the
# attach methods) into $TMP/NAME.err
kd() {
	kn=$1 kc=$2
	shift 2
	"$KDIST" "$kc" -o csv "$@" >"$TMP/$kn.csv" 2>"$TMP/$kn.err" && return 0
	fail "kdist $kc $*: $(tail -2 "$TMP/$kn.err")"
	return 1
}
# col NAME KEY COLUMN: COLUMN of the CSV row whose second field is KEY
col() {
	awk -F, -v k="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$2 == k { print $h[c]; exit }' "$TMP/$1.csv"
}
# row NAME K2 K3 COLUMN: COLUMN of the row whose 2nd and 3rd fields are K2, K3
row() {
	awk -F, -v a="$2" -v b="$3" -v c="$4" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$2 == a && $3 == b { print $h[c]; exit }' "$TMP/$1.csv"
}
# folded FILE REGEX: the summed counts of the folded stacks matching REGEX
folded() {
	awk -v re="$2" '{ n = $NF; sub(/ [0-9]+$/, ""); if ($0 ~ re) t += n } END { print t + 0 }' "$1"
}
# methods NAME...: the attach methods kdist -v reported in $TMP/NAME.err, as
# the matrix's table shows them (func: X; pair: START,END)
methods() {
	for m in "$@"; do
		sed -n 's/.* functions attached with \([a-z.]*\).*/func: \1/p' "$TMP/$m.err"
		sed -n 's/.* attached as \([a-z_.]*\)$/\1/p' "$TMP/$m.err" | paste -sd, - | sed '/./s/^/pair: /'
	done | paste -sd';' - | sed 's/;/; /g'
}
# need FEATURE: kdist probe says yes, else a skip naming it
need() {
	line=$("$KDIST" probe 2>&1 | grep -E "^ +$1 +(yes|no)" | head -1)
	case $line in
	*" yes") return 0 ;;
	*) skip "no $1 on this kernel: ${line:-not reported by kdist probe}"; return 1 ;;
	esac
}

begin list_probe "list, probe"
out=$("$KDIST" probe 2>&1)
if ! "$KDIST" list sched:sched_switch 2>&1 | grep -qw next_pid; then
	fail "list sched:sched_switch shows no next_pid"
elif echo "$out" | grep -q "^kernel $(uname -r) aarch64$"; then
	ATTACH=$(echo "$out" | sed -n 's/^  k:FUNC, kr:FUNC *//p')
	pass "sched_switch fields listed; $(echo "$out" | head -1); k:/kr: $ATTACH"
else
	fail "$out"
fi

begin recipes_list "recipes"
out=$("$KDIST" recipes) || fail "kdist recipes failed"
missing=
for r in $("$KDIST" --help | sed -n 's/^recipes: //p' | tr -d ,); do
	echo "$out" | grep -q "^$r " || missing="$missing $r"
done
[ -z "$missing" ] && pass "every recipe of --help listed with its pair spec" || fail "not listed:$missing"

begin diff "diff"
if "$KDIST" syscalls -o json -- $WL/sleeper 10 1 >"$TMP/dA.json" 2>"$TMP/dA.err"; then
	if ! "$KDIST" diff "$TMP/dA.json" "$TMP/dA.json" --fail-on 'p50>+10%' >"$TMP/diff.txt" 2>&1; then
		fail "a measurement differs from itself: $(head -5 "$TMP/diff.txt")"
	elif grep -q nanosleep "$TMP/diff.txt"; then
		pass "a measurement compared with itself: no change"
	else
		fail "no nanosleep row: $(head -5 "$TMP/diff.txt")"
	fi
else
	fail "$(tail -2 "$TMP/dA.err")"
fi

# syscall numbers are arm64's: getppid is 173 there, 110 on x86
begin arm64_syscall_names "pair raw_syscalls (arm64 syscall names)"
ATTACH=raw_tracepoint
if kd sc pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by arg1:syscall -- $WL/syserr 1000 50; then
	n=$(col sc getppid count) c=$(col sc close count)
	if [ "$n" = 1000 ] && [ "${c:-0}" -ge 50 ]; then
		pass "getppid $n (1000), close $c (>= 50)"
	else
		fail "getppid ${n:-none} (1000), close ${c:-none} (>= 50): $(cat "$TMP/sc.csv")"
	fi
fi

begin pair_tracepoint "pair"
ATTACH=tracepoint
if kd ns pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --by comm -- $WL/sleeper 20 2; then
	n=$(col ns sleeper count) m=$(col ns sleeper min)
	if [ "$n" = 20 ] && [ "${m:-0}" -ge 2000000 ]; then
		pass "20 sleeps of 2 ms: $n, shortest $m ns"
	else
		fail "count ${n:-none} (20), min ${m:-none} (>= 2000000 ns)"
	fi
fi

# the workload's pipe reads: at least 500 vfs_read calls of dd
reads="head -c 1000 /dev/zero | dd of=/dev/null bs=1 count=500 2>/dev/null"
begin kernel_functions "func, pair k: kr:"
# (fentry where the kernel has it, kprobes where not: arm64 6.1)
if need kprobes && kd kf func vfs_read --by comm -v -- sh -c "$reads"; then
	# the busiest reader of the workload (sh, head, dd) is dd
	n=$(awk -F, '$1 == "vfs_read" && $2 > n { n = $2 } END { print n }' "$TMP/kf.csv")
	kd kp pair k:vfs_read kr:vfs_read --by comm -v -- sh -c "$reads" || n=
	ATTACH=$(methods kf kp)
	pn=$(col kp dd count)
	if [ "${n:-0}" -ge 500 ] && [ "${pn:-0}" -ge 500 ]; then
		pass "dd: $n vfs_read calls, $pn latencies (>= 500)"
	else
		fail "dd: ${n:-no} vfs_read calls, ${pn:-no} latencies (>= 500): $(head -3 "$TMP/kf.csv")"
	fi
fi

# return values from a kretprobe's registers (x0): close(-1) is -EBADF
begin arm64_kretprobe_retval "pair kprobe: kretprobe: (retval)"
ATTACH="kprobe,kretprobe"
if need kprobes && kd kr pair kprobe:__arm64_sys_close kretprobe:__arm64_sys_close --by comm \
	--if 'retval == -9' -- $WL/syserr 10 100; then
	n=$(col kr syserr count)
	if [ "$n" = 100 ]; then
		pass "100 close(-1) returning -EBADF: $n"
	else
		fail "${n:-no} close returning -9 (100): $(cat "$TMP/kr.csv")"
	fi
fi

# arguments and return values from a uprobe's registers: syscall(2)'s first
# argument (x0) at entry, its return value at return
begin arm64_uprobe_args "pair u: ur: (arg0, retval)"
ATTACH="uprobe,uretprobe"
if need uprobes && kd ua pair u:libc:syscall ur:libc:syscall --by arg0 -- $WL/syserr 10 7 &&
	kd ur pair u:libc:syscall ur:libc:syscall --by arg0 --if 'retval == -1' -- $WL/syserr 10 7; then
	g=$(col ua 0xad count) c=$(col ua 0x39 count) r=$(col ur 0x39 count) rg=$(col ur 0xad count)
	if [ "$g" = 10 ] && [ "$c" = 7 ] && [ "$r" = 7 ] && [ -z "$rg" ]; then
		pass "syscall(173 getppid) 10, syscall(57 close) 7, 7 of them returning -1"
	else
		fail "getppid ${g:-none} (10), close ${c:-none} (7), -1 ${r:-none} (7), getppid -1 ${rg:-none} (none)"
	fi
fi

# a known call tree through uprobes: per iteration outer 1, middle 2,
# leaf 6, recurse 5
begin user_functions "func u:, pair u: ur:"
if need uprobes && kd uf func "u:$WL/calltree:*" -v -- $WL/calltree 5; then
	got=$(for fn in outer middle leaf recurse; do
		awk -F, -v f="calltree:$fn" '$1 == f { printf "%s ", $2 }' "$TMP/uf.csv"; done)
	kd pu pair "u:$WL/calltree:leaf" "ur:$WL/calltree:leaf" -v -- $WL/calltree 3 || got=
	ATTACH=$(methods uf pu)
	n=$(awk -F, 'NR == 2 { print $3 }' "$TMP/pu.csv") lo=$(awk -F, 'NR == 2 { print $7 }' "$TMP/pu.csv")
	if [ "$got" = "5 10 30 25 " ] && [ "$n" = 18 ] && [ "${lo:-0}" -ge 1000000 ]; then
		pass "outer middle leaf recurse: $got; 18 leaf latencies: $n, shortest $lo ns (>= 1 ms)"
	else
		fail "outer middle leaf recurse: $got(5 10 30 25); leaf $n (18), shortest $lo: $(tail -2 "$TMP/uf.err")"
	fi
fi

# the arm64 uprobe rule: insnfirst's excl_first (ldaxr) and literal_first
# (ldr literal), which the kernel refuses to probe, are skipped and named by
# func and refused by pair, in one line; the rest of the set is measured
begin arm64_uprobe_rule "func u:, pair u: (arm64 refusals)"
ATTACH=uprobe
if need uprobes && kd rf func "u:$WL/insnfirst:*" -v -- $WL/insnfirst 20; then
	"$KDIST" pair "u:$WL/insnfirst:excl_first" "ur:$WL/insnfirst:excl_first" -d 1 \
		>"$TMP/rp.out" 2>&1
	rc=$?
	pl=$(awk -F, '$1 == "insnfirst:plain" { print $2 }' "$TMP/rf.csv")
	if grep -q 'skipping excl_first .*exclusive load' "$TMP/rf.err" &&
	   grep -q 'skipping literal_first .*PC-relative literal' "$TMP/rf.err" &&
	   [ "$pl" = 20 ] && [ $rc != 0 ] && [ "$(wc -l <"$TMP/rp.out")" = 1 ] &&
	   grep -q 'refusing to probe .*exclusive' "$TMP/rp.out"; then
		pass "plain 20 calls; $(grep -c '^kdist: skipping' "$TMP/rf.err") skipped, e.g. $(grep -m1 'skipping excl_first' "$TMP/rf.err"); pair: $(cat "$TMP/rp.out")"
	else
		fail "plain ${pl:-none} (20); pair exit $rc: $(cat "$TMP/rp.out"); $(grep skipping "$TMP/rf.err")"
	fi
fi

begin syscalls "syscalls"
ATTACH=raw_tracepoint
if kd scr syscalls -- $WL/syserr 100 7; then
	ok=$(row scr getppid ok count) bad=$(row scr close EBADF count)
	if [ "$ok" = 100 ] && [ "$bad" = 7 ]; then
		pass "getppid 100 ok, close(-1) 7 EBADF"
	else
		fail "getppid ok ${ok:-none} (100), close EBADF ${bad:-none} (7)"
	fi
fi

begin dist_count "dist, count"
ATTACH=tracepoint
dd="dd if=/dev/zero of=/dev/null bs=777 count=13 status=none"
if kd dc dist syscalls:sys_enter_write count -- sh -c "$dd" &&
	kd cn count syscalls:sys_enter_write -- sh -c "$dd"; then
	n=$(awk -F, 'NR == 2 { print $3 " " $7 " " $12 }' "$TMP/dc.csv") c=$(awk -F, 'NR == 2 { print $2 }' "$TMP/cn.csv")
	if [ "$n" = "13 777 777" ] && [ "$c" = 13 ]; then
		pass "13 writes of 777 bytes; counted 13"
	else
		fail "dist: count min max $n (13 777 777); count: $c (13)"
	fi
fi

begin runq "runq"
if kd rq runq --by comm -- $WL/sleeper 20 2; then
	n=$(col rq sleeper count)
	if [ "${n:-0}" -ge 20 ]; then
		pass "sleeper: $n run-queue waits for 20 sleeps (>= 20)"
	else
		fail "sleeper: ${n:-no} run-queue waits for 20 sleeps"
	fi
fi

begin profile "profile"
ATTACH=perf_event
if need "perf_event sampling \\(cpu-clock\\)"; then
	# 1000 rounds of 4 ms CPU, 3 ms of them in hot_three: at 499 Hz about
	# 1500 samples there and 500 in hot_one
	if "$KDIST" profile -F 499 -o folded -- $WL/hotspots 1000 >"$TMP/prof.folded" 2>"$TMP/prof.err"; then
		three=$(folded "$TMP/prof.folded" hot_three) one=$(folded "$TMP/prof.folded" hot_one)
		if [ "$three" -gt "$one" ] && [ "$one" -ge 1 ] && [ $((three + one)) -le 4000 ]; then
			pass "samples: hot_three $three, hot_one $one (about 1500:500)"
		else
			fail "samples: hot_three $three, hot_one $one (about 1500:500); $(sort -k2 -n "$TMP/prof.folded" | tail -2 | cut -c1-300)"
		fi
	else
		fail "$(tail -2 "$TMP/prof.err")"
	fi
fi

begin offcpu "offcpu"
if need "stack trace maps"; then
	if "$KDIST" offcpu -v -o folded -- $WL/sleeper 20 5 >"$TMP/off.folded" 2>"$TMP/off.err"; then
		ATTACH=$(sed -n 's/.*attached as \([a-z_]*\).*/\1/p' "$TMP/off.err" | head -1)
		ns=$(folded "$TMP/off.folded" '^sleeper;.*nanosleep')
		if [ "$ns" -ge 100000000 ]; then
			pass "$ns ns off-CPU under nanosleep (>= 20 x 5 ms)"
		else
			fail "$ns ns off-CPU under nanosleep, expected >= 20 x 5 ms"
		fi
	else
		fail "$(tail -2 "$TMP/off.err")"
	fi
fi

# the release binary (make dist), as a user copies it: its checksum, and
# an exact count
begin arm64_dist_binary "make dist: kdist-*-aarch64"
bin=$(ls "$PWD"/build/dist/kdist-*-aarch64 2>/dev/null | tail -1)
if [ -z "$bin" ]; then
	skip "no build/dist/kdist-*-aarch64 (make dist makes it)"
else
	sum=$(cd build/dist && grep -- "-aarch64\$" SHA256SUMS | sha256sum -c - 2>&1)
	KDIST=$bin
	if kd dg pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by arg1:syscall -- $WL/syserr 300 1; then
		n=$(col dg getppid count)
		case $sum in
		*": OK") [ "$n" = 300 ] && pass "${bin##*/}: $sum; getppid $n (300)" ||
			fail "${bin##*/}: getppid ${n:-none} (300)" ;;
		*) fail "${bin##*/}: checksum: $sum" ;;
		esac
	fi
fi

rm -rf "$TMP"
echo "$p passed, $f failed, $s skipped"
[ $f = 0 ]
