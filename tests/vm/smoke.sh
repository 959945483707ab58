#!/bin/sh
# smoke.sh [FLAVOR...]: boot each VM flavor (default: 6.1 and 6.12) and check
# that a command runs there with the expected kernel, tracefs mounted, its
# output passed through and its exit status (3) propagated.
# Prints PASS/FAIL lines and ends with "N passed, N failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- 6.1 6.12

passed=0
failed=0
for flavor in "$@"; do
	name=vm-boot-$flavor
	out=
	why=
	if ! kroot=$("$here/vm-kernel.sh" "$flavor"); then
		why="vm-kernel.sh failed"
	else
		want=$(ls "$kroot/lib/modules")
		out=$("$here/run-in-vm" "$flavor" sh -c \
			'uname -r; grep -c . /proc/kallsyms; test -d /sys/kernel/tracing/events && echo tracefs-ok; exit 3')
		rc=$?
		if [ "$rc" -ne 3 ]; then
			why="exit status $rc, expected 3"
		elif ! printf '%s\n' "$out" | grep -qxF "$want"; then
			why="kernel release $want not in output"
		elif ! printf '%s\n' "$out" | grep -qxF tracefs-ok; then
			why="tracefs-ok not in output"
		elif ! printf '%s\n' "$out" | grep -Eqx '[1-9][0-9]{4,}'; then
			why="no plausible /proc/kallsyms line count"
		fi
	fi
	if [ -z "$why" ]; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name: $why"
		[ -n "${out:-}" ] && printf '%s\n' "$out" | sed 's/^/    | /'
		failed=$((failed + 1))
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
