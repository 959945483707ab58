# The command line as installed: --help, the man page and bash completion
# say the same as the command and option tables; make install; --output
# failures.  Only the --output tests load BPF.
# shellcheck shell=bash

# The tables, as kdist itself lists them: "command NAME --opt...",
# "option --NAME [-X]", "values --NAME WORD...".
cli_table() {
	echo @TABLE@ >"$TMP/table.in"
	"$KDIST" __expand "$TMP/table.in"
}

# The man page as a reader sees it, one paragraph a line (no hyphenation).
cli_man_text() {
	MANWIDTH=1000 man -l "$TOP/build/kdist.1" 2>/dev/null
}

# complete WORD...: what the completion offers for the last WORD, one a line.
cli_complete() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_kdist; printf "%s\n" "${COMPREPLY[@]}"' _ "$TOP/build/kdist.bash" kdist "$@"
}

# The long options in a --help text's options section, sorted, one a line.
help_options() {
	sed -n '/^options/,/^$/p' | grep -oE -- '--[a-z-]+' | sort -u
}

# "CMD opt..." for each CMD: what completion offers after "kdist CMD -",
# all in one shell.
cli_complete_all() {
	bash -c 'source "$1"; shift
		for c in "$@"; do
			COMP_WORDS=(kdist "$c" -); COMP_CWORD=2; _kdist
			echo "$c ${COMPREPLY[*]}"
		done' _ "$TOP/build/kdist.bash" "$@"
}

