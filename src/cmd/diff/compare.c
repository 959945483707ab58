// SPDX-License-Identifier: GPL-2.0
/* kdist diff: the measurements read, matched group by group, and judged
 * (diff.h). */
#include "cmd/diff/diff.h"
#include "lib/jsondoc.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const stat_names[NR_STATS] = { "count", "total", "self", "mean", "p50", "p90",
						   "p99", "p999" };
const char *const stat_titles[NR_STATS] = { "count", "total", "self", "mean", "p50", "p90",
						    "p99", "p99.9" };
const double stat_q[NR_STATS] = { [S_P50] = 0.5, [S_P90] = 0.9, [S_P99] = 0.99,
					  [S_P999] = 0.999 };

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
int diff_read_meas(struct dmeas *m, const char *path, const char *text, size_t len, int pick)
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

void diff_free_meas(struct dmeas *m)
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
int diff_check_match(struct diff *d)
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
bool diff_shown(const struct diff *d, int s)
{
	return (s != S_TOTAL && s != S_SELF) || !strcmp(d->m[0].kind, "func");
}

double diff_pct(double a, double b)
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
		r->sig[s] = (b - a) * r->t.z > 0 && fabs(diff_pct(a, b)) >= d->min_change && apart;
		if (r->sig[s])
			r->verdict = r->t.z > 0 ? 1 : -1;
	}
}

/* The mean or a percentile of a group present on one side only. */
double diff_g_stat(const struct dgroup *g, int s)
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
			  fabs(diff_pct(r->v[0][S_COUNT], r->v[1][S_COUNT])) >= d->min_change;
	r->tested = !mw_test(&h[0], &h[1], &r->t);
	if (r->tested && r->t.p < d->alpha)
		judge_dist(d, r, &h[0], &h[1]);
	/* a total is count x mean: it changed for real when one of them did,
	 * the same way; self time has no distribution to test */
	t = r->v[1][S_TOTAL] - r->v[0][S_TOTAL];
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		int s = parts[i];

		if (r->sig[s] && (r->v[1][s] - r->v[0][s]) * t > 0 &&
		    fabs(diff_pct(r->v[0][S_TOTAL], r->v[1][S_TOTAL])) >= d->min_change)
			r->sig[S_TOTAL] = true;
	}
}

/* The largest significant change of a row, in percent (0: none). */
static double row_score(const struct drow *r)
{
	double best = 0;

	for (int s = S_MEAN; s < NR_STATS; s++) {
		double p = fabs(diff_pct(r->v[0][s], r->v[1][s]));

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
	double ma = fabs(diff_pct(a->v[0][S_P50], a->v[1][S_P50]));
	double mb = fabs(diff_pct(b->v[0][S_P50], b->v[1][S_P50]));

	if (sa != sb)
		return sa < sb ? 1 : -1;
	if (ma != mb)
		return ma < mb ? 1 : -1;
	return strcmp(a->a->label, b->a->label);
}

int diff_compare(struct diff *d)
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
			double p = diff_pct(r->v[0][u->stat], r->v[1][u->stat]);

			if (r->sig[u->stat] && (u->up ? p > u->pct : p < -u->pct))
				u->failed = d->failed = true;
		}
	}
	return 0;
}

/* --fail-on RULE[,RULE...]: STAT>+PCT% or STAT<-PCT% */
int diff_parse_rules(struct diff *d, char *spec)
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

