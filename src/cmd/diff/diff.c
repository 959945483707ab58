// SPDX-License-Identifier: GPL-2.0
/*
 * kdist diff BASE NEW: two measurements (their JSON), group by group, with a
 * verdict from a two-sample test on the histograms (diffstat.c).  Nothing
 * is loaded: it reads files only.  Exit status 0, 1 when a --fail-on rule
 * is passed by a significant change, 2 on bad input.
 */
#include "model/diffstat.h"
#include "view/flame.h"
#include "view/html.h"
#include "lib/jsondoc.h"
#include "lib/util.h"
#include "view/format.h"
#include "view/view.h"
#include "cmd/command.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_FAILED 1
#define EXIT_BAD 2

/* The statistics compared, in the order every view prints them. */
enum { S_COUNT, S_TOTAL, S_SELF, S_MEAN, S_P50, S_P90, S_P99, S_P999, NR_STATS };
static const char *const stat_names[NR_STATS] = { "count", "total", "self", "mean", "p50", "p90",
						   "p99", "p999" };
static const char *const stat_titles[NR_STATS] = { "count", "total", "self", "mean", "p50", "p90",
						    "p99", "p99.9" };
static const double stat_q[NR_STATS] = { [S_P50] = 0.5, [S_P90] = 0.9, [S_P99] = 0.99,
					  [S_P999] = 0.999 };

struct dgroup {
	char *key;		/* the group's identity: values where given, else labels */
	char *label;		/* labels joined by spaces, as the text view shows them */
	json_t *by, *values;	/* as read, for the JSON view */
	/* buckets lo .. hi only: a group of a few buckets takes their bytes,
	 * not the 2 KB of a whole histogram (docs/diff.md: memory) */
	struct m_hist h;
	double total, self;	/* func: inclusive and exclusive time */
};

struct dmeas {
	const char *path;
	char *command, *kind, *unit, *kernel, *key, *by;
	double duration;
	int intervals;		/* documents summed */
	struct dgroup *g;
	int n, cap;
	int *index;		/* 1 + position in g by key hash, open addressing */
	size_t isize;
};

/* The comparison of one group present in both. */
struct drow {
	struct dgroup *a, *b;
	double v[2][NR_STATS];	/* BASE, NEW */
	bool sig[NR_STATS];	/* a significant change of this statistic */
	struct mw_test t;
	bool tested;
	double count_z, count_p;
	int verdict;		/* +1 slower (larger), -1 faster (smaller), 0 none */
};

struct rule {
	int stat;
	bool up;		/* '>' : an increase of more than pct */
	double pct;
	const char *text;
	bool failed;
};

struct diff {
	struct dmeas m[2];
	struct drow *rows;
	int nrows;
	struct dgroup **only[2];	/* gone (BASE only), new (NEW only) */
	int nonly[2];
	bool rates;		/* durations differ: counts compared per second */
	double alpha, min_change;
	struct rule rules[8];
	int nrules;
	bool failed;
};

/* Every text of a document is printed in its text_escape form: a file
 * someone passes around holds no control of the reader's terminal. */
static char *xstrdup(const char *s)
{
	return doc_text(s ? s : "");
}

/* text of a string member, or NULL */
static const char *str_of(json_t *o, const char *name)
{
	return json_string_value(json_object_get(o, name));
}

/* "a,b" from a JSON array of strings */
static char *join_by(json_t *by)
{
	char *s = NULL;
	size_t len = 0, i;
	json_t *v;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	json_array_foreach(by, i, v) {
		char *t = xstrdup(json_string_value(v) ? json_string_value(v) : "?");

		fprintf(f, "%s%s", i ? "," : "", t ? t : "?");
		free(t);
	}
	fclose(f);
	return s;
}

/* A text built piece by piece in a buffer kept from group to group: a
 * memory stream per group left holes in the heap that nothing later fitted
 * (200,000 groups took 3 GB for 60 MB of live data). */
struct text {
	char *s;
	size_t len, cap;
};

static int put3(struct text *t, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (t->len + la + lb + lc + 1 > t->cap) {
		size_t cap = 2 * (t->len + la + lb + lc + 1);
		char *s = realloc(t->s, cap);

		if (!s)
			return -ENOMEM;
		t->s = s;
		t->cap = cap;
	}
	memcpy(t->s + t->len, a, la);
	memcpy(t->s + t->len + la, b, lb);
	memcpy(t->s + t->len + la + lb, c, lc + 1);
	t->len += la + lb + lc;
	return 0;
}

/* The identity and label of a group: for each by-key, its value where the
 * measurement gives one (so the same syscall matches across kernels that
 * name it alike), else its label. */
