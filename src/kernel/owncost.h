/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdist's own cost: the run count and run time of each engine's programs
 * (docs/pair.md, "kdist's own cost").  Unless -v asks for exact figures,
 * the programs time themselves in short windows (BPF side: owncost.bpf.h)
 * that a sampler thread opens, and engine_read() scales what they saw by
 * the windows' share of the time; -v holds the kernel's BPF run-time
 * statistics on for the whole run instead.  Text without -v measures
 * nothing of it.
 */
#ifndef KDIST_OWNCOST_H
#define KDIST_OWNCOST_H

struct kd_cost {
	unsigned long long runs;	/* program runs begun in the window */
	unsigned long long ns;		/* their time, clock to clock */
};

#ifndef __BPF__
#include <stdbool.h>
#include <stdint.h>

struct bpf_object;

/* One engine's cost, which owncost.c alone reads and writes. */
struct cost_state {
	bool stats;			/* holds a reference on the run-time stats */
	int ncpu;
	/* the programs' own timing (owncost.bpf.h): what they add up, per
	 * CPU, and the window's switch; the sampler's buffer for the former */
	int cost_fd, window_fd;
	struct kd_cost *buf;
	uint64_t t0;			/* the measurement's start, monotonic */
	/* the windows since then: their time and what the programs added
	 * up in them; the open window's start */
	uint64_t win_ns, win_runs, win_run_ns;
	uint64_t w_t, w_runs, w_run_ns;
	bool w_open;			/* the window is set in the programs' map */
	/* ... and the run's last window: an interval without a window of
	 * its own (-i) is estimated from it */
	uint64_t last_win_ns, last_win_runs, last_win_run_ns;
	struct cost_state *next_sampled;
};

/* Whether the engines opened from now on measure their cost (JSON, HTML,
 * serve, -v); on unless turned off. */
void cost_wanted(bool on);
/* Before obj loads: its programs time themselves when the cost is
 * sampled.  0, or -errno after saying why. */
int cost_prepare(struct bpf_object *obj);
/* After an engine's object obj loaded (on ncpu CPUs): its cost, e, is
 * measured from now on.  0 or -errno. */
int cost_attach(struct cost_state *e, struct bpf_object *obj, int ncpu);
/* The measurement starts now (engine_reset). */
void cost_reset(struct cost_state *e);
/* No more windows for e; the statistics released with the last engine. */
void cost_detach(struct cost_state *e);
/* The share of the time since cost_reset that e's windows covered, and
 * what its programs added up in them (runs, run_ns); 1 and nothing when
 * the kernel's statistics are on throughout (-v) or there is no cost. */
double cost_window(struct cost_state *e, uint64_t *runs, uint64_t *run_ns);
/* Why there are no cost figures (an errno), or 0. */
int cost_err(void);
#endif

#endif
