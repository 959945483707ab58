// SPDX-License-Identifier: GPL-2.0
/* Stack views of a measurement: folded stacks and the SVG flame graph.
 * Each group is one path: its non-stack labels (comm, pid...) as the
 * outermost frames, then its stack labels ("root;...;leaf") split into
 * frames.  The weight is the group's total: time for latencies, the sum of
 * values otherwise (one per sample for profiles). */
#include "flame.h"
#include "measure.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 512

static int add_group(struct flame *fl, const struct measurement *m, const struct m_group *g)
{
	const char *frames[MAX_FRAMES];
	char *copies[M_MAX_BY] = { 0 };
	int n = 0, err;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < m->nby; i++) {
			bool stack = strstr(m->by[i], "stack") != NULL;
			char *save = NULL, *tok;

			if (stack != (pass == 1) || !g->label[i])
				continue;
			if (!stack) {
				frames[n++] = g->label[i];
				continue;
			}
			copies[i] = strdup(g->label[i]);
			if (!copies[i]) {
				err = -ENOMEM;
				goto out;
			}
			for (tok = strtok_r(copies[i], ";", &save); tok && n < MAX_FRAMES;
			     tok = strtok_r(NULL, ";", &save))
				frames[n++] = tok;
		}
	}
	if (!n)
		frames[n++] = "all";
	err = flame_add(fl, frames, n, g->h.sum);
out:
	for (int i = 0; i < M_MAX_BY; i++)
		free(copies[i]);
	return err;
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

/* The n heaviest stacks as text, for the text view of stack measurements. */
int stackview_write_top(FILE *f, const struct measurement *m, int n)
{
	struct flame *fl = build_flame(m);
	int err;

	if (!fl)
		return -errno;
	err = flame_write_top(fl, f, n, m->kind == M_VALUE ? m->value_unit : "ns");
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