static int group_key(json_t *g, json_t *by, char **key, char **label)
{
	static struct text k, l;
	json_t *labels = json_object_get(g, "by"), *values = json_object_get(g, "values");
	json_t *name;
	size_t i;
	int err = 0;

	k.len = l.len = 0;
	put3(&k, "", "", "");
	put3(&l, "", "", "");
	json_array_foreach(by, i, name) {
		const char *n = json_string_value(name);
		json_t *v = values ? json_object_get(values, n) : NULL;
		char *lab = str_of(labels, n) ? xstrdup(str_of(labels, n)) : NULL;

		if (v) {
			char *d = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

			err = err ?: put3(&k, n, "=", d ? d : "") ?: put3(&k, "\x1f", "", "");
			free(d);
		} else
			err = err ?: put3(&k, n, ":", lab ? lab : "") ?: put3(&k, "\x1f", "", "");
		err = err ?: put3(&l, i ? " " : "", lab ? lab : "", "");
		free(lab);
	}
	*key = err || !k.s ? NULL : strdup(k.s);
	*label = err || !l.s ? NULL : strdup(l.s);
	if (!*key || !*label) {
		free(*key);
		free(*label);
		return -ENOMEM;
	}
	return 0;
}

static size_t key_slot(const struct dmeas *m, const char *key)
{
	uint64_t h = hash_bytes(key, strlen(key));

	for (size_t i = h & (m->isize - 1);; i = (i + 1) & (m->isize - 1))
		if (!m->index[i] || !strcmp(m->g[m->index[i] - 1].key, key))
			return i;
}

/* JSON Lines of many intervals add each group many times: found by hash,
 * not by a walk over the groups. */
static struct dgroup *find_group(struct dmeas *m, const char *key)
{
	int at = m->isize ? m->index[key_slot(m, key)] : 0;

	return at ? &m->g[at - 1] : NULL;
}

/* Index group n - 1, growing the index to keep it at most half full. */
static int index_group(struct dmeas *m)
{
	if ((size_t)m->n * 2 > m->isize) {
		size_t size = m->isize ? 2 * m->isize : 128;
		int *index = calloc(size, sizeof(*index));

		if (!index)
			return -ENOMEM;
		free(m->index);
		m->index = index;
		m->isize = size;
		for (int i = 0; i < m->n; i++)
			m->index[key_slot(m, m->g[i].key)] = i + 1;
		return 0;
	}
	m->index[key_slot(m, m->g[m->n - 1].key)] = m->n;
	return 0;
}

/* Add one group of a document into m: its buckets are the histogram's own,
 * so summing intervals is summing slots. */
static int add_group(struct dmeas *m, json_t *g, json_t *by)
{
	json_t *b, *buckets = json_object_get(g, "buckets");
	struct dgroup *d;
	struct hist h = { 0 };
	double total, self;
	char *key, *label;
	size_t i;
	int err = group_key(g, by, &key, &label);

	if (err)
		return err;
	if (!json_is_array(buckets) || !json_is_integer(json_object_get(g, "count"))) {
		free(key);
		free(label);
		return -EINVAL;
	}
	json_array_foreach(buckets, i, b) {
		json_int_t lo = json_integer_value(json_array_get(b, 0));
		json_int_t n = json_integer_value(json_array_get(b, 2));

		if (json_array_size(b) != 3 || lo < 0 || n < 0) {
			free(key);
			free(label);
			return -EINVAL;
		}
		h.slots[hist_index(lo)] += n;
	}
	h.count = json_integer_value(json_object_get(g, "count"));
	h.sum = json_integer_value(json_object_get(g, "sum"));
	h.min = json_integer_value(json_object_get(g, "min"));
	h.max = json_integer_value(json_object_get(g, "max"));
	total = json_number_value(json_object_get(g, "total"));
	self = json_number_value(json_object_get(g, "self"));
	d = find_group(m, key);
	if (d) {
		free(key);
		free(label);
		d->total += total;
		d->self += self;
		return m_hist_add(&d->h, &h);
	}
	if (m->n == m->cap) {
		int cap = m->cap ? 2 * m->cap : 64;
		void *p = realloc(m->g, cap * sizeof(*m->g));

		if (!p)
			return -ENOMEM;
		m->g = p;
		m->cap = cap;
	}
	d = &m->g[m->n++];
	*d = (struct dgroup){ key, label, json_incref(json_object_get(g, "by")),
			      json_incref(json_object_get(g, "values")), .total = total, .self = self };
	return m_hist_set(&d->h, &h) ?: index_group(m);
}

/* "bad NAME: PATH is X, NAME is Y" when a later document of one file
 * differs from the first. */
static int same(const char *path, const char *what, const char *first, const char *now)
{
	char *t = xstrdup(now);
	int err = !t ? -ENOMEM : strcmp(first, t) ? -EINVAL : 0;

	if (err == -EINVAL)
		kd_err("bad measurement %s: its documents differ in %s ('%s', then '%s')", path,
		       what, first, t);
	free(t);
	return err;
}

