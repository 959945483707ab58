/* SPDX-License-Identifier: GPL-2.0 */
/* --stack of --slower-than: the processes whose user stacks slow lines
 * show, told to user space once per address space (and again after an
 * exec, which gives the process a new one) while they run, so that their
 * maps are read then (stacks.c, stack_syms_follow()), not only when a line
 * is printed, by which time a short-lived process may have exited.  User
 * space sizes both maps when it uses them. */
#ifndef KDIST_PROCNOTE_BPF_H
#define KDIST_PROCNOTE_BPF_H

#include <bpf/bpf_core_read.h>
#include "kernel/stacks.h"	/* struct proc_note */

/* tgid -> the mm it was last told with */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} procs_told SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} proc_notes SEC(".maps");

/* The current process, if user space has not heard of its address space
 * yet.  A note the ring has no room for is tried again at the next call. */
static __always_inline void proc_tell(void)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 mm = (__u64)BPF_CORE_READ(cur, mm);
	struct proc_note *n;
	__u64 *told;

	if (!mm)
		return;		/* a kernel thread: no user stack */
	told = bpf_map_lookup_elem(&procs_told, &pid);
	if (told && *told == mm)
		return;
	n = bpf_ringbuf_reserve(&proc_notes, sizeof(*n), 0);
	if (!n)
		return;
	n->ts = bpf_ktime_get_ns();
	n->pid = pid;
	n->pad = 0;
	bpf_ringbuf_submit(n, 0);
	bpf_map_update_elem(&procs_told, &pid, &mm, BPF_ANY);
}

#endif
