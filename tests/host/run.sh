#!/bin/bash
# Host tests: real BPF on the running kernel, as root, against workloads
# with known truth.  Each tests/host/*.test.sh defines test_* functions;
# TEST_FILTER=SUBSTRING runs only the tests whose names contain it.
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then
	CURRENT=host; skip "host tests need root"
	run_tests; exit
fi
# With arguments, only those test files (e.g. tests/host/run.sh diff.test.sh).
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$TOP"/tests/host/*.test.sh)
for f in "${files[@]}"; do
	[ -f "$f" ] || f=$TOP/tests/host/$f
	source "$f"
done
run_tests
