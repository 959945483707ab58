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

#include "model/hist.h"

#define M_MAX_EVENTS 4
#define M_MAX_BY 4
#define M_MAX_DROPS 20
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
	char attach[48];	/* attach method actually used */
};

/* ---- typed group keys -------------------------------------------------- */

/* How a number is shown.  Resolved when a command is configured, from a
 * "FIELD:NAME" suffix or the field's type; views apply it when they print.
 * Many-to-one formatters (ksym, rw, errno) also normalize the value when it
 * is read, so that groups that would print alike are one group. */
enum m_fmt {
	FMT_AUTO,	/* decimal; kernel addresses in hex */
	FMT_SIGNED,
	FMT_HEX,
	FMT_KSYM,	/* kernel address: symbol name */
	FMT_SYSCALL,	/* x86-64 syscall number: name */
	FMT_ERRNO,	/* negative errno: its name, others "ok" */
	FMT_DISK,	/* kernel dev_t: disk name, else major:minor */
	FMT_RW,		/* rwbs text or a write flag: read, write, discard... */
	FMT_IRQ,	/* IRQ number: "N:handler" from /proc/interrupts */
	FMT_SOFTIRQ,	/* softirq vector: its name */
	FMT_CONTAINER,	/* cgroup id: its container, pod, namespace or unit */
	FMT_POD,	/* (container.h), a text: cgroups alike are one group */
	FMT_NAMESPACE,
	FMT_UNIT,
	FMT_REQOP,	/* a block request's cmd_flags: its operation, named as rw */
	FMT_BE16,	/* a 16- or 32-bit number in network byte order */
	FMT_BE32,
	NR_FMTS,
};

/* FMT_KSYM -> "ksym": the name --by FIELD:NAME and JSON's "formats" give. */
const char *fmt_name(enum m_fmt f);

/* One frame of a stack.  name is what views print: the symbol, or the
 * address in hex when none is known. */
struct m_frame {
	const char *name;	/* interned */
	const char *module;	/* interned; NULL: vmlinux, or not known */
	uint64_t addr;
	uint64_t offset;	/* addr - symbol start, 0 when not known */
};

/* A symbolized stack, root first.  Interned by its frames' names: stacks
 * that print alike are one object, so groups keyed by it merge (the frames'
 * addresses are those of the first stack seen). */
struct m_stack {
	const char *label;	/* "root;...;leaf" */
	bool user;
	bool truncated;		/* filled every frame the kernel returns */
	unsigned int nframes;
	struct m_frame frames[];
};

/* A number with the text it was printed as where it was measured: a saved
 * measurement read back (model/reader.h) keeps the names of the machine
 * that measured it (its symbols, disks, IRQs), never this one's. */
struct m_named {
	uint64_t num;
	const char *name;	/* interned */
};

enum m_vtype { MV_NONE, MV_NUM, MV_TEXT, MV_STACK, MV_NAMED };

struct m_value {
	unsigned char type;		/* enum m_vtype */
	union {
		uint64_t num;
		const char *text;	/* interned */
		const struct m_stack *stack;
		const struct m_named *named;
	};
};

/* Process-lifetime pools: equal strings and stacks are one pointer, so key
 * values compare and hash by pointer.  NULL when out of memory. */
const char *m_intern(const char *s, size_t len);
/* The interned copy of s if there is one, else NULL (nothing is added). */
const char *m_intern_find(const char *s, size_t len);
const struct m_stack *m_stack_intern(const struct m_frame *frames, unsigned int n, bool user,
				     bool truncated);
/* name interned; one object per (num, name). */
const struct m_named *m_named_intern(uint64_t num, const char *name);
/* A stack of one pseudo-frame naming a loss, e.g. "[lost stack: collision]". */
const struct m_stack *m_stack_marker(const char *text);

static inline struct m_value mv_num(uint64_t x)
{
	return (struct m_value){ .type = MV_NUM, .num = x };
}
static inline struct m_value mv_text(const char *interned)
{
	return (struct m_value){ .type = MV_TEXT, .text = interned };
}
static inline struct m_value mv_stack(const struct m_stack *s)
{
	return (struct m_value){ .type = MV_STACK, .stack = s };
}
static inline struct m_value mv_named(const struct m_named *n)
{
	return (struct m_value){ .type = MV_NAMED, .named = n };
}

/* A group's histogram as the measurement keeps it: struct hist's fields,
 * but only the counts of the buckets from its lowest to its highest
 * non-empty one (a whole struct hist is 4 KB: 100,000 groups would take
 * 400 MB).  Views expand it with m_hist_get. */
