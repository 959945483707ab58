/* SPDX-License-Identifier: GPL-2.0 */
/* Structures shared by func.bpf.c and func.c: the load-time configuration
 * of kdist func and the layout of its maps. */
#ifndef KDIST_FUNC_H
#define KDIST_FUNC_H

#include "filter.h"
#include "hist.h"

/* Frames of the per-thread shadow stack.  Deeper calls are counted as
 * depth_overflow and not timed (their callers still are). */
#define FUNC_MAX_DEPTH 32
#define FUNC_STR_LEN 16

struct func_cfg {
	unsigned char task_storage;	/* shadow stack in task storage, else a tid hash */
	unsigned char grouped;		/* --by: a hash keyed by func_key */
	unsigned char by_pid, by_tid, by_comm;
	struct task_filter filter;
};

struct func_frame {
	unsigned int id;		/* function: the attach cookie */
	unsigned int nested;		/* an activation of id is below on the stack */
	unsigned long long ts;		/* entry time */
	unsigned long long child;	/* inclusive time of traced callees */
};

struct func_stack {
	unsigned int depth;
	unsigned int overflow;		/* calls past FUNC_MAX_DEPTH not yet returned */
	struct func_frame f[FUNC_MAX_DEPTH];
};

struct func_key {
	unsigned int id;
	unsigned int pid;
	unsigned int tid;
	unsigned int pad;
	char comm[FUNC_STR_LEN];
};

/* Per function (and group), per CPU.  h records the inclusive time of every
 * activation; total only that of outermost ones, so a recursion's time is
 * counted once; self the exclusive time of every activation. */
struct func_val {
	struct hist h;
	unsigned long long total;
	unsigned long long self;
};

enum func_drop {
	FDROP_RET_NO_ENTRY,	/* return with no entry on the stack (attached mid-call) */
	FDROP_RET_MISSED,	/* entries whose return never came (probe missed) */
	FDROP_DEPTH,		/* calls past FUNC_MAX_DEPTH */
	FDROP_STACK_FULL,	/* shadow stack table or task storage full */
	FDROP_GROUP_FULL,	/* group table full */
	NR_FDROPS,
};

#endif
