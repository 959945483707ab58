// SPDX-License-Identifier: GPL-2.0
/* Views of a measurement: text, JSON (json.c), CSV.  Stack views (folded,
 * SVG) are in stackview.c.  Every view prints the loss counters. */
#include "view/heatmap.h"
#include "view/html.h"
#include "view/markdown.h"
#include "model/measure.h"
#include "lib/util.h"
#include "view/format.h"
#include "view/view.h"
#include "view/output_int.h"
#include "view/explain_view.h"
#include "view/table.h"
#include "view/stackview.h"
#include "view/pprof.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the views keep over the measurements of one run, reached through
 * view_opts.state and freed by measurement_write_end. */
struct view_state {
	bool table;		/* text: many histogram groups became a table, for the run */
	struct heat *heat;	/* text with --heatmap: the intervals so far (heatmap.h) */
	bool header_done;	/* csv: the header is written */
	FILE *docs;		/* html: the JSON documents so far, into docs_buf */
	char *docs_buf;
	size_t docs_len;
};

static int by_total(const void *a, const void *b)
{
	const struct m_group *x = *(const struct m_group *const *)a;
	const struct m_group *y = *(const struct m_group *const *)b;

	return x->h.sum < y->h.sum ? 1 : x->h.sum > y->h.sum ? -1 : 0;
}
static int by_func_total(const void *a, const void *b)
{
	const struct m_group *x = *(const struct m_group *const *)a;
	const struct m_group *y = *(const struct m_group *const *)b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}
static int by_count(const void *a, const void *b)
{
	const struct m_group *x = *(const struct m_group *const *)a;
	const struct m_group *y = *(const struct m_group *const *)b;

	return x->h.count < y->h.count ? 1 : x->h.count > y->h.count ? -1 : by_total(a, b);
}
static int by_self(const void *a, const void *b)
{
	const struct m_group *x = *(const struct m_group *const *)a;
	const struct m_group *y = *(const struct m_group *const *)b;

	return x->self_ns < y->self_ns ? 1 : x->self_ns > y->self_ns ? -1 : by_total(a, b);
}
/* qsort has no context: the measurement whose groups sort_groups sorts. */
static const struct measurement *sorting;

/* Numbers in their order, named values and stacks by what prints. */
static int by_key(const void *a, const void *b)
{
	const struct m_group *x = *(const struct m_group *const *)a;
	const struct m_group *y = *(const struct m_group *const *)b;

	for (int i = 0; i < sorting->nby; i++) {
		const struct m_value *u = &x->key[i], *w = &y->key[i];
		enum m_fmt f = sorting->by_fmt[i];
		char bu[128], bw[128];
		int c;

		if (u->type == MV_NUM && w->type == MV_NUM && !fmt_names_value(u, f)) {
			if (u->num != w->num)
				return f == FMT_SIGNED ? ((int64_t)u->num < (int64_t)w->num ? -1 : 1) :
							 (u->num < w->num ? -1 : 1);
			continue;
		}
		c = strcmp(fmt_value(u, f, bu, sizeof(bu)), fmt_value(w, f, bw, sizeof(bw)));
		if (c)
			return c;
	}
	return 0;
}

static const struct m_group **sorted_groups(const struct measurement *m, const char *sort)
{
	const struct m_group **v = malloc((m->ngroups + 1) * sizeof(*v));
	int (*cmp)(const void *, const void *);

	if (!v)
		return NULL;
	for (int i = 0; i < m->ngroups; i++)
		v[i] = &m->groups[i];
	cmp = m->kind == M_FUNC ? by_func_total : m->counts ? by_count : by_total;
	if (sort && !strcmp(sort, "count"))
		cmp = by_count;
	else if (sort && !strcmp(sort, "self"))
		cmp = by_self;
	else if (sort && !strcmp(sort, "key"))
		cmp = by_key;
	sorting = m;
	qsort(v, m->ngroups, sizeof(*v), cmp);
	return v;
}

const char *output_label(const struct measurement *m, const struct m_group *g, int i, char *buf);

