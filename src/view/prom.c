// SPDX-License-Identifier: GPL-2.0
/* The Prometheus view: see prom.h. */
#include "view/prom.h"
#include "lib/util.h"
#include "view/format.h"
#include "model/explain.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOG2_LAT_FIRST 8	/* 2^8-1 ns = 255 ns */
#define LOG2_LAT_LAST 35	/* 2^35-1 ns = 34.4 s */
#define LOG2_VAL_LAST 40	/* 2^40-1: a TiB */

int prom_buckets_parse(const char *s, struct prom_buckets *b, const char *what)
{
	const char *p = s;

	memset(b, 0, sizeof(*b));
	if (!strcmp(s, "log2")) {
		b->log2 = true;
		return 0;
	}
	while (*p) {
		char *end;
		double v;

		errno = 0;
		v = strtod(p, &end);
		if (errno || end == p || (*end && *end != ',') || !(v > 0) || isinf(v) ||
		    (b->n && v <= b->le[b->n - 1]) || b->n == PROM_MAX_BUCKETS) {
			kd_err("bad %s '%s': expected 'log2' or up to %d ascending numbers > 0, "
			       "e.g. 0.0001,0.001,0.01", what, s, PROM_MAX_BUCKETS);
			return -EINVAL;
		}
		b->le[b->n++] = v;
		p = *end ? end + 1 : end;
	}
	if (!b->n) {
		kd_err("bad %s '%s': no bounds", what, s);
		return -EINVAL;
	}
	return 0;
}

const char *prom_label_text(const char *s, char *buf, size_t size, char **alloc)
{
	size_t len = strlen(s), n;

	*alloc = NULL;
	/* Prometheus refuses a scrape with one label value that is not UTF-8
	 * (and marks the target down until the series goes): the project's
	 * escape first, so that every byte a name holds comes out as text;
	 * names from the measurement are in that form already */
	if (text_is_escaped(s, len))
		return s;
	n = text_escape(buf, size, s, len);
	if (n >= size && (*alloc = malloc(n + 1)))
		text_escape(*alloc, n + 1, s, len);
	return *alloc ? *alloc : buf;
}

static void label_value(FILE *f, const char *s)
{
	char buf[1024], *alloc;

	for (const char *c = prom_label_text(s, buf, sizeof(buf), &alloc); *c; c++) {
		if (*c == '\\' || *c == '"')
			fprintf(f, "\\%c", *c);
		else
			fputc(*c, f);
	}
	free(alloc);
}

static void help_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* client_model's metrics.proto: MetricType, and the fields written */
enum { PB_COUNTER = 0, PB_GAUGE = 1, PB_HISTOGRAM = 4 };
enum {
	MF_NAME = 1, MF_HELP = 2, MF_TYPE = 3, MF_METRIC = 4, MF_UNIT = 5,	/* MetricFamily */
	MT_LABEL = 1, MT_GAUGE = 2, MT_COUNTER = 3, MT_HISTOGRAM = 7,		/* Metric */
	LP_NAME = 1, LP_VALUE = 2,						/* LabelPair */
	VAL_VALUE = 1,								/* Gauge, Counter */
	H_COUNT = 1, H_SUM = 2, H_BUCKET = 3, H_SCHEMA = 5, H_ZERO_THRESHOLD = 6,
	H_ZERO_COUNT = 7, H_POS_SPAN = 12, H_POS_DELTA = 13, H_EXEMPLARS = 16,	/* Histogram */
	B_CUMULATIVE = 1, B_UPPER = 2, B_EXEMPLAR = 3,				/* Bucket */
	EX_VALUE = 2, EX_TIMESTAMP = 3,		/* Exemplar (its label: field 1, as MT_LABEL) */
	TS_SECONDS = 1, TS_NANOS = 2,				/* google.protobuf.Timestamp */
	SPAN_OFFSET = 1, SPAN_LENGTH = 2,					/* BucketSpan */
};

static void pb_close(struct prom_out *o)
{
	if (o->fmt == PROM_PROTOBUF && o->open)
		pb_end(&o->pb);
	o->open = false;
}

