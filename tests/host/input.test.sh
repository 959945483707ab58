# Hostile command lines and workloads: every bad input is one line on
# stderr naming the problem, the documented exit code (2: usage, 1: runtime
# failure), in well under a second, with nothing loaded into the kernel and
# nothing left behind; a workload's own failure is kdist's exit status.
# shellcheck shell=bash

LONG=sched:$(printf 'a%.0s' $(seq 10000))

# EXIT|REGEX of the one line|ARGS (words split by the shell)
input_cases() {
	cat <<'EOF'
2|bad --duration 'nan'|syscalls -d nan
2|bad --duration 'inf'|syscalls -d inf
2|bad --duration '1e12': expected a number from 0.001 to 31536000|syscalls -d 1e12
2|bad --duration '-1'|syscalls -d -1
2|bad --duration '0'|syscalls -d 0
2|bad --duration 'abc'|syscalls -d abc
2|bad --duration '5x'|syscalls --duration=5x
2|bad --duration '': empty|syscalls -d ''
2|option '-d' needs a value|syscalls -d
2|option '--by' needs a value|syscalls --by
2|bad --interval '0'|syscalls -i 0
2|bad --interval '1e9'|syscalls -i 1e9
2|bad --count '0'|syscalls -i 1 -n 0
2|bad --count '1.5': expected an integer|syscalls -i 1 -n 1.5
2|bad --count '1e10'|syscalls -i 1 -n 1e10
2|-n COUNT needs -i|syscalls -n 1
2|bad --pid '999999': no such process|syscalls -p 999999
2|bad --pid '0'|syscalls -p 0
2|bad --pid '-1'|syscalls -p -1
2|bad --pid '1.5'|syscalls -p 1.5
2|bad --tid '999999': no such thread|syscalls --tid 999999
2|bad --tid '99999999999'|syscalls --tid 99999999999
2|bad --cgroup '/etc': not a cgroup v2 directory|syscalls --cgroup /etc
2|bad --cgroup '/nonexistent-cgroup'|syscalls --cgroup /nonexistent-cgroup
2|bad --comm '': empty|syscalls --comm ''
2|bad --comm 'abcdefghijklmnopq': at most 15|syscalls --comm abcdefghijklmnopq
2|bad --cmd '': empty|syscalls -c ''
2|bad --cmd '   ': no command|syscalls -c '   '
2|bad workload '/nonexistent/binary': No such file|syscalls -- /nonexistent/binary
2|bad workload 'kdist-no-such-command': no such command|syscalls -- kdist-no-such-command
2|bad workload '/etc': not a file|syscalls -- /etc
2|bad workload '/etc/passwd': Permission denied|syscalls -- /etc/passwd
2|give -c 'CMD' or -- CMD ARGS, not both|syscalls -c true -- true
2|a workload is traced alone|syscalls -c true -p 1
2|nothing after '--'|syscalls --
2|bad --by '': empty|syscalls --by ''
2|bad --by 'pid:ksym': pid is a number|syscalls --by pid:ksym
2|bad --by 'cgroup:syscall': cgroup is a number|syscalls --by cgroup:syscall
2|bad --by 'comm:hex': comm is a name|wq --by comm:hex
2|bad --by 'a,,b': empty name|syscalls --by a,,b
2|bad --by 'a,': empty name|syscalls --by a,
2|bad --by 'comm,comm': 'comm' given twice|syscalls --by comm,comm
2|bad --key 'prev_pid,prev_pid': 'prev_pid' given twice|pair sched:sched_switch sched:sched_switch --key prev_pid,prev_pid
2|bad --key '': empty|pair sched:sched_switch sched:sched_switch --key ''
2|unknown field 'nosuchfield' of START|pair sched:sched_switch sched:sched_switch --key nosuchfield
2|bad --sort 'self': only func|syscalls --sort self
2|bad --sort 'bogus'|syscalls --sort bogus
2|bad --linear '-5,5,1'|bio-size --linear -5,5,1
2|bad --linear '0,10,0'|bio-size --linear 0,10,0
2|bad --linear 'nan,5,1'|bio-size --linear nan,5,1
2|bad --linear '0,1e9,1'|bio-size --linear 0,1e9,1
2|bad --max-groups '99999999999': expected an integer from 1 to 1048576|syscalls --max-groups 99999999999
2|bad --max-groups '0'|syscalls --max-groups 0
2|bad --frequency '1000000': expected an integer from 1 to [0-9]+|profile -F 1000000 -d 1
2|bad --frequency '0'|profile -F 0
2|bad --top '0'|syscalls --top 0
2|bad --min-us '-1'|offcpu --min-us -1
2|bad --max-us '1e30'|offcpu --max-us 1e30
2|bad --max-us 5: below --min-us 10|offcpu --min-us 10 --max-us 5
2|bad --state 'X'|offcpu --state X
2|bad --alpha '2'|diff a.json b.json --alpha 2
2|bad unit 'parsecs'|syscalls --unit parsecs
2|bad output format 'yaml'|syscalls -o yaml
2|bad output format 'markdown': only diff|syscalls -o markdown
2|bad arguments: 'recipes' takes none \('foo'\)|recipes foo
2|bad arguments: 'syscalls' takes none \('extra'\)|syscalls extra
2|bad arguments: expected START END|pair sched:sched_switch
2|unknown option '--bogus'|syscalls --bogus
2|option --linear is not for 'syscalls'|syscalls --linear 0,10,1
2|unknown command 'nosuchcmd'|nosuchcmd
2|unknown event 'nosuch:event'|pair nosuch:event sched:sched_switch
2|bad event 'u:/etc/passwd:main': /etc/passwd: not an ELF file|pair u:/etc/passwd:main ur:/etc/passwd:main
2|bad event 'u:/nonexistent:main'|pair u:/nonexistent:main ur:/nonexistent:main
2|bad event 'u:/bin/true:kdist_nosuchfn': no function 'kdist_nosuchfn'|pair u:/bin/true:kdist_nosuchfn ur:/bin/true:kdist_nosuchfn
2|bad event 'sched:a{90,}\.\.\.' \(10006 characters\): too long|pair "$LONG" sched:sched_switch
2|bad pattern ''|func ''
2|bad --output '': empty|syscalls --output ''
2|bad --output '/nonexistent-dir/x.json': No such file or directory|syscalls --output /nonexistent-dir/x.json
2|bad --output '/tmp': Is a directory|syscalls --output /tmp
2|bad --output '/proc/nope/x': No such file or directory|syscalls --output /proc/nope/x
2|bad --every '0.5ms': at least 1ms|trace --every 0.5ms --fields jiffies
2|bad --every '1x'|trace --every 1x --fields jiffies
2|bad --every: give the kernel variables to read|trace --every 1s
2|bad --every: the timer reads kernel variables for no task|trace --every 1s --fields jiffies -p 1
2|bad --every: it reads --fields on a timer, without an EVENT|trace syscalls:sys_exit_getppid --every 1s
2|bad --fields: 'nosuch' is no kernel variable|trace --every 1s --fields jiffies,nosuch
2|option --every is not for 'pair'|pair sched:sched_switch sched:sched_switch --every 1s
2|bad --fields: sched:sched_switch's record fields .*do not mix|trace sched:sched_switch --fields 'prev_pid,next->comm'
2|bad field 'prev->comx' of sched:sched_switch: struct task_struct has no member 'comx'|trace sched:sched_switch --fields 'prev->comx'
2|no type 'struct nosuch' in the kernel's BTF|trace sched:sched_switch --fields '(struct nosuch *)prev->x'
2|bad --btf '?[^ ]*/btf.fifo'?: not a regular file|syscalls --btf "$TMP/btf.fifo"
2|bad --btf '?[^ ]*/garbage.btf'?: no BTF in it|syscalls --btf "$TMP/garbage.btf"
2|bad --btf '?/nonexistent.btf'?: No such file|syscalls --btf /nonexistent.btf
EOF
}