/* With -i, a group keeps the unit of the first interval it had events in,
 * so that its histograms read alike from interval to interval. */
static const char *run_unit(const struct measurement *m, const struct m_group *g, const char *u)
{
	static struct { char key[256]; const char *unit; } seen[1024];
	static int nseen;
	char key[256] = "", buf[128];
	size_t len = 0;

	for (int i = 0; i < m->nby && len < sizeof(key); i++)
		len += snprintf(key + len, sizeof(key) - len, "%s\x1f", output_label(m, g, i, buf));
	for (int i = 0; i < nseen; i++)
		if (!strcmp(seen[i].key, key))
			return seen[i].unit;
	if (nseen < (int)ARRAY_SIZE(seen)) {
		snprintf(seen[nseen].key, sizeof(seen[nseen].key), "%s", key);
		seen[nseen++].unit = u;
	}
	return u;
}

/* Display unit and divisor for a histogram: the option, or the largest
 * unit in which the median is at least 1 (with -i: in the group's first
 * interval). */
static const char *pick_unit(const struct measurement *m, const struct view_opts *v,
			     const struct m_group *g, const struct hist *h, double *div)
{
	const char *u;

	if (m->kind == M_VALUE) {
		*div = 1;
		return m->value_unit ? m->value_unit : "";
	}
	u = v->unit ? v->unit : unit_auto(hist_quantile(h, 0.5));
	if (!v->unit && m->interval > 0 && h->count)
		u = run_unit(m, g, u);
	unit_parse(u, div);
	return u;
}

/* "lost: N (a 0, b N)": the counters that mean loss, or (unmatched) those
 * of events without a partner by nature; the latter line only when the
 * measurement has such counters. */
static void write_drops_line(FILE *f, const struct measurement *m, bool unmatched)
{
	int n = 0;

	for (int i = 0; i < m->ndrops; i++) {
		if (m_drop_unmatched(m->drops[i].name) != unmatched)
			continue;
		if (!n++)
			fprintf(f, "%s: %llu (", unmatched ? "unmatched" : "lost",
				(unsigned long long)(unmatched ? measurement_unmatched(m) :
							       measurement_lost(m)));
		fprintf(f, "%s%s %llu", n > 1 ? ", " : "", m->drops[i].name,
			(unsigned long long)m->drops[i].value);
	}
	if (n)
		fputs(")\n", f);
	else if (!unmatched)
		fputs("lost: 0\n", f);
}

static void write_drops_text(FILE *f, const struct measurement *m)
{
	write_drops_line(f, m, false);
	write_drops_line(f, m, true);
}

/* kdist's own cost, one line with -v: "cost: 1.5M program runs, 84 ns
 * each, 0.9% of one CPU over 14 s". */
static void write_cost_text(FILE *f, const struct measurement *m)
{
	const struct m_cost *c = &m->cost;
	static const char sfx[] = " KMGT";
	double runs = c->runs;
	int i = 0;

	if (!c->programs || !kd_verbose_level)
		return;
	if (c->err) {
		fprintf(f, "cost: unknown: the kernel refused BPF run-time statistics (%s)\n",
			strerror(c->err));
		return;
	}
	while (runs >= 1000 && i < 4) {
		runs /= 1000;
		i++;
	}
	fprintf(f, "cost: %.*g%.*s program runs", i ? 3 : 20, runs, i ? 1 : 0, &sfx[i]);
	if (c->runs)
		fprintf(f, ", %.0f ns each", (double)c->run_ns / c->runs);
	if (m->duration_s > 0) {
		double pct = 100.0 * c->run_ns / (m->duration_s * 1e9);

		/* two digits, but never 1e+02 */
		if (pct >= 10)
			fprintf(f, ", %.0f%%", pct);
		else
			fprintf(f, ", %.2g%%", pct);
		fprintf(f, " of one CPU over %.3g s", m->duration_s);
	}
	fprintf(f, "; maps %.1f MB\n", c->map_bytes / 1048576.0);
}

