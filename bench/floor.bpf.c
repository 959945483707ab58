// SPDX-License-Identifier: GPL-2.0
/* The floor of the benchmark: empty programs on the hooks kdist uses, so
 * what remains is the kernel's own cost of calling BPF there; and the same
 * raw tracepoint programs each reading the clock once, the least a tool
 * that times the pair can do. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u64 clock_sink;

/* a tracepoint program passes the event on to perf (1), as kdist's do
 * (common.bpf.h); "tpdrop" hides it (0), as kdist's did: the difference is
 * what letting perf see the event costs */
SEC("tracepoint/raw_syscalls/sys_enter")
int tp_enter(void *ctx) { return 1; }
SEC("tracepoint/raw_syscalls/sys_exit")
int tp_exit(void *ctx) { return 1; }
SEC("tracepoint/raw_syscalls/sys_enter")
int tpdrop_enter(void *ctx) { return 0; }
SEC("tracepoint/raw_syscalls/sys_exit")
int tpdrop_exit(void *ctx) { return 0; }
SEC("raw_tp/sys_enter")
int raw_enter(void *ctx) { return 0; }
SEC("raw_tp/sys_exit")
int raw_exit(void *ctx) { return 0; }
SEC("raw_tp/sys_enter")
int clock_enter(void *ctx) { clock_sink = bpf_ktime_get_ns(); return 0; }
SEC("raw_tp/sys_exit")
int clock_exit(void *ctx) { clock_sink = bpf_ktime_get_ns(); return 0; }

/* The steps from the clock floor to kdist pair's hot path, for docs/pair.md:
 * "thread" adds the current task and the -p filter on it, "storage" keeps
 * the START time in task storage (kdist before its array by tid). */
const volatile __u32 tgid;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} starts SEC(".maps");

static __always_inline int clock_if_traced(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (t->tgid == tgid)
		clock_sink = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/sys_enter")
int thread_enter(void *ctx) { return clock_if_traced(); }
SEC("raw_tp/sys_exit")
int thread_exit(void *ctx) { return clock_if_traced(); }

SEC("raw_tp/sys_enter")
int storage_enter(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 *v;

	if (t->tgid != tgid)
		return 0;
	v = bpf_task_storage_get(&starts, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (v)
		*v = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/sys_exit")
int storage_exit(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 *v = bpf_task_storage_get(&starts, t, 0, 0);

	if (v && *v) {
		clock_sink = bpf_ktime_get_ns() - *v;
		*v = 0;
	}
	return 0;
}
