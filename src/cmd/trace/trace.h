/* SPDX-License-Identifier: GPL-2.0 */
/* Structures shared by trace.bpf.c and trace.c: kdist trace's load-time
 * configuration and its events. */
#ifndef KDIST_TRACE_H
#define KDIST_TRACE_H

#include "kernel/cond.h"
#include "kernel/filter.h"
#include "kernel/kpath.h"
#include "cmd/pair/pair.h"	/* struct val_src */

#define TRACE_REC_MAX 512	/* bytes of a trace record copied */
#define TRACE_ENTER_MAX 64	/* a sys_enter_* record: nr and 6 arguments */
#define TRACE_STR_MAX 2		/* strings read per record */
#define TRACE_STR_LEN 256
#define TRACE_RING_BYTES (1 << 20)
#define TRACE_PATH_MAX 8	/* arguments, kernel variables, paths through them
				 * (a power of two: the BPF side masks) */
#define TRACE_PATH_STR 64	/* bytes of such a text */

/* A string the record points to. */
enum trace_str_kind {
	TSTR_DATA_LOC,	/* __data_loc char[]: inside the record */
	TSTR_USER,	/* a syscall argument pointing to user memory */
};

struct tr_str {
	unsigned char kind;
	unsigned short off;	/* of the field in the record */
};

struct tr_side {
	unsigned int size;	/* record bytes to copy */
	unsigned int nstr;
	struct tr_str str[TRACE_STR_MAX];
};

struct trace_cfg {
	struct task_filter filter;
	struct cond_cfg cond;
	struct val_src cond_src[COND_MAX];
	unsigned char cond_dloc[COND_MAX];	/* a text term on a __data_loc field */
	struct tr_side ev;
	/* sys_exit_*: its sys_enter_* record, kept per thread, comes along */
	unsigned char enter;
	struct tr_side ent;
	unsigned long long max_rate;	/* events per second, 0: every one */
	unsigned char jiffies;		/* read bpf_jiffies64() */
	unsigned char npath;
	struct kpath path[TRACE_PATH_MAX];
	unsigned char whole[TRACE_PATH_MAX];	/* path i is argument path[i].arg itself */
};

struct tr_rec {
	unsigned char rec[TRACE_REC_MAX];
	char str[TRACE_STR_MAX][TRACE_STR_LEN];
};

struct tr_enter {
	unsigned char rec[TRACE_ENTER_MAX];
	char str[TRACE_STR_MAX][TRACE_STR_LEN];
};

struct tr_event {
	unsigned long long ts;
	unsigned long long id;		/* tgid << 32 | tid */
	unsigned long long cgroup;	/* the thread's cgroup v2 id */
	unsigned int cpu;
	unsigned int has_enter;
	char comm[16];
	unsigned long long jiffies;
	unsigned long long num[TRACE_PATH_MAX];	/* path i's number, or */
	char text[TRACE_PATH_MAX][TRACE_PATH_STR];	/* its text */
	unsigned char path_err[TRACE_PATH_MAX];	/* enum kpath_err */
	struct tr_rec ev;
	struct tr_enter ent;
};

enum trace_drop {
	TDROP_OUTPUT,		/* ring buffer full */
	TDROP_RATE,		/* over --max-rate */
	TDROP_ENTER_FULL,	/* sys_enter record table full */
	TDROP_STR_CUT,		/* a text longer than its buffer, printed cut
				 * (counted where texts are read) */
	TDROP_PATH_NULL,	/* a NULL pointer on a variable's path */
	TDROP_PATH_FAULT,	/* a read the kernel refused there */
	NR_TDROPS,
};

#endif