static const char *hist_unit_label(const char *unit)
{
	static const char *const t[][2] = {
		{ "ns", "nsecs" }, { "us", "usecs" }, { "ms", "msecs" }, { "s", "secs" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(unit, t[i][0]))
			return t[i][1];
	return unit[0] ? unit : "value";
}

/* The log2 view users know from bcc: one row per power of two. */
static void write_hist_text(FILE *f, const struct hist *h, const char *unit, double div)
{
	hist_u64 b[65], peak = 0;
	int used = hist_fold_log2(h, div, b), first = 0, w;
	char top[32];

	for (int j = 0; j < used; j++)
		if (b[j] > peak)
			peak = b[j];
	while (first < used && !b[first])
		first++;
	w = snprintf(top, sizeof(top), "%llu", used ? (2ULL << (used - 1)) - 1 : 1ULL);
	if (w < 10)
		w = 10;
	fprintf(f, "%*s%-*s : count     distribution\n", w - 4, "", w + 8,
		hist_unit_label(unit));
	for (int j = first; j < used; j++) {
		unsigned long long lo = j ? 1ULL << j : 0, hi = (2ULL << j) - 1;
		int stars = peak ? (int)((b[j] * 40 + peak - 1) / peak) : 0;

		fprintf(f, "%*llu -> %-*llu : %-9llu |%-40.*s|\n", w, lo, w, hi,
			(unsigned long long)b[j], stars,
			"****************************************");
	}
}

int linear_parse(const char *s, struct linear *l)
{
	char extra;

	if (sscanf(s, "%lf,%lf,%lf%c", &l->min, &l->max, &l->step, &extra) != 3 || !isfinite(l->max) ||
	    !(l->step > 0) || !(l->min >= 0) || l->max <= l->min || (l->max - l->min) / l->step > 1000) {
		kd_err("bad --linear '%s': expected MIN,MAX,STEP with 0 <= MIN < MAX, STEP > 0, "
		       "at most 1000 buckets", s);
		l->step = 0;
		return -EINVAL;
	}
	return 0;
}

/* --linear: rows of equal width, as bpftrace's lhist prints them. */
static void write_linear_text(FILE *f, const struct hist *h, const struct linear *l,
			      const char *unit)
{
	int n = (int)ceil((l->max - l->min) / l->step);
	hist_u64 *b = calloc(n, sizeof(*b)), below, above, peak = 0;

	if (!b)
		return;
	hist_fold_linear(h, l->min, l->step, n, b, &below, &above);
	for (int j = 0; j < n; j++)
		if (b[j] > peak)
			peak = b[j];
	fprintf(f, "%25s : count     distribution\n", hist_unit_label(unit));
	if (below)
		fprintf(f, "%10s < %-12.6g : %-9llu\n", "", l->min, (unsigned long long)below);
	for (int j = 0; j < n; j++) {
		int stars = peak ? (int)((b[j] * 40 + peak - 1) / peak) : 0;

		fprintf(f, "%10.6g -> %-10.6g : %-9llu |%-40.*s|\n", l->min + j * l->step,
			l->min + (j + 1) * l->step - 1, (unsigned long long)b[j], stars,
			"****************************************");
	}
	if (above)
		fprintf(f, "%10s >= %-11.6g : %-9llu\n", "", l->min + n * l->step,
			(unsigned long long)above);
	free(b);
}

static void write_stats_text(FILE *f, const struct measurement *m, const struct hist *h)
{
	char s[32];

	fmt_measured(s, sizeof(s), m, hist_mean(h));
	fprintf(f, "count %llu  mean %s", (unsigned long long)h->count, s);
	fmt_measured(s, sizeof(s), m, hist_stddev(h));
	fprintf(f, "  stddev %s", s);
	fmt_measured(s, sizeof(s), m, h->min);
	fprintf(f, "  min %s", s);
	for (int i = 0; i < HIST_NQUANTILES; i++) {
		fmt_measured(s, sizeof(s), m, hist_quantile(h, hist_shown[i].q));
		fprintf(f, "  %s %s", hist_shown[i].text, s);
	}
	fmt_measured(s, sizeof(s), m, h->max);
	fprintf(f, "  max %s\n", s);
}

/* The histogram of group g, expanded into buf. */
const struct hist *output_group_hist(const struct m_group *g, struct hist *buf)
{
	m_hist_get(&g->h, buf);
	return buf;
}

/* Key value i of group g as views print it; buf holds 128 bytes. */
const char *output_label(const struct measurement *m, const struct m_group *g, int i, char *buf)
{
	return fmt_value(&g->key[i], m->by_fmt[i], buf, 128);
}


static void write_func_table(FILE *f, const struct measurement *m, const struct m_group **v,
			     int n, const struct view_opts *vo)
{
	char t[6][32], buf[128];

	fprintf(f, "%-40s %10s %12s %12s %10s %10s %10s %10s", "FUNCTION", "CALLS", "TOTAL",
		"SELF", "AVG", "MIN", "P50", "P99");
	/* --by keys after the function: a column each, headed by its name */
	for (int j = 1; j < m->nby; j++)
		fprintf(f, j + 1 < m->nby ? " %-16s" : " %s", m->by[j]);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		struct hist hb;
		const struct hist *h = output_group_hist(v[i], &hb);

		fmt_time(t[0], 32, v[i]->total_ns);
		fmt_time(t[1], 32, v[i]->self_ns);
		fmt_time(t[2], 32, hist_mean(h));
		fmt_time(t[3], 32, h->min);
		fmt_time(t[4], 32, hist_quantile(h, 0.5));
		fmt_time(t[5], 32, hist_quantile(h, 0.99));
		fprintf(f, "%-40s %10llu %12s %12s %10s %10s %10s %10s", output_label(m, v[i], 0, buf),
			(unsigned long long)h->count, t[0], t[1], t[2], t[3], t[4], t[5]);
		for (int j = 1; j < m->nby; j++)
			fprintf(f, j + 1 < m->nby ? " %-16s" : " %s", output_label(m, v[i], j, buf));
		fputc('\n', f);
	}
	/* --hist: each row's histogram; --explain: its calls' split */
	if (vo->hist || m->explain) {
		for (int i = 0; i < n; i++) {
			struct hist hb;
			const struct hist *h = output_group_hist(v[i], &hb);
			double div;
			const char *u = pick_unit(m, vo, v[i], h, &div);

			fprintf(f, "\n%s", output_label(m, v[i], 0, buf));
			for (int j = 1; j < m->nby; j++)
				fprintf(f, ", %s", output_label(m, v[i], j, buf));
			fputc('\n', f);
			if (vo->hist)
				write_hist_text(f, h, u, div);
			explain_write_text(f, m, v[i]);
		}
	}
}

