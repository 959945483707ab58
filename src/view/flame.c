// SPDX-License-Identifier: GPL-2.0
/* Stack-tree accumulator with folded and top-N output; see flame.h (the
 * SVG: flamesvg.c). */
#include "view/flame.h"
#include "lib/jsondoc.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/flametree.h"

struct flame *flame_new(void)
{
	return calloc(1, sizeof(struct flame));
}

static void free_kids(struct fnode *n)
{
	uint32_t i;

	for (i = 0; i < n->nkids; i++) {
		free_kids(n->kids[i]);
		free(n->kids[i]->name);
		free(n->kids[i]);
	}
	free(n->kids);
}

void flame_free(struct flame *fl)
{
	if (!fl)
		return;
	free_kids(&fl->root);
	free(fl);
}

uint64_t flame_total(const struct flame *fl)
{
	return fl ? fl->root.total : 0;
}

size_t flame_node_count(const struct flame *fl)
{
	return fl ? fl->nnodes : 0;
}

/* The characters folded output cannot hold, and what replaces them. */
static unsigned char fold_char(unsigned char c)
{
	if (c == ';')
		return ':';
	if (c == '\n' || c == '\r')
		return ' ';
	return c;
}

/* strcmp() of a stored (already folded-safe) name against a raw one. */
static int name_cmp(const char *stored, const char *raw)
{
	const unsigned char *a = (const unsigned char *)stored;
	const unsigned char *b = (const unsigned char *)raw;

	for (;; a++, b++) {
		unsigned char cb = fold_char(*b);

		if (*a != cb)
			return *a < cb ? -1 : 1;
		if (!*a)
			return 0;
	}
}

/* The kid of n named name, or NULL with *at where it would go (kids are
 * sorted).  name may be raw or stored: a stored name folds to itself. */
struct fnode *flame_find_kid(const struct fnode *n, const char *name, uint32_t *at)
{
	uint32_t lo = 0, hi = n->nkids;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = name_cmp(n->kids[mid]->name, name);

		if (!c)
			return n->kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return NULL;
}

static struct fnode *get_kid(struct flame *fl, struct fnode *n, const char *raw)
{
	struct fnode *k;
	uint32_t lo;
	char *p;

	k = flame_find_kid(n, raw, &lo);
	if (k)
		return k;

