/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --explain in the kernel: a state machine per armed thread (one with an
 * open interval).  START arms the thread with the START's own timestamp;
 * sched_switch, sched_wakeup(_new) and the irq tracepoints move it between
 * states, each state's time read from the same clock as the latency; END
 * charges the last stretch with the END's timestamp.  Every stretch starts
 * where the previous one ended, so the parts add up to END - START exactly.
 * A thread that is not armed has no storage: its switches and wakeups cost
 * one task storage lookup that finds nothing (the task's storage list is
 * empty) and leave.
 *
 * Intervals that may end on another thread (--key) or overlap on one
 * (--match fifo|lifo) keep the thread's state in ex_tids, by tid, where an
 * END on any thread finds it.  Its parts are then running sums while any
 * interval of the thread is open (armed counts them), each interval keeps
 * a snapshot of them from its START (ex_starts, by its match key and its
 * place in the queue), and its split is their difference at its END.
 *
 * --explain end follows the interval to the thread it ends on.  A thread
 * woken by an armed one (sched_waking runs in the waker's context) follows
 * it: it is armed too, and keeps the waker's sums at that wakeup (pre) and
 * its own (base).  A thread woken by a follower follows the same START
 * thread, its pre being the follower's up to then, up to EX_HOPS wakeups
 * from it; it also keeps the START thread's own sums at its wakeup (org).
 * An END on a follower of the START's thread splits the interval into the
 * START's thread's time up to the first wakeup of the chain, each thread's
 * up to the wakeup of the next, and the END's thread's after its own
 * wakeup, if the chain began after the START; if only the END's thread
 * was woken after it (a chain begun for an earlier interval of the same
 * thread, as in a pool of workers), into the START's thread's time up to
 * that wakeup (org) and the END's thread's after it.  The stretches meet
 * end to end either way, so the parts add up.  An END on another thread
 * is split by the START's thread, as without end.  A follower follows
 * until its START thread has no interval open.
 *
 * Included by pair.bpf.c and func.bpf.c after cfg (with its explain and
 * explain_tid), drop() and the stack map `stacks`, with these defined:
 *   EX_KEY    the key type of explain_groups: members group and row
 *   EX_GROUP  the type of its group
 *   EX_MATCH  a match key type with a member v[]: where an interval is
 *             (by thread, v[0] is the tid)
 *   EX_DROP_STORAGE, EX_DROP_FULL  the drop counters of a thread without
 *             state and of a full explain table
 */
#ifndef KDIST_EXPLAIN_BPF_H
#define KDIST_EXPLAIN_BPF_H

#include "model/explain.h"

/* The last stretches charged, newest at (n - 1) % EX_RING: an END taken
 * before a switch it then sees (preempted inside its own program) gives
 * back what was charged after its timestamp. */
#define EX_RING 4

/* A part's index, masked where it is used: a bound the verifier keeps
 * wherever the compiler spills and reloads the state it was checked on
 * (6.1 loses the check on a second reload).  The parts are fewer than 8,
 * so a checked index is unchanged; the mask is in asm so that the compiler
 * does not drop it as redundant. */
static __always_inline __u64 EX_PART(__u64 s)
{
	asm volatile("%0 &= 7" : "+r"(s));
	return s;
}
_Static_assert(EX_NPARTS <= 8, "EX_PART masks the parts' index with 7");

/* --explain end: the most wakeups from a START's thread to its END's */
#define EX_HOPS 3

/* A snapshot of a thread's running sums: a START's (ex_starts), and a
 * follower's pre and base. */
struct ex_snap {
	__u64 acc[EX_NPARTS];
	__u64 irq;
	__u64 born;
	__u64 ts;		/* when it was taken (pre: at the first wakeup) */
	__u32 switches, preempts;
	__u32 tid;		/* 0: the START found no state (storage_failed);
				 * pre: the START thread followed, 0: none */
	__u32 hops;		/* pre: the wakeups from it to this thread */
};

struct ex_task {
	__u64 last;		/* where the current stretch began */
	__u64 ring_at[EX_RING];	/* a charged stretch's start... */
	__u8 ring_state[EX_RING];	/* ...and its state */
	__u32 ring_n;
	__u64 acc[EX_NPARTS];	/* by enum ex_part; EX_IRQ kept apart below */
	__u64 irq;		/* irq handler time while it was on a CPU */
	__u64 rd0, se0;		/* its run-delay and CPU time when it left its CPU */
	__u32 switches, preempts;
	__u32 state;		/* EX_ONCPU, EX_RUNNABLE, EX_S, EX_D or EX_OTHER */
	__u32 armed;		/* its open intervals (1 at most by thread) */
	__u64 born;		/* ex_tids: the thread's start_time (tids are reused) */
	/* --explain full: the block under way (ns: when it began), the
	 * longest that ended (ns: its length) */
	struct ex_block cur, longest;
	/* --explain end: what a follower follows (pre.tid 0: nothing): the
	 * chain's sums up to its wakeup (pre), the START thread's own sums
	 * then (org), and its own (base) */
	struct ex_snap pre, org, base;
	__u32 waker_tid;
	char waker_comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ex_task);
} ex_tasks SEC(".maps");

