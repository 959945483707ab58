#!/bin/bash
# Host tests: real BPF on the running kernel, as root, against workloads
# with known truth.  Each tests/host/*.test.sh defines test_* functions.
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then
	CURRENT=host; skip "host tests need root"
	run_tests; exit
fi
for f in "$TOP"/tests/host/*.test.sh; do
	source "$f"
done
run_tests