	if (n->nkids == n->kcap) {
		uint32_t cap = n->kcap ? n->kcap * 2 : 4;
		struct fnode **nk = realloc(n->kids, cap * sizeof(*nk));

		if (!nk)
			return NULL;
		n->kids = nk;
		n->kcap = cap;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->name = strdup(raw);
	if (!k->name) {
		free(k);
		return NULL;
	}
	for (p = k->name; *p; p++)
		*p = fold_char(*p);
	k->parent = n;
	memmove(&n->kids[lo + 1], &n->kids[lo],
		(n->nkids - lo) * sizeof(n->kids[0]));
	n->kids[lo] = k;
	n->nkids++;
	fl->nnodes++;
	return k;
}

/* Drop the empty chain left behind when an add fails half-way. */
static void prune_empty(struct flame *fl, struct fnode *n)
{
	while (n->parent && !n->total && !n->nkids) {
		struct fnode *p = n->parent;
		uint32_t i;

		for (i = 0; i < p->nkids && p->kids[i] != n; i++)
			;
		memmove(&p->kids[i], &p->kids[i + 1],
			(p->nkids - i - 1) * sizeof(p->kids[0]));
		p->nkids--;
		free(n->name);
		free(n);
		fl->nnodes--;
		n = p;
	}
}

int flame_add(struct flame *fl, const char *const *frames, int nframes,
	      uint64_t value)
{
	struct fnode *n;
	int i;

	if (!fl || !frames || nframes <= 0)
		return -EINVAL;
	if (nframes > FLAME_MAX_DEPTH)
		return -E2BIG;
	for (i = 0; i < nframes; i++)
		if (!frames[i])
			return -EINVAL;
	if (!value)
		return 0;
	if (fl->root.total > UINT64_MAX - value)
		return -EOVERFLOW;

	n = &fl->root;
	for (i = 0; i < nframes; i++) {
		/* names from files (folded stacks, JSON) as the measurement
		 * keeps them: in text_escape form, whatever their bytes */
		bool safe = text_is_safe(frames[i], strlen(frames[i]));
		char *t = safe ? NULL : doc_text(frames[i]);
		struct fnode *k = safe || t ? get_kid(fl, n, t ? t : frames[i]) : NULL;

		free(t);

		if (!k) {
			prune_empty(fl, n);
			return -ENOMEM;
		}
		n = k;
	}
	n->self += value;
	for (; n; n = n->parent)
		n->total += value;
	return 0;
}

/* ---- Collecting full stacks ------------------------------------------ */

struct stack {
	const struct fnode *node;
	char *line;		/* "root;...;leaf VALUE" */
};

struct walk {
	char *path;
	size_t cap;
	struct stack *v;
	size_t n, vcap;
};

static int walk_node(struct walk *w, const struct fnode *n, size_t len)
{
	char num[24];
	uint32_t i;
	int err;

	if (n->name) {
		size_t nl = strlen(n->name), need = len + nl + 2;

		if (need > w->cap) {
			size_t cap = w->cap ? w->cap : 256;
			char *np;

			while (cap < need)
				cap *= 2;
			np = realloc(w->path, cap);
			if (!np)
				return -ENOMEM;
			w->path = np;
			w->cap = cap;
		}
		/* by depth, not by len: an empty root frame needs its ';' too */
		if (n->parent->name)
			w->path[len++] = ';';
		memcpy(w->path + len, n->name, nl + 1);
		len += nl;
	}

	if (n->self) {
		struct stack *s;

		if (w->n == w->vcap) {
			size_t cap = w->vcap ? w->vcap * 2 : 64;

			s = realloc(w->v, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			w->v = s;
			w->vcap = cap;
		}
		s = &w->v[w->n];
		snprintf(num, sizeof(num), " %" PRIu64, n->self);
		s->line = malloc(len + strlen(num) + 1);
		if (!s->line)
			return -ENOMEM;
		memcpy(s->line, w->path, len);
		strcpy(s->line + len, num);
		s->node = n;
		w->n++;
	}

	for (i = 0; i < n->nkids; i++) {
		err = walk_node(w, n->kids[i], len);
		if (err)
			return err;
	}
	return 0;
}

static void free_stacks(struct stack *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].line);
	free(v);
}

/* All stacks with a value of their own, in tree order. */
static int collect_stacks(const struct flame *fl, struct stack **out,
			  size_t *nout)
{
	struct walk w = { 0 };
	int err;

	err = walk_node(&w, &fl->root, 0);
	free(w.path);
	if (err) {
		free_stacks(w.v, w.n);
		return err;
	}
	*out = w.v;
	*nout = w.n;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;

	return strcmp(x->line, y->line);
}

static int cmp_heaviest(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;

	if (x->node->self != y->node->self)
		return x->node->self > y->node->self ? -1 : 1;
	return strcmp(x->line, y->line);
}

/* Callers zero errno before writing, so a failed write leaves its cause. */
int flame_finish_write(FILE *f, const char *what)
{
	int err;

	if (fflush(f) == 0 && !ferror(f))
		return 0;
	err = errno ? errno : EIO;
	kd_err("failed to write %s: %s", what, strerror(err));
	return -err;
}

int flame_write_folded(const struct flame *fl, FILE *f)
{
	struct stack *v;
	size_t n, i;
	int err;

	if (!fl || !f)
		return -EINVAL;
	err = collect_stacks(fl, &v, &n);
	if (err) {
		kd_err("failed to collect stacks: %s", strerror(-err));
		return err;
	}
	if (n)	/* an empty tree gives v == NULL, which qsort() must not get */
		qsort(v, n, sizeof(*v), cmp_line);
	errno = 0;
	for (i = 0; i < n; i++) {
		fputs(v[i].line, f);
		fputc('\n', f);
	}
	free_stacks(v, n);
	return flame_finish_write(f, "folded stacks");
}