# The bpf(2) commands a process tree made that load something (programs,
# maps, links, BTF), from an strace log.
bpf_loads() {
	grep -cE 'bpf\((BPF_PROG_LOAD|BPF_MAP_CREATE|BPF_LINK_CREATE|BPF_BTF_LOAD|BPF_RAW_TRACEPOINT_OPEN)' "$1"
}

# Each case runs twice: timed by CPU time (wall time on a loaded 2-core
# machine is the scheduler's; a hang ends at the 5 s timeout with a wrong
# exit code), and under strace for the bpf(2) calls it makes.
test_bad_input_table() {
	local want re args rc ms n=0 bad=0 loads TIMEFORMAT='%3U %3S'
	if ! command -v strace >/dev/null; then
		skip "strace missing (scripts/deps.sh installs it)"
		return
	fi
	# --btf given a FIFO (it blocked the open, Ctrl-C held off) and garbage
	mkfifo "$TMP/btf.fifo"
	head -c 4096 /dev/urandom >"$TMP/garbage.btf"
	while IFS='|' read -r want re args; do
		n=$((n + 1))
		eval "{ time timeout 5 \"\$KDIST\" $args </dev/null >\"\$TMP/out\" 2>\"\$TMP/err\"; } 2>\"\$TMP/time\""
		rc=$?
		ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$TMP/time")
		eval "strace -f -qq -e trace=bpf -o \"\$TMP/trace\" timeout 5 \"\$KDIST\" $args" \
			</dev/null >/dev/null 2>&1
		loads=$(bpf_loads "$TMP/trace")
		if [ "$rc" != "$want" ] || [ "$(wc -l <"$TMP/err")" != 1 ] ||
			! grep -qE -- "^kdist: .*$re" "$TMP/err" || [ -s "$TMP/out" ] ||
			[ "$ms" -ge 1000 ] || [ "$(wc -c <"$TMP/err")" -gt 300 ] || [ "$loads" != 0 ]; then
			echo "  kdist ${args:0:80}: exit $rc (want $want), $ms ms CPU, $loads bpf loads," \
				"said '$(head -c 300 "$TMP/err")'"
			bad=$((bad + 1))
		fi
	done < <(input_cases)
	if [ "$n" -lt 60 ]; then
		fail "only $n cases"
	elif [ "$bad" = 0 ] && [ "$(bpf_leftovers)" = 0 ]; then
		pass "$n hostile command lines: one line, exit code, < 1 s CPU, nothing loaded"
	else
		fail "$bad of $n cases"
	fi
}