/* An open interval's place: its match key (by thread: the tid in v[0])
 * and its slot in the key's queue (0 without --match). */
struct ex_start_key {
	EX_MATCH k;
	__u64 slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ex_task);
} ex_tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct ex_start_key);
	__type(value, struct ex_snap);
} ex_starts SEC(".maps");

/* Sums per group and row, for the whole run (user space reads, never
 * deletes: a group's rows are at most EX_ROWS). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, EX_KEY);
	__type(value, struct ex_val);
} explain_groups SEC(".maps");

/* Per CPU: irq nesting, when the outermost handler began, and the split of
 * the interval that just ended (for its --slower-than line) with room for
 * the key of explain_groups, which is too large for the END's stack. */
struct ex_cpu {
	__u32 irq_depth;
	__u64 irq_start;
	struct ex_one last;
	EX_KEY key;
	struct ex_snap snap;		/* a START's, on its way to ex_starts */
	struct ex_start_key skey;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ex_cpu);
} ex_percpu SEC(".maps");

static const struct ex_val ex_zero;

/* --explain end: kdist's own process, which never follows (its threads are
 * woken by the ring buffer of the very programs that watch the work) */
const volatile __u32 ex_self_tgid;
static const struct ex_task ex_task_zero;

/* Kernels before 5.14 name the field `state`. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* Where a thread that leaves a CPU goes.  The task's state now, not the
 * tracepoint's prev_state argument: __schedule() reads prev_state before
 * it finds a signal pending and puts the task back to TASK_RUNNING, and a
 * task preempted while it set itself up to wait is still on its run queue
 * whatever its state says. */
static __always_inline __u32 ex_leave_state(struct task_struct *t, bool preempt)
{
	unsigned int s;

	if (bpf_core_field_exists(t->__state))
		s = BPF_CORE_READ(t, __state);
	else
		s = BPF_CORE_READ((struct task_struct___pre514 *)t, state);
	if (preempt || !s)
		return EX_RUNNABLE;
	if (s & 1)		/* TASK_INTERRUPTIBLE */
		return EX_S;
	if (s & 2)		/* TASK_UNINTERRUPTIBLE, TASK_KILLABLE, TASK_IDLE */
		return EX_D;
	return EX_OTHER;
}