/* ---- Parsing folded stacks -------------------------------------------- */

static int parse_value(const char *s, uint64_t *out)
{
	unsigned long long v;
	const char *p;
	char *end;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int flame_parse_folded(struct flame *fl, FILE *f)
{
	const char **frames = NULL;
	size_t cap = 0;
	char *line = NULL;
	int lineno = 0, err = 0;
	ssize_t len;

	if (!fl || !f)
		return -EINVAL;
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *sp, *p;
		uint64_t value;
		int nframes;

		lineno++;
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		/* a byte order mark (some editors save UTF-8 with one) */
		if (lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
			memmove(line, line + 3, (len -= 3) + 1);
		if (!len)
			continue;

		sp = strrchr(line, ' ');
		if (!sp || sp == line) {
			kd_err("failed to parse folded stacks: line %d: no stack and value",
			       lineno);
			err = -EINVAL;
			break;
		}
		*sp = '\0';
		err = parse_value(sp + 1, &value);
		if (err) {
			char v[64];

			/* the file's bytes, never the terminal's controls */
			text_escape(v, sizeof(v), sp + 1, strlen(sp + 1));
			kd_err("failed to parse folded stacks: line %d: bad value '%s'", lineno, v);
			break;
		}

		nframes = 1;
		for (p = line; *p; p++)
			nframes += *p == ';';
		if (nframes > FLAME_MAX_DEPTH) {
			kd_err("failed to parse folded stacks: line %d: more than %d frames",
			       lineno, FLAME_MAX_DEPTH);
			err = -E2BIG;
			break;
		}
		if (!frames) {
			frames = malloc(FLAME_MAX_DEPTH * sizeof(*frames));
			if (!frames) {
				err = -ENOMEM;
				break;
			}
		}
		nframes = 0;
		frames[nframes++] = line;
		for (p = line; *p; p++) {
			if (*p == ';') {
				*p = '\0';
				frames[nframes++] = p + 1;
			}
		}

		err = flame_add(fl, frames, nframes, value);
		if (err) {
			kd_err("failed to add folded stack: line %d: %s", lineno,
			       strerror(-err));
			break;
		}
	}
	if (!err && ferror(f)) {
		err = errno ? -errno : -EIO;
		kd_err("failed to read folded stacks: %s", strerror(-err));
	}
	free(frames);
	free(line);
	return err;
}

/* ---- Top-N text ------------------------------------------------------- */

int flame_write_top(const struct flame *fl, FILE *f, int n, const char *unit)
{
	return flame_write_top_div(fl, f, n, unit, 1);
}

int flame_write_top_div(const struct flame *fl, FILE *f, int n, const char *unit, double div)
{
	uint64_t total = flame_total(fl);
	struct stack *v;
	size_t nv, i;
	int err;

	if (!fl || !f)
		return -EINVAL;
	err = collect_stacks(fl, &v, &nv);
	if (err) {
		kd_err("failed to collect stacks: %s", strerror(-err));
		return err;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_heaviest);
	if (n <= 0 || (size_t)n > nv)
		n = (int)nv;
	if (!unit)
		unit = "";

	errno = 0;
	for (i = 0; i < (size_t)n; i++) {
		const struct fnode *k = v[i].node;

		if (div == 1)
			fprintf(f, "%s#%zu  %" PRIu64, i ? "\n" : "", i + 1, k->self);
		else
			fprintf(f, "%s#%zu  %.4g", i ? "\n" : "", i + 1, (double)k->self / div);
		fprintf(f, "%s%s  %.2f%%\n", *unit ? " " : "", unit,
			total ? 100.0 * (double)k->self / (double)total : 0.0);
		for (; k->parent; k = k->parent)
			fprintf(f, "    %s\n", k->name);
	}
	free_stacks(v, nv);
	return flame_finish_write(f, "top stacks");
}
