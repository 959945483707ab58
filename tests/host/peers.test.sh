# kdist beside other tools on the same events: perf still counts every
# event of a tracepoint kdist attaches to (a tracepoint program's return
# value decides whether perf sees it, see src/kernel/common.bpf.h), and recipes
# lose no event a peer on the same stream keeps.
# shellcheck shell=bash

# bg_start WORD KDIST_ARGS...: kdist in the background until it prints WORD
# (Tracing, or Serving for serve); sets BG_PID.
bg_start() {
	local word=$1
	shift
	"$KDIST" "$@" >"$TMP/bg.out" 2>"$TMP/bg.err" &
	BG_PID=$!
	wait_word "$word" "$TMP/bg.err" $BG_PID && return 0
	kill $BG_PID 2>/dev/null
	wait $BG_PID 2>/dev/null
	return 1
}

# bg_stop: SIGINT (serve: SIGTERM); 0 when kdist exits 0.
bg_stop() {
	kill -"${1:-INT}" $BG_PID
	wait $BG_PID
}

# perf_counts PERF_STAT_ARGS...: perf stat's counts, one per event in the
# order given, on one line (a count perf could not take is "none").
perf_counts() {
	perf stat -x, -o "$TMP/perf.csv" "$@" >/dev/null 2>"$TMP/perf.err" ||
		{ echo "perf failed: $(head -c 300 "$TMP/perf.err")"; return; }
	awk -F, '!/^#/ && NF > 2 { printf "%s%s", (n++ ? " " : ""), ($1 ~ /^[0-9]+$/ ? $1 : "none") }
		END { print "" }' "$TMP/perf.csv"
}

# other_kdists: kdist processes that are not ours.  A kdist built before
# tracepoint programs let events through (any other checkout running its
# tests) blinds perf on the tracepoints it attaches, whoever we are.
other_kdists() {
	pgrep -x kdist | grep -vx "$BG_PID" | tr '\n' ' '
}

# beside NAME WANT PERF_ARGS... :: KDIST_ARGS...: perf stat PERF_ARGS while
# kdist KDIST_ARGS is attached; perf's counts must read WANT.
beside() {
	local name=$1 want=$2 got perf_args=()
	shift 2
	while [ "$1" != :: ]; do perf_args+=("$1"); shift; done
	shift
	local word=Tracing
	[ "$1" = serve ] && word=Serving
	bg_start $word "$@" || { fail "$name: kdist did not attach: $(cat "$TMP/bg.err")"; return 1; }
	got=$(perf_counts "${perf_args[@]}")
	local sig=INT
	[ $word = Serving ] && sig=TERM
	bg_stop $sig || { fail "$name: kdist failed: $(cat "$TMP/bg.err")"; return 1; }
	[ "$got" = "$want" ] || {
		fail "$name: perf counted '$got' beside kdist $*, expected '$want' (other kdist processes: $(other_kdists))"
		return 1
	}
}

have_perf() {
	command -v perf >/dev/null && perf stat -e syscalls:sys_enter_getppid true >/dev/null 2>&1
}

N=300

test_perf_beside_pair_fields() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	# syscalls:* have no raw tracepoint: both ends are tracepoint programs
	beside pair "$N $N" -e syscalls:sys_enter_getppid,syscalls:sys_exit_getppid -- "$WL/syserr" $N 0 \
		:: pair syscalls:sys_enter_getppid syscalls:sys_exit_getppid --by __syscall_nr || return
	pass "perf counted $N getppid enters and exits beside kdist pair"
}

test_perf_beside_count_dist() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	beside count "$N" -e syscalls:sys_enter_getppid -- "$WL/syserr" $N 0 \
		:: count syscalls:sys_enter_getppid || return
	beside dist "$N" -e syscalls:sys_exit_getppid -- "$WL/syserr" $N 0 \
		:: dist syscalls:sys_exit_getppid ret || return
	beside "count --if" "$N" -e syscalls:sys_exit_getppid -- "$WL/syserr" $N 0 \
		:: count syscalls:sys_exit_getppid --if 'ret < 0' || return
	pass "perf counted $N getppid events beside kdist count, dist and count --if"
}