/* Thread t's state: in its task storage, or by tid (cfg.explain_tid). */
static __always_inline struct ex_task *ex_get(struct task_struct *t, bool create)
{
	__u32 tid;

	if (!cfg.explain_tid)
		return bpf_task_storage_get(&ex_tasks, t, 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	tid = t->pid;
	return create ? lookup_or_init(&ex_tids, &tid, &ex_task_zero) :
			bpf_map_lookup_elem(&ex_tids, &tid);
}

static __always_inline struct ex_task *ex_armed(struct task_struct *t)
{
	struct ex_task *x = ex_get(t, false);

	return x && (x->armed || x->pre.tid) &&
	       (!cfg.explain_tid || x->born == t->start_time) ? x : NULL;
}

/* The stretch since x->last goes to the current state. */
static __always_inline void ex_charge(struct ex_task *x, __u64 now)
{
	__u64 s = x->state;

	if (now <= x->last)
		return;	/* another CPU's clock a hair behind: the next stretch takes it */
	if (s < EX_NPARTS)
		x->acc[EX_PART(s)] += now - x->last;
	x->ring_at[x->ring_n & (EX_RING - 1)] = x->last;
	x->ring_state[x->ring_n & (EX_RING - 1)] = s;
	x->ring_n++;
	x->last = now;
}

/* part[] less what the thread's stretches after ts added, for an END
 * whose timestamp is older than the thread's last switch: the END's
 * program was preempted between the two.  Walks the stretches back from
 * the newest.  More than EX_RING stretches after ts: the sum check of
 * ex_settle() takes the rest. */
static __always_inline void ex_rewind(const struct ex_task *x, __u64 ts, __u64 *part)
{
	__u64 end = x->last;

	for (int i = 0; i < EX_RING && end > ts; i++) {
		__u32 k;
		__u64 s;
		__u64 start, cut;

		if (i >= x->ring_n)
			break;
		k = (x->ring_n - 1 - i) & (EX_RING - 1);
		start = x->ring_at[k];
		s = x->ring_state[k];
		cut = end - (start > ts ? start : ts);
		if (s < EX_NPARTS)
			part[EX_PART(s)] -= cut < part[EX_PART(s)] ? cut : part[EX_PART(s)];
		end = start;
	}
}

/* The kernel keeps run-queue waits per thread (CONFIG_SCHED_INFO). */
static __always_inline bool ex_has_run_delay(struct task_struct *t)
{
	return bpf_core_field_exists(t->sched_info);
}

/* The scheduler's total run-queue wait of t (0 without the accounting):
 * it grows when t arrives on a CPU, whether or not a tracepoint reported
 * the switch. */
static __always_inline __u64 ex_run_delay(struct task_struct *t)
{
	if (!ex_has_run_delay(t))
		return 0;
	return BPF_CORE_READ(t, sched_info.run_delay);
}

/* Thread t is on a CPU at now (its switch-out, its END, an interrupt in
 * its context) but its state says otherwise: the switch that put it there
 * was not reported.  Some kernels do not report a switch from a CPU's idle
 * task, and a program can miss an event.  The scheduler's own counters of
 * the thread, which grow whether or not a tracepoint reported the switch,
 * split the stretch since it left its CPU: its run-delay (added to on each
 * arrival on a CPU) is the runnable part, its CPU time (sum_exec_runtime,
 * current at a switch-out, up to a tick behind otherwise) the on-CPU part,
 * and the rest is the state it blocked in, if its wakeup was missed too.
 * Without run-delay accounting (CONFIG_SCHED_INFO) the stretch is not
 * attributed. */
static __always_inline void ex_running(struct ex_task *x, struct task_struct *t, __u64 now)
{
	__u64 span = now > x->last ? now - x->last : 0, wait, run;

	if (x->state == EX_ONCPU)
		return;
	if (!ex_has_run_delay(t)) {
		x->state = EX_UNATTR;
		ex_charge(x, now);
		x->state = EX_ONCPU;
		return;
	}
	wait = ex_run_delay(t) - x->rd0;
	run = t->se.sum_exec_runtime - x->se0;
	if (wait > span)
		wait = span;
	if (x->state == EX_RUNNABLE || run > span - wait)
		run = span - wait;	/* runnable: all the rest ran */
	if (span > wait + run)		/* blocked, then woken unseen */
		ex_charge(x, x->last + span - wait - run);
	x->state = EX_RUNNABLE;
	ex_charge(x, x->last + wait);
	x->state = EX_ONCPU;	/* the caller charges the rest to now */
}

/* Context switches of t so far: a START compares them around its own
 * program, whose timestamp comes before the thread is armed. */
static __always_inline __u64 ex_switches(struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

/* START of thread cur at ts: a new interval, on-CPU.  sw: its
 * ex_switches() before ts.  If it switched since, the switch came before
 * the thread was armed and was not seen: the time from ts to now is not
 * attributed, rather than counted on-CPU. */
static __always_inline void ex_init(struct ex_task *x, struct task_struct *cur, __u64 ts,
				    __u64 sw)
{
	__builtin_memset(x, 0, sizeof(*x));
	x->last = ts;
	x->state = EX_ONCPU;
	x->born = cur->start_time;
	if (ex_switches(cur) != sw) {
		__u64 now = bpf_ktime_get_ns();

		x->acc[EX_UNATTR] = now > ts ? now - ts : 0;
		x->last = now > ts ? now : ts;
	}
}

static __always_inline void ex_arm(struct task_struct *cur, __u64 ts, __u64 sw)
{
	struct ex_task *x = ex_get(cur, true);

	if (!x) {
		drop(EX_DROP_STORAGE);	/* its END records it unattributed */
		return;
	}
	ex_init(x, cur, ts, sw);
	x->armed = 1;
}

/* c->skey: the place of an interval of thread cur, by key k (NULL: by
 * the thread) and queue slot. */
static __always_inline void ex_place(struct ex_cpu *c, struct task_struct *cur,
				     const EX_MATCH *k, __u64 slot)
{
	__builtin_memset(&c->skey, 0, sizeof(c->skey));
	if (k)
		c->skey.k = *k;
	else
		c->skey.k.v[0] = cur->pid;
	c->skey.slot = slot;
}

/* s: thread x's (tid) running sums, at ts. */
static __always_inline void ex_snap_take(struct ex_snap *s, const struct ex_task *x, __u32 tid,
					 __u64 ts)
{
	for (int i = 0; i < EX_NPARTS; i++)
		s->acc[i] = x->acc[i];
	s->irq = x->irq;
	s->switches = x->switches;
	s->preempts = x->preempts;
	s->born = x->born;
	s->tid = tid;
	s->ts = ts;
	s->hops = 0;
}

/* The thread of a START that will not end (replaced, or lost from a full
 * queue) has one interval fewer open; its snapshot at key goes. */
static __always_inline void ex_abandon(const struct ex_start_key *key)
{
	struct ex_snap *s = bpf_map_lookup_elem(&ex_starts, key);
	struct ex_task *x;
	__u32 tid;

	if (!s)
		return;
	tid = s->tid;
	x = tid ? bpf_map_lookup_elem(&ex_tids, &tid) : NULL;
	if (x && x->born == s->born && x->armed && !--x->armed && !x->pre.tid)
		bpf_map_delete_elem(&ex_tids, &tid);
	bpf_map_delete_elem(&ex_starts, key);
}

/* START of thread cur at ts (cfg.explain_tid): a new interval, whose
 * snapshot of the thread's running sums goes to ex_starts at (k, slot).
 * The thread's first open interval starts its sums, a later one charges
 * the stretch under way up to ts first.  k NULL: by thread (its tid). */
static __always_inline void ex_open(struct task_struct *cur, __u64 ts, __u64 sw,
				    const EX_MATCH *k, __u64 slot)
{
	__u32 zero = 0;
	struct ex_cpu *c = bpf_map_lookup_elem(&ex_percpu, &zero);
	struct ex_task *x;
	struct ex_snap *s;

	if (!c)
		return;
	s = &c->snap;
	ex_place(c, cur, k, slot);
	__builtin_memset(s, 0, sizeof(*s));
	/* a CPU's idle task (a START in an interrupt of an idle CPU): every
	 * CPU's has tid 0, so it has no state, and the END says unattributed */
	x = cur->pid ? ex_get(cur, true) : NULL;
	if (!x && cur->pid) {
		drop(EX_DROP_STORAGE);	/* its END records it unattributed */
	} else if (x) {
		if ((!x->armed && !x->pre.tid) || x->born != cur->start_time) {
			ex_init(x, cur, ts, sw);
		} else if (ts > x->last) {
			ex_running(x, cur, ts);
			ex_charge(x, ts);
		}
		x->armed++;
		ex_snap_take(s, x, cur->pid, ts);
	}
	/* a START whose slot was not ended (replaced, or its queue full)
	 * leaves the thread it was of */
	ex_abandon(&c->skey);
	if (bpf_map_update_elem(&ex_starts, &c->skey, s, BPF_ANY))
		drop(EX_DROP_FULL);
}

/* c->last's parts made to add up to delta: irq time (at most the on-CPU
 * part) taken out of on-CPU, what is missing unattributed. */
static __always_inline struct ex_cpu *ex_settle(struct ex_cpu *c, __u64 irq, __u64 delta)
{
	__u64 sum = 0, excess;

	for (int i = 0; i < EX_NPARTS; i++)
		sum += c->last.part[i];
	if (irq > c->last.part[EX_ONCPU])
		irq = c->last.part[EX_ONCPU];
	c->last.part[EX_ONCPU] -= irq;
	c->last.part[EX_IRQ] += irq;
	if (sum <= delta) {
		c->last.part[EX_UNATTR] += delta - sum;
		return c;
	}
	/* only if clocks of two CPUs disagreed: the parts still add up */
	excess = sum - delta;
	for (int i = 0; i < EX_NPARTS; i++) {
		__u64 take = c->last.part[i] < excess ? c->last.part[i] : excess;

		c->last.part[i] -= take;
		excess -= take;
	}
	return c;
}

/* part[] += a - b, each part at least 0 */
static __always_inline void ex_diff(__u64 *part, const __u64 *a, const __u64 *b)
{
	for (int i = 0; i < EX_NPARTS; i++)
		part[i] += a[i] > b[i] ? a[i] - b[i] : 0;
}

/* c->last: thread x's sums at ts less base (NULL: from zero), made to add
 * up to delta.  x's stretch under way is charged up to ts already, or ts
 * is older than it (ex_rewind()).  With pre (--explain end), x follows
 * the START's thread, whose snapshot at the START is s, and pre less s is
 * the time up to x's wakeup. */
static __always_inline struct ex_cpu *ex_split(struct ex_cpu *c, const struct ex_task *x,
					       const struct ex_snap *base,
					       const struct ex_snap *pre,
					       const struct ex_snap *s, __u64 ts, __u64 delta)
{
	__u64 irq = x->irq;

	for (int i = 0; i < EX_NPARTS; i++)
		c->last.part[i] = base ? 0 : x->acc[i];
	if (base)
		ex_diff(c->last.part, x->acc, base->acc);
	if (ts < x->last)
		ex_rewind(x, ts, c->last.part);
	c->last.switches = x->switches - (base ? base->switches : 0);
	c->last.preempts = x->preempts - (base ? base->preempts : 0);
	if (base)
		irq = irq > base->irq ? irq - base->irq : 0;
	if (pre) {
		ex_diff(c->last.part, pre->acc, s->acc);
		c->last.switches += pre->switches - s->switches;
		c->last.preempts += pre->preempts - s->preempts;
		irq += pre->irq > s->irq ? pre->irq - s->irq : 0;
	}
	return ex_settle(c, irq, delta);
}

/* END of thread cur at ts, delta after its START (by thread): the split
 * into the CPU's ex_cpu.last, the thread disarmed.  NULL only if the
 * per-CPU slot is. */
static __always_inline struct ex_cpu *ex_stop(struct task_struct *cur, __u64 ts, __u64 delta)
{
	__u32 zero = 0;
	struct ex_cpu *c = bpf_map_lookup_elem(&ex_percpu, &zero);
	struct ex_task *x = ex_armed(cur);

	if (!c)
		return NULL;
	__builtin_memset(&c->last, 0, sizeof(c->last));
	if (!x) {
		c->last.part[EX_UNATTR] = delta;
		return c;
	}
	if (ts >= x->last) {
		ex_running(x, cur, ts);
		ex_charge(x, ts);
	}
	x->armed = 0;
	c->last.block = x->longest;
	return ex_split(c, x, NULL, NULL, NULL, ts, delta);
}

/* --explain end: an END at ts on thread cur, delta after the START whose
 * snapshot is s, on another thread.  If cur follows that thread from a
 * wakeup after the START, the split into c->last is the START's thread's
 * up to the wakeup that led to cur and cur's after it; true.  Else false:
 * the caller splits by the START's thread. */
static __always_inline bool ex_follow_end(struct ex_cpu *c, struct task_struct *cur,
					  const struct ex_snap *s, __u64 ts, __u64 delta)
{
	struct ex_task *y = ex_armed(cur);
	struct ex_handoff *h = &c->last.handoff;
	const struct ex_snap *from;

	if (!y || y->pre.tid != s->tid || y->pre.born != s->born)
		return false;
	if (y->pre.ts >= s->ts)
		from = &y->pre;		/* the chain began after the START */
	else if (y->base.ts >= s->ts)
		from = &y->org;		/* only the END's thread was woken after it */
	else
		return false;
	if (ts >= y->last) {
		ex_running(y, cur, ts);
		ex_charge(y, ts);
	}
	ex_split(c, y, &y->base, from, s, ts, delta);
	h->ns = y->base.ts - s->ts;
	h->end_tid = cur->pid;
	h->waker_tid = y->waker_tid;
	bpf_get_current_comm(h->end_comm, sizeof(h->end_comm));
	__builtin_memcpy(h->waker_comm, y->waker_comm, sizeof(h->waker_comm));
	return true;
}

/* END at ts of the interval at (k, slot), delta after its START, on thread
 * cur (cfg.explain_tid): its split into the CPU's ex_cpu.last, the
 * difference of its thread's running sums since its START's snapshot.
 * The thread's stretch under way is charged up to ts; its last interval
 * closed, the thread leaves ex_tids.  NULL only if the per-CPU slot is. */
static __always_inline struct ex_cpu *ex_close(struct task_struct *cur, __u64 ts, __u64 delta,
					       const EX_MATCH *k, __u64 slot)
{
	__u32 zero = 0, tid = 0;
	struct ex_cpu *c = bpf_map_lookup_elem(&ex_percpu, &zero);
	struct ex_task *x = NULL;
	struct ex_snap *s;

	if (!c)
		return NULL;
	__builtin_memset(&c->last, 0, sizeof(c->last));
	ex_place(c, cur, k, slot);
	s = bpf_map_lookup_elem(&ex_starts, &c->skey);
	if (!s) {
		c->last.part[EX_UNATTR] = delta;
		return c;
	}
	tid = s->tid;
	if (tid)
		x = bpf_map_lookup_elem(&ex_tids, &tid);
	if (!x || !x->armed || x->born != s->born) {
		c->last.part[EX_UNATTR] = delta;
		bpf_map_delete_elem(&ex_starts, &c->skey);
		return c;
	}
	if (ts >= x->last) {
		/* the START's thread is on a CPU only if it is this END's */
		if (tid == cur->pid)
			ex_running(x, cur, ts);
		ex_charge(x, ts);
	}
	if (cfg.explain != EXPLAIN_END || tid == cur->pid || !ex_follow_end(c, cur, s, ts, delta))
		ex_split(c, x, s, NULL, NULL, ts, delta);
	if (!--x->armed && !x->pre.tid)
		bpf_map_delete_elem(&ex_tids, &tid);
	bpf_map_delete_elem(&ex_starts, &c->skey);
	return c;
}

/* The split of c->last added to group g's row of delta. */
static __always_inline void ex_record(struct ex_cpu *c, const EX_GROUP *g, __u64 delta)
{
	struct ex_val *v;

	if (!c)
		return;
	__builtin_memset(&c->key, 0, sizeof(c->key));
	if (g)
		c->key.group = *g;
	c->key.row = delta ? hist_ilog2(delta) + 1 : 0;
	v = lookup_or_init(&explain_groups, &c->key, &ex_zero);
	if (!v) {
		drop(EX_DROP_FULL);
		return;
	}
	v->count++;
	v->sum += delta;
	for (int i = 0; i < EX_NPARTS; i++)
		v->part[i] += c->last.part[i];
	v->switches += c->last.switches;
	v->preempts += c->last.preempts;
	v->followed += c->last.handoff.end_tid != 0;
}

/* The split of the pair that just ended on this CPU, for its slow line. */
static __always_inline void ex_slow(struct ex_one *o)
{
	__u32 zero = 0;
	struct ex_cpu *c = bpf_map_lookup_elem(&ex_percpu, &zero);

	if (c)
		*o = c->last;
}

/* A follower whose START thread has no interval open follows nothing
 * more; without intervals of its own it leaves ex_tids. */
static __always_inline void ex_unfollow(struct ex_task *x, __u32 tid)
{
	__u32 from = x->pre.tid;
	struct ex_task *o = bpf_map_lookup_elem(&ex_tids, &from);

	if (o && o->armed && o->born == x->pre.born)
		return;
	x->pre.tid = 0;
	if (!x->armed)
		bpf_map_delete_elem(&ex_tids, &tid);
}

SEC("tp_btf/sched_switch")
int KD_PROG(ex_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct ex_task *x = ex_armed(prev);
	__u64 now = 0;

	if (x) {
		now = bpf_ktime_get_ns();
		ex_running(x, prev, now);
		ex_charge(x, now);
		x->switches++;
		x->state = ex_leave_state(prev, preempt);
		if (x->state == EX_RUNNABLE)
			x->preempts++;
		x->rd0 = ex_run_delay(prev);
		x->se0 = prev->se.sum_exec_runtime;
		if (cfg.explain == EXPLAIN_FULL && x->state >= EX_S) {
			__builtin_memset(&x->cur, 0, sizeof(x->cur));
			x->cur.ns = now;
			x->cur.state = x->state;
			x->cur.kstack = stack_get(ctx, 0);	/* prev's: current */
		}
		if (cfg.explain == EXPLAIN_END && x->pre.tid)
			ex_unfollow(x, prev->pid);
	}
	x = ex_armed(next);
	if (x) {
		ex_charge(x, now ? now : bpf_ktime_get_ns());
		x->state = EX_ONCPU;
	}
	return 0;
}

/* A blocked thread woken: runnable from now.  A wakeup of a thread still
 * on its CPU (it had not switched out yet) changes nothing here: its
 * switch-out then finds it TASK_RUNNING. */
static __always_inline int ex_woken(struct task_struct *p)
{
	struct ex_task *x = ex_armed(p);

	if (x && x->state >= EX_S) {
		__u64 now = bpf_ktime_get_ns();

		ex_charge(x, now);
		x->state = EX_RUNNABLE;
		if (cfg.explain == EXPLAIN_FULL && x->cur.ns && now - x->cur.ns > x->longest.ns) {
			x->longest = x->cur;
			x->longest.ns = now - x->cur.ns;
		}
		x->cur.ns = 0;
	}
	return 0;
}

/* --explain full: sched_waking runs in the waker's context (sched_wakeup
 * may run on the wakee's CPU): who wakes an armed, blocked thread. */
SEC("tp_btf/sched_waking")
int KD_PROG(ex_full_waking, struct task_struct *p)
{
	struct ex_task *x = ex_armed(p);

	if (x && x->state >= EX_S && x->cur.ns) {
		x->cur.waker_tid = (__u32)bpf_get_current_pid_tgid();
		bpf_get_current_comm(x->cur.waker_comm, sizeof(x->cur.waker_comm));
		x->cur.waker_kstack = stack_get(ctx, 0);
	}
	return 0;
}

/* --explain end: thread p woken by the current thread, armed: p follows
 * the START thread the current one is (its own intervals first) or
 * follows, from now.  Its pre: the START thread's sums now, or the
 * current thread's pre plus what it added since its own wakeup. */
SEC("tp_btf/sched_waking")
int KD_PROG(ex_end_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct ex_task *w = ex_armed(cur), *x, *o;
	struct ex_snap *pre;
	struct ex_cpu *c;
	__u32 zero = 0, me = cur->pid, them = p->pid, from;
	__u64 now;

	if (!w || !them || them == me || (!w->armed && w->pre.hops >= EX_HOPS) ||
	    p->tgid == ex_self_tgid)
		return 0;
	from = w->armed ? me : w->pre.tid;
	if (them == from)
		return 0;
	c = bpf_map_lookup_elem(&ex_percpu, &zero);
	if (!c)
		return 0;
	now = bpf_ktime_get_ns();
	if (now > w->last) {
		ex_running(w, cur, now);
		ex_charge(w, now);
	}
	pre = &c->snap;
	if (w->armed) {
		ex_snap_take(pre, w, me, now);
		o = w;
	} else {
		o = bpf_map_lookup_elem(&ex_tids, &from);
		if (!o || !o->armed || o->born != w->pre.born)
			return 0;	/* its START thread's intervals all ended */
		*pre = w->pre;
		ex_diff(pre->acc, w->acc, w->base.acc);
		pre->irq += w->irq - w->base.irq;
		pre->switches += w->switches - w->base.switches;
		pre->preempts += w->preempts - w->base.preempts;
		pre->hops++;
	}
	x = ex_armed(p);
	if (!x) {
		x = ex_get(p, true);
		if (!x) {
			drop(EX_DROP_STORAGE);
			return 0;
		}
		/* new: on its CPU still (it has not switched out to wait), or
		 * being woken */
		__builtin_memset(x, 0, sizeof(*x));
		x->last = now;
		x->born = p->start_time;
		x->state = BPF_CORE_READ(p, on_cpu) ? EX_ONCPU : EX_RUNNABLE;
		x->rd0 = ex_run_delay(p);
		x->se0 = p->se.sum_exec_runtime;
	} else {
		if (now > x->last)
			ex_charge(x, now);
		if (x->state >= EX_S)
			x->state = EX_RUNNABLE;
	}
	x->pre = *pre;
	if (o != w && now > o->last)
		ex_charge(o, now);	/* the START thread, not on this CPU */
	ex_snap_take(&x->org, o, from, now);
	ex_snap_take(&x->base, x, them, now);
	x->waker_tid = me;
	bpf_get_current_comm(x->waker_comm, sizeof(x->waker_comm));
	return 0;
}

SEC("tp_btf/sched_wakeup")
int KD_PROG(ex_wakeup, struct task_struct *p) { return ex_woken(p); }

/* a new thread is never armed, but a START in a thread's first instant is
 * possible only after this: kept for a state machine with no gap */
SEC("tp_btf/sched_wakeup_new")
int KD_PROG(ex_wakeup_new, struct task_struct *p) { return ex_woken(p); }

/* Irq time: from the outermost handler's entry to its exit, charged to the
 * thread it interrupted if that one is armed.  Handlers nest (a hard irq
 * in a softirq), hence the depth. */
static __always_inline int ex_irq_enter(void)
{
	__u32 zero = 0;
	struct ex_cpu *c = bpf_map_lookup_elem(&ex_percpu, &zero);

	if (c && !c->irq_depth++)
		c->irq_start = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int ex_irq_exit(void)
{
	__u32 zero = 0;
	struct ex_cpu *c = bpf_map_lookup_elem(&ex_percpu, &zero);
	struct task_struct *t;
	struct ex_task *x;

	/* depth 0: the handler began before the program was attached */
	if (!c || !c->irq_depth || --c->irq_depth)
		return 0;
	t = bpf_get_current_task_btf();
	x = ex_armed(t);
	if (x && x->state != EX_ONCPU && c->irq_start > x->last)
		ex_running(x, t, c->irq_start);
	if (x && x->state == EX_ONCPU)
		x->irq += bpf_ktime_get_ns() - c->irq_start;
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int KD_PROG(ex_hardirq_entry) { return ex_irq_enter(); }
SEC("tp_btf/irq_handler_exit")
int KD_PROG(ex_hardirq_exit) { return ex_irq_exit(); }
SEC("tp_btf/softirq_entry")
int KD_PROG(ex_softirq_entry) { return ex_irq_enter(); }
SEC("tp_btf/softirq_exit")
int KD_PROG(ex_softirq_exit) { return ex_irq_exit(); }

#endif
