# The command matrix: every command and every recipe once, each against a
# workload of known truth, on whatever kernel runs it.  Sourced by the host
# tier (tests/host/matrix.test.sh) and inside each VM (tests/vm/func-vm.sh),
# so the same cases run on the host kernel and on Debian 5.10, 6.1 and 6.12.
# A case the kernel cannot run is a skip naming the missing feature, as
# `kdist probe` reports it.
#
# With KDIST_MATRIX_OUT=FILE each case also appends one line
#   CASE <TAB> COMMAND <TAB> pass|fail|skip <TAB> ATTACH <TAB> DETAIL
# (ATTACH: the attach methods kdist reported in its JSON).
# scripts/matrix-table.py turns these files into the table of
# docs/testing.md (make matrix-doc).
# shellcheck shell=bash

MX_READS=500

# mx_case COMMAND: name the command of the case about to run.
mx_case() { MX_CMD=$1 MX_ATTACH=-; : >"$TMP/mx.attach"; }
mx_rec() {
	[ -n "${KDIST_MATRIX_OUT:-}" ] || return 0
	# attach methods: set by the case, or each kdist run's (mx_eval)
	[ "$MX_ATTACH" != - ] || [ ! -s "$TMP/mx.attach" ] ||
		MX_ATTACH=$(sort -u "$TMP/mx.attach" | paste -sd ';' | sed 's/;/; /g')
	printf '%s\t%s\t%s\t%s\t%s\n' "${CURRENT#matrix_}" "$MX_CMD" "$1" "$MX_ATTACH" \
		"$(tr '\t\n' '  ' <<<"$2")" >>"$KDIST_MATRIX_OUT"
}
mx_pass() { mx_rec pass "$1"; pass "$1"; }
mx_fail() { mx_rec fail "$1"; fail "$1"; }
mx_skip() { mx_rec skip "$1"; skip "$1"; }

# mx_need FEATURE: true when `kdist probe` says yes; else a skip with its reason
mx_need() {
	local line
	[ -n "${MX_PROBE:-}" ] || MX_PROBE=$("$KDIST" probe 2>&1)
	line=$(grep -E "^ +$1 +(yes|no)" <<<"$MX_PROBE" | head -1)
	case $line in
	*" yes") return 0 ;;
	"") mx_skip "kdist probe does not report $1"; return 1 ;;
	*) mx_skip "no $1 on this kernel:${line#*no:}"; return 1 ;;
	esac
}

# mx_run NAME KDIST-ARGS...: kdist with JSON to $TMP/NAME.json; fails the
# case with kdist's error when it exits non-zero
mx_run() {
	local name=$1 cmd=$2
	shift 2
	"$KDIST" "$cmd" -o json "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" ||
		{ mx_fail "kdist $cmd: $(tail -3 "$TMP/$name.err")"; return 1; }
}

# mx_eval NAME EXPR: prints EXPR; the command and attach methods of the
# JSON go to the case's list (mx_rec)
# (d: the document; g(**by): summed counts of the groups whose labels
# include every item of by; v(field, **by): summed FIELD likewise)
mx_eval() {
	local out
	out=$(python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
def v(field, **by):
    return sum(x.get(field, 0) for x in d.get("groups", []) if all(str(x["by"].get(k)) == str(w) for k, w in by.items()))
def g(**by):
    return v("count", **by)
print("%s: %s" % (d.get("command"), ",".join(dict.fromkeys(e.get("attach", "?") for e in d.get("events", []))) or "-"))
print(eval(sys.argv[2]))' "$TMP/$1.json" "$2") || return 1
	# mx_eval runs in $(...): the attach methods go through a file
	head -1 <<<"$out" >>"$TMP/mx.attach"
	tail -n +2 <<<"$out"
}

# mx_losses NAME: the loss counters of NAME's JSON that are not zero
mx_losses() {
	json "$TMP/$1.json" "'lost: ' + (', '.join('%s %d' % kv for kv in d.get('drops', {}).items() if kv[1]) or 'none')"
}

# the pipe reads of dd: MX_READS one-byte reads, so >= MX_READS vfs_read
mx_pipe_reads() {
	echo "head -c $((MX_READS * 2)) /dev/zero | dd of=/dev/null bs=1 count=$MX_READS 2>/dev/null"
}

# mx_bg NAME WORKLOAD KDIST-ARGS...: kdist tracing everything in the
# background until WORKLOAD has run (for work done outside the workload's
# cgroup: kworkers, interrupts)
mx_bg() {
	local name=$1 wl=$2 pid
	shift 2
	"$KDIST" "$@" -o json >"$TMP/$name.json" 2>"$TMP/$name.err" & pid=$!
	wait_tracing "$TMP/$name.err" || { kill $pid; wait $pid; mx_fail "not attached: $(tail -3 "$TMP/$name.err")"; return 1; }
	sh -c "$wl"
	kill -INT $pid
	wait $pid || { mx_fail "$(tail -3 "$TMP/$name.err")"; return 1; }
}

# --- pair -------------------------------------------------------------------

test_matrix_pair_tracepoint() {
	mx_case pair
	mx_run ptp pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep -c "$WL/sleeper 20 2" || return
	read -r n lo <<<"$(mx_eval ptp "'%d %d' % (g(), min(x['min'] for x in d['groups']))")"
	exact "$n" 20 "$TMP/ptp.json" && [ "$lo" -ge 2000000 ] ||
		{ mx_fail "$n nanosleeps (20), shortest $lo ns (>= 2 ms), $(mx_losses ptp)"; return; }
	mx_pass "20 nanosleeps of 2 ms, shortest $lo ns"
}

# the kernel's syscall entry functions, one of which a syscall's kernel
# stack holds, by architecture
case $(uname -m) in
aarch64) MX_SYSCALL_ENTRY="'invoke_syscall', 'el0_svc'" ;;
*) MX_SYSCALL_ENTRY="'do_syscall_64', 'entry_SYSCALL_64'" ;;
esac
test_matrix_pair_kstack() {
	mx_case "pair --by kstack"
	mx_run pks pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --by comm,kstack \
		-c "$WL/sleeper 20 2" || return
	read -r n k l <<<"$(mx_eval pks "'%d %d %d' % (g(comm='sleeper'), sum(x['count'] for x in d['groups'] if any(f in str(x['by'].get('kstack')) for f in ($MX_SYSCALL_ENTRY))), d['drops'].get('stack_failed', 0))")"
	# kernels before the 2023 fix of syscall tracepoints' registers hand a
	# syscalls: tracepoint's program the user registers: no kernel stack
	# (kdist counts each as stack_failed); raw tracepoints are not affected
	if [ "$n" = 20 ] && [ "$k" = 0 ] && [ "$l" -ge 20 ]; then
		mx_skip "this kernel gives syscalls: tracepoints no kernel stack (user registers; fixed upstream in 2023): $l stack_failed"
		return
	fi
	exact "$n" 20 "$TMP/pks.json" && [ "$k" = "$n" ] || { mx_fail "$n nanosleeps, $k under a syscall entry stack (20), $(mx_losses pks): $(mx_eval pks "[x['by'].get('kstack') for x in d['groups']]")"; return; }
	mx_pass "20 nanosleeps, all under the kernel's syscall entry stack"
}

