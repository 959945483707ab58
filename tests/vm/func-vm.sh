#!/bin/bash
# Kernel functions, run inside a VM by tests/vm/run.sh (tests/vm/run-in-vm
# FLAVOR tests/vm/func-vm.sh): kdist func and pair's k:/kr: on a stock
# Debian kernel, then the command matrix (tests/matrix.sh), and in an arm64
# VM the arm64 cases (tests/vm/arm64-cases.sh).  KDIST_VM_FLAVOR says which
# (5.10: kprobes without attach cookies, no task storage; 6.1: kprobes only;
# 6.12: kprobe.multi too; arm64-6.1, arm64-6.12).  Ends with "N passed,
# N failed, N skipped".
source "$(dirname "$0")/../lib.sh"
# the workloads of the build KDIST is of (build/arm64/ in an arm64 VM)
WL=$(dirname "$KDIST")/tests

FLAVOR=${KDIST_VM_FLAVOR:-unknown}
READS=1000
# about 1000 functions or more, rarely called in an idle VM: pci_* and
# tcp_* on 6.1 and 6.12; 5.10 has fewer (956 traceable), so udp_* joins
BIG_GLOB=('pci_*' 'tcp_*')
[ "$(grep -cE '^(pci|tcp)_' /sys/kernel/tracing/available_filter_functions 2>/dev/null)" -ge 1100 ] ||
	BIG_GLOB+=('udp_*')

# READS one-byte reads of a pipe by dd
pipe_reads() {
	echo "head -c $((READS * 2)) /dev/zero | dd of=/dev/null bs=1 count=$READS 2>/dev/null"
}

kprobes_active() {
	local n
	n=$(grep -c . /sys/kernel/debug/kprobes/list 2>/dev/null)
	echo "${n:-0}"
}