test_cli_tables_everywhere() {
	local table help man comp c cmds opts missing=() n=0 o
	[ -f "$TOP/build/kdist.1" ] && [ -f "$TOP/build/kdist.bash" ] ||
		{ fail "build/kdist.1 or build/kdist.bash not built (make all)"; return; }
	table=$(cli_table) || { fail "kdist __expand failed"; return; }
	help=$("$KDIST" --help)
	man=$(cli_man_text)
	[ -n "$man" ] || { fail "man -l rendered nothing"; return; }
	mapfile -t cmds < <(awk '$1 == "command" {print $2}' <<<"$table")
	comp=$(cli_complete_all "${cmds[@]}")
	for o in $(awk '$1 == "option" {print $2}' <<<"$table"); do
		grep -q -- "$o " <<<"$help" || missing+=("$o not in --help")
		grep -q -- "$o" <<<"$man" || missing+=("$o not in the man page")
		grep -q -- " $o\( \|$\)" <<<"$comp" || missing+=("$o not completed")
	done
	while read -r _ c opts; do
		n=$((n + 1))
		grep -qE -- "(^  $c |[:,] $c(,|\$))" <<<"$help" || missing+=("command $c not in --help")
		grep -qE -- "(kdist $c |^ *$c( |\$))" <<<"$man" || missing+=("command $c not in the man page")
		diff <(tr ' ' '\n' <<<"$opts" | sort -u) <("$KDIST" "$c" --help | help_options) >/dev/null ||
			missing+=("$c --help lists other options than the table")
		diff <(tr ' ' '\n' <<<"$opts" | sort -u) \
			<(grep "^$c " <<<"$comp" | tr ' ' '\n' | grep -- '^--' | sort -u) >/dev/null ||
			missing+=("$c: completion offers other options than the table")
	done < <(grep '^command ' <<<"$table")
	for c in "${cmds[@]}"; do
		grep -qx -- "$c" <(cli_complete '') || missing+=("command $c not completed")
	done
	[ ${#missing[@]} = 0 ] || { fail "$(IFS=';'; echo "${missing[*]}")"; return; }
	pass "$(grep -c '^option ' <<<"$table") options, $n commands: in --help, kdist(1) and completion alike"
}

test_cli_man_renders() {
	local warn
	command -v groff >/dev/null || { skip "no groff (apt-get install groff-base)"; return; }
	warn=$(groff -man -ww -z "$TOP/build/kdist.1" 2>&1)
	[ -z "$warn" ] || { fail "groff warns: $(head -3 <<<"$warn")"; return; }
	cli_man_text >"$TMP/man.txt"
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS RECIPES "COMMON OPTIONS" "COMMAND OPTIONS" \
		"EXIT STATUS"; do
		grep -qx "$s" "$TMP/man.txt" || { fail "no section $s"; return; }
	done
	grep -q -- 'size of the in-kernel group table (default 4096, func 8192, serve 512)' "$TMP/man.txt" ||
		{ fail "--max-groups' defaults not in the man page"; return; }
	pass "kdist(1) renders without a groff warning, all sections present"
}

test_cli_completion() {
	local got
	got=$(cli_complete bi | tr '\n' ' ')
	[ "$got" = "bio bio-size " ] || { fail "'kdist bi' offers '$got'"; return; }
	got=$(cli_complete bio --li)
	[ -z "$got" ] || { fail "'kdist bio --li' offers '$got'"; return; }
	got=$(cli_complete bio-size --li)
	[ "$got" = --linear ] || { fail "'kdist bio-size --li' offers '$got'"; return; }
	got=$(cli_complete offcpu --m | tr '\n' ' ')
	[ "$got" = "--max-groups --min-us --max-us " ] || { fail "'kdist offcpu --m' offers '$got'"; return; }
	got=$(cli_complete list - | tr '\n' ' ')
	[ "$got" = "-v --verbose -h --help " ] || { fail "'kdist list -' offers '$got'"; return; }
	got=$(cli_complete pair a b -o '' | tr '\n' ' ')
	[ "$got" = "text json csv folded svg html markdown " ] || { fail "'-o' values: '$got'"; return; }
	got=$(cli_complete func x --sort c | tr '\n' ' ')
	[ "$got" = "count " ] || { fail "'--sort c' offers '$got'"; return; }
	got=$(cli_complete func x --output "$TOP/Makef")
	[ "$got" = "$TOP/Makefile" ] || { fail "'--output' offers '$got', not the file"; return; }
	got=$(cli_complete func x -p "$$")
	grep -qx "$$" <<<"$got" || { fail "'-p' does not offer pid $$"; return; }
	got=$(cli_complete func x -- bas)
	grep -qx bash <<<"$got" || { fail "'-- bas' does not offer bash"; return; }
	got=$(cli_complete syscalls --hist '')
	[ -z "$got" ] || { fail "after a flag, offers '$got'"; return; }
	pass "commands, recipes, options per command, option values, the workload"
}

test_cli_install() {
	local d=$TMP/dest f
	make -s -C "$TOP" install DESTDIR="$d" >"$TMP/install.log" 2>&1 ||
		{ fail "make install: $(tail -2 "$TMP/install.log")"; return; }
	for f in usr/local/bin/kdist usr/local/share/man/man1/kdist.1 \
		usr/local/share/bash-completion/completions/kdist; do
		[ -s "$d/$f" ] || { fail "make install did not write $f"; return; }
	done
	[ -x "$d/usr/local/bin/kdist" ] || { fail "installed kdist is not executable"; return; }
	"$d/usr/local/bin/kdist" --help | grep -q '^usage: kdist' ||
		{ fail "installed kdist does not run"; return; }
	cmp -s "$d/usr/local/share/man/man1/kdist.1" "$TOP/build/kdist.1" ||
		{ fail "installed man page differs from build/kdist.1"; return; }
	MANPATH="$d/usr/local/share/man" man kdist 2>/dev/null | grep -q 'kdist pair START END' ||
		{ fail "man kdist does not find the installed page"; return; }
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/opt/kd >"$TMP/install.log" 2>&1 &&
		[ -x "$d/opt/kd/bin/kdist" ] && [ -s "$d/opt/kd/share/man/man1/kdist.1" ] &&
		[ -s "$d/opt/kd/share/bash-completion/completions/kdist" ] ||
		{ fail "PREFIX=/opt/kd: $(ls -R "$d/opt" 2>&1 | head -5)"; return; }
	make -s -C "$TOP" uninstall DESTDIR="$d" >/dev/null 2>&1
	[ -z "$(find "$d/usr" -type f)" ] || { fail "uninstall left $(find "$d/usr" -type f)"; return; }
	pass "binary, kdist(1), completion under DESTDIR, with the default and another PREFIX"
}

# A path that cannot be opened is one line and a non-zero exit, before
# anything is loaded; no crash.
test_cli_output_unopenable() {
	local p rc t0 ms
	for p in /nonexistent-dir/x.json "$TMP" /proc/nope/x ''; do
		t0=$(date +%s%N)
		"$KDIST" syscalls -d 5 --output "$p" >"$TMP/out" 2>"$TMP/err"; rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ $rc = 2 ] || { fail "--output '$p': exit $rc, expected 2 (bad input)"; return; }
		[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "^kdist: bad --output '$p': " "$TMP/err" ||
			{ fail "--output '$p' said: $(head -3 "$TMP/err")"; return; }
		[ ! -s "$TMP/out" ] || { fail "--output '$p': wrote to stdout"; return; }
		# -d 5: had it loaded anything, it would have run 5 s
		[ $ms -lt 5000 ] || { fail "--output '$p': took $ms ms"; return; }
	done
	no_leftovers || { fail "BPF programs left behind"; return; }
	pass "missing directory, a directory, /proc/nope/x, '': one line, exit 2, no crash"
}

# A full filesystem is ENOSPC, whether through --output or stdout.
test_cli_output_full() {
	local mnt=$TMP/full rc
	mkdir -p "$mnt"
	mount -t tmpfs -o size=64k kdist-full "$mnt" || { skip "cannot mount a tmpfs"; return; }
	dd if=/dev/zero of="$mnt/fill" bs=4k >/dev/null 2>&1
	"$KDIST" syscalls -o json --output "$mnt/x.json" -- "$WL/syserr" 10 5 2>"$TMP/err"; rc=$?
	"$KDIST" syscalls -- "$WL/syserr" 10 5 >"$mnt/y.txt" 2>"$TMP/err2"; local rc2=$?
	# folded stacks go through the stack views' own writer
	"$KDIST" offcpu -o folded --output "$mnt/z.folded" -- sleep 0.2 2>"$TMP/err3"; local rc3=$?
	umount "$mnt"
	[ $rc = 1 ] && grep -q "No space left on device" "$TMP/err" ||
		{ fail "--output: exit $rc, said: $(grep -v ^Tracing "$TMP/err")"; return; }
	[ $rc2 = 1 ] && [ "$(grep -c "No space left on device" "$TMP/err2")" = 1 ] ||
		{ fail "stdout: exit $rc2, said: $(grep -v ^Tracing "$TMP/err2")"; return; }
	[ $rc3 = 1 ] && grep -q "No space left on device" "$TMP/err3" ||
		{ fail "folded: exit $rc3, said: $(grep -v ^Tracing "$TMP/err3")"; return; }
	! grep -q "Input/output error" "$TMP/err" "$TMP/err2" "$TMP/err3" || { fail "said EIO"; return; }
	pass "full tmpfs: ENOSPC and exit 1, through --output, stdout (said once) and folded stacks"
}

# --version: the build's version and the commit it was built from.
test_cli_version() {
	local out head
	out=$("$KDIST" --version) || { fail "--version: exit $?"; return; }
	[[ $out =~ ^kdist\ [^\ ]+\ \(commit\ ([0-9a-f]{40}|unknown),\ libbpf\ [0-9]+\.[0-9]+\)$ ]] ||
		{ fail "--version printed: $out"; return; }
	head=$(git -C "$TOP" rev-parse HEAD 2>/dev/null) &&
		{ [[ $out == *"commit $head,"* ]] || { fail "--version: $out, HEAD is $head"; return; }; }
	pass "$out"
}

# An event that does not exist is bad input in every command that takes one.
test_cli_unknown_event_exit_2() {
	local args rc
	for args in "pair nosuch:event raw_syscalls:sys_exit" "count nosuch:event" \
		    "dist nosuch:event count" "trace nosuch:event"; do
		# shellcheck disable=SC2086
		"$KDIST" $args -d 1 >"$TMP/out" 2>"$TMP/err"; rc=$?
		[ $rc = 2 ] || { fail "$args: exit $rc, expected 2: $(cat "$TMP/err")"; return; }
		[ "$(cat "$TMP/err")" = "kdist: unknown event 'nosuch:event': no such tracepoint in tracefs (see kdist list)" ] ||
			{ fail "$args said: $(head -3 "$TMP/err")"; return; }
	done
	no_leftovers || { fail "BPF programs left behind"; return; }
	pass "pair, count, dist, trace: one line 'unknown event', exit 2"
}

# -o is the format; a value that looks like a file points to --output.
test_cli_o_looks_like_a_file() {
	local v rc
	for v in out.json report.svg ./x /tmp/kdist-o-test; do
		(cd "$TMP" && "$KDIST" syscalls -d 1 -o "$v" >"$TMP/out" 2>"$TMP/err"); rc=$?
		[ $rc = 2 ] || { fail "-o $v: exit $rc, expected 2"; return; }
		[ "$(cat "$TMP/err")" = "kdist: bad -o '$v': -o is the format (text, json, csv...); did you mean --output $v?" ] ||
			{ fail "-o $v said: $(head -3 "$TMP/err")"; return; }
		[ ! -e "$TMP/$v" ] && [ ! -s "$TMP/out" ] || { fail "-o $v: wrote something"; return; }
	done
	"$KDIST" syscalls -o jsn -d 1 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] && ! grep -q 'did you mean' "$TMP/err" || { fail "-o jsn: exit $rc: $(cat "$TMP/err")"; return; }
	pass "-o out.json, report.svg, ./x, /tmp/...: 'did you mean --output', exit 2; -o jsn: a format error"
}

# -d and -i: bare seconds or a duration with its unit.
test_cli_duration_units() {
	local t0 ms rc n
	t0=$(date +%s%N)
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit -d 300ms -o csv >"$TMP/out" 2>"$TMP/err"; rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc = 0 ] || { fail "-d 300ms: exit $rc: $(cat "$TMP/err")"; return; }
	[ $ms -ge 300 ] && [ $ms -lt 5000 ] || { fail "-d 300ms took $ms ms"; return; }
	# -i 100ms, not 100 s: more than one interval within -d 1
	"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit -i 100ms -d 1 -o csv >"$TMP/out" 2>"$TMP/err"; rc=$?
	n=$(cut -d, -f1 "$TMP/out" | grep -E '^[0-9]+$' | sort -u | wc -l)
	[ $rc = 0 ] && [ "$n" -ge 2 ] || { fail "-i 100ms -d 1: exit $rc, $n intervals"; return; }
	for v in 5x 1.5 ms -1s 0.5ns; do
		"$KDIST" syscalls -d "$v" >/dev/null 2>"$TMP/err"; rc=$?
		[ "$v" = 1.5 ] && continue
		[ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "^kdist: bad --duration" "$TMP/err" ||
			{ fail "-d $v: exit $rc: $(cat "$TMP/err")"; return; }
	done
	pass "-d 300ms ran $ms ms; -i 100ms -d 1: $n intervals; -d 5x, ms, -1s, 0.5ns: bad --duration, exit 2"
}

# With a workload, kdist's stdout carries its results alone.
test_cli_workload_stdout_clean() {
	local rc
	"$KDIST" count raw_syscalls:sys_enter -o json -- sh -c 'echo workload-says-hello' \
		2>"$TMP/err" | python3 -m json.tool >/dev/null; rc=${PIPESTATUS[1]}
	[ "$rc" = 0 ] || { fail "-- cmd: stdout is not JSON"; return; }
	grep -qx workload-says-hello "$TMP/err" || { fail "-- cmd: the workload's output is lost"; return; }
	"$KDIST" count raw_syscalls:sys_enter -o json -c 'echo one; echo two >&2' \
		2>"$TMP/err" | python3 -m json.tool >/dev/null; rc=${PIPESTATUS[1]}
	[ "$rc" = 0 ] && grep -qx one "$TMP/err" && grep -qx two "$TMP/err" ||
		{ fail "-c: JSON rc $rc, stderr: $(head -3 "$TMP/err")"; return; }
	pass "-o json -- cmd-that-prints | python3 -m json.tool: the workload's lines on stderr"
}

# A pair whose ENDs almost never find their START says so, with the
# fields a --key could name; a working key says nothing.
test_cli_pair_key_hint() {
	local h
	"$KDIST" pair sched:sched_waking sched:sched_wakeup --key target_cpu=pid \
		-- "$WL/waker" 50 1 >/dev/null 2>"$TMP/err" || { fail "exit $?: $(tail -2 "$TMP/err")"; return; }
	h=$(grep '^kdist: hint: ' "$TMP/err")
	[[ $h == *"ENDs found no START, 0 did, matched by target_cpu=pid: try --key with a field both events have: "*pid*target_cpu* ]] ||
		{ fail "wrong key: hint '$h'"; return; }
	"$KDIST" pair syscalls:sys_enter_close syscalls:sys_exit_close --key fd=ret \
		-- "$WL/syserr" 100 50 >/dev/null 2>"$TMP/err2"
	grep -q '^kdist: hint: .*the events share no field: try --key START_FIELD=END_FIELD' "$TMP/err2" ||
		{ fail "no shared field: $(tail -1 "$TMP/err2")"; return; }
	# the default key, the thread: every close's END finds its START
	"$KDIST" pair syscalls:sys_enter_close syscalls:sys_exit_close \
		-- "$WL/syserr" 100 50 >/dev/null 2>"$TMP/err3"
	! grep -q 'hint' "$TMP/err3" || { fail "a working key got: $(grep hint "$TMP/err3")"; return; }
	pass "${h#kdist: }"
}

# Under a workload, ENDs that run in another task (an interrupt's, a
# worker's) are not the workload's: its STARTs only replace each other.
# That gets the hint too.  A sleep's wakeup, the END here, runs in the
# timer interrupt while the sleeper is off the CPU, in the context of
# whatever runs there: of 40 sleeps, 39 STARTs are replaced by the next and
# the last by the exit; an END of the sleeper's own (its exit waking
# kdist) matches one at most.
test_cli_pair_key_hint_workload() {
	local h n
	"$KDIST" pair syscalls:sys_enter_nanosleep sched:sched_wakeup -- "$WL/sleeper" 40 1 \
		>"$TMP/out" 2>"$TMP/err" || { fail "exit $?: $(tail -2 "$TMP/err")"; return; }
	h=$(grep '^kdist: hint: ' "$TMP/err")
	n=$(sed -n 's/^kdist: hint: \([0-9]*\) STARTs were replaced by the next before an END came, [0-9] found one, matched by tid: .*/\1/p' <<<"$h")
	[ "${n:-0}" -ge 30 ] || { fail "hint '$h'; $(grep unmatched "$TMP/out")"; return; }
	pass "${h#kdist: }"
}

# Without root, every command that loads BPF (probe too) says that root
# is needed, instead of what the kernel would lack.
test_cli_not_root() {
	local args rc
	command -v setpriv >/dev/null || { skip "no setpriv"; return; }
	for args in "probe" "syscalls -d 1" "pair raw_syscalls:sys_enter raw_syscalls:sys_exit -d 1" \
		    "trace sched:sched_process_exec -d 1" "func u:libc:malloc -d 1" "profile -d 1" \
		    "offcpu -d 1" "serve --measure runq --listen 127.0.0.1:0"; do
		# shellcheck disable=SC2086
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$KDIST" $args >"$TMP/out" 2>"$TMP/err"; rc=$?
		[ $rc = 1 ] && [ "$(cat "$TMP/err")" = "kdist: failed to start: kdist needs root (CAP_BPF and CAP_PERFMON) to load BPF" ] ||
			{ fail "$args as nobody: exit $rc: $(head -3 "$TMP/err")"; return; }
		[ ! -s "$TMP/out" ] || { fail "$args as nobody printed: $(head -2 "$TMP/out")"; return; }
	done
	pass "probe, syscalls, pair, trace, func, profile, offcpu, serve as nobody: 'needs root', exit 1"
}

# --comm takes one name: a list is refused, not silently matched as a name.
test_cli_comm_list_refused() {
	local rc
	"$KDIST" syscalls --comm sleeper,syserr -d 1 >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] && [ "$(cat "$TMP/err")" = "kdist: bad --comm 'sleeper,syserr': one name only (for several, --by comm shows each)" ] ||
		{ fail "exit $rc: $(head -3 "$TMP/err")"; return; }
	pass "--comm a,b: one line, exit 2"
}