void prom_family(struct prom_out *o, const char *name, const char *type, const char *help,
		 const char *unit)
{
	bool om = o->fmt == PROM_OPENMETRICS;
	const char *suffix = "";
	char full[256];

	snprintf(o->sample, sizeof(o->sample), "%s%s", name,
		 !strcmp(type, "counter") ? "_total" : !strcmp(type, "info") ? "_info" : "");
	if (o->fmt != PROM_OPENMETRICS && !strcmp(type, "counter"))
		suffix = "_total";
	if (!strcmp(type, "info") && !om) {
		suffix = "_info";
		type = "gauge";
	}
	if (o->fmt == PROM_PROTOBUF) {
		pb_close(o);
		snprintf(full, sizeof(full), "%s%s", name, suffix);
		o->type = !strcmp(type, "counter") ? PB_COUNTER :
			  !strcmp(type, "histogram") ? PB_HISTOGRAM : PB_GAUGE;
		pb_begin(&o->pb, PB_DELIMITED);
		pb_string(&o->pb, MF_NAME, full);
		pb_string(&o->pb, MF_HELP, help);
		pb_varint(&o->pb, MF_TYPE, o->type);
		if (unit)
			pb_string(&o->pb, MF_UNIT, unit);
		o->open = true;
		return;
	}
	fprintf(o->f, "# HELP %s%s ", name, suffix);
	help_text(o->f, help);
	fprintf(o->f, "\n# TYPE %s%s %s\n", name, suffix, type);
	if (om && unit)
		fprintf(o->f, "# UNIT %s %s\n", name, unit);
}

static void pb_labels(struct pb *pb, const struct prom_label *l, int nl)
{
	char buf[1024], *alloc;

	for (int i = 0; i < nl; i++) {
		pb_begin(pb, MT_LABEL);
		pb_string(pb, LP_NAME, l[i].name);
		pb_string(pb, LP_VALUE, prom_label_text(l[i].value, buf, sizeof(buf), &alloc));
		free(alloc);
		pb_end(pb);
	}
}

/* name{labels} in text; extra (NULL: none) is one more label, written
 * as it is (le="..."). */
static void text_series(FILE *f, const char *name, const struct prom_label *l, int nl,
			const char *extra)
{
	fputs(name, f);
	if (!nl && !extra)
		return;
	fputc('{', f);
	for (int i = 0; i < nl; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "", l[i].name);
		label_value(f, l[i].value);
		fputc('"', f);
	}
	if (extra)
		fprintf(f, "%s%s", nl ? "," : "", extra);
	fputc('}', f);
}

/* ns as seconds, exactly: "0.000000255", "1.5", "34.359738367". */
static char *seconds_str(char *buf, size_t size, uint64_t ns)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	snprintf(buf, size, "%" PRIu64 "%s%s", ns / 1000000000, n ? "." : "", frac);
	return buf;
}

static void write_seconds(FILE *f, uint64_t ns)
{
	char buf[48];

	fputs(seconds_str(buf, sizeof(buf), ns), f);
}

/* A value in the exposition's unit: seconds for latencies (raw is ns). */
static char *value_str(char *buf, size_t size, double raw, bool latency)
{
	if (latency && raw >= 0 && raw < 1.8e19 && raw == floor(raw))
		return seconds_str(buf, size, (uint64_t)raw);
	snprintf(buf, size, "%.15g", latency ? raw / 1e9 : raw);
	return buf;
}

/* The bucket bounds of b for kind, in raw units (ns for latencies). */
static int raw_bounds(const struct prom_buckets *b, bool latency, double *out)
{
	int n = 0;

	if (!b->log2) {
		for (int i = 0; i < b->n; i++)
			out[n++] = latency ? llround(b->le[i] * 1e9) : b->le[i];
		return n;
	}
	for (int k = latency ? LOG2_LAT_FIRST : 0; k <= (latency ? LOG2_LAT_LAST : LOG2_VAL_LAST);
	     k++)
		out[n++] = (double)((1ULL << k) - 1);
	return n;
}

