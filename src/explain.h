/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --explain: each START -> END interval of the START's thread split into
 * where its time went (on-CPU, irq, runnable, blocked by state,
 * unattributed), timed in BPF with the latency's own clock.  The layout
 * shared by explain.bpf.h and explain.c, and the measurement's view of it.
 */
#ifndef KDIST_EXPLAIN_H
#define KDIST_EXPLAIN_H

#include "pair.h"

/* Groups are split by the power of two of the latency: row 0 holds 0 ns,
 * row r > 0 the latencies in [2^(r-1), 2^r). */
#define EX_ROWS 65

/* The key of explain_groups: the pair's group and the row. */
struct ex_key {
	struct group_key group;
	unsigned int row;
	unsigned int pad;
};

/* Per CPU, per group and row: sums over the intervals explained. */
struct ex_val {
	unsigned long long count;
	unsigned long long sum;		/* their latency, = the sum of part[] */
	unsigned long long part[EX_NPARTS];
	unsigned long long switches;	/* times the thread left a CPU */
	unsigned long long preempts;	/* ... of them, still runnable */
};

#ifndef __BPF__
#include <stdbool.h>
#include <stdio.h>

struct measurement;
struct m_group;
struct engine;

/* A group's explained intervals, by row (struct ex_val summed over CPUs). */
struct m_explain {
	struct ex_val row[EX_ROWS];
};

extern const char *const ex_part_names[EX_NPARTS];

/* to += sign * from (sign 1 or -1); to is created when NULL.  0 or -ENOMEM. */
int m_explain_add(struct m_explain **to, const struct m_explain *from, int sign);
/* The rows from first up summed into *out. */
void m_explain_sum(const struct m_explain *x, int first, struct ex_val *out);
/* The lowest row of the slowest share (0.1, 0.01) of the intervals: the
 * rows from it up hold at least that share. */
int m_explain_tail_row(const struct m_explain *x, double share);
/* The sums of explain_groups (map fd) added to the groups of m that
 * group_of() finds for a BPF group key (*g NULL: none yet).  0 or -ENOMEM. */
int explain_read(struct engine *e, int fd, struct measurement *m,
		 int (*group_of)(void *ctx, struct measurement *m, const struct group_key *k,
				 struct m_group **g),
		 void *ctx);
/* The text and JSON views of a group's split (nothing when it has none). */
void explain_write_text(FILE *f, const struct measurement *m, const struct m_group *g);
void explain_write_json(FILE *f, const struct measurement *m, const struct m_group *g);
/* One interval's split as fields of a --slower-than line. */
void explain_event_fields(FILE *f, const struct ex_one *x, bool irq);
#endif

#endif