/* One document into m: the first sets what the measurement is. */
static int add_doc(struct dmeas *m, json_t *doc)
{
	json_t *by = json_object_get(doc, "by");
	char *byj;
	int err;

	/* nothing is concluded from a document that does not hold together */
	err = doc_check(m->path, doc, false, NULL);
	if (err)
		return err;
	byj = join_by(by);
	if (!byj)
		return -ENOMEM;
	if (!m->intervals++) {
		m->command = xstrdup(str_of(doc, "command"));
		m->kind = xstrdup(str_of(doc, "kind"));
		m->unit = xstrdup(str_of(doc, "unit"));
		m->kernel = xstrdup(str_of(doc, "kernel"));
		m->key = xstrdup(str_of(doc, "key"));
		m->by = byj;
	} else {
		err = same(m->path, "command", m->command, str_of(doc, "command")) ?:
		      same(m->path, "kind", m->kind, str_of(doc, "kind")) ?:
		      same(m->path, "unit", m->unit, str_of(doc, "unit")) ?:
		      same(m->path, "key", m->key, str_of(doc, "key")) ?:
		      same(m->path, "by", m->by, byj);
		free(byj);
		if (err)
			return err;
	}
	m->duration += json_number_value(json_object_get(doc, "duration_s"));
	return 0;
}

struct pick {
	struct dmeas *m;
	int interval;	/* > 0: only the document of this interval */
};

static int pick_doc(void *ctx, json_t *doc, const char *text, size_t len)
{
	struct pick *p = ctx;

	if (p->interval && json_integer_value(json_object_get(doc, "interval")) != p->interval)
		return 1;	/* nor its groups */
	return add_doc(p->m, doc);
}

static int pick_group(void *ctx, json_t *doc, json_t *g, size_t i)
{
	struct pick *p = ctx;

	return doc_check_group(p->m->path, doc, g, i) ?:
	       add_group(p->m, g, json_object_get(doc, "by"));
}

/* Every document of PATH's text (one, or JSON Lines from -i), or only the
 * one of interval `pick` (> 0). */
static int read_meas(struct dmeas *m, const char *path, const char *text, size_t len, int pick)
{
	struct pick p = { m, pick };
	int err;

	m->path = path;
	err = json_docs_parse(path, text, len, 0, pick_doc, pick_group, &p);
	if (!err && !m->intervals) {
		kd_err("bad --interval %d: %s has no such interval", pick, path);
		err = -EINVAL;
	}
	return err;
}

static void free_meas(struct dmeas *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->g[i].key);
		free(m->g[i].label);
		json_decref(m->g[i].by);
		json_decref(m->g[i].values);
		free(m->g[i].h.slots);
	}
	free(m->g);
	free(m->index);
	free(m->command);
	free(m->kind);
	free(m->unit);
	free(m->kernel);
	free(m->key);
	free(m->by);
}

/* Two measurements are compared only when they measured the same thing the
 * same way; one line names the first difference. */
static int check_match(struct diff *d)
{
	static const char *const what[] = { "command", "kind", "unit", "key", "by" };
	struct dmeas *a = &d->m[0], *b = &d->m[1];
	const char *va[] = { a->command, a->kind, a->unit, a->key, a->by };
	const char *vb[] = { b->command, b->kind, b->unit, b->key, b->by };

	for (size_t i = 0; i < ARRAY_SIZE(what); i++) {
		if (strcmp(va[i], vb[i])) {
			kd_err("bad comparison: different %s%s: BASE '%s', NEW '%s'", what[i],
			       i == 4 ? " keys" : "", va[i], vb[i]);
			return -EINVAL;
		}
	}
	if (strcmp(a->kernel, b->kernel))
		fprintf(stderr, "kdist: warning: different kernels: BASE %s, NEW %s\n", a->kernel,
			b->kernel);
	/* a run with -c lasts as long as its workload: a few percent apart is
	 * the same run length */
	if (fabs(a->duration - b->duration) > 0.05 * fmax(a->duration, b->duration)) {
		d->rates = true;
		fprintf(stderr, "kdist: warning: different durations: BASE %.3f s, NEW %.3f s; "
			"counts are compared per second\n", a->duration, b->duration);
	}
	return 0;
}

static int by_key(const void *x, const void *y)
{
	return strcmp(((const struct dgroup *)x)->key, ((const struct dgroup *)y)->key);
}

/* total and self are func's alone */
static bool shown(const struct diff *d, int s)
{
	return (s != S_TOTAL && s != S_SELF) || !strcmp(d->m[0].kind, "func");
}