# nothing attached: no kprobes, no kdist programs (RCU frees them late,
# and later still under TCG on a busy host: up to 10 s)
nothing_left() {
	for _ in $(seq 100); do
		[ "$(kprobes_active)" = 0 ] && [ "$(bpf_leftovers)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# kprobe.multi is there where the kernel was built with fprobe (x86-64 6.12;
# not arm64 6.12, whose ftrace has no fprobe yet; not 6.1): the booted
# kernel's own config says which
test_vm_probe_multi() {
	local line config
	line=$("$KDIST" probe | grep -E '^ +kprobe.multi ')
	config=$(echo "$KDIST_VM_KERNEL_ROOT"/boot/config-*)
	[ -r "$config" ] || { skip "no config of the booted kernel in $KDIST_VM_KERNEL_ROOT/boot"; return; }
	if grep -q '^CONFIG_FPROBE=y' "$config"; then
		grep -q yes <<<"$line" && pass "CONFIG_FPROBE=y: $line" || fail "CONFIG_FPROBE=y, yet: $line"
	else
		grep -q 'no:' <<<"$line" && pass "no CONFIG_FPROBE: $line" || fail "no CONFIG_FPROBE, yet: $line"
	fi
}

# has FEATURE: kdist probe says yes
has() { "$KDIST" probe | grep -qE "^ +$1 +yes"; }

# func_pipe_reads METHOD [--attach METHOD]: N reads of a pipe are N
# pipe_read calls of dd, exactly, and at least N vfs_read calls; self time
# below total for the functions with traced callees: dd's reads go
# ksys_read -> vfs_read -> pipe_read, so vfs_read's total is its self time
# plus pipe_read's total (2%: probe costs land in self times).  METHOD is
# the attach method the JSON must name.
func_pipe_reads() {
	local want=$1 f=$TMP/reads.json calls pc vt vs pt kt ks vm how
	shift
	"$KDIST" func "$@" ksys_read vfs_read pipe_read --by comm -o json \
		-- sh -c "$(pipe_reads)" >"$f" 2>"$TMP/reads.err" ||
		{ fail "kdist func $*: $(cat "$TMP/reads.err")"; return; }
	# one python run for all values: each costs seconds under TCG
	read -r how calls pc vt vs pt kt ks vm <<<"$(json "$f" "' '.join([d['events'][0]['attach']] + [str(int([g for g in d['groups'] if g['by'] == {'function': fn, 'comm': 'dd'}][0][k])) for fn, k in (('vfs_read', 'count'), ('pipe_read', 'count'), ('vfs_read', 'total'), ('vfs_read', 'self'), ('pipe_read', 'total'), ('ksys_read', 'total'), ('ksys_read', 'self'), ('vfs_read', 'max'))])")"
	[ "$how" = "$want" ] || { fail "attached with $how, expected $want"; return; }
	exact "${pc:-0}" $READS "$f" || { fail "dd: $pc pipe_read calls, expected $READS"; return; }
	[ "${calls:-0}" -ge $READS ] || { fail "dd: $calls vfs_read calls, expected >= $READS"; return; }
	[ "$vs" -lt "$vt" ] && [ "$ks" -lt "$kt" ] ||
		{ fail "self not below total: vfs_read $vs/$vt, ksys_read $ks/$kt"; return; }
	within $((vs + pt)) "$vt" 2 || { fail "vfs_read: self $vs + pipe_read $pt != total $vt"; return; }
	# ksys_read: its self time and the vfs_read calls under it; vfs_read's
	# total also holds the calls outside it (ld.so's pread64 of its
	# libraries), at most calls - READS of them, none longer than its max
	[ $((ks + vt)) -ge $((kt - kt / 50)) ] && [ $((ks + vt)) -le $((kt + kt / 50 + (calls - READS) * vm)) ] ||
		{ fail "ksys_read: self $ks + vfs_read $vt, total $kt: apart by more than $((calls - READS)) calls outside read(2) of at most $vm ns"; return; }
	nothing_left || { fail "left behind: $(kprobes_active) kprobes, $(bpf_leftovers) programs"; return; }
	pass "$how: dd: $pc pipe_read, $calls vfs_read calls for $READS reads; vfs_read $vt = self $vs + pipe_read $pt ns"
}

# three functions: fentry/fexit where the kernel has them
test_vm_func_pipe_reads() {
	local want=kprobe
	if has 'fentry/fexit'; then want=fentry; elif has kprobe.multi; then want=kprobe.multi; fi
	func_pipe_reads $want
}

# each method forced, the same truth; a method the kernel lacks is a
# one-line error before anything is loaded, saying that the kernel lacks
# it (5.10: no such attach type; 6.1 and arm64: built without fprobe)
test_vm_func_attach_fentry() {
	has 'fentry/fexit' || { skip "no fentry/fexit"; return; }
	func_pipe_reads fentry --attach fentry
}
test_vm_func_attach_kprobe_multi() {
	if ! has kprobe.multi; then
		"$KDIST" func --attach kprobe.multi vfs_read -d 1 >/dev/null 2>"$TMP/km.err"
		local rc=$?
		[ $rc = 1 ] && [ "$(wc -l <"$TMP/km.err")" = 1 ] &&
			grep -q '^kdist: failed to attach by kprobe.multi: not in this kernel (' "$TMP/km.err" ||
			{ fail "exit $rc: $(cat "$TMP/km.err")"; return; }
		pass "no kprobe.multi: $(cat "$TMP/km.err")"
		return
	fi
	func_pipe_reads kprobe.multi --attach kprobe.multi
}
test_vm_func_attach_kprobe() {
	func_pipe_reads kprobe --attach kprobe
}

# A function fentry cannot take (a compiler clone such as .isra.0 has no
# BTF) goes by kprobes, said with -v; the others stay on fentry.
test_vm_func_fentry_fallback() {
	has 'fentry/fexit' || { skip "no fentry/fexit"; return; }
	local clone f=$TMP/fb.json how n
	clone=$(grep -m1 -E '^[a-z_0-9]+\.isra\.0$' /sys/kernel/tracing/available_filter_functions)
	[ -n "$clone" ] || { skip "no .isra.0 function to trace"; return; }
	"$KDIST" func -v vfs_read "$clone" -d 0.5 -o json >"$f" 2>"$TMP/fb.err" ||
		{ fail "kdist func: $(tail -3 "$TMP/fb.err")"; return; }
	read -r how n <<<"$(json "$f" "'%s %d' % (d['events'][0]['attach'], d['functions']['attached'])")"
	grep -q "^kdist: $clone: by kprobes, not fentry: not in the kernel's BTF" "$TMP/fb.err" ||
		{ fail "no reason given for $clone: $(grep -F "$clone" "$TMP/fb.err")"; return; }
	case $how in fentry+kprobe*) ;; *) fail "attached with $how, expected fentry+kprobe..."; return ;; esac
	[ "$n" = 2 ] || { fail "$n attached, expected 2"; return; }
	pass "vfs_read by fentry, $clone by kprobes ($how): $(grep -F "$clone: by" "$TMP/fb.err")"
}