/* --heatmap: the group's intervals so far, for the first groups shown. */
static void write_heatmap(FILE *f, const struct measurement *m, const struct view_opts *vo,
			  struct view_state *st,
			  const struct m_group *g, const struct hist *h, int i)
{
	char label[512] = "all";

	if (!vo->heatmap || !m->interval || i >= HEAT_MAX_GROUPS)
		return;
	if (g && m->nby) {
		FILE *l = fmemopen(label, sizeof(label), "w");

		if (!l)
			return;
		text_group_label(l, m, g, ", ");
		fclose(l);
	}
	if (heat_add(&st->heat, label, m->interval, h)) {
		kd_err("failed to keep the heatmap: %s", strerror(ENOMEM));
		return;
	}
	if (g && m->kind == M_FUNC)
		fprintf(f, "\n%s\n", label);
	heat_write(f, st->heat, label, m->kind == M_VALUE && m->value_unit ? m->value_unit : "ns");
}

static int write_text(FILE *f, const struct measurement *m, const struct view_opts *vo,
		      struct view_state *st, const struct m_group **v, int n)
{
	char dur[32];

	/* a short run in ms: "0.00 s" says nothing */
	if (m->duration_s < 1)
		snprintf(dur, sizeof(dur), "%.0f ms", m->duration_s * 1e3);
	else
		snprintf(dur, sizeof(dur), "%.2f s", m->duration_s);
	if (m->interval)
		fprintf(f, "\n[interval %d, %s] %s\n", m->interval, dur, m->title);
	else
		fprintf(f, "\n%s, %s\n", m->title, dur);
	if (!m->ngroups)
		fprintf(f, "no events\n");
	if (m->stacks && !vo->hist) {
		/* the heaviest stacks; --hist gives a histogram per stack */
		n = m->ngroups;
		stackview_write_top(f, m, vo, vo->all ? 0 : vo->top ? vo->top : TEXT_TOP);
		if (vo->heatmap) {
			struct hist all = { 0 }, hb;

			for (int i = 0; i < m->ngroups; i++)
				hist_merge(&all, output_group_hist(&m->groups[i], &hb));
			write_heatmap(f, m, vo, st, NULL, &all, 0);
		}
	} else if (m->counts) {
		text_counts(f, m, v, n);
	} else if (m->kind == M_FUNC) {
		write_func_table(f, m, v, n, vo);
		for (int i = 0; i < n; i++) {
			struct hist hb;

			write_heatmap(f, m, vo, st, v[i], output_group_hist(v[i], &hb), i);
		}
	} else if (st->table || (n < m->ngroups && !vo->hist && !vo->top)) {
		/* too many histograms for a screen: a row each, and a table
		 * for the rest of the run so intervals read alike */
		st->table = true;
		text_group_table(f, m, v, n);
		for (int i = 0; i < n; i++) {
			struct hist hb;

			write_heatmap(f, m, vo, st, v[i], output_group_hist(v[i], &hb), i);
		}
	} else {
		for (int i = 0; i < n; i++) {
			struct hist hb;
			const struct hist *h = output_group_hist(v[i], &hb);
			double div;
			const char *unit = pick_unit(m, vo, v[i], h, &div);

			if (m->nby) {
				fputc('\n', f);
				text_group_label(f, m, v[i], ", ");
				fputc('\n', f);
			}
			if (m->kind == M_VALUE && vo->linear.step)
				write_linear_text(f, h, &vo->linear, unit);
			else
				write_hist_text(f, h, unit, div);
			write_stats_text(f, m, h);
			explain_write_text(f, m, v[i]);
			write_heatmap(f, m, vo, st, v[i], h, i);
		}
	}
	text_more_groups(f, m, vo, st->table, v, n);
	write_drops_text(f, m);
	write_cost_text(f, m);
	return 0;
}