static double pct(double a, double b)
{
	return a ? (b - a) / fabs(a) * 100 : b ? INFINITY : 0;
}

/* A statistic's change is significant when the test says NEW's values tend
 * to be larger (or smaller), the statistic goes that way by at least
 * --min-change, and the two estimates are apart by more than their own
 * uncertainty: for a percentile, the confidence intervals of the quantile
 * in BASE and NEW do not overlap (which also takes in the buckets' width,
 * and leaves a percentile with too few values beyond it unjudged); for the
 * mean, the difference exceeds its standard error times the critical z. */
static void judge_dist(struct diff *d, struct drow *r, const struct hist *ha,
		       const struct hist *hb)
{
	double z = z_critical(d->alpha);

	for (int s = S_MEAN; s < NR_STATS; s++) {
		double a = r->v[0][s], b = r->v[1][s];
		bool apart;

		if (s == S_MEAN) {
			apart = fabs(b - a) > z * hypot(mean_stderr(ha), mean_stderr(hb));
		} else {
			double alo, ahi, blo, bhi;

			quantile_ci(ha, stat_q[s], z, &alo, &ahi);
			quantile_ci(hb, stat_q[s], z, &blo, &bhi);
			apart = b > a ? blo > ahi : alo > bhi;
		}
		r->sig[s] = (b - a) * r->t.z > 0 && fabs(pct(a, b)) >= d->min_change && apart;
		if (r->sig[s])
			r->verdict = r->t.z > 0 ? 1 : -1;
	}
}

/* The mean or a percentile of a group present on one side only. */
static double g_stat(const struct dgroup *g, int s)
{
	struct hist h;

	m_hist_get(&g->h, &h);
	return s == S_MEAN ? hist_mean(&h) : hist_quantile(&h, stat_q[s]);
}

/* The statistics of one group, the tests and the verdict. */
static void judge(struct diff *d, struct drow *r)
{
	static const int parts[] = { S_COUNT, S_MEAN };
	struct hist h[2];
	double t;

	for (int k = 0; k < 2; k++) {
		const struct dgroup *g = k ? r->b : r->a;
		double dur = d->m[k].duration, per = d->rates && dur > 0 ? dur : 1;

		m_hist_get(&g->h, &h[k]);
		r->v[k][S_COUNT] = g->h.count / per;
		r->v[k][S_TOTAL] = g->total / per;
		r->v[k][S_SELF] = g->self / per;
		r->v[k][S_MEAN] = hist_mean(&h[k]);
		for (int s = S_P50; s < NR_STATS; s++)
			r->v[k][s] = hist_quantile(&h[k], stat_q[s]);
	}
	rate_test(r->a->h.count, d->rates ? d->m[0].duration : 1, r->b->h.count,
		  d->rates ? d->m[1].duration : 1, &r->count_z, &r->count_p);
	r->sig[S_COUNT] = r->count_p < d->alpha &&
			  fabs(pct(r->v[0][S_COUNT], r->v[1][S_COUNT])) >= d->min_change;
	r->tested = !mw_test(&h[0], &h[1], &r->t);
	if (r->tested && r->t.p < d->alpha)
		judge_dist(d, r, &h[0], &h[1]);
	/* a total is count x mean: it changed for real when one of them did,
	 * the same way; self time has no distribution to test */
	t = r->v[1][S_TOTAL] - r->v[0][S_TOTAL];
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		int s = parts[i];

		if (r->sig[s] && (r->v[1][s] - r->v[0][s]) * t > 0 &&
		    fabs(pct(r->v[0][S_TOTAL], r->v[1][S_TOTAL])) >= d->min_change)
			r->sig[S_TOTAL] = true;
	}
}

/* The largest significant change of a row, in percent (0: none). */
static double row_score(const struct drow *r)
{
	double best = 0;

	for (int s = S_MEAN; s < NR_STATS; s++) {
		double p = fabs(pct(r->v[0][s], r->v[1][s]));

		if (r->sig[s] && p > best)
			best = p;
	}
	return best;
}

/* largest significant change first, then the largest median change */
static int by_change(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	double sa = row_score(a), sb = row_score(b);
	double ma = fabs(pct(a->v[0][S_P50], a->v[1][S_P50]));
	double mb = fabs(pct(b->v[0][S_P50], b->v[1][S_P50]));

	if (sa != sb)
		return sa < sb ? 1 : -1;
	if (ma != mb)
		return ma < mb ? 1 : -1;
	return strcmp(a->a->label, b->a->label);
}

