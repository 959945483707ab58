/* SPDX-License-Identifier: GPL-2.0 */
/* --explain's layout shared by explain.bpf.h and explain.c (the parts and
 * the sums are model/explain.h's). */
#ifndef KDIST_PAIR_EXPLAIN_H
#define KDIST_PAIR_EXPLAIN_H

#include "cmd/pair/pair.h"
#include "model/explain.h"

/* The key of explain_groups: the pair's group and the row. */
struct ex_key {
	struct group_key group;
	unsigned int row;
	unsigned int pad;
};

#ifndef __BPF__
#include <stdbool.h>
#include <stdio.h>

struct measurement;
struct m_group;
struct engine;
struct stack_syms;

/* The sums of explain_groups (map fd) added to the groups of m that
 * group_of() finds for a BPF group key (*g NULL: none yet).  0 or -ENOMEM. */
int explain_read(struct engine *e, int fd, struct measurement *m,
		 int (*group_of)(void *ctx, struct measurement *m, const struct group_key *k,
				 struct m_group **g),
		 void *ctx);
/* One interval's split as fields of a --slower-than line. */
void explain_event_fields(FILE *f, const struct ex_one *x, bool irq);
/* --explain full: the interval's longest block, its stack and its waker. */
void explain_block_fields(FILE *f, const struct ex_block *b, struct stack_syms *syms);
#endif

#endif
