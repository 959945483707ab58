// SPDX-License-Identifier: GPL-2.0
/*
 * kdist offcpu and wakeup: time threads spend off CPU, by the stack they
 * blocked in, from sched_switch.  At switch-out the blocking thread is
 * current: its stacks and identity go into its per-thread slot with the
 * time; at its switch-in the block's length is added to the histogram of
 * that key.  For wakeup, sched_waking (which runs in the waker's context,
 * unlike sched_wakeup that may run on the wakee's CPU) adds the waker's
 * side to the sleeping thread's slot.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "model/hist.h"
#include "kernel/stacks.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct offcpu_slot {
	__u64 ts;		/* switch-out time, 0 when on CPU or not traced */
	__u64 ran;		/* the thread's CPU time at that switch-out */
	struct stack_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_slot);
} task_slot SEC(".maps");

/* Where task storage cannot be used (raw_tp programs get no BTF task
 * pointer): slots by tid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* sized by user space when used */
	__type(key, __u32);
	__type(value, struct offcpu_slot);
} tid_slot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct stack_key);
	__type(value, struct hist);
} hist_groups SEC(".maps");

static const struct hist zero_hist;
static const struct offcpu_slot zero_slot;

/* Kernels before 5.14 name the field `state`. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int state_bit(struct task_struct *t)
{
	unsigned int s;

	if (bpf_core_field_exists(t->__state))
		s = BPF_CORE_READ(t, __state);
	else
		s = BPF_CORE_READ((struct task_struct___old *)t, state);
	if (!s)
		return ST_R;
	if ((s & 0x402) == 0x402)	/* TASK_IDLE: uninterruptible, no load */
		return ST_I;
	if (s & 1)			/* TASK_INTERRUPTIBLE */
		return ST_S;
	if (s & 2)			/* TASK_UNINTERRUPTIBLE */
		return ST_D;
	return ST_OTHER;
}

static __always_inline struct offcpu_slot *slot_of(struct task_struct *t, bool create)
{
	__u32 tid;

	if (cfg.task_storage)
		return bpf_task_storage_get(&task_slot, t, 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	tid = BPF_CORE_READ(t, pid);
	if (!create)
		return bpf_map_lookup_elem(&tid_slot, &tid);
	return lookup_or_init(&tid_slot, &tid, &zero_slot);
}

static __always_inline void record(struct offcpu_slot *s, __u64 delta)
{
	struct stack_key k = s->key;
	struct hist *h;

	bool full;

	h = group_value(&hist_groups, &k, &zero_hist, &full);
	if (h)
		hist_add(h, delta);
	else if (full)
		drop(SDROP_GROUP_FULL);
	else
		spill_event(&k, sizeof(k), delta, 0, 0);
}

static __always_inline int on_switch(void *ctx, bool preempt, struct task_struct *prev,
				     struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), delta;
	struct offcpu_slot *s;

	/* prev is current: it leaves the CPU.  If its slot is still open,
	 * the switch that brought it back was not reported (some kernels do
	 * not report a switch away from a CPU's idle task): it came back when
	 * it started the CPU time it has run since, exact at a switch-out. */
	s = slot_of(prev, false);
	if (s && s->ts) {
		__u64 ran = BPF_CORE_READ(prev, se.sum_exec_runtime) - s->ran;

		drop(SDROP_SWITCH_IN_UNSEEN);
		delta = now - s->ts > ran ? now - s->ts - ran : 0;
		s->ts = 0;
		if (delta >= cfg.min_ns && (!cfg.max_ns || delta <= cfg.max_ns))
			record(s, delta);
	}
	if ((__u32)bpf_get_current_pid_tgid() && !filtered_out() &&
	    (cfg.state_mask == ST_ANY || ((preempt ? ST_R : state_bit(prev)) & cfg.state_mask))) {
		s = slot_of(prev, true);
		if (s) {
			s->ts = now;
			s->ran = BPF_CORE_READ(prev, se.sum_exec_runtime);
			who_current(ctx, &s->key.who, 0);
			if (cfg.fields & SF_WAKER_MASK) {
				/* no waker until sched_waking says (preemption has none) */
				s->key.waker = zero_slot.key.waker;
				s->key.waker.kstack = s->key.waker.ustack = STACK_NONE;
			}
		} else {
			drop(SDROP_STORAGE);
		}
	}
	s = slot_of(next, false);
	if (!s || !s->ts)
		return 0;
	delta = now - s->ts;
	s->ts = 0;
	if (delta < cfg.min_ns || (cfg.max_ns && delta > cfg.max_ns))
		return 0;
	record(s, delta);
	return 0;
}

static __always_inline int on_waking(void *ctx, struct task_struct *p)
{
	struct offcpu_slot *s = slot_of(p, false);

	if (s && s->ts)
		who_current(ctx, &s->key.waker, SF_WAKER_COMM);
	return 0;
}

SEC("tp_btf/sched_switch")
int KD_PROG(btf_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(ctx, preempt, prev, next);
}

SEC("raw_tp/sched_switch")
int KD_PROG(raw_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(ctx, preempt, prev, next);
}

SEC("tp_btf/sched_waking")
int KD_PROG(btf_waking, struct task_struct *p)
{
	return on_waking(ctx, p);
}

SEC("raw_tp/sched_waking")
int KD_PROG(raw_waking, struct task_struct *p)
{
	return on_waking(ctx, p);
}