# A run that fails after --output was opened leaves an existing file as it
# was and removes one it created; a bad directory is refused before tracing.
test_output_untouched() {
	local f=$TMP/keep.json
	echo keep >"$f"
	touch -d '2001-01-01' "$f"
	"$KDIST" pair nosuch:event sched:sched_switch --output "$f" 2>/dev/null
	"$KDIST" pair nosuch:event sched:sched_switch --output "$TMP/new.json" 2>/dev/null
	if [ "$(cat "$f")" = keep ] && [ "$(stat -c %Y "$f")" = "$(date -d 2001-01-01 +%s)" ] &&
		[ ! -e "$TMP/new.json" ]; then
		pass
	else
		fail "keep.json: '$(cat "$f")', new.json: $(ls "$TMP/new.json" 2>&1)"
	fi
}

# A full file system is reported as such, as a runtime failure.
test_output_full_filesystem() {
	local mnt=$TMP/full rc
	mkdir -p "$mnt"
	if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
		skip "cannot mount a tmpfs"
		return
	fi
	dd if=/dev/zero of="$mnt/fill" bs=1k count=60 2>/dev/null
	"$KDIST" syscalls -o json -c 'true' --output "$mnt/x.json" >/dev/null 2>"$TMP/err"
	rc=$?
	umount "$mnt"
	if [ $rc = 1 ] && grep -q 'No space left on device' "$TMP/err" && ! grep -q 'Input/output' "$TMP/err"; then
		pass
	else
		fail "exit $rc, said '$(cat "$TMP/err")'"
	fi
}

# The workload's failure is kdist's exit status, after the measurement.
test_workload_status() {
	local cmd want re rc bad=0
	while IFS='|' read -r want re cmd; do
		"$KDIST" count sched:sched_process_exit -o json -c "$cmd" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ "$rc" != "$want" ] || ! json "$TMP/out" 'd["groups"][0]["count"] >= 1' | grep -q True ||
			{ [ -n "$re" ] && ! tail -1 "$TMP/err" | grep -qE "^kdist: $re$"; } ||
			{ [ -z "$re" ] && [ "$(wc -l <"$TMP/err")" != 1 ]; }; then
			echo "  -c '$cmd': exit $rc (want $want), said '$(cat "$TMP/err")'"
			bad=$((bad + 1))
		fi
	done <<'EOF'
0||true
1|the workload exited with status 1|false
7|the workload exited with status 7|exit 7
137|the workload was killed by signal 9 \(Killed\)|kill -9 $$
143|the workload was killed by signal 15 \(Terminated\)|kill $$
127|the workload exited with status 127|kdist-no-such-command
EOF
	[ "$bad" = 0 ] && pass || fail "$bad workloads"
}

# Not root: a runtime failure (1), not a usage error.
test_not_root() {
	local rc
	setpriv --reuid nobody --regid nogroup --clear-groups "$KDIST" syscalls -d 1 >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q 'needs root' "$TMP/err"; then
		pass
	else
		fail "exit $rc, said '$(cat "$TMP/err")'"
	fi
}