# --output says on stderr what it wrote; stdout stays empty.
test_cli_output_confirmed() {
	local size
	"$KDIST" syscalls -o json --output "$TMP/c.json" -- "$WL/syserr" 10 5 >"$TMP/out" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	size=$(stat -c %s "$TMP/c.json")
	grep -qx "Wrote $TMP/c.json ($size bytes)" "$TMP/err" && [ ! -s "$TMP/out" ] ||
		{ fail "said: $(cat "$TMP/err"); stdout $(wc -c <"$TMP/out") bytes"; return; }
	"$KDIST" diff "$TMP/c.json" "$TMP/c.json" -o markdown --output "$TMP/c.md" >"$TMP/out" 2>"$TMP/err" ||
		{ fail "diff: exit $?"; return; }
	grep -qx "Wrote $TMP/c.md ($(stat -c %s "$TMP/c.md") bytes)" "$TMP/err" ||
		{ fail "diff said: $(cat "$TMP/err")"; return; }
	"$KDIST" syscalls -d 1 --output /nonexistent-dir/x.json 2>"$TMP/err"
	! grep -q '^Wrote' "$TMP/err" || { fail "a failed --output said Wrote"; return; }
	pass "Wrote FILE (N bytes) on stderr for a measurement and diff; nothing for a failed one"
}

