// SPDX-License-Identifier: GPL-2.0
/* Stack views of a measurement: folded stacks and the SVG flame graph.
 * Each group is one path: its other keys (comm, pid...) as the outermost
 * frames, then the frames of its stacks, root first.  The weight is the group's total: time for latencies, the sum of
 * values otherwise (one per sample for profiles). */
#include "view/stackview.h"
#include "view/flame.h"
#include "model/measure.h"
#include "lib/util.h"
#include "view/format.h"
#include "model/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 512

static int add_group(struct flame *fl, const struct measurement *m, const struct m_group *g)
{
	const char *frames[MAX_FRAMES];
	char bufs[M_MAX_BY][128];
	int n = 0;

	/* the other keys (comm, pid...) are the outermost frames */
	for (int i = 0; i < m->nby; i++)
		if (g->key[i].type != MV_STACK)
			frames[n++] = fmt_value(&g->key[i], m->by_fmt[i], bufs[i], sizeof(bufs[i]));
	for (int i = 0; i < m->nby; i++) {
		const struct m_stack *s = g->key[i].type == MV_STACK ? g->key[i].stack : NULL;

		for (unsigned int j = 0; s && j < s->nframes && n < MAX_FRAMES; j++)
			frames[n++] = s->frames[j].name;
	}
	if (!n)
		frames[n++] = "all";
	return flame_add(fl, frames, n, g->h.sum);
}

static struct flame *build_flame(const struct measurement *m)
{
	struct flame *fl = flame_new();
	int err = fl ? 0 : -ENOMEM;

	for (int i = 0; !err && i < m->ngroups; i++)
		err = add_group(fl, m, &m->groups[i]);
	if (err) {
		flame_free(fl);
		errno = -err;
		return NULL;
	}
	return fl;
}

/* The n heaviest stacks as text, for the text view of stack measurements;
 * times in --unit when given. */
int stackview_write_top(FILE *f, const struct measurement *m, const struct view_opts *v, int n)
{
	struct flame *fl = build_flame(m);
	double div = 1;
	int err;

	if (!fl)
		return -errno;
	if (m->kind != M_VALUE && v->unit)
		unit_parse(v->unit, &div);
	err = flame_write_top_div(fl, f, n, m->kind == M_VALUE ? m->value_unit :
				  v->unit ? v->unit : "ns", div);
	flame_free(fl);
	return err;
}

int stackview_write(FILE *f, const struct measurement *m, const struct view_opts *v)
{
	struct flame *fl = build_flame(m);
	const char *unit = m->kind == M_VALUE ? m->value_unit : "ns";
	int err = fl ? 0 : -errno;

	if (!err && v->format == OUT_FOLDED) {
		err = flame_write_folded(fl, f);
	} else if (!err) {
		struct flame_svg_opts so = { .title = m->title, .unit = unit };
		char sub[160];

		snprintf(sub, sizeof(sub), "%.2f s, %llu lost", m->duration_s,
			 (unsigned long long)measurement_lost(m));
		so.subtitle = sub;
		so.palette = m->stacks == M_STACKS_OFFCPU ? FLAME_PALETTE_COLD : FLAME_PALETTE_HOT;
		err = flame_write_svg(fl, f, &so);
	}
	/* folded output has no room for them: losses go to stderr */
	if (!err && measurement_lost(m))
		kd_err("lost %llu events (run with -o text or json for the breakdown)",
		       (unsigned long long)measurement_lost(m));
	flame_free(fl);
	/* a failed write leaves its cause (ENOSPC, EDQUOT...) in errno */
	return err ? err : fflush(f) || ferror(f) ? (errno ? -errno : -EIO) : 0;
}