/* Label names: the --by names up to a ':' formatter, made valid. */
static void label_names(const struct measurement *m, char names[M_MAX_BY][64])
{
	for (int i = 0; i < m->nby; i++) {
		char *p = names[i];
		size_t n;

		snprintf(p, 64, "%s%s", m->by[i][0] >= '0' && m->by[i][0] <= '9' ? "_" : "",
			 m->by[i]);
		p[strcspn(p, ":")] = '\0';
		for (char *c = p; *c; c++) {
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '_'))
				*c = '_';
		}
		/* le is the bucket's; __ names are Prometheus' own */
		if (!p[0] || !strcmp(p, "le") || !strncmp(p, "__", 2))
			memmove(p + 2, p, strlen(p) + 1), memcpy(p, "k_", 2);
		for (int j = 0; j < i; j++) {
			n = strlen(p);
			if (!strcmp(names[j], p) && n < 60)
				snprintf(p + n, 64 - n, "_%d", i + 1);
		}
	}
}

void prom_sample(struct prom_out *o, const struct prom_label *l, int nl, double v)
{
	if (o->fmt != PROM_PROTOBUF) {
		text_series(o->f, o->sample, l, nl, NULL);
		if (v == floor(v) && fabs(v) < 1e15)
			fprintf(o->f, " %.0f\n", v);
		else
			fprintf(o->f, " %.15g\n", v);
		return;
	}
	pb_begin(&o->pb, MF_METRIC);
	pb_labels(&o->pb, l, nl);
	pb_begin(&o->pb, o->type == PB_COUNTER ? MT_COUNTER : MT_GAUGE);
	pb_double(&o->pb, VAL_VALUE, v);
	pb_end(&o->pb);
	pb_end(&o->pb);
}

void prom_sample_ns(struct prom_out *o, const struct prom_label *l, int nl, uint64_t ns)
{
	if (o->fmt == PROM_PROTOBUF) {
		prom_sample(o, l, nl, ns / 1e9);
		return;
	}
	text_series(o->f, o->sample, l, nl, NULL);
	fputc(' ', o->f);
	write_seconds(o->f, ns);
	fputc('\n', o->f);
}

int prom_end(struct prom_out *o)
{
	pb_close(o);
	if (o->fmt == PROM_OPENMETRICS)
		fputs("# EOF\n", o->f);
	return o->pb.oom ? -ENOMEM : 0;
}

int prom_native(const struct hist *h, bool latency, uint64_t *zero, int32_t *idx,
		uint64_t *count, int max)
{
	int n = 0;

	*zero = h->slots[0];
	for (unsigned int i = 1; i < HIST_BUCKETS; i++) {
		double mid = (hist_bucket_low(i) + (double)hist_bucket_high(i)) / 2;
		int32_t b;

		if (!h->slots[i])
			continue;
		/* bucket b holds (2^((b-1)/16), 2^(b/16)] */
		b = (int32_t)ceil(log2(latency ? mid / 1e9 : mid) * (1 << PROM_SCHEMA));
		if (n && idx[n - 1] == b) {
			count[n - 1] += h->slots[i];
		} else if (n < max) {
			idx[n] = b;
			count[n++] = h->slots[i];
		}
	}
	return n;
}

/* The native part of a Histogram message: schema, zero bucket, spans and
 * deltas of the positive buckets. */
static void pb_native(struct pb *pb, const struct hist *h, bool latency)
{
	int32_t idx[HIST_BUCKETS];
	uint64_t count[HIST_BUCKETS], zero, prev = 0;
	int n = prom_native(h, latency, &zero, idx, count, HIST_BUCKETS), i, j;

	pb_sint(pb, H_SCHEMA, PROM_SCHEMA);
	/* values of 0 only: the smallest value kdist counts above it is 1 ns
	 * (or 1), and Prometheus' own default threshold is 2^-128 */
	pb_double(pb, H_ZERO_THRESHOLD, ldexp(1, -128));
	pb_varint(pb, H_ZERO_COUNT, zero);
	if (!n) {
		/* a no-op span: native even before its first value */
		pb_begin(pb, H_POS_SPAN);
		pb_end(pb);
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && idx[j] == idx[j - 1] + 1; j++)
			;
		pb_begin(pb, H_POS_SPAN);
		pb_sint(pb, SPAN_OFFSET, i ? idx[i] - idx[i - 1] - 1 : idx[0]);
		pb_varint(pb, SPAN_LENGTH, j - i);
		pb_end(pb);
	}
	if (!n)
		return;
	pb_begin(pb, H_POS_DELTA);
	for (i = 0; i < n; i++) {
		pb_raw_sint(pb, (int64_t)(count[i] - prev));
		prev = count[i];
	}
	pb_end(pb);
}