static int compare(struct diff *d)
{
	struct dmeas *a = &d->m[0], *b = &d->m[1];
	int i = 0, j = 0;

	/* a measurement may have no group (and no array) */
	if (a->n)
		qsort(a->g, a->n, sizeof(*a->g), by_key);
	if (b->n)
		qsort(b->g, b->n, sizeof(*b->g), by_key);
	d->rows = calloc(a->n + 1, sizeof(*d->rows));
	d->only[0] = calloc(a->n + 1, sizeof(*d->only[0]));
	d->only[1] = calloc(b->n + 1, sizeof(*d->only[1]));
	if (!d->rows || !d->only[0] || !d->only[1])
		return -ENOMEM;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->g[i].key, b->g[j].key);

		if (c < 0)
			d->only[0][d->nonly[0]++] = &a->g[i++];
		else if (c > 0)
			d->only[1][d->nonly[1]++] = &b->g[j++];
		else {
			struct drow *r = &d->rows[d->nrows++];

			r->a = &a->g[i++];
			r->b = &b->g[j++];
			judge(d, r);
		}
	}
	qsort(d->rows, d->nrows, sizeof(*d->rows), by_change);
	for (int k = 0; k < d->nrows; k++) {
		for (int n = 0; n < d->nrules; n++) {
			struct rule *u = &d->rules[n];
			struct drow *r = &d->rows[k];
			double p = pct(r->v[0][u->stat], r->v[1][u->stat]);

			if (r->sig[u->stat] && (u->up ? p > u->pct : p < -u->pct))
				u->failed = d->failed = true;
		}
	}
	return 0;
}

/* --fail-on RULE[,RULE...]: STAT>+PCT% or STAT<-PCT% */
static int parse_rules(struct diff *d, char *spec)
{
	char *save, *r;

	for (r = strtok_r(spec, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		struct rule *u = &d->rules[d->nrules];
		char *op = strpbrk(r, "<>"), *end;
		int s;

		if (d->nrules == (int)ARRAY_SIZE(d->rules) || !op)
			goto bad;
		for (s = 0; s < NR_STATS; s++) {
			if ((size_t)(op - r) == strlen(stat_names[s]) &&
			    !strncmp(r, stat_names[s], op - r))
				break;
		}
		u->up = *op == '>';
		if (s == NR_STATS || s == S_SELF || (op[1] == (u->up ? '-' : '+')))
			goto bad;
		errno = 0;
		u->pct = fabs(strtod(op + 1, &end));
		if (errno || end == op + 1 || strcmp(end, "%") || !u->pct)
			goto bad;
		u->stat = s;
		u->text = r;
		d->nrules++;
	}
	return 0;
bad:
	kd_err("bad --fail-on '%s': expected STAT>+PCT%% or STAT<-PCT%% "
	       "(STAT: count, total, mean, p50, p90, p99, p999)", r ? r : spec);
	return -EINVAL;
}

/* ---- views ---- */

static const char *verdict_name(int v)
{
	return v > 0 ? "slower" : v < 0 ? "faster" : "no significant change";
}

static const char *verdict_word(int v)
{
	return v > 0 ? "slower" : v < 0 ? "faster" : "none";
}

/* A value as text: times in their own unit, others with the measurement's. */
static void fmt_val(char *buf, size_t n, const struct diff *d, int s, double v)
{
	if (s == S_COUNT) {
		snprintf(buf, n, d->rates ? "%.4g/s" : "%.0f", v);
		return;
	}
	if (!strcmp(d->m[0].unit, "bytes")) {
		fmt_bytes(buf, n, v);
		return;
	}
	if (strcmp(d->m[0].unit, "ns")) {
		snprintf(buf, n, "%.4g %s", v, d->m[0].unit);
		return;
	}
	fmt_time(buf, n, v);
}

static void fmt_pct(char *buf, size_t n, double a, double b)
{
	double p = pct(a, b);

	if (isinf(p))
		snprintf(buf, n, "new");
	else
		snprintf(buf, n, "%+.1f%%", p);
}

/* "1.1ms→1.4ms +27.0%" */
static void fmt_cell(char *buf, size_t n, const struct diff *d, const struct drow *r, int s,
		     const char *arrow)
{
	char a[32], b[32], p[32];

	fmt_val(a, sizeof(a), d, s, r->v[0][s]);
	fmt_val(b, sizeof(b), d, s, r->v[1][s]);
	fmt_pct(p, sizeof(p), r->v[0][s], r->v[1][s]);
	snprintf(buf, n, "%s%s%s %s", a, arrow, b, p);
}

static void write_head(FILE *f, const struct diff *d)
{
	for (int k = 0; k < 2; k++) {
		const struct dmeas *m = &d->m[k];

		fprintf(f, "%-4s %s: %s, %d group%s, %.3f s", k ? "NEW" : "BASE", m->path,
			m->command, m->n, m->n == 1 ? "" : "s", m->duration);
		if (m->intervals > 1)
			fprintf(f, " (%d intervals summed)", m->intervals);
		fputc('\n', f);
	}
	fprintf(f, "Mann-Whitney U on the histograms, alpha %g, min change %g%%\n",
		d->alpha, d->min_change);
}

static void write_text(FILE *f, const struct diff *d)
{
	bool colour = isatty(fileno(f)) && !getenv("NO_COLOR") &&
		      !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb"));
	int w = 5;

	write_head(f, d);
	for (int i = 0; i < d->nrows; i++) {
		int l = strlen(d->rows[i].a->label);

		w = l > w ? l : w;
	}
	w = w > 40 ? 40 : w;
	fprintf(f, "\n%-*s  %-21s %-8s %-9s", w, "GROUP", "VERDICT", "P", "Z");
	for (int s = 0; s < NR_STATS; s++) {
		if (shown(d, s))
			fprintf(f, "  %-26s", stat_titles[s]);
	}
	fputc('\n', f);
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		const char *on = !colour || !r->verdict ? "" : r->verdict > 0 ? "\033[31m" :
			"\033[32m";

		fprintf(f, "%-*.*s  %s%-21s%s ", w, w, r->a->label[0] ? r->a->label : "(all)", on,
			verdict_name(r->verdict), on[0] ? "\033[0m" : "");
		if (r->tested)
			fprintf(f, "%-8.2g %-+9.2f", r->t.p, r->t.z);
		else
			fprintf(f, "%-8s %-9s", "-", "-");
		for (int s = 0; s < NR_STATS; s++) {
			char c[96];

			if (!shown(d, s))
				continue;
			fmt_cell(c, sizeof(c), d, r, s, "→");
			/* the arrow is 3 bytes and 1 column */
			fprintf(f, "  %s%-28s%s", r->sig[s] && on[0] ? on : "", c,
				r->sig[s] && on[0] ? "\033[0m" : "");
		}
		fputc('\n', f);
	}
	for (int k = 0; k < 2; k++) {
		if (!d->nonly[k])
			continue;
		fprintf(f, "\n%s (only in %s):\n", k ? "new" : "gone", k ? "NEW" : "BASE");
		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];
			char m[32];

			fmt_val(m, sizeof(m), d, S_P50, g_stat(g, S_P50));
			fprintf(f, "  %-*s  count %llu, p50 %s\n", w, g->label[0] ? g->label : "(all)",
				(unsigned long long)g->h.count, m);
		}
	}
	for (int n = 0; n < d->nrules; n++)
		fprintf(f, "%s--fail-on %s: %s\n", n ? "" : "\n", d->rules[n].text,
			d->rules[n].failed ? "FAILED" : "passed");
}