/* A cell a spreadsheet would run as a formula (= + - @, or a tab or CR
 * first, as OWASP lists them), unless it is a plain number. */
static bool csv_formula(const char *s)
{
	char *end;

	/* a lone "-" (the label of a group without a value) is text */
	if (!s || !s[0] || !strchr("=+-@\t\r", s[0]) || (s[0] == '-' && !s[1]))
		return false;
	strtod(s, &end);
	return end == s || *end;
}

void csv_field(FILE *f, const char *s)
{
	bool formula = csv_formula(s);

	/* quoted with a single quote first: the cell shows the text */
	if (s && (formula || strpbrk(s, ",\"\n\r"))) {
		fputs(formula ? "\"'" : "\"", f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s ? s : "", f);
	}
}

/* Whether a --by key's name is one of the columns every row has ("unit"
 * in --by unit): its column is then named by_NAME. */
static bool csv_column_taken(const char *name)
{
	static const char *const fixed[] = { "interval", "unit", "count", "sum", "mean", "stddev",
					     "min", "max" };

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!strcmp(name, fixed[i]))
			return true;
	for (int j = 0; j < HIST_NQUANTILES; j++)
		if (!strcmp(name, hist_shown[j].key))
			return true;
	return false;
}

static int write_csv(FILE *f, const struct measurement *m, const struct view_opts *vo,
		     struct view_state *st, const struct m_group **v, int n)
{
	char buf[128];

