/* SPDX-License-Identifier: GPL-2.0 */
/* The pair engine's parts, what they share: the START/END specs, keys and
 * --by made into the BPF configuration (pair_config.c), loading and
 * attaching the programs (pair_load.c), reading groups, slow events and
 * --explain into the measurement (pair_read.c), the command (pair.c). */
#ifndef KDIST_PAIR_INT_H
#define KDIST_PAIR_INT_H

#include "cmd/pair/pair.h"
#include "cmd/pair/pair_cmd.h"
#include "kernel/btfpath.h"
#include "kernel/dense.h"
#include "kernel/engine.h"
#include "kernel/spec.h"
#include "kernel/tracefs.h"
#include "model/measure.h"
#include "model/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct by_name {
	char name[64];		/* as given, e.g. "function:ksym" */
	enum m_fmt fmt;
	int enum_id;		/* an enum read through BTF: printed by its names */
};

/* A value named through the kernel's types (btfpath.h): how it prints. */
struct typed_val {
	char name[64];
	int side;
	struct kpath_type t;
};

struct pair {
	const char *drops_shown[NR_DROPS];	/* pair_drop_names of the counters used */
	struct pair_bpf *skel;
	struct event_spec ev[2];
	struct tp_format fmt[2];
	enum src_kind src[2];
	struct engine eng;
	struct pair_cfg cfg;
	int nby;
	struct by_name by[PAIR_MAX_BY];
	struct stack_syms *syms;	/* --by kstack, ustack; --stack */
	struct key_spec keys;		/* --key, for --slower-than's lines */
	const char *measure;		/* a recipe's sub-measurement, for them too */
	enum m_fmt key_fmt[PAIR_MAX_KEY];
	struct measurement header;
	/* groups taken out of the kernel so far (drain) */
	struct measurement acc;
	bool drain;	/* take the groups out at every read, see pair.bpf.c */
	/* served (serve): acc holds at most acc_max groups, what does not
	 * fit is acc_lost; a group retires when its process is gone or after
	 * retire_ns without events */
	int acc_max;
	uint64_t retire_ns, acc_lost, read_ns;
	int table;	/* the group table programs write to: 0 hist_groups, 1 _b */
	size_t key_size;	/* the group tables' (group_key_size) */
	int npath;		/* cfg.path[] used */
	bool prefer_args;	/* some value is a path: names are arguments first */
	int ntyped;
	struct typed_val typed[KPATH_MAX];
	struct dense dense;	/* with cfg.dense */
};

extern const char *const pair_roles[2];
extern const char *const pair_drop_names[NR_DROPS];

/* pair_config.c */
bool pair_is_text(enum val_kind k);

/* Every value a side's program reads: its keys, conditions and grouping
 * components (START: --by and the value; END: the END grouping).  Returns
 * how many, into v. */
#define SIDE_VALS_MAX (PAIR_MAX_KEY + PAIR_MAX_BY + COND_MAX + 1)

int pair_side_vals(struct pair_cfg *c, int side, struct val_src **v);

int pair_check_event(struct pair *p, int side);
int pair_configure(struct pair *p, const struct pair_spec *ps, struct options *o);

/* pair_load.c */
const char *pair_src_attach_name(const struct pair *p, int side);
int pair_load(struct pair *p, struct options *o);

/* pair_read.c */
struct m_value pair_key_value(struct pair *p, int i, const struct group_key *g, bool known);
int pair_print_slow(void *ctx, void *data, size_t size);

/* pair_hint.c: the command's hint (struct command) */
void pair_key_hint(struct session *s, const struct measurement *m);

#endif