static void json_side(json_t *o, const char *name, const struct dmeas *m)
{
	json_object_set_new(o, name, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:i, s:i}",
		"file", m->path, "command", m->command, "kind", m->kind, "unit", m->unit,
		"kernel", m->kernel, "key", m->key, "by", m->by, "duration_s", m->duration,
		"intervals", m->intervals, "groups", m->n));
}

static json_t *json_group_id(const struct dgroup *g)
{
	json_t *o = json_object();

	json_object_set(o, "by", g->by ? g->by : json_object());
	if (g->values)
		json_object_set(o, "values", g->values);
	return o;
}

static int write_json(FILE *f, const struct diff *d)
{
	json_t *root = json_object(), *rows = json_array(), *rules = json_array();
	int err;

	json_object_set_new(root, "schema", json_string("kdist.diff/1"));
	json_side(root, "base", &d->m[0]);
	json_side(root, "new", &d->m[1]);
	json_object_set_new(root, "test", json_string("mann-whitney-u"));
	json_object_set_new(root, "alpha", json_real(d->alpha));
	json_object_set_new(root, "min_change_pct", json_real(d->min_change));
	json_object_set_new(root, "count_per_second", json_boolean(d->rates));
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		json_t *o = json_group_id(r->a);

		json_object_set_new(o, "verdict", json_string(verdict_word(r->verdict)));
		if (r->tested)
			json_object_set_new(o, "test", json_pack("{s:f, s:f, s:f, s:f}", "u", r->t.u,
				"z", r->t.z, "p", r->t.p, "auc", r->t.auc));
		else
			json_object_set_new(o, "test", json_null());
		for (int s = 0; s < NR_STATS; s++) {
			double a = r->v[0][s], b = r->v[1][s], p = pct(a, b);

			if (!shown(d, s))
				continue;
			json_object_set_new(o, stat_names[s], json_pack("{s:f, s:f, s:f, s:o, s:b}",
				"base", a, "new", b, "change", b - a,
				"change_pct", isinf(p) ? json_null() : json_real(p),
				"significant", r->sig[s]));
		}
		json_object_set_new(o, "count_test", json_pack("{s:f, s:f}", "z", r->count_z,
			"p", r->count_p));
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "groups", rows);
	for (int k = 0; k < 2; k++) {
		json_t *only = json_array();

		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];
			json_t *o = json_group_id(g);

			json_object_set_new(o, "count", json_integer(g->h.count));
			json_object_set_new(o, "p50", json_real(g_stat(g, S_P50)));
			json_array_append_new(only, o);
		}
		json_object_set_new(root, k ? "new_groups" : "gone_groups", only);
	}
	for (int n = 0; n < d->nrules; n++)
		json_array_append_new(rules, json_pack("{s:s, s:b}", "rule", d->rules[n].text,
						       "failed", d->rules[n].failed));
	json_object_set_new(root, "fail_on", rules);
	json_object_set_new(root, "failed", json_boolean(d->failed));
	err = json_dumpf(root, f, JSON_COMPACT | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return err ? -EIO : 0;
}

