/* SPDX-License-Identifier: GPL-2.0 */
/* BPF side shared by the stack commands: configuration, the stack map, the
 * task filter and reading the current thread into a key (loss counters and
 * drop() are common.bpf.h's).  Each including object gets its own copy of
 * the maps. */
#ifndef KDIST_STACKS_BPF_H
#define KDIST_STACKS_BPF_H

#include "kernel/stacks.h"
#include "kernel/common.bpf.h"
#include "kernel/stackid.bpf.h"
#include "kernel/filter.bpf.h"
#include "kernel/procnote.bpf.h"

const volatile struct stack_cfg cfg = {};

/* The current thread is traced: -p, --tid, --cgroup (or the workload's),
 * --comm.  Resolved at verification for the filters not given. */
static __always_inline bool filtered_out(void)
{
	return task_filtered_out(&cfg.filter, NULL);
}

static __always_inline int stack_id(void *ctx, __u64 flags)
{
	long id = stack_get(ctx, flags);

	if (id >= 0)
		return id;
	if (id == -EEXIST)
		drop(SDROP_COLLISION);
	else if (id == -ENOMEM)
		drop(SDROP_MAP_FULL);
	else	/* -EFAULT: no stack, e.g. the user stack of a kernel thread */
		return STACK_NONE;
	return id;
}

/* Fill one side of a key from the current thread: only what the key holds
 * (kernel and user fields at shift 0, the waker's at shift SF_WAKER_COMM). */
static __always_inline void who_current(void *ctx, struct stack_who *w, int shift)
{
	unsigned int f = cfg.fields >> shift;
	__u64 id = bpf_get_current_pid_tgid();

	w->kstack = w->ustack = STACK_NONE;
	if (f & (SF_BIT(SF_PID) | SF_BIT(SF_USTACK)))
		w->pid = id >> 32;
	if (f & SF_BIT(SF_TID))
		w->tid = (__u32)id;
	if (f & SF_BIT(SF_COMM))
		bpf_get_current_comm(w->comm, sizeof(w->comm));
	if (f & SF_BIT(SF_KSTACK))
		w->kstack = stack_id(ctx, 0);
	/* user frames are named from the process's maps, read while it
	 * lives: a new address space is told at once (procnote.bpf.h) */
	if (f & SF_BIT(SF_USTACK)) {
		w->ustack = stack_id(ctx, BPF_F_USER_STACK);
		proc_tell();
	}
	/* shifted for the waker, this bit is none of the waker's fields */
	if (f & SF_BIT(SF_CGROUP))
		w->cgroup = bpf_get_current_cgroup_id();
}

#endif
