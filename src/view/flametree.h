/* SPDX-License-Identifier: GPL-2.0 */
/* The stack tree of flame.h, for the files that draw it (flame.c,
 * flamesvg.c); nothing else looks inside. */
#ifndef KDIST_FLAMETREE_H
#define KDIST_FLAMETREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fnode {
	char *name;		/* NULL for the root */
	struct fnode *parent;
	struct fnode **kids;	/* sorted by strcmp() of their names */
	uint32_t nkids;
	uint32_t kcap;
	uint64_t self;		/* value of stacks ending here */
	uint64_t total;		/* self + all descendants */
};

struct flame {
	struct fnode root;
	size_t nnodes;
};

/* The kid of n named name (raw: folded as flame_add() stores it), or NULL
 * with *at where it would go (kids are sorted). */
struct fnode *flame_find_kid(const struct fnode *n, const char *name, uint32_t *at);
/* Flush f: 0, or -errno after saying that writing `what` failed. */
int flame_finish_write(FILE *f, const char *what);

#endif