/* The page of the comparison: its JSON, drawn by html.c's page. */
static int write_html(FILE *f, const struct diff *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *j = open_memstream(&buf, &len);
	int err;

	if (!j)
		return -ENOMEM;
	err = write_json(j, d);
	if (fclose(j) && !err)
		err = -ENOMEM;
	if (!err)
		err = html_write(f, "the comparison", buf, len);
	free(buf);
	return err;
}

static void write_csv(FILE *f, const struct diff *d)
{
	fputs("group,verdict,p,z", f);
	for (int s = 0; s < NR_STATS; s++) {
		if (shown(d, s))
			fprintf(f, ",%s_base,%s_new,%s_change_pct,%s_significant", stat_names[s],
				stat_names[s], stat_names[s], stat_names[s]);
	}
	fputc('\n', f);
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];

		csv_field(f, r->a->label);
		fprintf(f, ",%s,", verdict_word(r->verdict));
		if (r->tested)
			fprintf(f, "%.6g,%.4f", r->t.p, r->t.z);
		else
			fputc(',', f);
		for (int s = 0; s < NR_STATS; s++) {
			double p = pct(r->v[0][s], r->v[1][s]);

			if (!shown(d, s))
				continue;
			fprintf(f, ",%.10g,%.10g,", r->v[0][s], r->v[1][s]);
			if (!isinf(p))
				fprintf(f, "%.2f", p);
			fprintf(f, ",%d", r->sig[s]);
		}
		fputc('\n', f);
	}
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];

			csv_field(f, g->label);
			fprintf(f, ",%s,,", k ? "new" : "gone");
			for (int s = 0; s < NR_STATS; s++) {
				double v = s == S_COUNT ? g->h.count : s == S_TOTAL ? g->total :
					   s == S_SELF ? g->self : g_stat(g, s);

				if (!shown(d, s))
					continue;
				fprintf(f, k ? ",,%.10g,,0" : ",%.10g,,,0", v);
			}
			fputc('\n', f);
		}
	}
}

/* A label in a table cell: '|' would end the cell, and markdown renders
 * raw HTML (labels hold no newline: they are in text_escape form). */
static void md_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else {
			if (strchr("|\\`*_[]", *s))
				fputc('\\', f);
			fputc(*s, f);
		}
	}
}

static void write_markdown(FILE *f, const struct diff *d)
{
	fputs("| group | verdict | p |", f);
	for (int s = 0; s < NR_STATS; s++) {
		if (shown(d, s))
			fprintf(f, " %s |", stat_titles[s]);
	}
	fputs("\n|---|---|---|", f);
	for (int s = 0; s < NR_STATS; s++) {
		if (shown(d, s))
			fputs("---|", f);
	}
	fputc('\n', f);
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];

		fputs("| ", f);
		md_str(f, r->a->label[0] ? r->a->label : "(all)");
		fprintf(f, " | %s%s%s |", r->verdict ? "**" : "", verdict_name(r->verdict),
			r->verdict ? "**" : "");
		if (r->tested)
			fprintf(f, " %.2g |", r->t.p);
		else
			fputs(" - |", f);
		for (int s = 0; s < NR_STATS; s++) {
			char c[96];

			if (!shown(d, s))
				continue;
			fmt_cell(c, sizeof(c), d, r, s, " → ");
			fprintf(f, " %s%s%s |", r->sig[s] ? "**" : "", c, r->sig[s] ? "**" : "");
		}
		fputc('\n', f);
	}
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];

			fputs("| ", f);
			md_str(f, g->label[0] ? g->label : "(all)");
			fprintf(f, " | %s | | count %llu |", k ? "new" : "gone",
				(unsigned long long)g->h.count);
			for (int s = 1; s < NR_STATS; s++) {
				if (shown(d, s))
					fputs(" |", f);
			}
			fputc('\n', f);
		}
	}
	fprintf(f, "\nMann-Whitney U on the histograms, alpha %g, min change %g%%; BASE %s, NEW %s.\n",
		d->alpha, d->min_change, d->m[0].path, d->m[1].path);
}