test_perf_beside_trace() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	# a sys_exit_* trace keeps the thread's sys_enter_* record: two programs
	beside trace "$N $N" -e syscalls:sys_enter_getppid,syscalls:sys_exit_getppid -- "$WL/syserr" $N 0 \
		:: trace syscalls:sys_exit_getppid || return
	pass "perf counted $N getppid enters and exits beside kdist trace"
}

# A task's switch-outs: sched_switch fires in the task leaving the CPU, and
# perf's context-switches software event counts the same switches of it.
test_perf_beside_sched_recipes() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	local r got
	for r in runq oncpu offcpu-dist; do
		bg_start Tracing $r || { fail "$r did not attach: $(cat "$TMP/bg.err")"; return; }
		got=$(perf_counts -e sched:sched_switch,context-switches -- "$WL/sleeper" 20 1)
		bg_stop || { fail "$r: $(cat "$TMP/bg.err")"; return; }
		# shellcheck disable=SC2086
		set -- $got
		[ "$1" = "$2" ] && [ "$1" -ge 20 ] || {
			fail "$r: perf counted $1 sched_switch and $2 context switches of 20 sleeps (other kdist processes: $(other_kdists))"
			return
		}
	done
	pass "perf's sched_switch count equals the workload's context switches beside runq, oncpu, offcpu-dist"
}

test_perf_beside_serve() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	local port got started=0
	# a free port: other tests and tools serve beside us
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		bg_start Serving serve --listen 127.0.0.1:$port --measure 'runq' \
			--measure 'count syscalls:sys_enter_getppid' && { started=1; break; }
		grep -q 'Address already in use' "$TMP/bg.err" || break
	done
	[ $started = 1 ] || { fail "serve did not start: $(cat "$TMP/bg.err")"; return; }
	got=$(perf_counts -e sched:sched_switch,context-switches,syscalls:sys_enter_getppid -- \
		"$WL/sleeper" 20 1)
	local got2
	got2=$(perf_counts -e syscalls:sys_enter_getppid -- "$WL/syserr" $N 0)
	bg_stop TERM || { fail "serve: $(cat "$TMP/bg.err")"; return; }
	# shellcheck disable=SC2086
	set -- $got
	[ "$1" = "$2" ] && [ "$1" -ge 20 ] && [ "$got2" = $N ] || {
		fail "perf beside serve: sched_switch $1, context switches $2, getppid $got2 of $N (other kdist processes: $(other_kdists))"
		return
	}
	pass "perf counted every switch and $N getppid beside kdist serve"
}

# Works of /proc/sys/vm/stat_refresh (one per CPU per write, see
# recipes.test.sh) are queued and run in kworkers: count them system-wide,
# filtered to their function.
test_perf_beside_wq() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	[ -w /proc/sys/vm/stat_refresh ] || { skip "no /proc/sys/vm/stat_refresh to queue works"; return; }
	local fn cpus n=5 want r
	fn=$(awk '$3 == "refresh_vm_stats" { print $1; exit }' /proc/kallsyms)
	[ -n "$fn" ] && [ "$fn" != 0000000000000000 ] || { skip "no address of refresh_vm_stats"; return; }
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	want="$((n * cpus)) $((n * cpus))"
	for r in wq wq-queue; do
		beside $r "$want" -a -e workqueue:workqueue_queue_work --filter "function == 0x$fn" \
			-e workqueue:workqueue_execute_start --filter "function == 0x$fn" -- \
			sh -c "for i in \$(seq $n); do echo 1 > /proc/sys/vm/stat_refresh; done" :: $r || return
	done
	pass "perf counted $((n * cpus)) queued and started works beside wq and wq-queue"
}

test_perf_beside_bio() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	[ -e /sys/kernel/tracing/events/block/block_rq_issue ] || { skip "no block tracepoints"; return; }
	command -v losetup >/dev/null || { skip "no losetup for a test disk"; return; }
	local img=$TMP/peer.img dev devno r ok=1
	truncate -s 16M "$img"
	dev=$(losetup -f --show "$img" 2>/dev/null) || { skip "no loop device (losetup failed)"; return; }
	# the record's dev: the kernel's dev_t, major << 20 | minor
	devno=$(( ($(stat -c '0x%t' "$dev") << 20) | $(stat -c '0x%T' "$dev") ))
	for r in bio bio-size; do
		beside $r "50 50" -a -e block:block_rq_issue --filter "dev == $devno" \
			-e block:block_rq_complete --filter "dev == $devno" -- \
			"$WL/directio" "$dev" 50 65536 :: $r || { ok=0; break; }
	done
	losetup -d "$dev"
	[ $ok = 1 ] && pass "perf counted 50 issues and completions on ${dev#/dev/} beside bio and bio-size"
}

