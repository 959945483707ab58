// SPDX-License-Identifier: GPL-2.0
/* kdist diff: the measurements read, matched group by group, and judged
 * (diff.h). */
#include "cmd/diff/diff.h"
#include "model/reader.h"
#include "view/format.h"
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

/* "a,b": the by-names */
static char *join_by(const struct measurement *m)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < m->nby; i++)
		fprintf(f, "%s%s", i ? "," : "", m->by[i]);
	return fclose(f) ? NULL : s;
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

/* A key value's identity: a named number by its number (the same syscall
 * matches across kernels that name it alike), a stack by its frames. */
static int put_value(struct text *k, const char *name, const struct m_value *v, const char *label)
{
	char num[32];
	int err = 0;

	if (v->type == MV_NAMED) {
		snprintf(num, sizeof(num), "%lld", (long long)v->named->num);
		return put3(k, name, "=", num);
	}
	if (v->type != MV_STACK)
		return put3(k, name, ":", label);
	err = put3(k, name, "=", "");
	for (unsigned int i = 0; i < v->stack->nframes && !err; i++) {
		const struct m_frame *f = &v->stack->frames[i];

		snprintf(num, sizeof(num), "%llx+%llx", (unsigned long long)f->addr,
			 (unsigned long long)f->offset);
		err = put3(k, i ? ";" : "", f->name, "@") ?:
		      put3(k, f->module ? f->module : "", ":", num);
	}
	return err;
}

/* The identity and label of a group: for each by-key, its value where the
 * measurement gives one, else its label. */
static int group_key(const struct measurement *m, const struct m_group *g, char **key,
		     char **label)
{
	static struct text k, l;
	int err = 0;

	k.len = l.len = 0;
	put3(&k, "", "", "");
	put3(&l, "", "", "");
	for (int i = 0; i < m->nby; i++) {
		char buf[128];
		const char *lab = fmt_value(&g->key[i], m->by_fmt[i], buf, sizeof(buf));

		err = err ?: put_value(&k, m->by[i], &g->key[i], lab) ?: put3(&k, "\x1f", "", "");
		err = err ?: put3(&l, i ? " " : "", lab, "");
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

/* "bad NAME: PATH is X, NAME is Y" when a later document of one file
 * differs from the first. */
static int same(const char *path, const char *what, const char *first, const char *now)
{
	if (!strcmp(first, now))
		return 0;
	kd_err("bad measurement %s: its documents differ in %s ('%s', then '%s')", path, what,
	       first, now);
	return -EINVAL;
}

static const char *kind_name(enum m_kind k)
{
	return k == M_FUNC ? "func" : k == M_VALUE ? "value" : "latency";
}

/* One document into m, its groups and drop counters added: the first sets
 * what the measurement is. */
static int add_doc(void *ctx, struct measurement *doc, const char *cmdline)
{
	struct dmeas *m = ctx;
	char *by = join_by(doc);
	int err = 0;

	if (!by)
		return -ENOMEM;
	if (!m->intervals++) {
		measurement_copy_header(&m->m, doc);
		m->command = strdup(doc->command);
		m->kind = strdup(kind_name(doc->kind));
		m->unit = strdup(doc->value_unit);
		m->kernel = strdup(doc->kernel ? doc->kernel : "");
		m->key = strdup(doc->key);
		m->by = by;
		if (!m->command || !m->kind || !m->unit || !m->kernel || !m->key)
			return -ENOMEM;
	} else {
		err = same(m->path, "command", m->command, doc->command) ?:
		      same(m->path, "kind", m->kind, kind_name(doc->kind)) ?:
		      same(m->path, "unit", m->unit, doc->value_unit) ?:
		      same(m->path, "key", m->key, doc->key) ?:
		      same(m->path, "by", m->by, by);
		free(by);
		if (err)
			return err;
	}
	m->duration += doc->duration_s;
	for (int i = 0; i < doc->ndrops; i++)
		measurement_add_drop(&m->m, doc->drops[i].name, doc->drops[i].value);
	return measurement_merge(&m->m, doc);
}

/* The groups of the measurement read, with their identities. */
static int list_groups(struct dmeas *m)
{
	m->n = m->m.ngroups;
	m->g = calloc(m->n + 1, sizeof(*m->g));
	if (!m->g)
		return -ENOMEM;
	for (int i = 0; i < m->n; i++) {
		const struct m_group *mg = &m->m.groups[i];
		struct dgroup *d = &m->g[i];
		int err = group_key(&m->m, mg, &d->key, &d->label);

		if (err)
			return err;
		d->mg = mg;
		d->h = mg->h;
		d->total = mg->total_ns;
		d->self = mg->self_ns;
	}
	return 0;
}

/* Every document of PATH's text (one, or JSON Lines from -i), or only the
 * one of interval `pick` (> 0), summed (model/reader.h). */
int diff_read_meas(struct dmeas *m, const char *path, char *text, size_t len, int pick)
{
	int n;

	m->path = path;
	n = measurement_read(path, text, len,
			     &(struct m_read){ .interval = pick, .fn = add_doc, .ctx = m });
	if (n < 0)
		return n;
	if (!n) {
		kd_err("bad --interval %d: %s has no such interval", pick, path);
		return -EINVAL;
	}
	m->lost = measurement_lost(&m->m);
	return list_groups(m);
}

void diff_free_meas(struct dmeas *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->g[i].key);
		free(m->g[i].label);
	}
	free(m->g);
	measurement_clear(&m->m);
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

			if (r->sig[u->stat] && (u->up ? p > u->pct : p < -u->pct)) {
				u->failed = d->failed = true;
				/* rows are sorted by change: the first is the largest */
				if (!u->nbroke++)
					u->first = r;
			}
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

