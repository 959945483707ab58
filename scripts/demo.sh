#!/bin/sh
# make demo: a real measurement on a built-in workload, nothing to choose.
# The latency of every system call of a small workload (two sleepers of
# 2 ms and 10 ms, and dd copying 4 KiB blocks), one distribution per program.
set -e
cd "$(dirname "$0")/.."
# BPF needs root: a user with sudo is asked for it here, after the build.
as_root=""
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "kdist: failed to run the demo: BPF needs root (CAP_BPF and CAP_PERFMON), and there is no sudo" >&2
		exit 1
	fi
	as_root=sudo
fi
wl="build/tests/sleeper 100 2 & build/tests/sleeper 20 10 & dd if=/dev/zero of=/dev/null bs=4k count=50000 2>/dev/null; wait"
echo "\$ kdist pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm -c '$wl'"
$as_root build/kdist pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm -c "$wl"