# Each round of mmaplock takes the write lock twice (mmap, munmap) and
# releases it once (munmap downgrades it to a read lock on the way out);
# what the process takes besides (loading it) is the same every run, so 50
# more rounds are exactly 100 more write locks and 50 more write releases.
test_perf_beside_mmap_lock() {
	have_perf || { skip "perf cannot count tracepoints here (linux-perf)"; return; }
	[ -e /sys/kernel/tracing/events/mmap_lock/mmap_lock_released ] || { skip "no mmap_lock tracepoints"; return; }
	local a b ev=(-e mmap_lock:mmap_lock_start_locking --filter 'write == 1'
		-e mmap_lock:mmap_lock_released --filter 'write == 1')
	bg_start Tracing mmap-lock || { fail "mmap-lock did not attach: $(cat "$TMP/bg.err")"; return; }
	a=$(perf_counts "${ev[@]}" -- "$WL/mmaplock" 1 50)
	b=$(perf_counts "${ev[@]}" -- "$WL/mmaplock" 1 100)
	bg_stop || { fail "mmap-lock: $(cat "$TMP/bg.err")"; return; }
	# shellcheck disable=SC2086
	set -- $a $b
	[ $(($3 - $1)) = 100 ] && [ $(($4 - $2)) = 50 ] || {
		fail "perf counted write locks/releases '$a' for 50 rounds, '$b' for 100 beside mmap-lock, expected 100/50 more (other kdist processes: $(other_kdists))"
		return
	}
	pass "perf counted 100 more write locks and 50 more write releases for 50 more rounds beside mmap-lock"
}

# proc_irq_total irq|softirq FILE: interrupts of the numbered lines of a copy
# of /proc/interrupts (those irq_handler_entry fires for), or softirqs of
# /proc/softirqs.
proc_irq_total() {
	awk -v f="$1" 'f == "softirq" && NR > 1 { for (i = 2; i <= NF; i++) t += $i }
		f == "irq" && $1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) t += $i }
		END { print t + 0 }' "$2"
}

