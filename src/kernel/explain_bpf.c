// SPDX-License-Identifier: GPL-2.0
/* --explain in user space: see explain_bpf.h. */
#include "kernel/explain_bpf.h"
#include "kernel/engine.h"
#include "lib/util.h"
#include "model/explain.h"
#include "model/measure.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

bool explain_prog(const struct bpf_program *prog, int mode)
{
	const char *name = bpf_program__name(prog);

	if (mode == EXPLAIN_OFF || strncmp(name, "ex_", 3))
		return false;
	if (!strncmp(name, "ex_full_", 8))
		return mode == EXPLAIN_FULL;
	if (!strncmp(name, "ex_end_", 7))
		return mode == EXPLAIN_END;
	return true;
}

int explain_attach(struct engine *e, struct bpf_object *obj, int mode,
		   struct measurement *header)
{
	struct bpf_program *prog;
	bool irq = true;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *l;
		int err;

		if (!explain_prog(prog, mode))
			continue;
		l = bpf_program__attach(prog);
		if (!l && strstr(bpf_program__name(prog), "irq_")) {
			kd_info("--explain: no irq time (%s: %s)", bpf_program__name(prog),
				strerror(errno));
			irq = false;
			continue;
		}
		if (!l) {
			err = -errno;
			kd_err("failed to attach --explain's %s: %s", bpf_program__name(prog),
			       strerror(-err));
			return err;
		}
		err = engine_link(e, l);
		if (err)
			return err;
	}
	header->explain = true;
	header->explain_irq = irq;
	header->explain_end = mode == EXPLAIN_END;
	return 0;
}

int explain_read(struct engine *e, int fd, size_t key_size, size_t row_off,
		 struct measurement *m,
		 int (*group_of)(void *ctx, struct measurement *m, const void *key,
				 struct m_group **g),
		 void *ctx)
{
	size_t stride = engine_percpu_stride(sizeof(struct ex_val));
	unsigned char *k = calloc(2, key_size), *next = k + key_size;
	bool first = true;
	int err = 0;

	if (!k)
		return -ENOMEM;
	while (!err && !bpf_map_get_next_key(fd, first ? NULL : k, next)) {
		const char *v;
		struct m_group *g;
		unsigned int row;

		memcpy(k, next, key_size);
		first = false;
		memcpy(&row, k + row_off, sizeof(row));
		if (row >= EX_ROWS || group_of(ctx, m, k, &g) || !g)
			continue;	/* a group the histograms have not shown yet */
		v = engine_percpu(e, fd, k);
		if (!v)
			continue;
		if (!g->ex && !(g->ex = calloc(1, sizeof(*g->ex)))) {
			err = -ENOMEM;
			break;
		}
		for (int c = 0; c < e->ncpu; c++)
			ex_val_add(&g->ex->row[row], (const struct ex_val *)(v + c * stride), 1);
	}
	free(k);
	return err;
}
