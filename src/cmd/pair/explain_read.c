// SPDX-License-Identifier: GPL-2.0
/* --explain in user space: the kernel's sums per group and row
 * (explain.bpf.h) into the measurement's groups, and one interval's split
 * on its --slower-than line. */
#include "cmd/pair/explain.h"
#include "kernel/engine.h"
#include "view/evline.h"
#include "kernel/stacks.h"
#include "model/measure.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

int explain_read(struct engine *e, int fd, struct measurement *m,
		 int (*group_of)(void *ctx, struct measurement *m, const struct group_key *k,
				 struct m_group **g),
		 void *ctx)
{
	struct ex_key k, next, *cur = NULL;
	size_t stride = engine_percpu_stride(sizeof(struct ex_val));
	int err = 0;

	memset(&next, 0, sizeof(next));
	while (!err && !bpf_map_get_next_key(fd, cur, &next)) {
		const char *v;
		struct m_group *g;

		k = next;
		cur = &k;
		if (k.row >= EX_ROWS || group_of(ctx, m, &k.group, &g) || !g)
			continue;	/* a group the histograms have not shown yet */
		v = engine_percpu(e, fd, &k);
		if (!v)
			continue;
		if (!g->ex && !(g->ex = calloc(1, sizeof(*g->ex))))
			return -ENOMEM;
		for (int c = 0; c < e->ncpu; c++)
			ex_val_add(&g->ex->row[k.row], (const struct ex_val *)(v + c * stride), 1);
	}
	return err;
}

void explain_event_fields(FILE *f, const struct ex_one *x, bool irq)
{
	char name[32], val[32];

	for (int p = 0; p < EX_NPARTS; p++) {
		snprintf(name, sizeof(name), "%s_ns", ex_part_names[p]);
		snprintf(val, sizeof(val), "%llu", x->part[p]);
		events_field(f, name, p == EX_IRQ && !irq ? "null" : val, false);
	}
	snprintf(val, sizeof(val), "%u", x->switches);
	events_field(f, "switches", val, false);
	snprintf(val, sizeof(val), "%u", x->preempts);
	events_field(f, "preemptions", val, false);
}

void explain_block_fields(FILE *f, const struct ex_block *b, struct stack_syms *syms)
{
	static const char *const states[EX_NPARTS] = { [EX_S] = "S", [EX_D] = "D",
						       [EX_OTHER] = "other" };
	char val[64], title[96];

	snprintf(val, sizeof(val), "%llu", b->ns);
	events_field(f, "block_ns", val, false);
	if (!b->ns)
		return;		/* no block ended inside the interval */
	events_field(f, "block_state", b->state < EX_NPARTS && states[b->state] ?
		     states[b->state] : "?", true);
	snprintf(val, sizeof(val), "%u", b->waker_tid);
	events_field(f, "waker_tid", b->waker_tid ? val : NULL, false);
	snprintf(val, sizeof(val), "%.16s", b->waker_comm);
	events_field(f, "waker_comm", b->waker_tid ? val : NULL, true);
	snprintf(title, sizeof(title), "longest block, %.3f ms, in:", b->ns / 1e6);
	events_stack_titled(f, "block_kstack", title, stack_syms_stack(syms, b->kstack, false, 0));
	if (!b->waker_tid)
		return;
	snprintf(title, sizeof(title), "woken by %.16s (tid %u) from:", b->waker_comm, b->waker_tid);
	events_stack_titled(f, "waker_kstack", title,
			    stack_syms_stack(syms, b->waker_kstack, false, 0));
}