# interrupts_beside RECIPE PEER_CMD PEER_SUM_PY: kdist RECIPE and a peer
# (libbpf-tools, tp_btf programs) over the same interrupt-heavy time, beside
# a second tool's tracepoint program (a kdist count) running all along on a
# busy syscall.  A recipe from raw tracepoint arguments is never skipped
# (skipped_by_kernel 0); one from tracepoint programs was, whenever an
# interrupt came while any tracepoint program ran on its CPU.  Both tools
# count what came between their attach and their detach: at most what
# /proc counted from before the first attach to after the last detach, and
# apart by no more than the interrupts of those edges.  /proc's counts
# bound a tracepoint's from above only (recipe_irq; here kdist 2041 and
# softirqs 2056 where /proc counted 2057 while both were attached), so
# from below nine in ten of what /proc counted then.
interrupts_beside() {
	local recipe=$1 peer=$2 sum_py=$3 src pk pid cnt loop
	src=/proc/interrupts
	[ "$recipe" = softirq ] && src=/proc/softirqs
	truncate -s 64M "$TMP/irqload"
	"$KDIST" count syscalls:sys_enter_getppid -o json >"$TMP/cnt.json" 2>"$TMP/cnt.err" &
	cnt=$!
	"$WL/getppid_loop" 2000000000 >/dev/null &
	loop=$!
	cp $src "$TMP/s1"
	stdbuf -oL $peer >"$TMP/peer.out" 2>&1 &
	pk=$!
	"$KDIST" $recipe -o json >"$TMP/irq.json" 2>"$TMP/irq.err" &
	pid=$!
	wait_tracing "$TMP/irq.err" && wait_tracing "$TMP/cnt.err" || {
		kill -INT $pid $pk $cnt; kill $loop; wait
		fail "not attached: $(cat "$TMP/irq.err" "$TMP/cnt.err")"; return 1
	}
	for _ in $(seq 100); do grep -q Tracing "$TMP/peer.out" && break; sleep 0.1; done
	cp $src "$TMP/s2"
	"$WL/directio" "$TMP/irqload" 2000 4096 && sync
	cp $src "$TMP/s3"
	kill -INT $pid $pk
	wait $pid $pk
	cp $src "$TMP/s4"
	kill $loop
	kill -INT $cnt
	wait $loop $cnt 2>/dev/null
	local k peer_n skipped lo hi
	k=$(json "$TMP/irq.json" "sum(g['count'] for g in d['groups'])")
	skipped=$(json "$TMP/irq.json" "d['drops']['skipped_by_kernel']")
	peer_n=$(python3 -c "$sum_py" "$TMP/peer.out")
	lo=$(($(proc_irq_total $recipe "$TMP/s3") - $(proc_irq_total $recipe "$TMP/s2")))
	hi=$(($(proc_irq_total $recipe "$TMP/s4") - $(proc_irq_total $recipe "$TMP/s1")))
	[ "$skipped" = 0 ] && [ $((k * 10)) -ge $((lo * 9)) ] && [ "$k" -le "$hi" ] &&
		[ $((peer_n * 10)) -ge $((lo * 9)) ] && [ $((k > peer_n ? k - peer_n : peer_n - k)) -le $((hi - lo)) ] || {
		fail "$recipe: $k (skipped_by_kernel $skipped), $peer $peer_n, /proc between $lo and $hi"
		return 1
	}
	IRQ_RESULT="$k counted ($peer $peer_n, /proc $lo..$hi), skipped_by_kernel 0"
}

test_peer_irq_beside_tracepoint_tool() {
	command -v hardirqs >/dev/null || { skip "libbpf-tools' hardirqs not installed"; return; }
	# hardirqs -C prints "name count" rows at its end
	interrupts_beside irq "hardirqs -C" '
import sys
print(sum(int(l.split()[-1]) for l in open(sys.argv[1]) if l.split() and l.split()[-1].isdigit()))' ||
		return
	pass "irq: $IRQ_RESULT"
}

test_peer_softirq_beside_tracepoint_tool() {
	command -v softirqs >/dev/null || { skip "libbpf-tools' softirqs not installed"; return; }
	# softirqs -d prints a histogram per vector: its rows' counts sum to them
	interrupts_beside softirq "softirqs -d" '
import re, sys
print(sum(int(m.group(1)) for l in open(sys.argv[1]) for m in [re.match(r"\s*\d+ -> \d+\s*:\s*(\d+)", l)] if m))' ||
		return
	pass "softirq: $IRQ_RESULT"
}

# log2_rows FILE: "LOW HIGH COUNT" for each row of a log2 text histogram.
log2_rows() {
	awk '$2 == "->" && $4 == ":" { print $1, $3, $5 }' "$1"
}

