/* SPDX-License-Identifier: GPL-2.0 */
/* The parts --explain splits an interval into (explain.h), apart so that
 * pair.h's --slower-than event can carry one interval's split. */
#ifndef KDIST_EXPLAIN_PART_H
#define KDIST_EXPLAIN_PART_H

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

/* A slow pair's split, on its --slower-than line. */
struct ex_one {
	unsigned long long part[EX_NPARTS];
	unsigned int switches, preempts;
};

#endif