	if (m->kind == M_FUNC) {
		/* the columns function-trace post-processing gives */
		if (!st->header_done)
			fputs("function,calls,total_us,self_us,avg_us\n", f);
		st->header_done = true;
		for (int i = 0; i < n; i++) {
			struct hist hb;
		const struct hist *h = output_group_hist(v[i], &hb);

			csv_field(f, output_label(m, v[i], 0, buf));
			fprintf(f, ",%llu,%.3f,%.3f,%.3f\n", (unsigned long long)h->count,
				v[i]->total_ns / 1e3, v[i]->self_ns / 1e3, hist_mean(h) / 1e3);
		}
		return 0;
	}
	if (!st->header_done) {
		fputs("interval", f);
		for (int i = 0; i < m->nby; i++) {
			fputs(csv_column_taken(m->by[i]) ? ",by_" : ",", f);
			csv_field(f, m->by[i]);
		}
		/* counts have no values to sum or summarize */
		if (m->counts) {
			fputs(",count\n", f);
		} else {
			fputs(",unit,count,sum,mean,stddev,min", f);
			for (int j = 0; j < HIST_NQUANTILES; j++)
				fprintf(f, ",%s", hist_shown[j].key);
			fputs(",max\n", f);
		}
		st->header_done = true;
	}
	for (int i = 0; i < n; i++) {
		struct hist hb;
		const struct hist *h = output_group_hist(v[i], &hb);

		fprintf(f, "%d", m->interval);
		for (int j = 0; j < m->nby; j++) {
			fputc(',', f);
			csv_field(f, output_label(m, v[i], j, buf));
		}
		if (m->counts) {
			fprintf(f, ",%llu\n", (unsigned long long)h->count);
			continue;
		}
		fprintf(f, ",%s,%llu,%llu,%.1f,%.1f,%llu",
			m->kind == M_VALUE ? m->value_unit : "ns", (unsigned long long)h->count,
			(unsigned long long)h->sum, hist_mean(h), hist_stddev(h),
			(unsigned long long)h->min);
		for (int j = 0; j < HIST_NQUANTILES; j++)
			fprintf(f, ",%.1f", hist_quantile(h, hist_shown[j].q));
		fprintf(f, ",%llu\n", (unsigned long long)h->max);
	}
	/* rows are groups: the run-wide counters once per measurement, on
	 * stderr, when there was a loss */
	if (measurement_lost(m)) {
		fputs("kdist: ", stderr);
		write_drops_line(stderr, m, false);
	}
	return 0;
}

static int write_json(FILE *f, const struct measurement *m, const struct view_opts *vo,
		      struct view_state *st, const struct m_group **v, int n)
{
	json_write(f, m, v, n, vo->cmdline);
	return 0;
}

/* the page is written at the end, of every interval's JSON */
static int write_html(FILE *f, const struct measurement *m, const struct view_opts *vo,
		      struct view_state *st, const struct m_group **v, int n)
{
	if (!st->docs)
		st->docs = open_memstream(&st->docs_buf, &st->docs_len);
	if (!st->docs)
		return -ENOMEM;
	json_write(st->docs, m, v, n, vo->cmdline);
	return ferror(st->docs) ? -ENOMEM : 0;
}

static int end_html(FILE *f, struct view_state *st)
{
	int err = 0;

	if (!st->docs)
		return 0;
	if (fclose(st->docs))
		err = -ENOMEM;
	st->docs = NULL;
	if (!err)
		err = html_write(f, "the measurement", st->docs_buf, st->docs_len);
	free(st->docs_buf);
	st->docs_buf = NULL;
	return err;
}

static int write_markdown(FILE *f, const struct measurement *m, const struct view_opts *vo,
			  struct view_state *st, const struct m_group **v, int n)
{
	markdown_write(f, m, v, n);
	return 0;
}

/* folded stacks and the flame graph: every group, in stack order */
static int write_stacks(FILE *f, const struct measurement *m, const struct view_opts *vo,
			struct view_state *st, const struct m_group **v, int n)
{
	return stackview_write(f, m, vo);
}

/* pprof's profile.proto: one profile a file, the run's whole */
static int write_pprof(FILE *f, const struct measurement *m, const struct view_opts *vo,
		       struct view_state *st, const struct m_group **v, int n)
{
	return pprof_write(f, m);
}

