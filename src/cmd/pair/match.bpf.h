/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --match fifo|lifo: several STARTs in flight per key, in a bounded queue
 * of MQ_DEPTH entries (match.h), where --match replace (the default) keeps
 * one.  Included by pair.bpf.c after the functions it uses; never on the
 * path of a pair without --match (cfg.match is rodata: the verifier drops
 * these branches).
 *
 * FIFO: the n-th START of a key pairs with its n-th END.  Every START takes
 * the sequence number tail++ and writes entry tail % MQ_DEPTH with it;
 * every END takes head++ and finds its START in entry head % MQ_DEPTH if
 * that entry still holds the END's sequence number.  A START that finds
 * its entry still unmatched (MQ_DEPTH in flight) overwrites it: that older
 * START is counted lost (match_queue_full) and its END, finding another
 * sequence number, is not paired.  Keys by fields are shared by CPUs (a
 * fault's START on one, its END in a workqueue on another): tail and head
 * move with atomic operations, so that two events never take one number.
 *
 * LIFO (by thread only): nesting and recursion.  A stack per thread: the
 * END pairs with the innermost open START.  Levels beyond MQ_DEPTH are
 * counted (match_queue_full) and their ENDs unwind them unpaired, so the
 * outer levels still pair with their own STARTs.
 */
#ifndef KDIST_MATCH_BPF_H
#define KDIST_MATCH_BPF_H

#include "cmd/pair/match.h"

struct mq_ent {
	__u64 seq;	/* FIFO: its START's sequence number + 1; 0: free */
	__u64 ts;
	struct group_key group;
};

struct mq {
	__u64 head, tail;	/* FIFO: next END's and START's numbers; LIFO: tail is the depth */
	struct mq_ent e[MQ_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct mq);
} mq_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10240);
	__type(key, struct match_key);
	__type(value, struct mq);
} mq_keys SEC(".maps");

static const struct mq mq_zero;

/* The queue is the thread's own (task storage), not a key's. */
static __always_inline bool mq_by_thread(struct task_struct *t)
{
	return cfg.thread_key && cfg.task_storage && !t;
}

/* The queue of this event's key; created at a START (create). */
static __always_inline struct mq *mq_of(void *ctx, int side, int src, struct task_struct *t,
					bool create)
{
	struct match_key k = {};
	struct mq *q;

	if (mq_by_thread(t)) {
		q = bpf_task_storage_get(&mq_tasks, bpf_get_current_task_btf(), 0,
					 create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
		if (!q && create)
			drop(DROP_STORAGE);
		return q;
	}
	read_match(ctx, side, &k, src, t);
	if (!create)
		return bpf_map_lookup_elem(&mq_keys, &k);
	q = lookup_or_init(&mq_keys, &k, &mq_zero);
	if (!q)
		drop(DROP_MATCH_FULL);
	return q;
}

static __always_inline int mq_start(void *ctx, int src)
{
	struct task_struct *t = subject(ctx, src);
	struct match_key k = {};
	struct mq_ent *e;
	struct mq *q;
	__u64 n, sw;

	if (filtered_out(t) || !cond_holds(ctx, src, t, 0))
		return 0;
	sw = cfg.explain ? ex_switches(bpf_get_current_task_btf()) : 0;
	q = mq_of(ctx, 0, src, t, true);
	if (!q)
		return 0;
	if (cfg.match == MATCH_LIFO) {
		n = q->tail++;
		if (n >= MQ_DEPTH) {
			drop(DROP_QUEUE_FULL);	/* a level too deep: unwound unpaired */
			return 0;
		}
	} else {
		n = kd_fetch_add(&q->tail, 1);
	}
	e = &q->e[n & (MQ_DEPTH - 1)];
	if (cfg.match == MATCH_FIFO && e->seq)
		drop(DROP_QUEUE_FULL);	/* MQ_DEPTH in flight: the oldest is lost */
	read_group(ctx, &e->group, src, t);
	e->ts = bpf_ktime_get_ns();
	if (cfg.explain) {
		if (!mq_by_thread(t))
			read_match(ctx, 0, &k, src, t);
		ex_open(bpf_get_current_task_btf(), e->ts, sw, mq_by_thread(t) ? NULL : &k,
			n & (MQ_DEPTH - 1));
	}
	/* the entry is whole before an END on another CPU can take it */
	asm volatile("" ::: "memory");
	e->seq = n + 1;
	return 0;
}

static __always_inline int mq_end(void *ctx, int src)
{
	struct mq *q = mq_of(ctx, 1, src, NULL, false);
	struct match_key k = {};
	struct group_key g;
	struct ex_cpu *x;
	struct mq_ent *e;
	__u64 ts = bpf_ktime_get_ns(), n, delta;

	if (!q || q->head >= q->tail) {
		if (!cfg.orphan_ok && (!cfg.thread_key || !filtered_out(NULL)))
			drop(DROP_END_NO_START);
		return 0;
	}
	if (cfg.match == MATCH_LIFO) {
		n = --q->tail;
		if (n >= MQ_DEPTH)
			return 0;	/* its START was counted in match_queue_full */
	} else {
		n = q->head;
		/* another END of this key took n first: take the next one */
		if (kd_cmpxchg(&q->head, n, n + 1) != n) {
			n = kd_fetch_add(&q->head, 1);
			if (n >= q->tail) {
				drop(DROP_END_NO_START);
				return 0;
			}
		}
	}
	e = &q->e[n & (MQ_DEPTH - 1)];
	if (e->seq != n + 1)
		return 0;	/* overwritten: counted in match_queue_full */
	delta = ts - e->ts;
	g = e->group;
	e->seq = 0;
	if (!mq_by_thread(NULL) && (cfg.explain || (cfg.slow_ns && delta > cfg.slow_ns)))
		read_match(ctx, 1, &k, src, NULL);
	x = cfg.explain ? ex_close(bpf_get_current_task_btf(), ts, delta,
				   mq_by_thread(NULL) ? NULL : &k, n & (MQ_DEPTH - 1)) : NULL;
	if (cfg.end_cond && !cond_holds(ctx, src, NULL, 1))
		return 0;
	end_group(ctx, &g, src);
	if (cfg.slow_ns && delta > cfg.slow_ns) {
		struct slow_start w;

		slow_who(ctx, &w, NULL, false);	/* the END's task */
		slow_emit(ctx, &w, &k, &g, ts, delta);
	}
	record(&g, delta);
	if (cfg.explain)
		ex_record(x, &g, delta);
	return 0;
}

#endif