# The text view's rows hold what their labels say: kdist bio's usecs rows
# against biolatency's on the same requests (a loop device only the
# workload writes to).  A row may differ by what the log-linear buckets
# holding its edges hold (the fold splits them by share, hist.h), plus what
# lies within 5% of an edge: the tools read the clock apart, at moments an
# interrupt on a loaded machine may hold apart by microseconds.  A third
# kdist (JSON) on the same stream gives those buckets.  In a VM a virtual
# CPU may also stop between two tools' programs for longer than that (one
# CI run: a request under 128 us for kdist, above for biolatency, and
# nowhere near 128 us for the third): each row may differ by 0.5% of the
# requests more.  All along, a second tool's tracepoint program (a kdist
# count on a busy syscall) runs too: bio reads its tracepoints' arguments
# from raw tracepoints, so the kernel never skips it for that
# (skipped_by_kernel 0).  The 1000 writes are at least 500 requests (the
# block layer may merge neighbours: once 999 for both tools), the same
# number for both tools.
test_peer_bio_rows_biolatency() {
	command -v biolatency >/dev/null || { skip "libbpf-tools' biolatency not installed"; return; }
	[ -e /sys/kernel/tracing/events/block/block_rq_issue ] || { skip "no block tracepoints"; return; }
	command -v losetup >/dev/null || { skip "no losetup for a test disk"; return; }
	local img=$TMP/rows.img dev kt kj bl rc cnt loop
	truncate -s 64M "$img"
	dev=$(losetup -f --show "$img" 2>/dev/null) || { skip "no loop device (losetup failed)"; return; }
	"$KDIST" count syscalls:sys_enter_getppid >/dev/null 2>"$TMP/rowsc.err" & cnt=$!
	"$WL/getppid_loop" 2000000000 >/dev/null & loop=$!
	"$KDIST" bio >"$TMP/rows.txt" 2>"$TMP/rows.err" & kt=$!
	"$KDIST" bio -o json >"$TMP/rows.json" 2>"$TMP/rowsj.err" & kj=$!
	stdbuf -oL biolatency -d "${dev#/dev/}" >"$TMP/rows.bl" 2>&1 & bl=$!
	wait_tracing "$TMP/rows.err" && wait_tracing "$TMP/rowsj.err" && wait_tracing "$TMP/rowsc.err" || {
		kill -INT $kt $kj $bl $cnt; kill $loop; wait; losetup -d "$dev"
		fail "not attached: $(cat "$TMP/rows.err" "$TMP/rowsc.err")"; return
	}
	for _ in $(seq 100); do grep -q Tracing "$TMP/rows.bl" && break; sleep 0.1; done
	"$WL/directio" "$dev" 1000 4096
	sync
	kill -INT $kt $kj $bl
	wait $kt $kj $bl
	kill $loop
	kill -INT $cnt
	wait $loop $cnt 2>/dev/null
	losetup -d "$dev"
	# the loop device's group: from its heading to the blank line after
	awk -v h="disk = ${dev#/dev/}, op = write" '$0 == h { on = 1 } on && !NF { on = 0 } on' \
		"$TMP/rows.txt" >"$TMP/rows.k0"
	log2_rows "$TMP/rows.k0" >"$TMP/rows.k"
	sed -n '/usecs/,$p' "$TMP/rows.bl" >"$TMP/rows.b0"
	log2_rows "$TMP/rows.b0" >"$TMP/rows.b"
	python3 - "$TMP/rows.k" "$TMP/rows.b" "$TMP/rows.json" "${dev#/dev/}" >"$TMP/rows.cmp" <<'PY'
import json, sys
def rows(p):
    return {int(l.split()[0]): int(l.split()[2]) for l in open(p) if l.strip()}
k, b = rows(sys.argv[1]), rows(sys.argv[2])
d = [json.loads(l) for l in open(sys.argv[3]) if l.strip()][-1]
bk = [x for g in d["groups"] if g["by"] == {"disk": sys.argv[4], "op": "write"} for x in g["buckets"]]
tk, tb = sum(k.values()), sum(b.values())
bad = []
for lo in sorted(set(k) | set(b)):
    edges = [lo * 1000 if lo > 1 else None, (2 * lo if lo > 1 else 2) * 1000]
    bound = sum(c for blo, bhi, c in bk for e in edges if e is not None and blo <= e * 1.05 and bhi >= e * 0.95)
    bound += (tb + 199) // 200
    diff = abs(k.get(lo, 0) - b.get(lo, 0))
    print(f"row {lo}: kdist {k.get(lo, 0)} biolatency {b.get(lo, 0)} bound {bound}")
    if diff > bound:
        bad.append(lo)
skipped = d["drops"].get("skipped_by_kernel")
print(f"total kdist {tk} biolatency {tb}, skipped_by_kernel {skipped}")
sys.exit(1 if bad or tk != tb or tk < 500 or skipped != 0 else 0)
PY
	rc=$?
	[ $rc = 0 ] || { fail "rows apart beyond the bound: $(tr '\n' ';' <"$TMP/rows.cmp")"; return; }
	pass "bio's usecs rows within the bound of biolatency's: $(grep "^row" "$TMP/rows.cmp" | cut -d" " -f2- | tr "\n" ";") $(tail -1 "$TMP/rows.cmp")"
}