/* ---- folded stacks ---- */

/* A file of folded stacks, not JSON: its first character is not '{'. */
static bool is_folded(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	return i < len && text[i] != '{';
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
static int diff_folded(struct options *o, char *const text[2], const size_t len[2], FILE *out)
{
	const char *path[2] = { o->args[0], o->args[1] };
	struct flame *fl[2] = { flame_new(), flame_new() };
	char sub[512];
	int err = 0;

	if (o->view.format != OUT_TEXT && o->view.format != OUT_SVG) {
		kd_err("bad output format for folded stacks: expected text or svg");
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

static int run(struct options *o)
{
	struct diff d = { .alpha = o->alpha ? o->alpha : 0.01,
			  .min_change = o->min_change_set ? o->min_change : 5 };
	char *rules = o->fail_on ? strdup(o->fail_on) : NULL;
	char *text[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	bool folded[2];
	int pick = 0, err = 0;
	FILE *out = stdout;

	if (o->nargs != 2) {
		kd_err("bad arguments: expected BASE and NEW, two kdist JSON measurements");
		err = -EINVAL;
		goto bad;
	}
	if (o->interval) {
		pick = (int)o->interval;
		if (pick != o->interval) {
			kd_err("bad --interval %g: expected an interval number 1, 2, ...", o->interval);
			err = -EINVAL;
			goto bad;
		}
	}
	/* read once, bounded: /dev/zero or a FIFO without a writer never ends */
	for (int k = 0; k < 2; k++) {
		err = doc_read(o->args[k], &text[k], &len[k]);
		if (err)
			goto bad;
		folded[k] = is_folded(text[k], len[k]);
	}
	if (folded[0] != folded[1]) {
		kd_err("bad comparison: different formats: BASE %s, NEW %s",
		       folded[0] ? "folded stacks" : "a JSON measurement",
		       folded[1] ? "folded stacks" : "a JSON measurement");
		err = -EINVAL;
		goto bad;
	}
	if (folded[0]) {
		if (o->output && !(out = fopen(o->output, "w"))) {
			err = -errno;
			kd_err("failed to open '%s': %s", o->output, strerror(errno));
			goto bad;
		}
		err = diff_folded(o, text, len, out);
		goto written;
	}
	if (o->view.format != OUT_TEXT && o->view.format != OUT_JSON &&
	    o->view.format != OUT_CSV && o->view.format != OUT_MARKDOWN &&
	    o->view.format != OUT_HTML) {
		kd_err("bad output format for diff: expected text, json, csv, markdown or html");
		err = -EINVAL;
		goto bad;
	}
	if (rules && (err = parse_rules(&d, rules)))
		goto bad;
	err = read_meas(&d.m[0], o->args[0], text[0], len[0], pick) ?:
	      read_meas(&d.m[1], o->args[1], text[1], len[1], pick) ?: check_match(&d);
	if (err)
		goto bad;
	err = compare(&d);
	if (err)
		goto bad;
	if (o->output && !(out = fopen(o->output, "w"))) {
		err = -errno;
		kd_err("failed to open '%s': %s", o->output, strerror(errno));
		goto bad;
	}
	switch (o->view.format) {
	case OUT_JSON: err = write_json(out, &d); break;
	case OUT_CSV: write_csv(out, &d); break;
	case OUT_MARKDOWN: write_markdown(out, &d); break;
	case OUT_HTML: err = write_html(out, &d); break;
	default: write_text(out, &d); break;
	}
written:
	if (fflush(out) || ferror(out)) {
		kd_err("failed to write output: %s", strerror(errno));
		err = -EIO;
	}
	if (out != stdout)
		fclose(out);
bad:
	free(d.rows);
	free(d.only[0]);
	free(d.only[1]);
	free_meas(&d.m[0]);
	free_meas(&d.m[1]);
	free(rules);
	free(text[0]);
	free(text[1]);
	/* the exit status itself: CI reads 1 as "regressed", 2 as "could not tell" */
	return err ? EXIT_BAD : d.failed ? EXIT_FAILED : 0;
}

const struct command cmd_diff = {
	.name = "diff",
	.args = "BASE NEW",
	.summary = "compare two measurements (-o json) group by group with a verdict, or two -o folded",
	.opts = OPT(INTERVAL) | OPT(FORMAT) | OPT(OUTPUT) | OPT(TOP) | OPT(ALPHA) |
		OPT(MIN_CHANGE) | OPT(FAIL_ON),
	.caps = CMD_INTERVAL_INDEX,
	.run = run,
};