/* An exemplar's labels: the task its event ended in. */
static int exemplar_labels(const struct m_exemplar *x, struct prom_label *l, char pid[2][16])
{
	snprintf(pid[0], sizeof(pid[0]), "%u", x->pid);
	snprintf(pid[1], sizeof(pid[1]), "%u", x->tid);
	l[0] = (struct prom_label){ "comm", x->comm };
	l[1] = (struct prom_label){ "pid", pid[0] };
	l[2] = (struct prom_label){ "tid", pid[1] };
	return 3;
}

/* An Exemplar message as field `field` (a classic bucket's, or one of a
 * native histogram's). */
static void pb_exemplar(struct pb *pb, int field, const struct m_exemplar *x, bool latency)
{
	struct prom_label l[3];
	char pid[2][16];
	int nl = exemplar_labels(x, l, pid);

	pb_begin(pb, field);
	pb_labels(pb, l, nl);	/* Exemplar's label is field 1, as Metric's */
	pb_double(pb, EX_VALUE, latency ? x->value / 1e9 : (double)x->value);
	pb_begin(pb, EX_TIMESTAMP);
	pb_varint(pb, TS_SECONDS, (uint64_t)x->unix_s);
	pb_varint(pb, TS_NANOS, (uint64_t)((x->unix_s - floor(x->unix_s)) * 1e9));
	pb_end(pb);
	pb_end(pb);
}

/* OpenMetrics: " # {labels} value timestamp" after a bucket's count. */
static void text_exemplar(FILE *f, const struct m_exemplar *x, bool latency)
{
	struct prom_label l[3];
	char pid[2][16];
	int nl = exemplar_labels(x, l, pid);

	fputs(" # ", f);
	text_series(f, "", l, nl, NULL);
	fputc(' ', f);
	if (latency)
		write_seconds(f, x->value);
	else
		fprintf(f, "%" PRIu64, x->value);
	fprintf(f, " %.3f", x->unix_s);
}

/* One label set's histogram: classic buckets at le[] (raw units), sum and
 * count; in protobuf the native buckets too.  ex (NULL or value 0: none):
 * its exemplar, on the bucket that holds its value (OpenMetrics, protobuf). */
static void write_hist(struct prom_out *o, const char *fam, const struct hist *h, bool latency,
		       const struct prom_label *l, int nl, const double *le, int nle,
		       const struct m_exemplar *ex)
{
	bool ex_due = ex && ex->value && o->fmt != PROM_TEXT;
	uint64_t cum = 0;
	unsigned int i = 0;
	char name[200], extra[64], num[48];

	if (o->fmt == PROM_PROTOBUF) {
		pb_begin(&o->pb, MF_METRIC);
		pb_labels(&o->pb, l, nl);
		pb_begin(&o->pb, MT_HISTOGRAM);
		pb_varint(&o->pb, H_COUNT, h->count);
		pb_double(&o->pb, H_SUM, latency ? h->sum / 1e9 : (double)h->sum);
	}
	snprintf(name, sizeof(name), "%s_bucket", fam);
	for (int b = 0; b <= nle; b++) {
		/* a fine bucket counts below le when its midpoint does: exact
		 * for the log2 rows, within a fine bucket (1/8 of the value)
		 * for other bounds */
		for (; i < HIST_BUCKETS &&
		       (b == nle || (hist_bucket_low(i) + (double)hist_bucket_high(i)) / 2 <= le[b]);
		     i++)
			cum += h->slots[i];
		if (o->fmt == PROM_PROTOBUF) {
			if (b == nle)
				break;	/* +Inf is the count */
			pb_begin(&o->pb, H_BUCKET);
			pb_varint(&o->pb, B_CUMULATIVE, cum);
			pb_double(&o->pb, B_UPPER, latency ? le[b] / 1e9 : le[b]);
			if (ex_due && ex->value <= le[b]) {
				pb_exemplar(&o->pb, B_EXEMPLAR, ex, latency);
				ex_due = false;
			}
			pb_end(&o->pb);
			continue;
		}
		snprintf(extra, sizeof(extra), "le=\"%s\"",
			 b == nle ? "+Inf" : value_str(num, sizeof(num), le[b], latency));
		text_series(o->f, name, l, nl, extra);
		fprintf(o->f, " %" PRIu64, cum);
		if (ex_due && o->fmt == PROM_OPENMETRICS && (b == nle || ex->value <= le[b])) {
			text_exemplar(o->f, ex, latency);
			ex_due = false;
		}
		fputc('\n', o->f);
	}
	if (o->fmt == PROM_PROTOBUF) {
		pb_native(&o->pb, h, latency);
		if (ex && ex->value)
			pb_exemplar(&o->pb, H_EXEMPLARS, ex, latency);
		pb_end(&o->pb);
		pb_end(&o->pb);
		return;
	}
	snprintf(name, sizeof(name), "%s_sum", fam);
	text_series(o->f, name, l, nl, NULL);
	fputc(' ', o->f);
	if (latency)
		write_seconds(o->f, h->sum);
	else
		fprintf(o->f, "%" PRIu64, (uint64_t)h->sum);
	snprintf(name, sizeof(name), "%s_count", fam);
	fputc('\n', o->f);
	text_series(o->f, name, l, nl, NULL);
	fprintf(o->f, " %" PRIu64 "\n", (uint64_t)h->count);
}

