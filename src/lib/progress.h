/* SPDX-License-Identifier: GPL-2.0 */
/* A line on stderr saying how far a long piece of work has come, such as
 * attaching or detaching thousands of probes: "attaching functions: 1,234
 * of 5,000 (24%), 3 s".  Only on a terminal and without -v (whose
 * messages are lines of their own); only once the work has taken
 * PROGRESS_DELAY_NS, so that short work shows nothing; rewritten by a
 * thread of its own every PROGRESS_TICK_NS, so that one long call (one
 * kprobe.multi link for every function) still shows the time go by.
 * Cleared when the work ends, before anything else is printed. */
#ifndef KDIST_PROGRESS_H
#define KDIST_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROGRESS_DELAY_NS 500000000ULL
#define PROGRESS_TICK_NS 200000000ULL

struct progress {
	FILE *f;		/* NULL: off */
	const char *what;	/* "attaching functions" */
	size_t total;
	atomic_size_t done;	/* progress_add() from any thread */
	uint64_t t0;
	bool shown;		/* a line is up */
	bool stop, running;
	pthread_t thread;
	pthread_mutex_t lock;	/* f and shown, between the ticker and progress_say */
	pthread_cond_t cv;
};

/* Start: what is under way, of total things (0: not counted); progress_add
 * counts the things done or given up. */
void progress_begin(struct progress *p, const char *what, size_t total);
static inline void progress_add(struct progress *p, size_t n)
{
	if (p)
		atomic_fetch_add(&p->done, n);
}
/* A line of its own (a notice), below the progress line. */
void progress_say(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Stop the ticker and clear the line. */
void progress_end(struct progress *p);

/* The ticker's step, at time now (now_ns()): draw the line when it is due.
 * True when it drew.  (Exposed for tests, with p->f a memory stream.) */
bool progress_tick(struct progress *p, uint64_t now);
/* The line's text: "attaching functions: 1,234 of 5,000 (24%), 3 s". */
void progress_text(char *buf, size_t len, const char *what, size_t done, size_t total,
		   double secs);

#endif