struct m_hist {
	HIST_STATS_FIELDS
	unsigned short lo, n;	/* buckets lo .. lo + n - 1 */
	hist_u64 *slots;
};

/* mh = h; mh += h; h = mh.  0 or -ENOMEM. */
int m_hist_set(struct m_hist *mh, const struct hist *h);
int m_hist_add(struct m_hist *mh, const struct hist *h);
void m_hist_get(const struct m_hist *mh, struct hist *h);

/* A group's exemplar (served latencies): its slowest event of late, the
 * task it ended in and when. */
struct m_exemplar {
	uint64_t value;			/* 0: none */
	double unix_s;
	uint32_t pid, tid;
	char comm[16];
};

struct m_group {
	struct m_value key[M_MAX_BY];	/* one per by-name */
	struct m_hist h;
	uint64_t self_ns;		/* M_FUNC: time minus traced callees */
	uint64_t total_ns;		/* M_FUNC: inclusive time, a recursion's once */
	uint64_t seen_ns;		/* when events last came (serve's retirement) */
	struct m_explain *ex;		/* --explain: the split by row (explain.h) */
	struct m_exemplar exemplar;
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
	/* the share of the time the statistics were on: 1 throughout (-v),
	 * below 1 when runs and run_ns are scaled up from sampled windows */
	double sampled;
	/* the kernel's account of the memory its maps hold (their fdinfo
	 * memlock: what is allocated now, for maps that grow as used) */
	uint64_t map_bytes;
};

/* The names of cgroup ids (container.h) a measurement keyed by: the name
 * cache's counters in this process when it was read. */
struct m_names {
	bool on;
	uint64_t lookups, misses, unknown, evicted, cached;
};

struct measurement {
	const char *command;
	enum m_kind kind;
	const char *value_unit;	/* M_VALUE: e.g. "bytes" */
	bool counts;		/* M_VALUE: events without a value; views show counts */
	enum m_stacks stacks;
	char title[768];
	int nevents;
	struct m_event events[M_MAX_EVENTS];
	char key[160];		/* how START and END were matched */
	int nby;
	char by[M_MAX_BY][64];
	unsigned char by_fmt[M_MAX_BY];	/* enum m_fmt of each by-name */
	int ngroups, cap;
	struct m_group *groups;
	int *index;		/* open hash of group numbers, -1 empty */
	unsigned int index_size;	/* a power of two, > 2 * cap */
	int ndrops;
	struct m_drop drops[M_MAX_DROPS];
	/* M_FUNC: functions attached, matched but skipped, attach time */
	int funcs_attached, funcs_skipped;
	double attach_ms;
	struct m_cost cost;
	struct m_names cgroup_names;
	bool explain;		/* --explain: groups carry ex */
	bool explain_irq;	/* ... with irq time (else shown as n/a) */
	bool explain_end;	/* ... following the END's thread (--explain end) */
	/* set by main */
	double duration_s;	/* time this measurement covers */
	int interval;		/* 1-based with -i, 0 for a whole run */
	double start_unix;	/* wall clock at its start */
	const char *kernel;	/* read back: the measuring kernel's release; NULL: this one */
};

/* Group with these key values (m->nby of them), created zeroed if new.
 * O(1): groups are indexed by a hash of their key. */
struct m_group *measurement_group(struct measurement *m, const struct m_value *key);
/* The group with these key values, or NULL. */
const struct m_group *measurement_find(const struct measurement *m, const struct m_value *key);
void measurement_add_drop(struct measurement *m, const char *name, uint64_t value);
/* Remove the groups gone() says are, in place (their order kept); the
 * number removed. */
int measurement_retire(struct measurement *m, bool (*gone)(const struct m_group *, void *),
		       void *ctx);
/* out = cur - prev, group by group (prev may lack groups). */
int measurement_diff(struct measurement *out, const struct measurement *cur,
		     const struct measurement *prev);
/* Add from's groups to to's (same by-names).  0 or -ENOMEM. */
int measurement_merge(struct measurement *to, const struct measurement *from);
/* Copy the descriptive header (everything but groups and drops). */
void measurement_copy_header(struct measurement *dst, const struct measurement *src);
void measurement_clear(struct measurement *m);	/* free groups, keep header */
/* The drop counters that mean loss (tables full, storage or stacks failed,
 * runs the kernel skipped), and those of events without a partner by
 * nature (m_drop_unmatched: an END whose START preceded tracing...). */
uint64_t measurement_lost(const struct measurement *m);
uint64_t measurement_unmatched(const struct measurement *m);
bool m_drop_unmatched(const char *name);
void m_cost_add(struct m_cost *to, const struct m_cost *c);

#endif
