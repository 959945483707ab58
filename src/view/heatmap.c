// SPDX-License-Identifier: GPL-2.0
/* The terminal heatmap: see heatmap.h. */
#include "view/heatmap.h"
#include "model/measure.h"
#include "view/format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Shades from empty to the fullest cell of a group's map. */
static const char shades[] = " .:-=+*#%@";
#define NSHADES ((int)sizeof(shades) - 1)

struct heat_row {
	const char *label;	/* interned */
	int interval;
	hist_u64 b[65];		/* log2 buckets, as the text histogram folds them */
};

struct heat {
	int n, cap, last;
	struct heat_row *rows;
};

int heat_add(struct heat **hp, const char *label, int interval, const struct hist *h)
{
	struct heat *t = *hp;
	struct heat_row *r;

	if (!t) {
		t = *hp = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
	}
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		void *p = realloc(t->rows, cap * sizeof(*t->rows));

		if (!p)
			return -ENOMEM;
		t->rows = p;
		t->cap = cap;
	}
	r = &t->rows[t->n];
	r->label = m_intern(label, strlen(label));
	if (!r->label)
		return -ENOMEM;
	r->interval = interval;
	hist_fold_log2(h, 1, r->b);
	t->n++;
	if (interval > t->last)
		t->last = interval;
	return 0;
}

static const struct heat_row *row_of(const struct heat *t, const char *label, int interval)
{
	for (int i = t->n - 1; i >= 0; i--) {
		if (t->rows[i].label == label && t->rows[i].interval == interval)
			return &t->rows[i];
	}
	return NULL;
}

/* 1 for the fewest values, NSHADES - 1 for the most: counts span decades,
 * so the shade follows their logarithm. */
static int shade(hist_u64 c, hist_u64 peak)
{
	int s;

	if (!c)
		return 0;
	if (peak <= 1)
		return NSHADES - 1;
	s = 1 + (int)floor((NSHADES - 2) * log((double)c) / log((double)peak) + 1e-9);
	return s < NSHADES ? s : NSHADES - 1;
}

static void bound(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "ns"))
		fmt_time(buf, len, v);
	else
		snprintf(buf, len, "%.6g%s%s", v, unit[0] ? " " : "", unit);
}

void heat_write(FILE *f, const struct heat *t, const char *label, const char *unit)
{
	const char *l = t ? m_intern(label, strlen(label)) : NULL;
	int lo = 65, hi = -1;
	hist_u64 peak = 0;
	char a[32], b[32];

	for (int i = 0; l && i < t->n; i++) {
		if (t->rows[i].label != l)
			continue;
		for (int j = 0; j < 65; j++) {
			if (!t->rows[i].b[j])
				continue;
			lo = j < lo ? j : lo;
			hi = j > hi ? j : hi;
			peak = t->rows[i].b[j] > peak ? t->rows[i].b[j] : peak;
		}
	}
	if (hi < 0) {
		fprintf(f, "heatmap: no values yet\n");
		return;
	}
	bound(a, sizeof(a), lo ? ldexp(1, lo) : 0, unit);
	bound(b, sizeof(b), ldexp(1, hi + 1), unit);
	fprintf(f, "heatmap: a row per interval, a column per power of two from %s to %s, "
		"'%s' by count up to %llu\n", a, b, shades + 1, (unsigned long long)peak);
	for (int k = 1; k <= t->last; k++) {
		const struct heat_row *r = row_of(t, l, k);
		hist_u64 n = 0;

		fprintf(f, "%8d |", k);
		for (int j = lo; j <= hi; j++) {
			hist_u64 c = r ? r->b[j] : 0;

			n += c;
			fputc(shades[shade(c, peak)], f);
		}
		fprintf(f, "| %llu\n", (unsigned long long)n);
	}
}

void heat_free(struct heat *t)
{
	if (t)
		free(t->rows);
	free(t);
}