/* A metric name part from a unit: "bytes", "events". */
static void unit_name(char *out, size_t len, const char *unit)
{
	snprintf(out, len, "%s", unit && unit[0] ? unit : "value");
	for (char *c = out; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			*c = '_';
	}
}

void prom_labels(const struct measurement *m, const struct m_group *g, struct prom_labels *out)
{
	out->n = 0;
	if (!g)
		return;
	label_names(m, out->names);
	for (int i = 0; i < m->nby; i++)
		out->l[i] = (struct prom_label){ out->names[i],
			fmt_value(&g->key[i], m->by_fmt[i], out->vals[i], sizeof(out->vals[i])) };
	out->n = m->nby;
}

/* --explain: each group's intervals' time by part (a part label), and the
 * times their thread left a CPU and of those was preempted (--explain end:
 * and the intervals followed).  irq is left out where it was not measured
 * (its time is in oncpu then). */
static void write_explain(struct prom_out *o, const struct prom_source *s,
			  struct prom_labels *pl)
{
	const struct measurement *m = s->m;
	struct prom_label l[M_MAX_BY + 1];
	char fam[160];
	struct ex_val v;

	if (!m->explain)
		return;
	snprintf(fam, sizeof(fam), "kdist_%s_explain_seconds", s->name);
	prom_family(o, fam, "counter",
		    "the intervals' time by where their thread spent it (--explain)", "seconds");
	for (int i = 0; i < m->ngroups; i++) {
		if (!m->groups[i].ex)
			continue;
		prom_labels(m, &m->groups[i], pl);
		memcpy(l, pl->l, pl->n * sizeof(*l));
		m_explain_sum(m->groups[i].ex, 0, &v);
		for (int p = 0; p < EX_NPARTS; p++) {
			if (p == EX_IRQ && !m->explain_irq)
				continue;
			l[pl->n] = (struct prom_label){ "part", ex_part_names[p] };
			prom_sample_ns(o, l, pl->n + 1, v.part[p]);
		}
	}
	for (int k = 0; k < (m->explain_end ? 3 : 2); k++) {
		static const char *const names[3] = { "switches", "preemptions", "followed" };
		static const char *const helps[3] = {
			"times the explained intervals' thread left a CPU",
			"of those switches, the thread still runnable",
			"intervals followed to the thread they ended on (--explain end)",
		};

		snprintf(fam, sizeof(fam), "kdist_%s_explain_%s", s->name, names[k]);
		prom_family(o, fam, "counter", helps[k], NULL);
		for (int i = 0; i < m->ngroups; i++) {
			if (!m->groups[i].ex)
				continue;
			prom_labels(m, &m->groups[i], pl);
			m_explain_sum(m->groups[i].ex, 0, &v);
			prom_sample(o, pl->l, pl->n,
				    (double)(k == 2 ? v.followed : k ? v.preempts : v.switches));
		}
	}
}