/* The views: each named here only.  write gets the groups sorted as asked
 * (--sort), at most n of them (--top, the text view's first screen); end,
 * where a view keeps something over a run, writes it when the run ends. */
static const struct view {
	const char *name;
	enum out_format format;
	unsigned shows;		/* enum view_shows */
	int (*write)(FILE *f, const struct measurement *m, const struct view_opts *vo,
		     struct view_state *st, const struct m_group **v, int n);
	int (*end)(FILE *f, struct view_state *st);
} views[] = {
	{ "text", OUT_TEXT, VIEW_LIVE | VIEW_EVENTS | VIEW_DIFF | VIEW_FOLDED_DIFF,
	  write_text },
	{ "json", OUT_JSON, VIEW_LIVE | VIEW_EVENTS | VIEW_DIFF | VIEW_COST, write_json },
	{ "csv", OUT_CSV, VIEW_LIVE | VIEW_EVENTS | VIEW_DIFF, write_csv },
	{ "folded", OUT_FOLDED, VIEW_LIVE, write_stacks },
	{ "svg", OUT_SVG, VIEW_LIVE | VIEW_FOLDED_DIFF, write_stacks },
	{ "markdown", OUT_MARKDOWN, VIEW_DIFF, write_markdown },
	{ "html", OUT_HTML, VIEW_LIVE | VIEW_DIFF | VIEW_COST, write_html, end_html },
	{ "pprof", OUT_PPROF, VIEW_LIVE, write_pprof },
};

static const struct view *view_of(enum out_format f)
{
	for (size_t i = 0; i < ARRAY_SIZE(views); i++)
		if (views[i].format == f)
			return &views[i];
	return NULL;
}

const char *view_name(enum out_format f)
{
	const struct view *v = view_of(f);

	return v ? v->name : "?";
}

bool view_can(enum out_format f, enum view_shows what)
{
	const struct view *v = view_of(f);

	return v && (v->shows & what) == (unsigned)what;
}

const char *view_names(enum view_shows what, char *buf, size_t len)
{
	size_t n = 0, k = 0, off = 0;

	for (size_t i = 0; i < ARRAY_SIZE(views); i++)
		n += (views[i].shows & what) == (unsigned)what;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(views) && off < len; i++) {
		if ((views[i].shows & what) != (unsigned)what)
			continue;
		k++;
		off += snprintf(buf + off, len - off, "%s%s", k == 1 ? "" : k == n ? " or " : ", ",
				views[i].name);
	}
	return buf;
}

int output_parse_format(const char *s, enum out_format *f)
{
	char names[128];

	for (size_t i = 0; i < ARRAY_SIZE(views); i++) {
		if (!strcmp(s, views[i].name)) {
			*f = views[i].format;
			return 0;
		}
	}
	kd_err("bad output format '%s': expected %s", s, view_names(0, names, sizeof(names)));
	return -EINVAL;
}

int measurement_write(FILE *f, const struct measurement *m, struct view_opts *v)
{
	const struct view *view = view_of(v->format);
	const struct m_group **g;
	int n, err;

	if (!view)
		return -EINVAL;
	if (!v->state && !(v->state = calloc(1, sizeof(*v->state))))
		return -ENOMEM;
	g = sorted_groups(m, v->sort);
	if (!g)
		return -ENOMEM;
	n = v->top ? v->top : v->format == OUT_TEXT && !v->all ? TEXT_TOP : 0;
	if (!n || n > m->ngroups)
		n = m->ngroups;
	err = view->write(f, m, v, v->state, g, n);
	free(g);
	if (view->end)
		return err;	/* kept until the end: nothing written yet */
	/* a failed write leaves its cause (ENOSPC, EDQUOT...) in errno */
	return fflush(f) || ferror(f) ? (errno ? -errno : -EIO) : err;
}

int measurement_write_end(FILE *f, struct view_opts *v)
{
	const struct view *view = view_of(v->format);
	struct view_state *st = v->state;
	int err = 0;

	if (!st)
		return 0;
	if (view && view->end)
		err = view->end(f, st);
	heat_free(st->heat);
	free(st);
	v->state = NULL;
	return err;
}