# kernel functions: dd's pipe reads through func and through pair k:/kr:
test_matrix_kernel_functions() {
	mx_case "func, pair k: kr:"
	mx_need kprobes || return
	mx_run fk func vfs_read --by comm -c "$(mx_pipe_reads)" &&
		mx_run pk pair k:vfs_read kr:vfs_read --by comm -c "$(mx_pipe_reads)" || return
	local f p fa
	f=$(mx_eval fk "g(comm='dd', function='vfs_read')")
	p=$(mx_eval pk "g(comm='dd')")
	[ "$f" -ge $MX_READS ] && [ "$p" -ge $MX_READS ] ||
		{ mx_fail "dd: func $f vfs_read calls, pair $p latencies; expected >= $MX_READS"; return; }
	mx_pass "dd: func $f vfs_read calls, pair $p latencies for $MX_READS reads"
}

# each way of attaching to a kernel function, forced: kprobes, and
# fentry/fexit where the kernel has them; the return value (--if on the
# END's retval: dd's one-byte reads return 1) read right by both
test_matrix_kernel_function_methods() {
	mx_case "pair kprobe: kretprobe:, fentry: fexit:"
	mx_need kprobes || return
	local m n r res=""
	for m in kprobe:kretprobe fentry:fexit; do
		if [ $m = fentry:fexit ]; then
			mx_need "fentry/fexit" || return
		fi
		mx_run "m${m%%:*}" pair "${m%%:*}:vfs_read" "${m#*:}:vfs_read" --by comm \
			-c "$(mx_pipe_reads)" || return
		mx_run "r${m%%:*}" pair "${m%%:*}:vfs_read" "${m#*:}:vfs_read" --by comm --if 'retval == 1' \
			-c "$(mx_pipe_reads)" || return
		n=$(mx_eval "m${m%%:*}" "g(comm='dd')")
		r=$(mx_eval "r${m%%:*}" "g(comm='dd')")
		[ "$(mx_eval "m${m%%:*}" "'/'.join(e['attach'] for e in d['events'])")" = "${m/:/\/}" ] ||
			{ mx_fail "$m: attached as $(mx_eval "m${m%%:*}" "[e['attach'] for e in d['events']]")"; return; }
		[ "$n" -ge $MX_READS ] && [ "$r" -ge $MX_READS ] && [ "$r" -le "$n" ] ||
			{ mx_fail "$m: dd's vfs_read $n calls (>= $MX_READS), $r returning 1 (>= $MX_READS, <= $n)"; return; }
		res+="${res:+; }$m: $n calls, $r returning 1"
	done
	mx_pass "$res"
}

# user functions: calltree's leaf() (6 calls of >= 1 ms per round) and
# middle() (2 per round) through func and pair u:/ur:
test_matrix_user_functions() {
	mx_case "func u:, pair u: ur:"
	mx_need uprobes || return
	mx_run fu func "u:$WL/calltree:leaf" "u:$WL/calltree:middle" -c "$WL/calltree 3" &&
		mx_run pu pair "u:$WL/calltree:leaf" "ur:$WL/calltree:leaf" -c "$WL/calltree 3" || return
	local l m fa n lo
	read -r l m <<<"$(mx_eval fu "'%d %d' % (g(function='calltree:leaf'), g(function='calltree:middle'))")"
	read -r n lo <<<"$(mx_eval pu "'%d %d' % (g(), min(x['min'] for x in d['groups']))")"
	exact "$l" 18 "$TMP/fu.json" && exact "$m" 6 "$TMP/fu.json" && exact "$n" 18 "$TMP/pu.json" && [ "$lo" -ge 1000000 ] ||
		{ mx_fail "func: leaf $l (18), middle $m (6) calls, $(mx_losses fu); pair: $n leaf() (18), shortest $lo ns (>= 1 ms), $(mx_losses pu)"; return; }
	mx_pass "func: leaf 18, middle 6 calls; pair: 18 leaf() of >= 1 ms, shortest $lo ns"
}

# --- recipes ----------------------------------------------------------------

test_matrix_recipes_list() {
	mx_case recipes
	local out r missing=
	out=$("$KDIST" recipes) || { mx_fail "kdist recipes failed"; return; }
	for r in $("$KDIST" --help | sed -n 's/^recipes: //p' | tr -d ,); do
		grep -q "^$r " <<<"$out" || missing="$missing $r"
	done
	[ -z "$missing" ] || { mx_fail "not listed:$missing"; return; }
	mx_pass "every recipe of --help listed with its pair spec"
}

test_matrix_syscalls() {
	mx_case syscalls
	mx_run sc syscalls -- "$WL/syserr" 100 7 || return
	read -r ok bad <<<"$(mx_eval sc "'%d %d' % (g(syscall='getppid', error='ok'), g(syscall='close', error='EBADF'))")"
	exact "$ok" 100 "$TMP/sc.json" && exact "$bad" 7 "$TMP/sc.json" ||
		{ mx_fail "getppid ok $ok (100), close EBADF $bad (7), $(mx_losses sc)"; return; }
	mx_pass "getppid 100 ok, close(-1) 7 EBADF"
}

