/* SPDX-License-Identifier: GPL-2.0 */
/* Structures shared by pair.bpf.c and pair.c: the load-time configuration of
 * the pair engine and the layout of its maps. */
#ifndef KDIST_PAIR_H
#define KDIST_PAIR_H

#include "kernel/cond.h"
#include "kernel/filter.h"
#include "kernel/kpath.h"
#include "model/explain.h"

#define PAIR_MAX_KEY 4	/* fields matching START to END */
#define PAIR_MAX_BY 4	/* grouping components */
#define PAIR_STR_LEN 16 /* one string component (comm, or a char[] field) */

/* Where a value comes from.  Resolved by user space from tracefs format
 * files and the event kind; the BPF side only follows the recipe. */
enum val_kind {
	VAL_NONE,
	VAL_FIELD,	/* tracepoint record: off, size, is_signed */
	VAL_STR_FIELD,	/* char[] tracepoint field, into the group's string */
	VAL_ARG,	/* function/raw tracepoint argument idx */
	VAL_RETVAL,
	VAL_PID,
	VAL_TID,
	VAL_CPU,
	VAL_CGROUP,
	VAL_COMM,	/* current comm, into the group's string */
	VAL_KSTACK,
	VAL_USTACK,
	VAL_DLOC_FIELD,	/* __data_loc char[] field at off, into the group's string */
	VAL_PATH,	/* a number through path[off] (kpath.h) from argument idx */
	VAL_PATH_STR,	/* a text through path[off], into the group's string */
	VAL_GLOBAL,	/* a number through path[off] from a kernel variable */
	VAL_GLOBAL_STR,	/* a text through path[off] from a kernel variable */
	VAL_JIFFIES,	/* the kernel's jiffies (bpf_jiffies64) */
};

/* How a probe program is entered; fixed per program, not configuration. */
enum src_kind {
	SRC_TP,		/* tracepoint: ctx is the trace record */
	SRC_RAW,	/* raw tracepoint: ctx->args[] */
	SRC_REGS,	/* kprobe/kretprobe/uprobe/uretprobe: pt_regs */
	SRC_FENTRY,	/* fentry: ctx is the function's arguments, u64 each */
	SRC_FEXIT,	/* fexit: the arguments at entry, then the return value */
};

struct val_src {
	unsigned char kind;
	unsigned char size;
	unsigned char is_signed;
	unsigned char idx;
	unsigned short off;
};

struct pair_side {
	unsigned int nkey;
	struct val_src key[PAIR_MAX_KEY];
};

struct pair_cfg {
	struct pair_side side[2];	/* 0 = START, 1 = END */
	unsigned int nby;		/* grouping, evaluated at START */
	struct val_src by[PAIR_MAX_BY];
	unsigned char thread_key;	/* match by thread, not by fields */
	unsigned char task_storage;	/* thread starts in task storage */
	unsigned int tid_slots;		/* ... or in tid_start below this tid */
	struct task_filter filter;
	/* Single-event mode: every START is recorded at once, its value is
	 * `value` (VAL_NONE: 0, a plain count); there is no END. */
	unsigned char single;
	struct val_src value;
	/* --if: a START (or single event) is kept only when its terms hold,
	 * a pair only when its END's terms hold too. */
	struct cond_cfg cond;
	struct val_src cond_src[COND_MAX];
	unsigned char end_cond;		/* some term is on the END */
	/* One grouping component read at END into by[nby], e.g. an errno. */
	unsigned char end_by_on;
	unsigned char end_by_neg;	/* keep negative values, record others as 0 */
	struct val_src end_by;
	unsigned char restart;		/* a START while one is pending ends it */
	unsigned char orphan_ok;	/* ENDs without START are expected */
	/* The task a START is about is raw args[subject_arg - 1] (e.g. the
	 * woken task of sched_wakeup), not current: filters and pid, tid,
	 * comm and cgroup read it. 0: current. */
	unsigned char subject_arg;
	/* --slower-than: pairs over slow_ns go to slow_events; 0 off */
	unsigned long long slow_ns;
	unsigned char slow_stack;	/* enum slow_stack */
	/* paths through the kernel's types that values (VAL_PATH*) follow */
	struct kpath path[KPATH_MAX];
	unsigned char explain;		/* --explain: split intervals (explain.bpf.h) */
	unsigned char explain_tid;	/* ... by tid, with snapshots: --key, --match */
	unsigned char match;		/* --match: enum match_mode (match.bpf.h) */
	/* The one START component is a small number (nby == 1): groups
	 * whose numbers fit go to dense_table (dense.bpf.h), the END's
	 * component, if any, only when 0. */
	unsigned char dense;
	/* served: each group's slowest pair of each window of exemplar_ns
	 * (its exemplar, pair_exemplar below); 0 off */
	unsigned long long exemplar_ns;
};

