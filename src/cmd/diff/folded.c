// SPDX-License-Identifier: GPL-2.0
/* kdist diff of two files of folded stacks (diff.h). */
#include "cmd/diff/diff.h"
#include "view/flame.h"
#include "lib/util.h"
#include "view/view.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- folded stacks ---- */

/* A file of folded stacks, not JSON: after a byte order mark and blank
 * lines, it starts with neither '{' nor '[' (a JSON document), or with a
 * '[' on a line that ends in a space and a count ("[unknown];main 12").
 * So "[" alone, or a truncated JSON file, is a bad measurement, and its
 * reader says why. */
bool diff_is_folded(const char *text, size_t len)
{
	size_t i = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0, end, d;

	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i >= len || text[i] == '{')
		return false;
	if (text[i] != '[')
		return true;
	for (end = i; end < len && text[end] != '\n'; end++)
		;
	while (end > i && strchr(" \t\r", text[end - 1]))
		end--;
	for (d = end; d > i && text[d - 1] >= '0' && text[d - 1] <= '9'; d--)
		;
	return d < end && d > i && text[d - 1] == ' ';
}

struct stack_share {
	char *path;
	double share[2];	/* of each file's total */
};

static int by_path(const void *x, const void *y)
{
	return strcmp(((const struct stack_share *)x)->path, ((const struct stack_share *)y)->path);
}

static int by_delta(const void *x, const void *y)
{
	const struct stack_share *a = x, *b = y;
	double da = fabs(a->share[1] - a->share[0]), db = fabs(b->share[1] - b->share[0]);

	return da < db ? 1 : da > db ? -1 : strcmp(a->path, b->path);
}

/* Every stack's share of its file's total, both files in one list. */
static int stack_shares(struct flame *fl[2], struct stack_share **out, int *n)
{
	struct stack_share *v = NULL;
	int len = 0, cap = 0, err = 0;

	for (int k = 0; k < 2 && !err; k++) {
		char *text = NULL, *line, *save;
		size_t size = 0;
		FILE *f = open_memstream(&text, &size);

		if (!f)
			return -ENOMEM;
		err = flame_write_folded(fl[k], f);
		fclose(f);
		for (line = strtok_r(text, "\n", &save); !err && line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *sp = strrchr(line, ' ');

			if (!sp)
				continue;
			*sp = '\0';
			if (len == cap) {
				void *p = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));

				if (!p) {
					err = -ENOMEM;
					break;
				}
				v = p;
			}
			v[len] = (struct stack_share){ strdup(line) };
			v[len++].share[k] = strtod(sp + 1, NULL) / (double)flame_total(fl[k]);
		}
		free(text);
	}
	/* one entry per path: the NEW entry's share moves to its BASE twin */
	qsort(v, len, sizeof(*v), by_path);
	*n = 0;
	for (int i = 0; i < len; i++) {
		if (*n && !strcmp(v[*n - 1].path, v[i].path)) {
			v[*n - 1].share[1] += v[i].share[1];
			free(v[i].path);
		} else
			v[(*n)++] = v[i];
	}
	*out = v;
	return err;
}

static int write_stack_top(FILE *out, struct flame *fl[2], const char *path[2], int top)
{
	struct stack_share *v;
	int n, err = stack_shares(fl, &v, &n);

	if (err)
		return err;
	qsort(v, n, sizeof(*v), by_delta);
	fprintf(out, "BASE %s: %llu samples\nNEW  %s: %llu samples\n"
		"stacks whose share of all samples changed most (root;...;leaf)\n\n"
		"%9s %8s %8s  %s\n", path[0], (unsigned long long)flame_total(fl[0]), path[1],
		(unsigned long long)flame_total(fl[1]), "CHANGE", "BASE", "NEW", "STACK");
	for (int i = 0; i < n; i++) {
		if (i < top)
			fprintf(out, "%+8.2f%% %7.2f%% %7.2f%%  %s\n",
				100 * (v[i].share[1] - v[i].share[0]), 100 * v[i].share[0],
				100 * v[i].share[1], v[i].path);
		free(v[i].path);
	}
	free(v);
	return 0;
}

/* BASE and NEW as folded stacks: the stacks that changed most, or a
 * differential flame graph (-o svg). */
int diff_folded(struct options *o, char *const text[2], const size_t len[2], FILE *out)
{
	const char *path[2] = { o->args[0], o->args[1] };
	struct flame *fl[2] = { flame_new(), flame_new() };
	char sub[512];
	int err = 0;

	if (!view_can(o->view.format, VIEW_FOLDED_DIFF)) {
		char names[64];

		kd_err("bad output format for folded stacks: expected %s",
		       view_names(VIEW_FOLDED_DIFF, names, sizeof(names)));
		err = -EINVAL;
	}
	for (int k = 0; k < 2 && !err; k++) {
		FILE *f;

		if (!fl[k] || !(f = fmemopen(text[k], len[k], "r"))) {
			err = -ENOMEM;
			break;
		}
		err = flame_parse_folded(fl[k], f);
		fclose(f);
		if (err)
			kd_err("bad folded stacks %s: %s", path[k], strerror(-err));
		else if (!flame_total(fl[k])) {
			kd_err("bad folded stacks %s: no samples", path[k]);
			err = -EINVAL;
		}
	}
	if (!err && o->view.format == OUT_SVG) {
		snprintf(sub, sizeof(sub), "%s against %s: red grew, blue shrank "
			 "(share of all samples), grey held", path[1], path[0]);
		err = flame_write_svg(fl[1], out, &(struct flame_svg_opts){
			.title = "Differential Flame Graph", .subtitle = sub, .base = fl[0] });
	} else if (!err)
		err = write_stack_top(out, fl, path, o->view.top ? o->view.top : 20);
	flame_free(fl[0]);
	flame_free(fl[1]);
	return err;
}

