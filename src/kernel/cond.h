/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --if conditions: "FIELD OP VALUE && ...", evaluated in BPF.
 *   OP: == != < <= > >= against a number (or a quoted text, == and != only)
 *       & MASK (some bit set), & MASK == 0 (none set), & MASK != 0
 * The parser (cond.c) only splits the text; each command resolves the
 * fields against its events and fills struct cond_cfg, which the BPF side
 * (cond.bpf.h) checks from rodata.
 */
#ifndef KDIST_COND_H
#define KDIST_COND_H

#define COND_MAX 4	/* terms joined by && */
#define COND_STR_LEN 16	/* a text compared: comm, char[16] fields */

enum cond_op {
	COND_NONE,
	COND_EQ,
	COND_NE,
	COND_LT,
	COND_LE,
	COND_GT,
	COND_GE,
	COND_MASK_ZERO,	/* (value & val) == 0 */
	COND_MASK_SET,	/* (value & val) != 0 */
};

/* The BPF side's rodata: term i holds when its value (read by the command
 * from its own val_src) compares true. */
struct cond_cfg {
	unsigned char op[COND_MAX];	/* enum cond_op; COND_NONE ends the list */
	unsigned char is_signed[COND_MAX];
	unsigned char is_str[COND_MAX];
	unsigned char side[COND_MAX];	/* pair: 0 START, 1 END */
	long long val[COND_MAX];
	char str[COND_MAX][COND_STR_LEN];
};

#ifndef __BPF__
#include <stdbool.h>

struct cond_term {
	char field[64];
	enum cond_op op;
	bool is_str;		/* compared against str, else num */
	bool neg;		/* num was written with a minus sign */
	long long num;
	char str[COND_STR_LEN];
	char text[128];		/* the term as written, for messages */
};

struct cond_list {
	int n;
	struct cond_term t[COND_MAX];
};

/* Append the terms of s to c.  0, or -EINVAL after one line naming what
 * is wrong (an unknown operator, a text too long, more than COND_MAX). */
int cond_parse(const char *s, struct cond_list *c);
const char *cond_op_name(enum cond_op op);
/* Term t, whose field is a number (is_signed: read signed) of size bytes,
 * or a text (is_str), into slot i of cfg.  0, or -EINVAL after saying why
 * (a text compared with a number, an order on a text, a negative value
 * for an unsigned field). */
int cond_compile(const struct cond_term *t, bool is_str, bool is_signed, struct cond_cfg *cfg,
		 int i);
#endif

#endif