# /proc/sys/vm/stat_refresh runs refresh_vm_stats on every online CPU
# (schedule_on_each_cpu) and waits for it: N writes queue N*CPUS works
test_matrix_wq() {
	mx_case "wq, wq-queue"
	[ -w /proc/sys/vm/stat_refresh ] || { mx_skip "no /proc/sys/vm/stat_refresh to queue works"; return; }
	local cpus q e pid
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	mx_run wqq wq-queue -c "for i in \$(seq 10); do echo 1 > /proc/sys/vm/stat_refresh; done" || return
	q=$(mx_eval wqq "g(function='refresh_vm_stats')")
	# works run in kworkers, outside the workload's cgroup: trace them all
	mx_bg wq "for i in \$(seq 10); do echo 1 > /proc/sys/vm/stat_refresh; done" wq || return
	e=$(mx_eval wq "g(function='refresh_vm_stats')")
	[ "$q" = $((10 * cpus)) ] && [ "$e" = $((10 * cpus)) ] ||
		{ mx_fail "refresh_vm_stats queued $q, executed $e; expected $((10 * cpus))"; return; }
	mx_pass "refresh_vm_stats queued $q, executed $e (10 writes x $cpus CPUs)"
}

# a block device of our own: null_blk where the kernel has it as a module
# (loaded by the VM tier), else a loop device
mx_disk() {
	if [ -b /dev/nullb0 ]; then echo /dev/nullb0; return; fi
	command -v losetup >/dev/null || return 1
	truncate -s 16M "$TMP/disk.img"
	losetup -f --show "$TMP/disk.img" 2>/dev/null
}
mx_disk_done() { case $1 in /dev/loop*) losetup -d "$1" ;; esac; }

# the block layer may issue a request from a kblockd worker rather than
# the writer (null_blk on 6.1): trace all, group by disk
test_matrix_bio() {
	mx_case "bio, bio-size"
	local dev c s sz
	dev=$(mx_disk) || { mx_skip "no block device to write to (no null_blk, losetup failed)"; return; }
	mx_bg bio "$WL/directio $dev 30 4096" bio &&
		mx_bg bios "$WL/directio $dev 20 8192" bio-size
	local rc=$?
	mx_disk_done "$dev"
	[ $rc = 0 ] || return
	c=$(mx_eval bio "g(disk='${dev#/dev/}', op='write')")
	read -r s sz <<<"$(mx_eval bios "'%d %d' % (g(disk='${dev#/dev/}', op='write'), v('sum', disk='${dev#/dev/}', op='write'))")"
	[ "$c" = 30 ] && [ "$s" = 20 ] && [ "$sz" = $((20 * 8192)) ] ||
		{ mx_fail "${dev#/dev/}: $c writes timed (30), $s sized (20) of $sz bytes ($((20 * 8192))); groups $(mx_eval bio "[x['by'] for x in d['groups']]")"; return; }
	mx_pass "${dev#/dev/}: 30 O_DIRECT writes timed, 20 x 8 KiB sized"
}

test_matrix_runq() {
	mx_case runq
	# each of the 20 sleeps ends with a wakeup and a switch-in: >= 20
	mx_run rq runq --by comm -c "$WL/sleeper 20 2" || return
	n=$(mx_eval rq "g(comm='sleeper')")
	[ "$n" -ge 20 ] || { mx_fail "sleeper: $n run-queue waits for 20 sleeps"; return; }
	mx_pass "sleeper: $n run-queue waits for 20 sleeps (>= 20)"
}

