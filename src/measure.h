/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measurement: what every command produces and every view prints.
 * What was traced and how, the key, the grouping, the unit, and per group a
 * histogram (count, sum, sum of squares, min, max, buckets), plus every
 * loss counter.  Commands fill one cumulative measurement per read; main
 * takes interval differences; views never see BPF.
 */
#ifndef KDIST_MEASURE_H
#define KDIST_MEASURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

#define M_MAX_EVENTS 4
#define M_MAX_BY 4
#define M_MAX_DROPS 12
#define M_KEY_BYTES 64

enum m_kind {
	M_LATENCY,	/* values are nanoseconds */
	M_VALUE,	/* values are a field's value, unit in value_unit */
	M_FUNC,		/* per-function calls, inclusive and self time */
};

/* Stack measurements: the text view lists the heaviest stacks; the flame
 * graph's colours tell on-CPU from off-CPU time. */
enum m_stacks { M_STACKS_NO, M_STACKS_ONCPU, M_STACKS_OFFCPU };

struct m_event {
	char role[16];		/* "start", "end", "function"... */
	char spec[512];
	char attach[32];	/* attach method actually used */
};

struct m_group {
	unsigned char key[M_KEY_BYTES];	/* raw key, to match snapshots */
	char *label[M_MAX_BY];		/* one per by-name, formatted */
	struct hist h;
	uint64_t self_ns;		/* M_FUNC: time minus traced callees */
	uint64_t total_ns;		/* M_FUNC: inclusive time, a recursion's once */
};

struct m_drop {
	const char *name;	/* stable identifier, e.g. "end_without_start" */
	uint64_t value;
};

/* What kdist's own BPF programs cost over the measurement, from the
 * kernel's BPF run-time statistics: program runs and the time inside them. */
struct m_cost {
	int programs;		/* 0: no BPF programs behind this measurement */
	int err;		/* errno: the kernel refused the statistics */
	uint64_t runs, run_ns;
};

struct measurement {
	const char *command;
	enum m_kind kind;
	const char *value_unit;	/* M_VALUE: e.g. "bytes" */
	enum m_stacks stacks;
	char title[768];
	int nevents;
	struct m_event events[M_MAX_EVENTS];
	char key[160];		/* how START and END were matched */
	int nby;
	char by[M_MAX_BY][64];
	int ngroups, cap;
	struct m_group *groups;
	int ndrops;
	struct m_drop drops[M_MAX_DROPS];
	/* M_FUNC: functions attached, matched but skipped, attach time */
	int funcs_attached, funcs_skipped;
	double attach_ms;
	struct m_cost cost;
	/* set by main */
	double duration_s;	/* time this measurement covers */
	int interval;		/* 1-based with -i, 0 for a whole run */
	double start_unix;	/* wall clock at its start */
};

/* Group with this raw key, created (zeroed, no labels) if new. */
struct m_group *measurement_group(struct measurement *m, const void *key, size_t len);
void measurement_add_drop(struct measurement *m, const char *name, uint64_t value);
/* out = cur - prev, group by group (prev may lack groups). Labels copied. */
int measurement_diff(struct measurement *out, const struct measurement *cur,
		     const struct measurement *prev);
/* Copy the descriptive header (everything but groups and drops). */
void measurement_copy_header(struct measurement *dst, const struct measurement *src);
void measurement_clear(struct measurement *m);	/* free groups, keep header */
uint64_t measurement_lost(const struct measurement *m);
void m_cost_add(struct m_cost *to, const struct m_cost *c);

enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV, OUT_FOLDED, OUT_SVG };

struct view_opts {
	enum out_format format;
	const char *unit;	/* NULL: chosen from the data */
	bool hist;		/* histograms per group where the view has a choice */
	const char *sort;	/* "count", "total", "self", "key" ... */
	int top;		/* at most this many groups, 0 = all */
	struct linear {		/* value histograms in linear buckets */
		double min, max, step;	/* step 0: log2 */
	} linear;
	bool header_done;	/* CSV header already written */
};

int output_parse_format(const char *s, enum out_format *f);
/* "MIN,MAX,STEP" for --linear: 0 or -EINVAL after printing why. */
int linear_parse(const char *s, struct linear *l);
/* Write one measurement in the chosen format.  0 or -errno. */
int measurement_write(FILE *f, const struct measurement *m, struct view_opts *v);

/* Time units: "ns", "us", "ms", "s" and their divisors. */
int unit_parse(const char *s, double *div);
const char *unit_auto(double ns);

#endif
