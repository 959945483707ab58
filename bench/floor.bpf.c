// SPDX-License-Identifier: GPL-2.0
/* The floor of the benchmark: empty programs on the hooks kdist uses, so
 * what remains is the kernel's own cost of calling BPF there. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_enter(void *ctx) { return 0; }
SEC("tracepoint/raw_syscalls/sys_exit")
int tp_exit(void *ctx) { return 0; }
SEC("raw_tp/sys_enter")
int raw_enter(void *ctx) { return 0; }
SEC("raw_tp/sys_exit")
int raw_exit(void *ctx) { return 0; }
