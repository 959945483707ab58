/* SPDX-License-Identifier: GPL-2.0 */
/* Stack measurements.  Structures shared by the stack commands (profile,
 * offcpu, wakeup), their BPF programs (through stacks.bpf.h) and user space;
 * then the user side (stacks.c): symbolizing stack map entries into typed
 * stacks (frames, see measure.h) for the stack commands and for pair's --by
 * kstack/ustack, and the read side the stack commands share. */
#ifndef KDIST_STACKS_H
#define KDIST_STACKS_H

#include "kernel/filter.h"

#define STACK_DEPTH 127		/* frames per stack: the perf default max */
#define STACK_ENTRIES 16384	/* stacks a command's stack map holds */
#define STACK_COMM_LEN 16

/* What a group key may hold: the --by names of the stack commands.  The
 * mask of requested fields is also the BPF side's list of what to read. */
enum stack_field {
	SF_COMM,
	SF_PID,
	SF_TID,
	SF_KSTACK,
	SF_USTACK,
	SF_WAKER_COMM,
	SF_WAKER_PID,
	SF_WAKER_TID,
	SF_WAKER_KSTACK,
	SF_WAKER_USTACK,
	SF_CGROUP,		/* the thread's cgroup v2 id: --by cgroup, and
				 * container, pod, namespace and unit named from it */
	NR_STACK_FIELDS,
};

#define SF_BIT(f) (1u << (f))
#define SF_WAKER_MASK (SF_BIT(SF_WAKER_COMM) | SF_BIT(SF_WAKER_PID) | SF_BIT(SF_WAKER_TID) | \
		       SF_BIT(SF_WAKER_KSTACK) | SF_BIT(SF_WAKER_USTACK))

/* Stack ids in a key: >= 0 a stack map id, or with STACK_HASHED a key of
 * stacks_by_hash (a stack whose bucket in the stack map held another,
 * stackid.bpf.h); STACK_NONE when not collected or when there is none (the
 * user stack of a kernel thread), otherwise the negative errno of a loss. */
#define STACK_NONE (-1)
#define STACK_HASHED 0x40000000

/* One thread's side of a key: the sampled or blocked thread, or its waker.
 * pid (the tgid) is kept whenever the user stack is: user addresses are
 * symbolized in their process. */
struct stack_who {
	unsigned int pid;
	unsigned int tid;
	int kstack;
	int ustack;
	char comm[STACK_COMM_LEN];
	unsigned long long cgroup;	/* the sampled or blocked thread's only */
};

struct stack_key {
	struct stack_who who;
	struct stack_who waker;
};

/* A process whose user stacks may be shown, told while it runs (see
 * procnote.bpf.h). */
struct proc_note {
	unsigned long long ts;		/* bpf_ktime_get_ns() */
	unsigned int pid;		/* the tgid */
	unsigned int pad;
};

#define PROC_NOTES_BYTES (64 << 10)	/* proc_notes, when used */
#define PROCS_TOLD 4096			/* procs_told, when used */

/* Thread states for offcpu --state, one bit each. */
enum {
	ST_R = 1,	/* preempted: still runnable */
	ST_S = 2,	/* interruptible sleep */
	ST_D = 4,	/* uninterruptible sleep */
	ST_I = 8,	/* idle kernel thread wait (TASK_IDLE) */
	ST_OTHER = 16,	/* stopped, traced, parked, dead... */
	ST_ANY = 31,
};

struct stack_cfg {
	unsigned int fields;		/* SF_BIT()s of the key */
	struct task_filter filter;
	/* offcpu, wakeup */
	unsigned char task_storage;	/* per-thread slot in task storage */
	unsigned int state_mask;
	unsigned long long min_ns;
	unsigned long long max_ns;	/* 0: no limit */
};

/* Every way a sample or a block is lost or degraded; all are shown. */
enum stack_drop {
	SDROP_COLLISION,	/* stack map bucket taken by another stack */
	SDROP_MAP_FULL,		/* stack map full */
	SDROP_GROUP_FULL,	/* group table full */
	SDROP_STORAGE,		/* per-thread slot could not be created */
	SDROP_SWITCH_IN_UNSEEN,	/* a block's end taken from the thread's CPU time */
	NR_SDROPS,
};

#ifndef __BPF__
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "kernel/engine.h"
#include "model/measure.h"

struct stack_syms;
struct bpf_map;
struct bpf_object;

/* ---- symbolization (any command with a stack map) ---------------------- */

/* Size the stack maps of obj (stackid.bpf.h) for about entries stacks;
 * before it is loaded.  Unsized they hold one. */
void stack_maps_size(struct bpf_object *obj, unsigned int entries);
/* Symbolizing the stacks of loaded obj's stack maps (NULL: none, only
 * the markers of losses). */
struct stack_syms *stack_syms_new(const struct bpf_object *obj);
void stack_syms_free(struct stack_syms *ss);

/* Stack map entry id as symbolized frames, root first, interned: entries
 * whose frames print alike are one stack.  Kernel stacks lose kdist's own
 * frames at the leaf (BPF programs and the tracing glue that called them);
 * user stacks are symbolized in process pid.  id < 0 gives a one-frame
 * marker naming the loss ("[lost stack: collision]"), STACK_NONE the empty
 * stack.  The stack's truncated flag tells whether it filled all
 * STACK_DEPTH frames.  NULL when out of memory. */
const struct m_stack *stack_syms_stack(struct stack_syms *ss, int id, bool user, pid_t pid);

/* Snapshot the address maps of every process seen in a map of group keys,
 * every 50 ms (or three times as long as the last look took) from a thread,
 * while it lives: a process that exits before the measurement is read (a
 * -c workload) still gets its user frames named.
 * pid_offs are the offsets of u32 tgids inside a key of key_size bytes
 * (0 is no process). */
int stack_syms_watch(struct stack_syms *ss, int keys_fd, size_t key_size,
		     const size_t *pid_offs, int npids);
/* Read kernel symbols now (else at the first kernel stack named). */
void stack_syms_load_kernel(struct stack_syms *ss);
/* Stop the watch (if any); stack_syms_stack() still reads what it needs. */
void stack_syms_unwatch(struct stack_syms *ss);

/* Read the maps of every process told in ring buffer notes_fd (struct
 * proc_note, procnote.bpf.h) from the same thread as soon as the note
 * comes, and again when it has run exec since: lines printed after the
 * process exited (a slow line waiting behind a blocked output, a process
 * whose first line comes at its end) still get user frames named. */
int stack_syms_follow(struct stack_syms *ss, int notes_fd);

#endif /* !__BPF__ */

#endif