# --slower-than --stack on a kernel function: cat's first read of an empty
# pipe blocks in pipe_read until the writer writes, 3 s after both started
# (cat's own start takes a fraction of that, even emulated); its other read
# ends at once, and nothing else of the workload reads a pipe.  Its kernel
# stack, taken at the return, holds pipe_read's callers.
test_vm_func_slower_than_stack() {
	local f=$TMP/slow.json msg
	"$KDIST" func pipe_read --slower-than 200ms --stack -o json -- sh -c '(sleep 3; echo x) | cat >/dev/null' \
		>"$f" 2>"$TMP/slow.err" || { fail "kdist func: $(cat "$TMP/slow.err")"; return; }
	# cat's first read waits for the sleep (3 s less cat's own start); its
	# read of the end waits for the subshell's exit, which an emulated VM
	# can take past 200 ms: one or two slow reads, no more
	msg=$(json "$f" "
(lambda ev: 'ok' if 1 <= len(ev) <= 2 and max(e['latency_ns'] for e in ev) > 1000000000
 and all(e['comm'] == 'cat' and e['latency_ns'] > 200000000 and e['function'] == 'pipe_read'
         and {'vfs_read', 'ksys_read'} & set(e['kstack']) for e in ev)
 else str(ev))([x for x in docs if x.get('event') == 'slow'])")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "cat's pipe_read of the sleep > 1 s, kernel stack $(json "$f" "','.join(docs[0]['kstack'][:3])")"
}

# A glob of 1000+ functions attaches within a bound, and leaves nothing.
test_vm_func_big_glob() {
	local f=$TMP/big.json t0 t1 n ms sk how
	t0=$(date +%s%N)
	"$KDIST" func "${BIG_GLOB[@]}" -d 1 -o json >"$f" 2>"$TMP/big.err" ||
		{ fail "kdist func: $(tail -3 "$TMP/big.err")"; return; }
	t1=$(date +%s%N)
	read -r n ms sk how <<<"$(json "$f" "'%d %d %d %s' % (d['functions']['attached'], d['functions']['attach_ms'], d['functions']['skipped'], d['events'][0]['attach'])")"
	[ "${n:-0}" -ge 1000 ] || { fail "only $n functions attached"; return; }
	# above FUNC_FENTRY_MAX functions: not fentry
	local want=kprobe
	has kprobe.multi && want=kprobe.multi
	[ "$how" = $want ] || { fail "attached with $how, expected $want"; return; }
	# attach time is a figure of make bench (bench/func-attach.sh), not a
	# bound here: TCG on a busy machine runs at any speed
	nothing_left || { fail "left behind: $(kprobes_active) kprobes, $(bpf_leftovers) programs"; return; }
	pass "${BIG_GLOB[*]}: $n attached ($sk skipped) with $how in $ms ms; whole run incl. detach $(((t1 - t0) / 1000000)) ms; nothing left"
}

# Functions that cannot be traced are skipped and counted, not fatal.
test_vm_func_skips_untraceable() {
	local f=$TMP/skip.json deny
	# a function on the kprobes blacklist (do_int3 on x86); else the first
	# one ftrace could otherwise attach to (arm64's debug exception
	# handlers are renamed from one version to the next); vfs_read is fine
	deny=$(awk 'NR == FNR { ok[$1] = 1; next }
		$2 == "do_int3" { print $2; found = 1; exit }
		!first && ($2 in ok) && $2 ~ /^[a-z_0-9]+$/ { first = $2 }
		!any && $2 ~ /^[a-z_0-9]+$/ { any = $2 }
		END { if (!found) print (first ? first : any) }' \
		/sys/kernel/tracing/available_filter_functions /sys/kernel/debug/kprobes/blacklist)
	[ -n "$deny" ] || { fail "no traceable function on the kprobes blacklist"; return; }
	"$KDIST" func vfs_read "$deny" -d 0.5 -o json >"$f" 2>"$TMP/skip.err" ||
		{ fail "kdist func: $(cat "$TMP/skip.err")"; return; }
	[ "$(json "$f" "(d['functions']['attached'], d['functions']['skipped'])")" = "(1, 1)" ] ||
		{ fail "attached/skipped with $deny: $(json "$f" "d['functions']")"; return; }
	pass "vfs_read attached, $deny (kprobes blacklist) skipped"
}

# Ctrl-C in the middle of a long attach: exits, nothing left attached.
test_vm_func_interrupt() {
	local kp t0 t1 msg
	t0=$(date +%s%N)
	"$KDIST" func -v "${BIG_GLOB[@]}" -d 60 >"$TMP/int.out" 2>&1 & kp=$!
	for _ in $(seq 600); do grep -q "attaching" "$TMP/int.out" && break; sleep 0.05; done
	sleep 0.2
	kill -INT $kp
	wait $kp
	t1=$(date +%s%N)
	msg=$(grep -oE "interrupted while attaching.*|functions attached.*" "$TMP/int.out")
	nothing_left || { fail "left behind: $(kprobes_active) kprobes, $(bpf_leftovers) programs"; return; }
	pass "${msg:-stopped}; exited $(((t1 - t0) / 1000000)) ms after start; nothing left"
}

# pair's k:/kr: through the same attach machinery
test_vm_pair_kprobe() {
	local f=$TMP/pair.json n how p50
	"$KDIST" pair k:vfs_read kr:vfs_read --comm dd -o json -- sh -c "$(pipe_reads)" >"$f" 2>"$TMP/pair.err" ||
		{ fail "kdist pair: $(cat "$TMP/pair.err")"; return; }
	read -r n how p50 <<<"$(json "$f" "'%d %s %d' % (sum(g['count'] for g in d['groups']), ','.join(e['attach'] for e in d['events']), d['groups'][0]['p50'])")"
	[ "${n:-0}" -ge $READS ] || { fail "$n vfs_read latencies, expected >= $READS"; return; }
	# fentry/fexit where the kernel has them (k:/kr: prefer them), else kprobes
	local want=kprobe,kretprobe
	"$KDIST" probe | grep -qE '^ +fentry/fexit +yes' && want=fentry,fexit
	[ "$how" = $want ] || { fail "attach: $how, expected $want"; return; }
	nothing_left || { fail "left behind: $(kprobes_active) kprobes"; return; }
	pass "$n vfs_read latencies, p50 $p50 ns, $how"
}

# A kernel without /sys/kernel/btf/vmlinux (hidden here by a mount
# namespace): kdist says so in one line before loading anything; with
# --btf FILE, a copy of the same kernel's BTF, it counts what it counts
# with the kernel's own: 20 nanosleeps of the sleeper, READS pipe_read
# calls of dd, the syscalls of syserr, the sleeper's off-CPU time, the
# switches away from it by a path (each program family once).
nobtf() { unshare -m sh -c 'mount -t tmpfs nobtf /sys/kernel/btf && exec "$@"' sh "$@"; }
test_vm_btf_file() {
	local btf=$TMP/vmlinux.btf n c rc
	cp /sys/kernel/btf/vmlinux "$btf" || { fail "no /sys/kernel/btf/vmlinux to copy"; return; }
	nobtf "$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep -d 1 \
		>/dev/null 2>"$TMP/nobtf.err"
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$TMP/nobtf.err")" = 1 ] && grep -q -- '--btf FILE' "$TMP/nobtf.err" ||
		{ fail "without BTF: exit $rc: $(cat "$TMP/nobtf.err")"; return; }
	nobtf "$KDIST" pair --btf "$btf" syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep \
		-o json -c "$WL/sleeper 20 2" >"$TMP/btf1.json" 2>"$TMP/btf1.err" ||
		{ fail "pair --btf: $(tail -3 "$TMP/btf1.err")"; return; }
	n=$(json "$TMP/btf1.json" "sum(g['count'] for g in d['groups'])")
	exact "$n" 20 "$TMP/btf1.json" || { fail "pair --btf: $n nanosleeps, expected 20"; return; }
	nobtf "$KDIST" func --btf "$btf" vfs_read pipe_read --by comm -o json -- sh -c "$(pipe_reads)" \
		>"$TMP/btf2.json" 2>"$TMP/btf2.err" ||
		{ fail "func --btf: $(tail -3 "$TMP/btf2.err")"; return; }
	c=$(json "$TMP/btf2.json" "[g['count'] for g in d['groups'] if g['by'] == {'function': 'pipe_read', 'comm': 'dd'}][0]")
	exact "$c" $READS "$TMP/btf2.json" || { fail "func --btf: $c pipe_read calls, expected $READS"; return; }
	# the other program families: a recipe (syscalls' raw tracepoints and
	# its arrays), offcpu's stacks on sched_switch, a path through a raw
	# tracepoint's argument
	local ok bad off sw
	nobtf "$KDIST" syscalls --btf "$btf" -o json -- "$WL/syserr" 100 7 >"$TMP/btf3.json" 2>"$TMP/btf3.err" ||
		{ fail "syscalls --btf: $(tail -3 "$TMP/btf3.err")"; return; }
	read -r ok bad <<<"$(json "$TMP/btf3.json" "' '.join(str(sum(g['count'] for g in d['groups'] if g['by'] == {'syscall': s, 'error': e})) for s, e in (('getppid', 'ok'), ('close', 'EBADF')))")"
	[ "$ok $bad" = "100 7" ] || { fail "syscalls --btf: getppid ok $ok (100), close EBADF $bad (7)"; return; }
	nobtf "$KDIST" offcpu --btf "$btf" -o folded -c "$WL/sleeper 20 5" >"$TMP/btf4.folded" 2>"$TMP/btf4.err" ||
		{ fail "offcpu --btf: $(tail -3 "$TMP/btf4.err")"; return; }
	off=$(folded_sum "$TMP/btf4.folded" '^sleeper;.*nanosleep')
	[ "$off" -ge 100000000 ] || { fail "offcpu --btf: $off ns under nanosleep, expected >= 20 x 5 ms"; return; }
	nobtf "$KDIST" count --btf "$btf" sched:sched_switch --by 'prev->comm' -o json -c "$WL/sleeper 20 2" \
		>"$TMP/btf5.json" 2>"$TMP/btf5.err" || { fail "count --by prev->comm --btf: $(tail -3 "$TMP/btf5.err")"; return; }
	sw=$(json "$TMP/btf5.json" "sum(g['count'] for g in d['groups'] if g['by']['prev->comm'] == 'sleeper')")
	[ "$sw" -ge 20 ] || { fail "count --btf: $sw switches away from sleeper for 20 sleeps"; return; }
	nothing_left || { fail "left behind: $(kprobes_active) kprobes, $(bpf_leftovers) programs"; return; }
	pass "BTF hidden: $(cat "$TMP/nobtf.err"); with --btf: pair 20 nanosleeps, func $c pipe_read of dd, syscalls getppid $ok and close EBADF $bad, offcpu $off ns under nanosleep, $sw switches by prev->comm"
}

# Kernel variables (Debian's kernels list them in /proc/kallsyms), against
# what the kernel guarantees of them: each CPU's run queue has that CPU's
# number (struct rq's cpu), so at every switch runqueues.cpu is the CPU
# the event ran on and runqueues@1.cpu is 1; init_task is "swapper/0"
# (typed by a cast where the kernel's BTF has no type for it); the
# variable jiffies, read at its address just after bpf_jiffies64() at the
# same event, equals it or is one tick ahead.
test_vm_globals() {
	# runqueues is typed by BTF where pahole wrote per-CPU variables
	# (Debian 12's kernels), by a cast where BTF has no variables (5.10)
	local rq=runqueues spec out config
	config=$(echo "$KDIST_VM_KERNEL_ROOT"/boot/config-*)
	if [ -r "$config" ] && ! grep -q '^CONFIG_KALLSYMS_ALL=y' "$config"; then
		# Debian's arm64 6.1: refused in one line that names what is missing
		"$KDIST" count sched:sched_switch --by runqueues.cpu -d 0.1 >/dev/null 2>"$TMP/glob.err"
		[ $? = 2 ] && grep -q "CONFIG_KALLSYMS_ALL" "$TMP/glob.err" ||
			{ fail "no CONFIG_KALLSYMS_ALL, yet: $(cat "$TMP/glob.err")"; return; }
		skip "no CONFIG_KALLSYMS_ALL: kernel variables have no address (refused: $(cat "$TMP/glob.err"))"
		return
	fi
	"$KDIST" count sched:sched_switch --by runqueues.cpu -d 0.1 >/dev/null 2>"$TMP/glob.err" ||
		{ grep -q "has no type in the kernel's BTF" "$TMP/glob.err" && rq='(struct rq)runqueues'; } ||
		{ fail "runqueues.cpu: $(cat "$TMP/glob.err")"; return; }
	spec="cpu,$rq.cpu,$rq@1.cpu,(struct task_struct)init_task.comm"
	"$KDIST" count sched:sched_switch --by "$spec" -d 1 -o json >"$TMP/glob.json" 2>"$TMP/glob.err" ||
		{ fail "count --by '$spec': $(tail -3 "$TMP/glob.err")"; return; }
	out=$(json "$TMP/glob.json" "(len(d['groups']), sum(g['count'] for g in d['groups']), [g['by'] for g in d['groups'] if g['by']['cpu'] != g['by']['$rq.cpu'] or g['by']['$rq@1.cpu'] != '1' or g['by']['(struct task_struct)init_task.comm'] != 'swapper/0'], d['lost'])")
	[[ $out == *", [], "* ]] && [[ $out != "(0, "* ]] ||
		{ fail "groups, switches, wrong groups, losses: $out"; return; }
	"$KDIST" count sched:sched_switch --by 'jiffies,(unsigned long)jiffies' -d 1 -o json \
		>"$TMP/jif.json" 2>"$TMP/jif.err" || { fail "jiffies: $(tail -3 "$TMP/jif.err")"; return; }
	local bad
	bad=$(json "$TMP/jif.json" "[g['by'] for g in d['groups'] if not 0 <= int(g['by']['(unsigned long)jiffies']) - int(g['by']['jiffies']) <= 1]")
	[ "$bad" = "[]" ] || { fail "jiffies: the variable and bpf_jiffies64() apart: $bad"; return; }
	# the same variables on a timer: CPU 0's clock every 200 ms
	spec="jiffies,(unsigned long)jiffies,$rq.cpu,$rq@1.cpu,(struct task_struct)init_task.comm"
	"$KDIST" trace --every 200ms --fields "$spec" -d 1.1 -o json >"$TMP/every.json" 2>"$TMP/every.err" ||
		{ fail "trace --every: $(tail -3 "$TMP/every.err")"; return; }
	bad=$(json "$TMP/every.json" "
(lambda ev: 'lines: %d' % len(ev) if not 2 <= len(ev) <= 6 else
 [e for e in ev if not 0 <= e['(unsigned long)jiffies'] - e['jiffies'] <= 1 or e['$rq.cpu'] != e['cpu']
  or e['$rq@1.cpu'] != 1 or e['(struct task_struct)init_task.comm'] != 'swapper/0'])(
 [x for x in docs if isinstance(x, dict) and 'event' in x])")
	[ "$bad" = "[]" ] || { fail "trace --every '$spec': $bad"; return; }
	"$KDIST" count sched:sched_switch --by "$rq.no_such" -d 1 >/dev/null 2>"$TMP/nom.err"
	[ $? = 2 ] && grep -q "struct rq has no member 'no_such'" "$TMP/nom.err" ||
		{ fail "a bad member: $(cat "$TMP/nom.err")"; return; }
	nothing_left || { fail "left behind: $(kprobes_active) kprobes, $(bpf_leftovers) programs"; return; }
	pass "switches by the CPU's, CPU 1's runqueue and init_task.comm (groups, switches, wrong groups, losses): $out; jiffies as a variable = bpf_jiffies64(); the same every 200 ms by trace --every"
}

# func --by PATH: vfs_read's file argument followed to the file's name
# (fentry where the kernel has it, and by kprobes): 5 one-byte reads by dd
# of a file are 5 calls under its name; a name longer than the key's 31
# bytes is cut and counted; functions that hold the argument in different
# places are refused before anything is loaded.
test_vm_func_by_path() {
	local name=kdxpath$$ long=kdxlong$$-abcdefghijklmnopqrstuvwxyz0123456789 path='file->f_path.dentry->d_name.name'
	local m got cut msg="" reads
	echo 0123456789 >"$TMP/$name"
	echo 0123456789 >"$TMP/$long"
	reads="dd if=$TMP/$name of=/dev/null bs=1 count=5; dd if=$TMP/$long of=/dev/null bs=1 count=2"
	for m in default kprobe; do
		local how=()
		[ $m = kprobe ] && how=(--attach kprobe)
		"$KDIST" func vfs_read --by "$path" "${how[@]}" -o json -- sh -c "$reads" \
			>"$TMP/fp.json" 2>"$TMP/fp.err" || { fail "$m: $(tail -3 "$TMP/fp.err")"; return; }
		got=$(json "$TMP/fp.json" "sum(g['count'] for g in d['groups'] if g['by']['$path'] == '$name')")
		cut=$(json "$TMP/fp.json" "(d['drops']['text_cut'], sum(g['count'] for g in d['groups'] if g['by']['$path'] == '${long:0:31}'))")
		[ "$got" = 5 ] && [ "$cut" = "(2, 2)" ] ||
			msg+="$m: $got calls under $name (5), text_cut and calls of the cut name $cut ((2, 2)); "
	done
	# an argument itself: the bytes asked for, 1 in each of dd's 7 reads
	"$KDIST" func vfs_read --by count -o json -- sh -c "$reads" >"$TMP/fc.json" 2>"$TMP/fc.err" ||
		{ fail "--by count: $(tail -3 "$TMP/fc.err")"; return; }
	got=$(json "$TMP/fc.json" "sum(g['count'] for g in d['groups'] if str(g['by']['count']) == '1')")
	[ "$got" = 7 ] || msg+="--by count: $got calls of 1 byte (7); "
	"$KDIST" func vfs_read rw_verify_area --by file -d 1 >/dev/null 2>"$TMP/fd.err"
	[ $? = 2 ] && grep -qE "(vfs_read and rw_verify_area|rw_verify_area and vfs_read) read it differently" "$TMP/fd.err" ||
		msg+="two places: $(cat "$TMP/fd.err"); "
	nothing_left || msg+="left behind: $(kprobes_active) kprobes, $(bpf_leftovers) programs; "
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "vfs_read by $path (default and kprobe): 5 calls under $name, a long name cut and counted twice; by count: 7 of 1 byte; a set that disagrees refused"
}

# func --by PATH on a module's function, typed by the module's BTF:
# null_blk's null_queue_rq(hctx, bd) for 25 direct writes of 4 KiB to its
# device are 25 requests of bd->rq->__data_len 4096 (all of them: the
# block layer may issue from a worker, so nothing is filtered).
test_vm_func_module_path() {
	grep -q ' null_queue_rq[[:space:]]\+\[null_blk\]' /proc/kallsyms || { skip "null_blk not loaded"; return; }
	[ -e /sys/kernel/btf/null_blk ] || { skip "no BTF of null_blk (CONFIG_DEBUG_INFO_BTF_MODULES)"; return; }
	local pid got
	"$KDIST" func null_queue_rq --by 'bd->rq->__data_len' -o json >"$TMP/fm.json" 2>"$TMP/fm.err" &
	pid=$!
	wait_tracing "$TMP/fm.err" || { fail "kdist did not start: $(cat "$TMP/fm.err")"; kill $pid; return; }
	"$WL/directio" /dev/nullb0 25 4096
	kill -INT $pid
	wait $pid || { fail "kdist exited $?: $(tail -3 "$TMP/fm.err")"; return; }
	got=$(json "$TMP/fm.json" "[(g['by']['bd->rq->__data_len'], g['count']) for g in d['groups']]")
	[ "$got" = "[('4096', 25)]" ] || { fail "requests by length: $got, expected [('4096', 25)]"; return; }
	pass "null_queue_rq by bd->rq->__data_len (null_blk's BTF): 25 requests of 4096 bytes"
}

# vm_module NAME ARGS...: load a module of the booted kernel, dependencies
# first (modules.dep of the unpacked package; the host's / has no modules
# of this kernel, so no modprobe)
vm_module() {
	local dir dep m
	dir=$(echo "$KDIST_VM_KERNEL_ROOT"/lib/modules/*)
	dep=$(grep -E "/$1\.ko(\.[a-z]+)?:" "$dir/modules.dep") || return 1
	for m in ${dep#*:} ${dep%%:*}; do
		grep -q "^$(basename "${m%%.ko*}" | tr - _) " /proc/modules && continue
		case $m in
		*.xz) busybox xzcat "$dir/$m" ;;
		*) cat "$dir/$m" ;;
		esac >"$TMP/m.ko" || return 1
		if [ "$m" = "${dep%%:*}" ]; then shift; busybox insmod "$TMP/m.ko" "$@"; else busybox insmod "$TMP/m.ko"; fi ||
			return 1
	done
}
# loopback up, for kdist serve's case (the VM's init leaves it down)
ip link set lo up 2>/dev/null || busybox ip link set lo up ||
	echo "no loopback: the serve case will fail"
vm_module null_blk nr_devices=1 queue_mode=2 irqmode=0 ||
	echo "null_blk not loaded: module cases will skip"
# the seed module, built for this kernel by tests/vm/seed-module.sh
busybox insmod "$TOP/build/vm-modules/$FLAVOR/kdist_seed.ko" ||
	echo "kdist_seed not loaded: the seed case will skip"

export KDIST_MATRIX_OUT=${KDIST_VM_OUT:+$KDIST_VM_OUT/$FLAVOR.tsv}
[ -n "$KDIST_MATRIX_OUT" ] && printf '#kernel\t%s\t%s\n' "$(uname -r)" "$FLAVOR" >"$KDIST_MATRIX_OUT"
source "$(dirname "$0")/../matrix.sh"
[ "$(uname -m)" != aarch64 ] || source "$(dirname "$0")/arm64-cases.sh"

echo "kernel $(uname -r) ($FLAVOR)"
run_tests
