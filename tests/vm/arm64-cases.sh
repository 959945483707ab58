# The matrix's cases only an arm64 build has to get right, in the idiom of
# tests/matrix.sh (mx_*), sourced by tests/vm/func-vm.sh in an arm64 VM
# after the matrix: syscall names from arm64's numbers, arguments and
# return values from arm64 registers (x0-x7) through kretprobes and
# uprobes, the uprobe rules on an arm64 libc, and the release binary.
# shellcheck shell=bash

# getppid is 173 (0xad) on arm64, close 57 (0x39); 110 and 3 on x86
test_matrix_arm64_syscall_names() {
	mx_case "pair raw_syscalls (arm64 syscall names)"
	mx_run asc pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by arg1:syscall \
		-- "$WL/syserr" 1000 50 || return
	read -r n c <<<"$(mx_eval asc "'%d %d' % (g(**{'arg1:syscall': 'getppid'}), g(**{'arg1:syscall': 'close'}))")"
	exact "$n" 1000 "$TMP/asc.json" && [ "$c" -ge 50 ] ||
		{ mx_fail "getppid $n (1000), close $c (>= 50), $(mx_losses asc)"; return; }
	mx_pass "getppid $n (1000), close $c (>= 50)"
}

# a kretprobe's return value (x0): close(-1) is -EBADF
test_matrix_arm64_kretprobe_retval() {
	mx_case "pair kprobe: kretprobe: (retval)"
	mx_need kprobes || return
	mx_run akr pair kprobe:__arm64_sys_close kretprobe:__arm64_sys_close --by comm \
		--if 'retval == -9' -- "$WL/syserr" 10 100 || return
	n=$(mx_eval akr "g(comm='syserr')")
	exact "$n" 100 "$TMP/akr.json" || { mx_fail "$n close returning -9 (100), $(mx_losses akr)"; return; }
	mx_pass "100 close(-1) returning -EBADF: $n"
}

# a uprobe's first argument (x0) at entry and return value at return:
# syserr calls syscall(2) for getppid and for close(-1)
test_matrix_arm64_uprobe_args() {
	mx_case "pair u: ur: (arg0, retval)"
	mx_need uprobes || return
	mx_run aua pair u:libc:syscall ur:libc:syscall --by arg0 -- "$WL/syserr" 10 7 &&
		mx_run aur pair u:libc:syscall ur:libc:syscall --by arg0 --if 'retval == -1' \
			-- "$WL/syserr" 10 7 || return
	read -r g c <<<"$(mx_eval aua "'%d %d' % (g(arg0='0xad'), g(arg0='0x39'))")"
	read -r r rg <<<"$(mx_eval aur "'%d %d' % (g(arg0='0x39'), g(arg0='0xad'))")"
	exact "$g" 10 "$TMP/aua.json" && exact "$c" 7 "$TMP/aua.json" && exact "$r" 7 "$TMP/aur.json" &&
		[ "$rg" = 0 ] ||
		{ mx_fail "getppid $g (10), close $c (7), close -1 $r (7), getppid -1 $rg (0)"; return; }
	mx_pass "syscall(173 getppid) 10, syscall(57 close) 7, 7 of them returning -1"
}

# the arm64 uprobe rule: insnfirst's excl_first (ldaxr) and literal_first
# (ldr literal), which the kernel refuses to probe, are skipped and named
# by func and refused by pair in one line; the rest is measured
test_matrix_arm64_uprobe_rule() {
	mx_case "func u:, pair u: (arm64 refusals)"
	mx_need uprobes || return
	mx_run arf func -v "u:$WL/insnfirst:*" -- "$WL/insnfirst" 20 || return
	local rc pl
	"$KDIST" pair "u:$WL/insnfirst:excl_first" "ur:$WL/insnfirst:excl_first" -d 1 >"$TMP/arp.out" 2>&1
	rc=$?
	pl=$(mx_eval arf "g(function='insnfirst:plain')")
	grep -q 'skipping excl_first .*exclusive load' "$TMP/arf.err" &&
		grep -q 'skipping literal_first .*PC-relative literal' "$TMP/arf.err" &&
		exact "$pl" 20 "$TMP/arf.json" && [ $rc != 0 ] && [ "$(wc -l <"$TMP/arp.out")" = 1 ] &&
		grep -q 'refusing to probe .*exclusive' "$TMP/arp.out" ||
		{ mx_fail "plain $pl (20); pair exit $rc: $(cat "$TMP/arp.out"); $(grep skipping "$TMP/arf.err")"; return; }
	mx_pass "plain 20 calls; $(grep -c '^kdist: skipping' "$TMP/arf.err") skipped, e.g. $(grep -m1 'skipping excl_first' "$TMP/arf.err"); pair: $(cat "$TMP/arp.out")"
}

# the release binary (make dist) as a user copies it: its checksum, and an
# exact count
test_matrix_arm64_dist_binary() {
	mx_case "make dist: kdist-*-aarch64"
	local bin sum n
	bin=$(ls "$TOP"/build/dist/kdist-*-aarch64 2>/dev/null | tail -1)
	[ -n "$bin" ] || { mx_skip "no build/dist/kdist-*-aarch64 (make dist makes it)"; return; }
	sum=$(cd "$TOP/build/dist" && grep -- "-aarch64\$" SHA256SUMS | sha256sum -c - 2>&1)
	[[ $sum == *": OK" ]] || { mx_fail "${bin##*/}: checksum: $sum"; return; }
	KDIST=$bin mx_run adg pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by arg1:syscall \
		-- "$WL/syserr" 300 1 || return
	n=$(mx_eval adg "g(**{'arg1:syscall': 'getppid'})")
	exact "$n" 300 "$TMP/adg.json" || { mx_fail "${bin##*/}: getppid $n (300), $(mx_losses adg)"; return; }
	mx_pass "${bin##*/}: $sum; getppid $n (300)"
}
