// SPDX-License-Identifier: GPL-2.0
/* Text views of groups one line each: counts, the summary table that stands
 * for many histograms, and the line that says how many groups were left out
 * and how much of the measurement they hold. */
#include "model/hist.h"
#include "model/measure.h"
#include "view/format.h"
#include "view/table.h"

#include <ctype.h>
#include <string.h>

/* Widest key column of the summary table: longer labels are cut. */
#define KEY_WIDTH_MAX 40

void text_group_label(FILE *f, const struct measurement *m, const struct m_group *g,
		      const char *sep)
{
	char buf[128];

	for (int i = 0; i < m->nby; i++)
		fprintf(f, "%s%s = %s", i ? sep : "", m->by[i],
			fmt_value(&g->key[i], m->by_fmt[i], buf, sizeof(buf)));
}

/* Counts per group, largest first: there is no value to draw. */
void text_counts(FILE *f, const struct measurement *m, const struct m_group **v, int n)
{
	char buf[512];

	for (int i = 0; i < n; i++) {
		FILE *l;

		/* fmemopen writes no NUL when nothing was written (no keys) */
		buf[0] = '\0';
		l = fmemopen(buf, sizeof(buf), "w");
		if (!l)
			return;
		text_group_label(l, m, v[i], ", ");
		fclose(l);
		fprintf(f, "%s%s%*llu\n", buf, m->nby ? "  " : "count ",
			m->nby && strlen(buf) < 40 ? 40 - (int)strlen(buf) : 0,
			(unsigned long long)v[i]->h.count);
	}
}

static void header(FILE *f, const char *name, int width)
{
	char up[KEY_WIDTH_MAX + 1];
	int i;

	for (i = 0; name[i] && i < KEY_WIDTH_MAX; i++)
		up[i] = toupper((unsigned char)name[i]);
	up[i] = 0;
	fprintf(f, "%-*s  ", width, up);
}

/* One row per group: its keys, each in a column headed by its name, then
 * count, total, mean, p50, p99 and max in the measurement's unit. */
void text_group_table(FILE *f, const struct measurement *m, const struct m_group **v, int n)
{
	static const char *const stats[] = { "COUNT", "TOTAL", "MEAN", "P50", "P99", "MAX" };
	int width[M_MAX_BY] = { 0 };
	char buf[128];

	for (int j = 0; j < m->nby; j++) {
		width[j] = strlen(m->by[j]);
		for (int i = 0; i < n; i++) {
			int w = strlen(fmt_value(&v[i]->key[j], m->by_fmt[j], buf, sizeof(buf)));

			if (w > width[j])
				width[j] = w;
		}
		if (width[j] > KEY_WIDTH_MAX)
			width[j] = KEY_WIDTH_MAX;
	}
	for (int j = 0; j < m->nby; j++)
		header(f, m->by[j], width[j]);
	for (size_t k = 0; k < sizeof(stats) / sizeof(stats[0]); k++)
		fprintf(f, k ? " %10s" : "%10s", stats[k]);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		struct hist h;
		char s[5][32];

		m_hist_get(&v[i]->h, &h);
		for (int j = 0; j < m->nby; j++)
			fprintf(f, "%-*.*s  ", width[j], width[j],
				fmt_value(&v[i]->key[j], m->by_fmt[j], buf, sizeof(buf)));
		fmt_measured(s[0], 32, m, h.sum);
		fmt_measured(s[1], 32, m, hist_mean(&h));
		fmt_measured(s[2], 32, m, hist_quantile(&h, 0.5));
		fmt_measured(s[3], 32, m, hist_quantile(&h, 0.99));
		fmt_measured(s[4], 32, m, h.max);
		fprintf(f, "%10llu %10s %10s %10s %10s %10s\n", (unsigned long long)h.count, s[0],
			s[1], s[2], s[3], s[4]);
	}
}

/* "(46 more groups, 1.2% of the events and 0.4% of the time: ...)": what
 * the groups after the first n hold, so a cut is never silent. */
void text_more_groups(FILE *f, const struct measurement *m, const struct view_opts *vo,
		      bool table, const struct m_group **v, int n)
{
	double count = 0, count_left = 0, sum = 0, sum_left = 0;

	if (n >= m->ngroups)
		return;
	for (int i = 0; i < m->ngroups; i++) {
		count += v[i]->h.count;
		sum += v[i]->h.sum;
		if (i >= n) {
			count_left += v[i]->h.count;
			sum_left += v[i]->h.sum;
		}
	}
	fprintf(f, "(%d more group%s, %.1f%% of the events", m->ngroups - n,
		m->ngroups - n > 1 ? "s" : "", count ? 100 * count_left / count : 0);
	/* a function's time includes its callees': shares of it overlap */
	if (m->kind == M_LATENCY && !m->counts && !m->stacks)
		fprintf(f, " and %.1f%% of the time", sum ? 100 * sum_left / sum : 0);
	fprintf(f, ": --top N shows N, --all every group%s)\n",
		table ? ", --hist their histograms" : "");
}