/* A group's slowest pair of the window `epoch` (bpf_ktime_get_ns() /
 * exemplar_ns), per CPU: its latency, the END's task and time. */
struct pair_exemplar {
	unsigned long long epoch;
	unsigned long long value;
	unsigned long long id;		/* tgid << 32 | tid */
	unsigned long long ts;
	char comm[16];
};

#define EXEMPLAR_WINDOW_NS (10ULL * 1000000000ULL)

struct group_key {
	unsigned long long v[PAIR_MAX_BY];
	char str[PAIR_STR_LEN];
	unsigned int tgid;	/* with ustack: the process to symbolize it in */
};

struct match_key {
	unsigned long long v[PAIR_MAX_KEY];
};

/* --slower-than: what a START keeps for the line of a slow pair. */
struct slow_start {
	unsigned long long id;		/* tgid << 32 | tid of the START's task */
	int kstack, ustack;		/* --stack: stack ids, or -errno */
	unsigned int stack_tgid;	/* the process the stacks were taken in:
					 * current, not a START's subject */
	char comm[PAIR_STR_LEN];
};

struct start_val {
	unsigned long long ts;
	struct group_key group;
	struct slow_start slow;		/* only with --slower-than */
};

/* One pair slower than --slower-than, through the ring buffer slow_events. */
struct slow_event {
	unsigned long long ts;		/* END, bpf_ktime_get_ns() */
	unsigned long long delta;
	struct slow_start start;	/* --stack end: the END's stacks */
	unsigned int cpu;		/* the END's */
	unsigned int pad;
	struct match_key key;
	struct group_key group;
	struct ex_one ex;		/* --explain: the pair's split */
};

#define SLOW_RING_BYTES (1 << 20)	/* slow_events, when used */

enum slow_stack { SLOW_STACK_NONE, SLOW_STACK_START, SLOW_STACK_END };

/* Every way an event can be lost; all are counted and shown. */
enum pair_drop {
	DROP_END_NO_START,	/* END whose START was not seen */
	DROP_START_REPLACED,	/* START while the previous one was pending */
	DROP_MATCH_FULL,	/* in-flight START table full */
	DROP_GROUP_FULL,	/* group table full */
	DROP_STACK,		/* stack id could not be taken */
	DROP_STORAGE,		/* task storage could not be created */
	DROP_OUTPUT,		/* ring buffer of slow events full */
	/* counted (and shown) only where a path or a variable-length text is
	 * read: the event is kept, the value read as 0 or "" */
	DROP_PATH_NULL,		/* a path met a NULL pointer */
	DROP_PATH_FAULT,	/* a path's read faulted */
	DROP_STR_CUT,		/* a text longer than PAIR_STR_LEN - 1, cut */
	DROP_EXPLAIN_FULL,	/* --explain: its group table full */
	DROP_QUEUE_FULL,	/* --match fifo|lifo: more than MQ_DEPTH in flight */
	NR_DROPS,
};

#endif
