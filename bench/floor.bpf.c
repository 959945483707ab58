// SPDX-License-Identifier: GPL-2.0
/* The floor of the benchmark: empty programs on the hooks kdist uses, so
 * what remains is the kernel's own cost of calling BPF there; and the same
 * raw tracepoint programs each reading the clock once, the least a tool
 * that times the pair can do. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u64 clock_sink;

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_enter(void *ctx) { return 0; }
SEC("tracepoint/raw_syscalls/sys_exit")
int tp_exit(void *ctx) { return 0; }
SEC("raw_tp/sys_enter")
int raw_enter(void *ctx) { return 0; }
SEC("raw_tp/sys_exit")
int raw_exit(void *ctx) { return 0; }
SEC("raw_tp/sys_enter")
int clock_enter(void *ctx) { clock_sink = bpf_ktime_get_ns(); return 0; }
SEC("raw_tp/sys_exit")
int clock_exit(void *ctx) { clock_sink = bpf_ktime_get_ns(); return 0; }
