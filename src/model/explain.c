// SPDX-License-Identifier: GPL-2.0
/* The sums of --explain in the measurement (model/explain.h). */
#include "model/explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const ex_part_names[EX_NPARTS] = {
	[EX_ONCPU] = "oncpu", [EX_IRQ] = "irq", [EX_RUNNABLE] = "runnable",
	[EX_S] = "blocked_s", [EX_D] = "blocked_d", [EX_OTHER] = "blocked_other",
	[EX_UNATTR] = "unattributed",
};

void ex_val_add(struct ex_val *to, const struct ex_val *v, int sign)
{
	to->count += sign * v->count;
	to->sum += sign * v->sum;
	for (int i = 0; i < EX_NPARTS; i++)
		to->part[i] += sign * v->part[i];
	to->switches += sign * v->switches;
	to->preempts += sign * v->preempts;
	to->followed += sign * v->followed;
}

int m_explain_add(struct m_explain **to, const struct m_explain *from, int sign)
{
	if (!from)
		return 0;
	if (!*to && !(*to = calloc(1, sizeof(**to))))
		return -ENOMEM;
	for (int r = 0; r < EX_ROWS; r++)
		ex_val_add(&(*to)->row[r], &from->row[r], sign);
	return 0;
}

void m_explain_sum(const struct m_explain *x, int first, struct ex_val *out)
{
	memset(out, 0, sizeof(*out));
	for (int r = first; r < EX_ROWS; r++)
		ex_val_add(out, &x->row[r], 1);
}

int m_explain_tail_row(const struct m_explain *x, double share)
{
	struct ex_val all;
	double want, n = 0;
	int r;

	m_explain_sum(x, 0, &all);
	want = share * all.count;
	for (r = EX_ROWS - 1; r > 0; r--) {
		n += x->row[r].count;
		if (n >= want)
			break;
	}
	return r;
}

