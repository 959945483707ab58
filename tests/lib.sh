# Shared by the shell test runners: results, assertions, the kdist binary.
# A test file defines functions named test_*; tests/host/run.sh runs them.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIST=${KDIST:-$TOP/build/kdist}
WL=$TOP/build/tests
TMP=$(mktemp -d /tmp/kdist-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

n_pass=0 n_fail=0 n_skip=0

pass() { n_pass=$((n_pass + 1)); echo "PASS $CURRENT${1:+: $1}"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL $CURRENT: $1"; }
skip() { n_skip=$((n_skip + 1)); echo "SKIP $CURRENT: $1"; }

# Run every test_* function defined so far; print the closing line.
run_tests() {
	local t filter=${TEST_FILTER:-}
	for t in $(declare -F | awk '{print $3}' | grep '^test_'); do
		[ -n "$filter" ] && [[ $t != *$filter* ]] && continue
		CURRENT=${t#test_}
		"$t"
	done
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" -eq 0 ]
}

# json FILE PYTHON_EXPR: evaluate an expression over the parsed JSON
# document(s) in FILE (d is the last document, docs all of them).
json() {
	python3 -c '
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
d = docs[-1]
print(eval(sys.argv[2]))' "$1" "$2"
}

# within VALUE EXPECTED PCT: true when |VALUE-EXPECTED| <= PCT% of EXPECTED
within() {
	python3 -c 'import sys; v, e, p = map(float, sys.argv[1:]); sys.exit(abs(v - e) > e * p / 100)' "$@"
}

# BPF programs of kdist's objects that no process holds (a leak), or with
# PID, that PID holds; plus tracefs probe definitions, which would outlive a
# process (legacy kprobe/uprobe events).  0 after any exit.
bpf_leftovers() {
	local names ids held n=0 id
	names=$(for o in "$TOP"/build/*.bpf.o; do llvm-nm "$o" | awk '$2 == "T" {print substr($3, 1, 15)}'; done | sort -u)
	if [ -z "$names" ]; then
		echo "bpf_leftovers: no program names in $TOP/build/*.bpf.o" >&2
		echo 999
		return
	fi
	ids=$(bpftool prog list 2>/dev/null | awk -v names="$names" '
		BEGIN { split(names, a, "\n"); for (i in a) want[a[i]] = 1 }
		/^[0-9]+:/ { for (i = 1; i < NF; i++) if ($i == "name" && ($(i + 1) in want)) print $1 + 0 }')
	if [ -n "${1:-}" ]; then
		held=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -u)
		for id in $ids; do grep -qx "$id" <<<"$held" && n=$((n + 1)); done
	else
		held=$(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -u)
		for id in $ids; do grep -qx "$id" <<<"$held" || n=$((n + 1)); done
	fi
	n=$((n + $(cat /sys/kernel/tracing/kprobe_events /sys/kernel/tracing/uprobe_events 2>/dev/null |
		grep -c libbpf_)))
	echo $n
}

# Programs are freed after an RCU grace period, not at exit: allow 2 s.
no_leftovers() {
	for _ in $(seq 20); do
		[ "$(bpf_leftovers)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# Wait (up to 20 s) until a kdist writing to FILE says it is attached.
wait_tracing() {
	for _ in $(seq 200); do
		grep -q '^Tracing' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