# interrupts run in any task's context: trace all while O_DIRECT writes to
# a file on a device (virtio: the VM's 9p output directory, the host's disk)
# raise some.  The truth: /proc/interrupts read before kdist starts and
# after it ends counts every handler run kdist can see, and more.
mx_irqs() { awk '$1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }
mx_irq_case() { # mx_irq_case RECIPE: sets MX_IRQS to the /proc/interrupts delta
	local pid f=${KDIST_VM_OUT:-$TOP/build}/.kdist-irq.$$ before
	before=$(mx_irqs)
	"$KDIST" "$1" -o json >"$TMP/$1.json" 2>"$TMP/$1.err" & pid=$!
	wait_tracing "$TMP/$1.err" || { kill $pid; wait $pid; mx_fail "not attached: $(cat "$TMP/$1.err")"; return 1; }
	dd if=/dev/zero of="$f" bs=4096 count=16 oflag=direct,sync status=none 2>/dev/null ||
		dd if=/dev/zero of="$f" bs=4096 count=16 oflag=sync status=none
	rm -f "$f"
	"$WL/sleeper" 10 2
	kill -INT $pid
	wait $pid || { mx_fail "$(cat "$TMP/$1.err")"; return 1; }
	MX_IRQS=$(($(mx_irqs) - before))
}
test_matrix_irq() {
	mx_case irq
	mx_irq_case irq || return
	read -r n k <<<"$(mx_eval irq "'%d %d' % (g(), len(d['groups']))")"
	[ "$n" -ge 1 ] && [ "$n" -le "$MX_IRQS" ] ||
		{ mx_fail "$n handler runs in $k groups, expected 1..$MX_IRQS (/proc/interrupts)"; return; }
	mx_pass "$n handler runs in $k groups (1..$MX_IRQS by /proc/interrupts)"
}

test_matrix_softirq() {
	mx_case softirq
	local before=$(awk '{ for (i = 2; i <= NF; i++) s += $i } END { print s }' /proc/softirqs)
	mx_irq_case softirq || return
	local all=$(($(awk '{ for (i = 2; i <= NF; i++) s += $i } END { print s }' /proc/softirqs) - before))
	read -r n k <<<"$(mx_eval softirq "'%d %d' % (g(), len(d['groups']))")"
	# 20 ms of sleeps and the block completions raise softirqs on any kernel
	[ "$n" -ge 1 ] && [ "$n" -le "$all" ] ||
		{ mx_fail "$n softirq runs, expected 1..$all (/proc/softirqs)"; return; }
	mx_pass "$n softirq runs in $k vectors (1..$all by /proc/softirqs)"
}

test_matrix_mmap_lock() {
	mx_case mmap-lock
	[ -e /sys/kernel/tracing/events/mmap_lock ] || { mx_skip "no mmap_lock tracepoints (CONFIG_TRACING, 5.12+)"; return; }
	# per round and thread one mmap and one munmap take the write lock
	mx_run ml mmap-lock -- "$WL/mmaplock" 2 20 || return
	n=$(mx_eval ml "g(measure='hold', lock='write')")
	[ "$n" -ge 80 ] || { mx_fail "$n write holds for 2 threads x 20 rounds x (mmap + munmap)"; return; }
	mx_pass "$n write holds for 80 mmap+munmap"
}

test_matrix_dist_count() {
	mx_case "dist, count"
	local dd="dd if=/dev/zero of=/dev/null bs=777 count=13 status=none"
	mx_run dist dist syscalls:sys_enter_write count -c "$dd" &&
		mx_run cnt count syscalls:sys_enter_write -c "$dd" || return
	read -r n lo hi <<<"$(mx_eval dist "'%d %d %d' % (g(), min(x['min'] for x in d['groups']), max(x['max'] for x in d['groups']))")"
	c=$(mx_eval cnt "g()")
	exact "$n" 13 "$TMP/dist.json" && [ "$lo" = 777 ] && [ "$hi" = 777 ] && exact "$c" 13 "$TMP/cnt.json" ||
		{ mx_fail "dist: $n writes of $lo..$hi bytes (13 of 777), $(mx_losses dist); count: $c (13), $(mx_losses cnt)"; return; }
	mx_pass "13 writes of 777 bytes; counted 13"
}

# --- stacks -----------------------------------------------------------------

test_matrix_profile() {
	mx_case profile
	mx_need "perf_event sampling \\(cpu-clock\\)" || return
	"$KDIST" profile -F 499 -o folded -c "$WL/hotspots 1000" >"$TMP/prof.folded" 2>"$TMP/prof.err" ||
		{ mx_fail "$(tail -3 "$TMP/prof.err")"; return; }
	MX_ATTACH=perf_event
	# 1000 rounds of 4 ms CPU, 3 ms of them in hot_three: at 499 Hz about
	# 1500 samples there and 500 in hot_one.  Long enough for kdist to read
	# the process's maps while it lives (its frames are names then), also in
	# an emulated VM, where reading them takes a second or more.  There the
	# shell of -c is sampled before it runs exec: the maps are read again
	# once the process runs another program
	local three one
	three=$(folded_sum "$TMP/prof.folded" 'hot_three')
	one=$(folded_sum "$TMP/prof.folded" 'hot_one')
	[ "$three" -gt "$one" ] && [ "$one" -ge 1 ] && [ $((three + one)) -le 4000 ] ||
		{ mx_fail "samples: hot_three $three, hot_one $one (about 1500:500); $(awk '{ print $NF, $0 }' "$TMP/prof.folded" | sort -n | tail -3 | cut -d' ' -f2- | cut -c1-300); $(grep lost "$TMP/prof.err")"; return; }
	mx_pass "samples: hot_three $three, hot_one $one (about 1500:500)"
}

# JSON's cost on every kernel: the programs time themselves in windows
# (owncost.bpf.h: 1 s after the start, each open 50 ms and on until the
# engine's programs ran in it, at most 1 s), so a run of 1.5 s or more has
# one, and the runs it saw are more than none.  The workload makes them
# certain: the sleeper's calls and switches for pair and offcpu (kdist's
# sampler makes its own inside the window too), and for profile a
# workload on the CPU for 2 s (a sample every 10 ms of each CPU it runs
# on, at 99 Hz).
# cost_runs NAME WORKLOAD KDIST-ARGS...: the runs estimated in CT_RUNS, or
# the case failed
cost_runs() {
	local name=$1 wl=$2 out r smp why
	shift 2
	mx_run "ct-$name" "$@" -c "$wl" || return 1
	out=$(mx_eval "ct-$name" "'%s %s %s' % (d['cost'].get('runs'), d['cost'].get('sampled'), d['cost'].get('unknown', ''))")
	read -r r smp why <<<"$out"
	[ "$r" != None ] && [ "$r" -gt 0 ] && awk -v s="$smp" 'BEGIN { exit !(s > 0 && s < 1) }' ||
		{ mx_fail "kdist $1: cost runs $r, sampled $smp ${why:+($why)}"; return 1; }
	CT_RUNS=$r
}

test_matrix_cost_timed() {
	mx_case "cost windows (-o json)"
	mx_need "stack trace maps" || return
	local args wl got= sleeper="$WL/sleeper 30 50"
	for args in "pair pair raw_syscalls:sys_enter raw_syscalls:sys_exit" "offcpu offcpu" \
		"profile profile -F 99"; do
		wl=$sleeper
		[ "${args%% *}" = profile ] && wl="$WL/hotspots 500"
		# shellcheck disable=SC2086 # the words of one command
		cost_runs "${args%% *}" "$wl" ${args#* } || return
		got="$got ${args%% *} $CT_RUNS"
	done
	mx_pass "runs estimated from the windows:$got"
}

test_matrix_cost_timed_explain() {
	mx_case "cost windows (--explain -o json)"
	mx_need "task storage maps" || return
	cost_runs explain "$WL/sleeper 30 50" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --explain || return
	mx_pass "runs estimated from the windows: $CT_RUNS"
}

# 4096 different user stacks in a stack map of 16384 buckets: about 500
# pairs share a bucket, whose second stack bpf_get_stackid() refuses (a
# -c workload's hottest stack in a profile was once lost so).  Every one
# is kept, each call path with its 3 calls.
test_matrix_stacks_kept() {
	mx_case "pair --by ustack (4096 stacks)"
	mx_need uprobes || return
	mx_run many pair "u:$WL/manypaths:leaf" "ur:$WL/manypaths:leaf" --by ustack -c "$WL/manypaths 12 3" || return
	local got
	got=$(mx_eval many '(len(d["groups"]), sorted({x["count"] for x in d["groups"]}), len({x["by"]["ustack"] for x in d["groups"]}), len([x for x in d["groups"] if x["by"]["ustack"].count(";via_") != 12]))')
	[ "$got" = "(4096, [3], 4096, 0)" ] ||
		{ mx_fail "groups, their counts, distinct stacks, stacks without 12 steps: $got, expected (4096, [3], 4096, 0); $(mx_losses many)"; return; }
	mx_pass "4096 call paths, 4096 stacks of 12 steps, 3 calls each"
}

test_matrix_offcpu() {
	mx_case offcpu
	mx_need "stack trace maps" || return
	KDIST_WL_TIMES=$TMP/off.times "$KDIST" offcpu -v -o folded -c "$WL/sleeper 20 5" \
		>"$TMP/off.folded" 2>"$TMP/off.err" ||
		{ mx_fail "$(tail -3 "$TMP/off.err")"; return; }
	MX_ATTACH=$(sed -n 's/.*attached as \([a-z_]*\).*/\1/p' "$TMP/off.err" | head -1)
	# each block lies inside one nanosleep call the workload timed; one
	# whose end the kernel did not report ends where the thread's CPU time
	# since began, which may leave out an interrupt's time (0.1 ms each)
	local ns calls unseen
	ns=$(folded_sum "$TMP/off.folded" '^sleeper;.*nanosleep')
	unseen=$(sed -n 's/.*switch_in_unseen \([0-9]*\).*/\1/p' "$TMP/off.err" | tail -1)
	calls=$(( $(wl_times "$TMP/off.times" nanosleep 'sum(v)') + ${unseen:-0} * 100000 ))
	[ "$ns" -ge 100000000 ] && [ "$ns" -le "$calls" ] ||
		{ mx_fail "${ns} ns off-CPU under nanosleep, expected 20 x 5 ms..$calls (the calls' time); $(grep '^lost' "$TMP/off.err")"; return; }
	mx_pass "${ns} ns off-CPU under nanosleep (20 x 5 ms..$calls)"
}

test_matrix_wakeup() {
	mx_case wakeup
	mx_need "stack trace maps" || return
	KDIST_WL_TIMES=$TMP/wk.times "$KDIST" wakeup -v -o folded -- "$WL/waker" 20 5 >"$TMP/wk.folded" 2>"$TMP/wk.err" ||
		{ mx_fail "$(tail -3 "$TMP/wk.err")"; return; }
	MX_ATTACH=$(sed -n 's/.*attached as \([a-z_]*\).*/\1/p' "$TMP/wk.err" | head -1)
	local ns life
	ns=$(folded_sum "$TMP/wk.folded" '^wakee;waker;.*waker_loop')
	life=$(wl_times "$TMP/wk.times" wakee 'sum(v)')
	[ "$ns" -ge 100000000 ] && [ "$ns" -le "$life" ] ||
		{ mx_fail "${ns} ns of the wakee woken from waker_loop, expected 1e8..$life: $(grep '^wakee' "$TMP/wk.folded" | cut -c1-200 | head -3)"; return; }
	mx_pass "${ns} ns of wakee off-CPU time woken from waker_loop (1e8..$life)"
}

# --explain by key: each interval starts on splitwork's main thread and
# ends on its finisher thread; the split is the main thread's, against what
# it timed itself on the latency's own clock (CLOCK_MONOTONIC): its spin,
# after hand_begin, ran or waited for a CPU all along (on-CPU, irq and
# runnable hold at least its wall time, less 0.1 ms), then it slept 4 ms,
# off its CPU for a good part of it (blocked, or runnable if preempted,
# 1 ms or more), and the parts add up to the latency.  Not its CPU clock,
# and no tighter bound on the sleep: in an emulated VM the scheduler's
# clock and the monotonic one drift apart (6 ms of CPU time in 3.7 ms of
# wall time), and the split, which fills in switches the kernel did not
# report from the scheduler's counters, showed up to 1.3 ms of a 4 ms
# sleep on-CPU there
test_matrix_explain_key() {
	mx_case "pair --explain --key"
	mx_need "task storage maps" || return
	MX_ATTACH="uprobe; tp_btf"
	rm -f "$TMP/exk.times"
	KDIST_WL_TIMES=$TMP/exk.times mx_run exk pair --explain --key arg0 --slower-than 1ns \
		"u:$WL/splitwork:hand_begin" "u:$WL/splitwork:hand_end" -- "$WL/splitwork" 10 6000 4000 handoff ||
		return
	local msg
	msg=$(python3 - "$TMP/exk.json" "$TMP/exk.times" <<'PY'
import json, sys
P = ("oncpu", "irq", "runnable", "blocked_s", "blocked_d", "blocked_other", "unattributed")
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"event"')]
spin = [int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("spin_wall ")]
ran = [e["oncpu_ns"] + (e["irq_ns"] or 0) + e["runnable_ns"] for e in ev]
bad = [(e, s) for e, s, r in zip(ev, spin, ran) if sum(e[p + "_ns"] or 0 for p in P) != e["latency_ns"]
       or r < s - 100000 or e["blocked_s_ns"] + e["runnable_ns"] < 1000000]
if len(ev) != 10 or len(spin) != 10 or bad:
    print(f"{len(ev)} intervals, {len(spin)} spins (10), wrong: {bad[:1]}")
    sys.exit(1)
print(f"10 intervals of the main thread ended by the finisher: on-CPU and runnable hold each spin's wall time (least margin {min(r - s for s, r in zip(spin, ran)) / 1e3:.0f} us), blocked S (and runnable) >= {min(e['blocked_s_ns'] + e['runnable_ns'] for e in ev)} ns, parts adding up")
PY
) || { mx_fail "$msg"; return; }
	mx_pass "$msg"
}

# --explain end: each interval followed from the main thread through the
# relay to the finisher (splitwork hands over only to a thread asleep in
# its read: each handoff is a wakeup by the thread handing over).  On-CPU,
# irq and runnable hold the wall time of the three threads' spins (the
# latency's own clock: see matrix_explain_key), the END's thread is the
# finisher woken by the relay, and every interval is followed
test_matrix_explain_end() {
	mx_case "pair --explain end --key"
	mx_need "task storage maps" || return
	MX_ATTACH="uprobe; tp_btf"
	rm -f "$TMP/exe.times"
	KDIST_WL_TIMES=$TMP/exe.times mx_run exe pair --explain end --key arg0 --slower-than 1ns \
		"u:$WL/splitwork:hand_begin" "u:$WL/splitwork:hand_end" -- \
		"$WL/splitwork" 10 3000 4000 handoff 3000 1500 || return
	local msg
	msg=$(python3 "$TOP/tests/explain_check.py" "$TMP/exe.json" "$TMP/exe.times" count=10 sum \
		followed=relay running=spin_wall+relay_wall+fin_wall) || { mx_fail "$msg"; return; }
	mx_pass "$msg"
}

# func --explain on a kernel function: sleeper's 20 hrtimer_nanosleep calls
# of 5 ms, each one interval of its thread: it arms the timer and leaves
# its CPU, off it for a good part of each call (blocked, or runnable if
# preempted, 1.25 ms or more: see matrix_explain_key on emulated VMs),
# and the parts add up to the calls' time
test_matrix_explain_func() {
	mx_case "func --explain"
	mx_need kprobes && mx_need "task storage maps" || return
	mx_run exf func --explain hrtimer_nanosleep -- "$WL/sleeper" 20 5 || return
	local msg
	msg=$(mx_eval exf "(lambda g, a: 'ok %d ns, blocked S %d ns' % (g['sum'], a['parts']['blocked_s'])
		if g['count'] == 20 and a['count'] == 20 and a['sum'] == g['sum'] == sum(a['parts'].values())
		and a['parts']['blocked_s'] + a['parts']['runnable'] >= 20 * 1250000
		else str((g['count'], g['sum'], a)))(d['groups'][0], d['groups'][0]['explain']['all'])")
	[ "${msg%% *}" = ok ] || { mx_fail "$msg"; return; }
	mx_pass "20 hrtimer_nanosleep calls of 5 ms split: ${msg#ok } (>= 20 x 1.25 ms with runnable), parts adding up"
}

# --- serve -------------------------------------------------------------------

# mx_scrape PORT FAMILY LABEL=VALUE: the sum of FAMILY's samples in a scrape
# of kdist serve on PORT whose labels include LABEL="VALUE"
mx_scrape() {
	python3 - "$@" <<-'EOF'
	import re, sys, urllib.request
	port, family, label = sys.argv[1], sys.argv[2], sys.argv[3].split("=", 1)
	body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=10).read().decode()
	want = '%s="%s"' % tuple(label)
	print(int(sum(float(m.group(2)) for m in re.finditer(r"^%s\{([^}]*)\} (\S+)$" % family, body, re.M)
	              if want in m.group(1).split(","))))
	EOF
}

# a kernel-function spec served: dd's pipe reads counted between two scrapes
test_matrix_serve_func() {
	mx_case "serve (func)"
	mx_need kprobes || return
	local port=$((20000 + ($$ + 11) % 20000)) pid before after n
	"$KDIST" serve -v --listen 127.0.0.1:$port --measure 'name=vr: func vfs_read --by comm' \
		2>"$TMP/msv.err" & pid=$!
	for _ in $(seq 300); do
		grep -q '^Serving' "$TMP/msv.err" 2>/dev/null || ! kill -0 $pid 2>/dev/null || sleep 0.1
	done
	grep -q '^Serving' "$TMP/msv.err" || { kill $pid 2>/dev/null; wait $pid; mx_fail "not serving: $(tail -3 "$TMP/msv.err")"; return; }
	MX_ATTACH=$(sed -n 's/.* attached with \([^,]*\),.*/\1/p' "$TMP/msv.err" | head -1)
	before=$(mx_scrape $port kdist_vr_seconds_count comm=dd 2>"$TMP/msv.py")
	sh -c "$(mx_pipe_reads)"
	after=$(mx_scrape $port kdist_vr_seconds_count comm=dd 2>>"$TMP/msv.py")
	kill -TERM $pid
	wait $pid || { mx_fail "kdist serve exited $?: $(tail -3 "$TMP/msv.err")"; return; }
	[ -n "$before" ] && [ -n "$after" ] || { mx_fail "scrape failed: $(tail -1 "$TMP/msv.py")"; return; }
	n=$((after - before))
	no_leftovers || { mx_fail "BPF programs left after kdist serve stopped"; return; }
	# dd reads its input MX_READS times, plus a few reads of its own
	[ "$n" -ge $MX_READS ] && [ "$n" -le $((MX_READS + 20)) ] ||
		{ mx_fail "vfs_read count of dd went $before -> $after for $MX_READS reads"; return; }
	mx_pass "vfs_read served: dd's count +$n for $MX_READS reads (scraped before and after)"
}

# --- discovery and comparison -----------------------------------------------

test_matrix_list_probe() {
	mx_case "list, probe"
	local out
	out=$("$KDIST" list sched:sched_switch 2>&1) || { mx_fail "list: $out"; return; }
	grep -qw prev_pid <<<"$out" && grep -qw next_pid <<<"$out" ||
		{ mx_fail "list sched:sched_switch shows no prev_pid/next_pid"; return; }
	out=$("$KDIST" probe 2>&1) || { mx_fail "probe: $out"; return; }
	grep -q "^kernel $(uname -r) " <<<"$out" || { mx_fail "probe names another kernel"; return; }
	MX_ATTACH=$(sed -n 's/^  k:FUNC, kr:FUNC *//p' <<<"$out")
	mx_pass "sched_switch fields listed; probe: k:/kr: $MX_ATTACH"
}

test_matrix_diff() {
	mx_case diff
	mx_run dA syscalls -c "$WL/sleeper 10 1" || return
	"$KDIST" diff "$TMP/dA.json" "$TMP/dA.json" --fail-on 'p50>+10%' >"$TMP/diff.txt" 2>&1 ||
		{ mx_fail "a measurement differs from itself: $(head -5 "$TMP/diff.txt")"; return; }
	grep -q nanosleep "$TMP/diff.txt" || { mx_fail "no nanosleep row: $(head -5 "$TMP/diff.txt")"; return; }
	mx_pass "a measurement compared with itself: no change"
}

# --- the workload without cgroup v2 mounted --------------------------------

# A private mount namespace without cgroup v2 (and with cgroup v1
# hierarchies in the hybrid case): kdist mounts cgroup v2 for itself and
# traces the workload alone while a second sleeper runs beside it.
mx_no_cgroup2() { # mx_no_cgroup2 v1|none
	local v1=$1 pre
	pre="umount -R /sys/fs/cgroup 2>/dev/null; umount /sys/fs/cgroup 2>/dev/null; "
	pre+="! grep -q ' cgroup2 ' /proc/self/mounts || { echo 'cgroup2 still mounted' >&2; exit 9; }; "
	if [ "$v1" = v1 ]; then
		pre+="mount -t tmpfs cgroup /sys/fs/cgroup && mkdir /sys/fs/cgroup/kdx && "
		pre+="mount -t cgroup -o none,name=kdx cgroup /sys/fs/cgroup/kdx || exit 9; "
	fi
	cp "$WL/sleeper" "$TMP/kdxs"
	"$TMP/kdxs" 200 2 & local noise=$!
	unshare -m --propagation private sh -c "$pre"'exec "$@"' sh \
		"$KDIST" syscalls --by comm -o json -c "$WL/sleeper 20 2" >"$TMP/ncg.json" 2>"$TMP/ncg.err"
	local rc=$?
	kill $noise 2>/dev/null; wait $noise 2>/dev/null
	[ $rc = 0 ] || { mx_fail "exit $rc: $(tail -3 "$TMP/ncg.err")"; return 1; }
	read -r n other <<<"$(mx_eval ncg "'%d %d' % (g(comm='sleeper', syscall='nanosleep'), g(comm='kdxs'))")"
	exact "$n" 20 "$TMP/ncg.json" && [ "$other" = 0 ] ||
		{ mx_fail "workload's nanosleeps $n (20), the other sleeper's syscalls $other (0), $(mx_losses ncg)"; return 1; }
	# kdist's own mount stayed in its namespace, its cgroup is gone
	grep -q "/sys/fs/cgroup cgroup2" /proc/self/mounts || return 0
	ls -d /sys/fs/cgroup/kdist-* >/dev/null 2>&1 && { mx_fail "a kdist cgroup left behind"; return 1; }
	return 0
}

test_matrix_workload_no_cgroup2() {
	mx_case "-c (no cgroup v2 mounted)"
	command -v unshare >/dev/null || { mx_skip "no unshare(1) for a mount namespace"; return; }
	mx_no_cgroup2 none || return
	mx_pass "20 nanosleeps of the workload, none of the sleeper beside it"
}

test_matrix_workload_cgroup_v1() {
	mx_case "-c (cgroup v1 only)"
	command -v unshare >/dev/null || { mx_skip "no unshare(1) for a mount namespace"; return; }
	mx_no_cgroup2 v1 || return
	mx_pass "20 nanosleeps of the workload, none of the sleeper beside it"
}

# --- functions and tracepoints of kernel modules ----------------------------
# null_blk (loaded by the VM tier): each O_DIRECT write of 4 KiB to
# /dev/nullb0 is one request, one null_queue_rq() call, issued in the
# writer's context or by a kblockd worker: trace all, nothing else uses it.

test_matrix_module_func() {
	mx_case "func, pair k: kr: (module)"
	mx_need kprobes || return
	grep -q ' null_queue_rq[[:space:]]\+\[null_blk\]' /proc/kallsyms ||
		{ mx_skip "null_blk module not loaded (the VM tier loads it)"; return; }
	# one function: by fentry where the kernel has it (the module's BTF);
	# 'null_*' (about 30): above func's fentry limit, by kprobes
	local fone=kprobe fall=kprobe pwant=kprobe,kretprobe f a p how
	# fentry on a module's function needs the module's BTF (Linux 5.11)
	local mbtf=
	grep -qE '^ +fentry/fexit +yes' <<<"$MX_PROBE" && [ -e /sys/kernel/btf/null_blk ] && mbtf=1
	[ -n "$mbtf" ] && fone=fentry
	grep -qE '^ +kprobe.multi +yes' <<<"$MX_PROBE" && fall=kprobe.multi
	[ $fone = kprobe ] && fone=$fall
	[ -n "$mbtf" ] && pwant=fentry,fexit
	mx_bg mf "$WL/directio /dev/nullb0 25 4096" func null_queue_rq || return
	mx_bg ma "$WL/directio /dev/nullb0 25 4096" func 'null_*' || return
	mx_bg mp "$WL/directio /dev/nullb0 25 4096" pair k:null_queue_rq kr:null_queue_rq || return
	read -r f how <<<"$(mx_eval mf "'%d %s' % (g(function='null_queue_rq'), d['events'][0]['attach'])" | tail -1)"
	[ "$how" = $fone ] || { mx_fail "func null_queue_rq attached with $how, expected $fone"; return; }
	read -r a how <<<"$(mx_eval ma "'%d %s' % (g(function='null_queue_rq'), d['events'][0]['attach'])" | tail -1)"
	[ "$how" = $fall ] || { mx_fail "func 'null_*' attached with $how, expected $fall"; return; }
	read -r p how <<<"$(mx_eval mp "'%d %s' % (g(), ','.join(e['attach'] for e in d['events']))" | tail -1)"
	[ "$how" = $pwant ] || { mx_fail "pair attached with $how, expected $pwant"; return; }
	exact "$f" 25 "$TMP/mf.json" && exact "$a" 25 "$TMP/ma.json" && exact "$p" 25 "$TMP/mp.json" ||
		{ mx_fail "null_queue_rq: func $f ($(mx_losses mf)), func 'null_*' $a ($(mx_losses ma)), pair $p ($(mx_losses mp)) calls for 25 writes"; return; }
	mx_pass "null_blk's null_queue_rq: 25 calls for 25 writes (func by $fone, func 'null_*' by $fall, pair by $pwant)"
}

# 9pnet's tracepoints: the VM's output directory is 9p without a cache,
# so each one-byte read of a file there is a request and its response in
# the reading thread
test_matrix_module_tracepoint() {
	mx_case "pair (module tracepoint)"
	[ -e /sys/kernel/tracing/events/9p/9p_client_req ] && [ -d "${KDIST_VM_OUT:-/nonexistent}" ] ||
		{ mx_skip "no 9p module tracepoints or no uncached 9p directory (the VM tier has both)"; return; }
	local f=$KDIST_VM_OUT/.kdist-9p.$$ n
	head -c 100 /dev/zero >"$f"
	mx_run m9p pair 9p:9p_client_req 9p:9p_client_res --by comm -c "dd if=$f of=/dev/null bs=1 count=50 status=none"
	local rc=$?
	rm -f "$f"
	[ $rc = 0 ] || return
	n=$(mx_eval m9p "g(comm='dd')")
	[ "$n" -ge 50 ] || { mx_fail "dd: $n 9p requests for 50 uncached reads"; return; }
	mx_pass "dd: $n 9p requests for 50 uncached reads (>= 50)"
}

# The seed scenario: kdist_seed (tests/vm/seed, built and loaded by the VM
# tier) raises IO page faults between its smmu:io_fault_entry and
# io_fault_exit tracepoints, for several PASIDs at once, each resolved in
# a kworker no sooner than (i + 1) * wait_us for the i-th PASID: per PASID
# an exact count and latencies no shorter than its wait
test_matrix_module_seed() {
	mx_case "pair --key pasid --by pasid (seed module)"
	local prm=/sys/module/kdist_seed/parameters np nf w p0 i out p n lo res=
	[ -e /sys/kernel/tracing/events/smmu/io_fault_entry ] ||
		{ mx_skip "kdist_seed module not loaded (the VM tier builds and loads it)"; return; }
	read -r np nf w p0 <<<"$(cat $prm/pasids $prm/faults $prm/wait_us $prm/first_pasid | paste -sd' ')"
	echo 1 >$prm/inflight
	mx_bg seed "echo 1 >$prm/run" pair smmu:io_fault_entry smmu:io_fault_exit --key pasid --by pasid ||
		return
	# PASID count shortest, a line each, by PASID
	out=$(mx_eval seed "'\\n'.join('%s %d %d' % (x['by'].get('pasid'), x['count'], x['min']) for x in sorted(d['groups'], key=lambda x: int(x['by'].get('pasid', 0))))")
	[ "$(wc -l <<<"$out")" = "$np" ] || { mx_fail "groups: $out; expected $np PASIDs"; return; }
	for ((i = 0; i < np; i++)); do
		read -r p n lo <<<"$(sed -n "$((i + 1))p" <<<"$out")"
		[ "$p" = $((p0 + i)) ] && exact "$n" "$nf" "$TMP/seed.json" && [ "$lo" -ge $(((i + 1) * w * 1000)) ] ||
			{ mx_fail "PASID $p: $n faults ($nf), shortest $lo ns (>= $(((i + 1) * w)) us), $(mx_losses seed)"; return; }
		res+="${res:+, }$p: $n >= $((lo / 1000)) us"
	done
	mx_pass "$np PASIDs x $nf faults, resolved in a kworker (PASID: count >= shortest): $res"
}

# --explain of the seed's faults, 2 in flight per PASID (--match fifo):
# each is an interval of the writer's thread, which raises a round's faults
# and waits for them in flush_workqueue(), uninterruptible: most of the
# faults' time is its blocked D time, and each fault's parts add up
test_matrix_module_seed_explain() {
	mx_case "pair --explain --key pasid --match fifo (seed module)"
	local prm=/sys/module/kdist_seed/parameters np nf msg msg2
	[ -e /sys/kernel/tracing/events/smmu/io_fault_entry ] ||
		{ mx_skip "kdist_seed module not loaded (the VM tier builds and loads it)"; return; }
	mx_need "task storage maps" || return
	read -r np nf <<<"$(cat $prm/pasids $prm/faults | paste -sd' ')"
	echo 2 >$prm/inflight
	mx_bg seedx "echo 1 >$prm/run" pair smmu:io_fault_entry smmu:io_fault_exit --key pasid \
		--match fifo --explain --slower-than 1ns || { echo 1 >$prm/inflight; return; }
	echo 1 >$prm/inflight
	mx_eval seedx "g()" >/dev/null
	msg=$(python3 - "$TMP/seedx.json" $((np * nf * 2)) <<'PY'
import json, sys
P = ("oncpu", "irq", "runnable", "blocked_s", "blocked_d", "blocked_other", "unattributed")
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"event"')]
n = int(sys.argv[2])
bad = [e for e in ev if sum(e[p + "_ns"] or 0 for p in P) != e["latency_ns"]]
lat, d = sum(e["latency_ns"] for e in ev), sum(e["blocked_d_ns"] for e in ev)
if len(ev) != n or bad or d < lat / 2:
    print(f"{len(ev)} faults ({n}), parts not adding up: {bad[:1]}, blocked D {d} of {lat} ns")
    sys.exit(1)
print(f"{n} faults, the writer blocked D for {100 * d / lat:.0f}% of their time, parts adding up")
PY
) || { mx_fail "$msg"; return; }
	# --explain end: a fault followed to the kworker that resolved it,
	# woken by another thread (the writer in queue_work(), a kworker, or
	# one of the threads those woke: the pool is shared), never kdist; a
	# worker that takes the next work without a new wakeup is not followed
	# for that fault (the split is then the writer's), so only the lines
	# that say followed are checked, and the groups' count of them
	echo 2 >$prm/inflight
	mx_bg seede "echo 1 >$prm/run" pair smmu:io_fault_entry smmu:io_fault_exit --key pasid \
		--match fifo --explain end --slower-than 1ns || { echo 1 >$prm/inflight; return; }
	echo 1 >$prm/inflight
	msg2=$(python3 - "$TMP/seede.json" $((np * nf * 2)) <<'PY'
import json, sys
P = ("oncpu", "irq", "runnable", "blocked_s", "blocked_d", "blocked_other", "unattributed")
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ev = [e for e in docs if e.get("event") == "slow"]
n, g = int(sys.argv[2]), docs[-1]["groups"]
fol = [e for e in ev if "end_tid" in e]
bad = [e for e in ev if sum(e[p + "_ns"] or 0 for p in P) != e["latency_ns"]] + \
      [e for e in fol if not e["end_comm"].startswith("kworker") or not 0 <= e["handoff_ns"] <= e["latency_ns"]
       or e["end_waker_tid"] == e["end_tid"] or e["end_waker_comm"] == "kdist"]
nf = sum(x["explain"]["all"]["followed"] for x in g)
if len(ev) != n or bad or nf != len(fol):
    print(f"end: {len(ev)} faults ({n}), {len(fol)} lines followed, groups {nf}, wrong: {bad[:1]}")
    sys.exit(1)
print(f"end: {len(fol)} of {n} followed to a kworker, woken by " + ", ".join(sorted({e["end_waker_comm"] for e in fol})) + ", parts adding up")
PY
) || { mx_fail "$msg2"; return; }
	mx_pass "$msg; $msg2"
}