static void write_measurement(struct prom_out *o, const struct prom_source *s)
{
	const struct measurement *m = s->m;
	char fam[160], unit[64];
	double le[PROM_MAX_BUCKETS + LOG2_VAL_LAST + 1];
	struct prom_labels *pl = malloc(sizeof(*pl));
	bool latency = m->kind != M_VALUE;
	struct hist h;
	int nle;

	if (!pl) {
		o->pb.oom = true;	/* the rendering fails */
		return;
	}
	if (m->counts) {
		snprintf(fam, sizeof(fam), "kdist_%s_events", s->name);
		prom_family(o, fam, "counter", m->title, NULL);
		for (int i = 0; i < m->ngroups || (!i && !m->nby); i++) {
			prom_labels(m, i < m->ngroups ? &m->groups[i] : NULL, pl);
			prom_sample(o, pl->l, pl->n, i < m->ngroups ? (double)m->groups[i].h.count : 0);
		}
		free(pl);
		return;
	}
	if (m->kind == M_VALUE)
		unit_name(unit, sizeof(unit), m->value_unit);
	snprintf(fam, sizeof(fam), "kdist_%s_%s", s->name, latency ? "seconds" : unit);
	prom_family(o, fam, "histogram", m->title, latency ? "seconds" : NULL);
	nle = raw_bounds(s->b, latency, le);
	if (!m->nby && !m->ngroups) {
		memset(&h, 0, sizeof(h));
		write_hist(o, fam, &h, latency, NULL, 0, le, nle, NULL);
	}
	for (int i = 0; i < m->ngroups; i++) {
		prom_labels(m, &m->groups[i], pl);
		m_hist_get(&m->groups[i].h, &h);
		write_hist(o, fam, &h, latency, pl->l, pl->n, le, nle, &m->groups[i].exemplar);
	}
	write_explain(o, s, pl);
	if (m->kind != M_FUNC) {
		free(pl);
		return;
	}
	snprintf(fam, sizeof(fam), "kdist_%s_self_seconds", s->name);
	prom_family(o, fam, "counter", "time in the function minus its traced callees", NULL);
	for (int i = 0; i < m->ngroups; i++) {
		prom_labels(m, &m->groups[i], pl);
		prom_sample_ns(o, pl->l, pl->n, m->groups[i].self_ns);
	}
	free(pl);
}

void prom_write(struct prom_out *o, const struct prom_source *src, int n)
{
	struct prom_label l[2] = { { "measurement", NULL }, { "reason", NULL } };

	for (int i = 0; i < n; i++)
		write_measurement(o, &src[i]);

	prom_family(o, "kdist_lost_events", "counter",
		    "events a measurement could not count, by reason (0: none lost)", NULL);
	for (int i = 0; i < n; i++) {
		l[0].value = src[i].name;
		for (int d = 0; d < src[i].m->ndrops; d++) {
			l[1].value = src[i].m->drops[d].name;
			prom_sample(o, l, 2, (double)src[i].m->drops[d].value);
		}
	}
	prom_family(o, "kdist_groups", "gauge",
		    "label sets (groups) of a measurement; past kdist_max_groups, events are "
		    "lost as group_table_full", NULL);
	for (int i = 0; i < n; i++) {
		l[0].value = src[i].name;
		prom_sample(o, l, 1, src[i].m->ngroups);
	}
	prom_family(o, "kdist_max_groups", "gauge", "the in-kernel group bound of a measurement",
		    NULL);
	for (int i = 0; i < n; i++) {
		l[0].value = src[i].name;
		prom_sample(o, l, 1, src[i].max_groups);
	}
	prom_family(o, "kdist_bpf_runs", "counter",
		    "runs of a measurement's BPF programs (estimated from timed windows unless -v)", NULL);
	for (int i = 0; i < n; i++) {
		l[0].value = src[i].name;
		if (src[i].m->cost.programs && !src[i].m->cost.err)
			prom_sample(o, l, 1, (double)src[i].m->cost.runs);
	}
	prom_family(o, "kdist_bpf_run_seconds", "counter",
		    "time spent in a measurement's BPF programs (estimated from timed windows unless -v)", NULL);
	for (int i = 0; i < n; i++) {
		l[0].value = src[i].name;
		if (src[i].m->cost.programs && !src[i].m->cost.err)
			prom_sample_ns(o, l, 1, src[i].m->cost.run_ns);
	}
}