# func --by KEYS: every column of the table is headed, the keys too.
test_cli_func_by_columns() {
	"$KDIST" func "u:$WL/calltree:outer" --by comm,tid -- "$WL/calltree" 4 >"$TMP/out" 2>"$TMP/err" ||
		{ fail "exit $?: $(tail -2 "$TMP/err")"; return; }
	local head row
	head=$(grep '^FUNCTION' "$TMP/out")
	row=$(grep 'calltree:outer' "$TMP/out" | grep -v '^func ')
	[ "$(echo "$head" | awk '{print NF}')" = 10 ] && [ "$(echo "$head" | awk '{print $9, $10}')" = "comm tid" ] ||
		{ fail "header: $head"; return; }
	[ "$(echo "$row" | awk '{print NF}')" = 10 ] && [ "$(echo "$row" | awk '{print $9}')" = calltree ] &&
		[[ $row != *=* ]] || { fail "row: $row"; return; }
	pass "$head"
}

# On a terminal a status line counts while tracing, and is cleared before
# the result; off a terminal, nothing of it.
test_cli_status_line() {
	local n
	command -v script >/dev/null || { skip "no script(1) for a terminal"; return; }
	script -qc "$KDIST pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep -- $WL/sleeper 25 100" \
		/dev/null >"$TMP/tty" </dev/null || { fail "exit $?: $(tail -3 "$TMP/tty")"; return; }
	n=$(grep -aoE $'\r\e\\[K1 s, [0-9]+ events, 0 lost; Ctrl-C to end' "$TMP/tty" | grep -oE '[0-9]+ events' | cut -d' ' -f1)
	[ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" -le 10 ] ||
		{ fail "no status line with 1 to 10 events at 1 s: $(head -c 300 "$TMP/tty" | cat -v)"; return; }
	grep -aq $'^\r\e\\[K.*\r\e\\[K\r$' "$TMP/tty" || { fail "status line not cleared"; return; }
	grep -aq '^count 25 ' "$TMP/tty" || { fail "no result after the status: $(tail -3 "$TMP/tty")"; return; }
	"$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep -- "$WL/sleeper" 15 100 \
		>"$TMP/out" 2>"$TMP/err" || { fail "off a terminal: exit $?"; return; }
	[ "$(grep -c 'Ctrl-C' "$TMP/err")" = 1 ] && ! grep -q $'\e' "$TMP/out" "$TMP/err" ||
		{ fail "off a terminal: $(cat -v "$TMP/err")"; return; }
	pass "terminal: '1 s, $n events, 0 lost', cleared before the result; none off a terminal"
}

# The README's first screen: make demo installs only the build's packages,
# and a user without root is told what is needed, not failed by sudo.
test_cli_first_screen() {
	local out rc
	make -C "$TOP" -n demo 2>/dev/null | grep -qx 'scripts/deps.sh build' ||
		{ fail "make demo does not install through 'scripts/deps.sh build'"; return; }
	make -C "$TOP" -n check 2>/dev/null | grep -qx 'scripts/deps.sh' ||
		{ fail "make check does not install everything"; return; }
	out=$("$TOP/scripts/deps.sh" build --list | tr '\n' ' ')
	[ "$("$TOP/scripts/deps.sh" all --list | sort | comm -23 <(tr ' ' '\n' <<<"$out" | grep . | sort) -)" = "" ] ||
		{ fail "the build's packages are not all in the full list"; return; }
	[[ " $out " == *" clang "* && " $out " != *" chromium "* && " $out " != *" qemu-system-x86 "* && " $out " != *" prometheus "* ]] ||
		{ fail "deps.sh build checks: $out"; return; }
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TOP/scripts/deps.sh" build >"$TMP/out" 2>&1; rc=$?
	[ $rc = 0 ] && [ ! -s "$TMP/out" ] || { fail "deps.sh build as nobody, all installed: exit $rc: $(cat "$TMP/out")"; return; }
	"$TOP/scripts/deps.sh" nosuch >/dev/null 2>&1; rc=$?
	[ $rc = 2 ] || { fail "deps.sh nosuch: exit $rc"; return; }
	if command -v sudo >/dev/null; then
		pass "make demo: deps.sh build ($out); sudo present, demo as a user not run"
		return
	fi
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TOP/scripts/demo.sh" >"$TMP/out" 2>&1; rc=$?
	[ $rc = 1 ] && grep -qx 'kdist: failed to run the demo: BPF needs root (CAP_BPF and CAP_PERFMON), and there is no sudo' "$TMP/out" ||
		{ fail "demo.sh as nobody without sudo: exit $rc: $(cat "$TMP/out")"; return; }
	pass "make demo: deps.sh build ($out); as a user without sudo: one line, exit 1"
}

# With -i, a histogram keeps its unit from interval to interval: 30 ms
# sleeps first, then 100 sleeps of 50 us stay in msecs.
test_cli_interval_unit_stable() {
	"$KDIST" pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep -i 0.25 \
		-c "$WL/sleeper 10 30; $WL/sleeper 100 0.05" >"$TMP/out" 2>"$TMP/err" ||
		{ fail "exit $?: $(tail -2 "$TMP/err")"; return; }
	local units n
	units=$(grep -oE '^ +[a-z]+secs +: count' "$TMP/out" | awk '{print $1}' | sort | uniq -c | tr -s ' ')
	n=$(grep -c '^\[interval' "$TMP/out")
	[ "$n" -ge 2 ] && [ "$(echo "$units" | awk '{print $2}')" = msecs ] ||
		{ fail "$n intervals, units: $units"; return; }
	pass "$n intervals, every histogram in msecs"
}

# Mistakes get the nearest right word: a command, an option, an event (its
# name, or its category), and a workload given without "--".  Each is one
# line and exit 2, before anything is loaded.
test_cli_did_you_mean() {
	local args want out rc
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086 # the words of one command line
		out=$("$KDIST" $args 2>&1)
		rc=$?
		[ $rc = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] && [[ $out == *"$want"* ]] ||
			{ fail "kdist $args: exit $rc, '$out' (expected '$want')"; return; }
	done <<-'EOF'
	sycalls|did you mean 'syscalls'?
	syscalls --explian|did you mean --explain?
	runq --bi comm|did you mean --by?
	count sched:sched_wakup|did you mean sched:sched_wakeup?
	count shed:sched_switch|did you mean sched:sched_switch?
	pair sched:sched_wakeup sched:sched_swich|did you mean sched:sched_switch?
	syscalls tar|a workload goes after --: kdist syscalls -- tar ...
	count nosuchcategory:nosuchevent|no such tracepoint in tracefs (see kdist list)
	EOF
	no_leftovers || { fail "programs left after the mistakes"; return; }
	pass "commands, options, events and a workload without --: one line each, the nearest word, exit 2"
}

# The workload's calls between kdist's go and its exec (unblocking its
# signals, its stdout onto stderr, execve itself) are the workload's, named
# as it will be: no group is named after kdist.
test_cli_workload_named_before_exec() {
	local comms
	"$KDIST" syscalls --by comm -o json -- "$WL/sleeper" 3 1 >"$TMP/wn.json" 2>"$TMP/wn.err" ||
		{ fail "exit $?: $(tail -2 "$TMP/wn.err")"; return; }
	comms=$(json "$TMP/wn.json" "' '.join(sorted({g['by']['comm'] for g in d['groups']}))")
	[ "$comms" = sleeper ] || { fail "groups named: $comms (only sleeper)"; return; }
	pass "every call of the workload under its own name, execve included ($(json "$TMP/wn.json" "sum(g['count'] for g in d['groups'])") calls)"
}
