// SPDX-License-Identifier: GPL-2.0
/*
 * kdist profile: on-CPU stacks sampled by a software cpu-clock perf event
 * on every CPU.  One counter per stack key and CPU; a sample is a count.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kernel/stacks.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct stack_key);
	__type(value, __u64);
} samples SEC(".maps");

SEC("perf_event")
int KD_PROG_CTX(struct bpf_perf_event_data *, on_sample)
{
	struct stack_key k = {};
	static const __u64 zero;
	bool full;
	__u64 *n;

	/* idle CPUs are not on-CPU time of anything */
	if (!(__u32)bpf_get_current_pid_tgid() || filtered_out())
		return 0;
	who_current(ctx, &k.who, 0);
	n = group_value(&samples, &k, &zero, &full);
	if (n)
		*n += 1;
	else if (full)
		drop(SDROP_GROUP_FULL);
	else
		spill_event(&k, sizeof(k), 1, 0, 0);
	return 0;
}
