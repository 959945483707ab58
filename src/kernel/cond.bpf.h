/* SPDX-License-Identifier: GPL-2.0 */
/* --if on the BPF side: one term's comparison.  The config is rodata, so
 * the verifier keeps only the operators a run uses. */
#ifndef KDIST_COND_BPF_H
#define KDIST_COND_BPF_H

#include "kernel/cond.h"

/* Term i of c holds for number v. */
static __always_inline bool cond_num(const volatile struct cond_cfg *c, int i, __u64 v)
{
	__u64 want = c->val[i];
	bool sgn = c->is_signed[i];

	switch (c->op[i]) {
	case COND_EQ: return v == want;
	case COND_NE: return v != want;
	case COND_LT: return sgn ? (__s64)v < (__s64)want : v < want;
	case COND_LE: return sgn ? (__s64)v <= (__s64)want : v <= want;
	case COND_GT: return sgn ? (__s64)v > (__s64)want : v > want;
	case COND_GE: return sgn ? (__s64)v >= (__s64)want : v >= want;
	case COND_MASK_ZERO: return !(v & want);
	case COND_MASK_SET: return v & want;
	}
	return true;
}

/* Term i of c holds for text s (COND_STR_LEN bytes, NUL-terminated). */
static __always_inline bool cond_str(const volatile struct cond_cfg *c, int i, const char *s)
{
	bool eq = true;

	for (int j = 0; j < COND_STR_LEN; j++) {
		if (s[j] != c->str[i][j]) {
			eq = false;
			break;
		}
		if (!s[j])
			break;
	}
	return c->op[i] == COND_EQ ? eq : !eq;
}

#endif
