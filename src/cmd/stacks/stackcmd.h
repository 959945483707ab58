/* SPDX-License-Identifier: GPL-2.0 */
/* What the stack commands (profile, offcpu, wakeup) share on the user side
 * (stackcmd.c): --by over stack fields, loading, reading the stack-keyed
 * groups into a measurement.  The BPF side and symbolization:
 * kernel/stacks.h. */
#ifndef KDIST_STACKCMD_H
#define KDIST_STACKCMD_H

#include <stddef.h>

#include "kernel/engine.h"
#include "kernel/stacks.h"
#include "model/measure.h"
#include "model/options.h"

struct bpf_map;
struct bpf_object_skeleton;

/* --help of --by: the keys stack_cmd_init() takes */
#define STACK_BY_HELP "group by comm,pid,tid,kstack,ustack,cgroup,container,pod,namespace,unit"
#define WAKEUP_BY_HELP STACK_BY_HELP ",waker_comm,waker_pid,waker_tid,waker_kstack,waker_ustack"

struct stack_cmd {
	int nby;
	enum stack_field by[M_MAX_BY];
	enum m_fmt fmt[M_MAX_BY];	/* SF_CGROUP: its id or a name from it */
	unsigned int fields;		/* SF_BIT()s to collect */
	struct stack_syms *syms;
	struct measurement header;
	size_t value_size;		/* 8: sample counts, else struct hist */
	struct engine eng;		/* the command's BPF object */
	int groups_fd;
};

/* Parse --by (dflt when none), allowing the fields in mask `allowed`
 * (SF_CGROUP allows cgroup, container, pod, namespace and unit). */
int stack_cmd_init(struct stack_cmd *sc, const struct options *o, const char *dflt,
		   unsigned int allowed, size_t value_size);
/* BPF configuration from the options: fields and filters. */
void stack_cmd_cfg(const struct stack_cmd *sc, const struct options *o, struct stack_cfg *c);
/* Size its stack maps and load the opened skeleton s (its `drops`
 * counting enum stack_drop), then start the process watch: groups is the
 * map of stack keys. */
int stack_cmd_start(struct stack_cmd *sc, struct bpf_object_skeleton *s,
		    const struct bpf_map *groups);
int stack_cmd_read(struct stack_cmd *sc, struct measurement *m);
/* The measurement is over: detach the programs and stop the watch, so that
 * the last read sees a still table and costs the traced system nothing. */
void stack_cmd_stop(struct stack_cmd *sc);
void stack_cmd_cleanup(struct stack_cmd *sc);
#endif
