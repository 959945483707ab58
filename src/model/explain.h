/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --explain: each START -> END interval of the START's thread split into
 * where its time went (on-CPU, irq, runnable, blocked by state,
 * unattributed), timed in BPF with the latency's own clock
 * (kernel/explain.bpf.h).  The parts, the sums the kernel keeps per group
 * and row, and the measurement's copy of them.
 */
#ifndef KDIST_MODEL_EXPLAIN_H
#define KDIST_MODEL_EXPLAIN_H

/* The parts of an interval, in the order views print them.  They add up
 * to the interval's latency exactly, in ns. */
enum ex_part {
	EX_ONCPU,	/* running, less the irq time below */
	EX_IRQ,		/* in hard or soft irq handlers while it ran */
	EX_RUNNABLE,	/* woken or preempted, waiting for a CPU */
	EX_S,		/* blocked, interruptible (sleeps, most waits) */
	EX_D,		/* blocked, uninterruptible (IO, some locks) */
	EX_OTHER,	/* blocked in another state (stopped, traced...) */
	EX_UNATTR,	/* not attributed: the thread's state was not known */
	EX_NPARTS,
};

/* --explain full: one block of the thread (its longest in the interval):
 * where it blocked and who woke it, as sched_waking saw the waker. */
struct ex_block {
	unsigned long long ns;		/* 0: no block was seen to end */
	int kstack;			/* the blocked thread's kernel stack id, or -errno */
	unsigned int state;		/* EX_S, EX_D or EX_OTHER */
	unsigned int waker_tid;		/* 0: no waker seen */
	int waker_kstack;
	char waker_comm[16];
};

/* --explain end: where the END's thread took the interval over. */
struct ex_handoff {
	unsigned long long ns;		/* after the START; 0: not followed (the
					 * split is the START's thread's) */
	unsigned int end_tid;		/* the END's thread... */
	unsigned int waker_tid;		/* ...woken by this one (the START's or
					 * one woken from it) */
	char end_comm[16], waker_comm[16];
};

/* A slow pair's split, on its --slower-than line. */
struct ex_one {
	unsigned long long part[EX_NPARTS];
	unsigned int switches, preempts;
	struct ex_block block;		/* --explain full */
	struct ex_handoff handoff;	/* --explain end */
};

/* cfg.explain: off, the split, the split with the longest block, or the
 * split that follows the START's thread's wakeups to the END's thread */
enum { EXPLAIN_OFF, EXPLAIN_SPLIT, EXPLAIN_FULL, EXPLAIN_END };

/* Groups are split by the power of two of the latency: row 0 holds 0 ns,
 * row r > 0 the latencies in [2^(r-1), 2^r). */
#define EX_ROWS 65

/* Per CPU, per group and row: sums over the intervals explained. */
struct ex_val {
	unsigned long long count;
	unsigned long long sum;		/* their latency, = the sum of part[] */
	unsigned long long part[EX_NPARTS];
	unsigned long long switches;	/* times the thread left a CPU */
	unsigned long long preempts;	/* ... of them, still runnable */
	unsigned long long followed;	/* --explain end: intervals whose END's
					 * thread was followed from a wakeup */
};

#ifndef __BPF__
/* A group's explained intervals, by row (struct ex_val summed over CPUs). */
struct m_explain {
	struct ex_val row[EX_ROWS];
};

/* JSON names of the parts: "oncpu", "irq"... */
extern const char *const ex_part_names[EX_NPARTS];

/* to += v * sign (1 or -1) */
void ex_val_add(struct ex_val *to, const struct ex_val *v, int sign);
/* to += sign * from (sign 1 or -1); to is created when NULL.  0 or -ENOMEM. */
int m_explain_add(struct m_explain **to, const struct m_explain *from, int sign);
/* The rows from first up summed into *out. */
void m_explain_sum(const struct m_explain *x, int first, struct ex_val *out);
/* The lowest row of the slowest share (0.1, 0.01) of the intervals: the
 * rows from it up hold at least that share. */
int m_explain_tail_row(const struct m_explain *x, double share);
/* The lowest latency of row r. */
static inline unsigned long long m_explain_row_low(int r)
{
	return r ? 1ULL << (r - 1) : 0;
}
#endif

#endif
