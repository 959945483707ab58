/* SPDX-License-Identifier: GPL-2.0 */
/* pair's --explain: the key of its explain_groups (shared by pair.bpf.c
 * and pair_read.c; the parts and the sums are model/explain.h's). */
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

#endif
