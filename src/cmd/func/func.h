/* SPDX-License-Identifier: GPL-2.0 */
/* Structures shared by func.bpf.c and func.c: the load-time configuration
 * of kdist func and the layout of its maps. */
#ifndef KDIST_FUNC_H
#define KDIST_FUNC_H

#include "kernel/filter.h"
#include "kernel/kpath.h"
#include "model/explain.h"
#include "model/hist.h"

/* Frames of the per-thread shadow stack.  Deeper calls are counted as
 * depth_overflow and not timed (their callers still are). */
#define FUNC_MAX_DEPTH 32
#define FUNC_STR_LEN 16
#define FUNC_TEXT_LEN 32	/* a text read through --by PATH */

/* A function's buckets are kept in pages of FUNC_PAGE_SLOTS, taken per CPU
 * from a pool (func_pages) when a value first falls into them: the memory
 * grows with the buckets used, not with every bucket of every function on
 * every CPU.  Page 0 of each CPU's pool holds the count of pages taken. */
#define FUNC_PAGE_BITS 4
#define FUNC_PAGE_SLOTS (1 << FUNC_PAGE_BITS)
#define FUNC_PAGES (HIST_BUCKETS / FUNC_PAGE_SLOTS)
#define FUNC_MAX_PAGES 65535	/* pool pages per CPU: page numbers are 16 bits */

/* Sets of up to this many kernel functions go by fentry/fexit, larger ones
 * by kprobe.multi (else kprobes): each function costs two program loads
 * (the verifier runs on each copy) and its detach waits for RCU tasks grace
 * periods under ftrace's locks, about 0.25 s a function on the VMs of
 * docs/func.md, against one link for the whole set with kprobe.multi and
 * about 0.1 s a function with single kprobes. */
#define FUNC_FENTRY_MAX 16

struct func_cfg {
	unsigned char cookies;		/* kprobe-type programs read attach cookies */
	unsigned int pages;		/* pool pages per CPU (func_pages has one more) */
	unsigned char task_storage;	/* shadow stack in task storage, else a tid hash */
	unsigned char grouped;		/* --by: a hash keyed by func_key */
	unsigned char by_pid, by_tid, by_comm, by_cgroup;
	struct task_filter filter;
	unsigned long long slow_ns;	/* --slower-than: calls over it go to slow_calls */
	unsigned char slow_stack;	/* --stack: their stacks, taken at the return */
	/* --by PATH: an argument (path.arg) or a path through it: a number
	 * read at the entry, a text at the return through the argument kept
	 * at the entry (the frame holds 8 bytes) */
	unsigned char by_path;
	unsigned char path_whole;	/* the argument itself */
	unsigned char path_text;	/* a text, into func_key.text */
	struct kpath path;
	/* --explain: each call split by where its thread spent the time
	 * (kernel/explain.bpf.h); calls nest, so always by tid and snapshot */
	unsigned char explain;
	unsigned char explain_tid;
};

/* One call slower than --slower-than, through the ring buffer slow_calls. */
struct func_slow {
	unsigned long long ts;		/* its return, bpf_ktime_get_ns() */
	unsigned long long delta;	/* inclusive time */
	unsigned long long id;		/* tgid << 32 | tid */
	unsigned int func;		/* the function: attach cookie */
	unsigned int cpu;
	int kstack, ustack;		/* --stack: stack ids, or -errno */
	char comm[FUNC_STR_LEN];
	struct ex_one ex;		/* --explain: the call's split */
};

struct func_frame {
	unsigned int id;		/* function: the attach cookie */
	unsigned int nested;		/* an activation of id is below on the stack */
	unsigned long long ts;		/* entry time */
	unsigned long long child;	/* inclusive time of traced callees */
	unsigned long long by;		/* --by PATH: its number at the entry, or
					 * the argument a text is read through */
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
	unsigned long long cgroup;	/* the thread's cgroup v2 id */
	unsigned long long num;		/* --by PATH: a number */
	char comm[FUNC_STR_LEN];
	char text[FUNC_TEXT_LEN];	/* --by PATH: a text */
};

/* --explain: the key of explain_groups, a call's group and latency row */
struct func_ex_key {
	struct func_key group;
	unsigned int row;
	unsigned int pad;
};

/* --explain: where a call is, for its snapshot: v[0] its thread, with the
 * depth of its frame as the slot */
struct func_ex_place {
	unsigned long long v[1];
};

/* Per function (and group), per CPU.  h records the inclusive time of every
 * activation; total only that of outermost ones, so a recursion's time is
 * counted once; self the exclusive time of every activation. */
struct func_val {
	struct hist_stats st;
	unsigned long long total;
	unsigned long long self;
	unsigned short page[FUNC_PAGES + 1];	/* pool page of each bucket page, 0: none */
};

struct func_page {
	unsigned long long slots[FUNC_PAGE_SLOTS];
};

enum func_drop {
	FDROP_RET_NO_ENTRY,	/* return with no entry on the stack (attached mid-call) */
	FDROP_RET_MISSED,	/* entries whose return never came (probe missed) */
	FDROP_DEPTH,		/* calls past FUNC_MAX_DEPTH */
	FDROP_STACK_FULL,	/* shadow stack table or task storage full */
	FDROP_GROUP_FULL,	/* group table full */
	FDROP_OUTPUT,		/* ring buffer of slow calls full */
	FDROP_BUCKETS_FULL,	/* a call whose bucket page the pool could not give */
	FDROP_PATH_NULL,	/* --by PATH met a NULL pointer */
	FDROP_PATH_FAULT,	/* --by PATH: a read the kernel refused */
	FDROP_TEXT_CUT,		/* --by PATH: a text longer than FUNC_TEXT_LEN - 1, cut */
	FDROP_EX_STORAGE,	/* --explain: no room for a thread's state */
	FDROP_EX_FULL,		/* --explain: its table of sums or of open calls full */
	NR_FDROPS,
};

#endif
