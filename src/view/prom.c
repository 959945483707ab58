// SPDX-License-Identifier: GPL-2.0
/* The Prometheus view: see prom.h. */
#include "view/prom.h"
#include "lib/util.h"
#include "view/format.h"

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

void prom_label_value(FILE *f, const char *s)
{
	size_t len = strlen(s), n;
	char buf[1024], *e = NULL;

	/* Prometheus refuses a scrape with one label value that is not UTF-8
	 * (and marks the target down until the series goes): the project's
	 * escape first, so that every byte a name holds comes out as text;
	 * names from the measurement are in that form already */
	if (!text_is_escaped(s, len)) {
		n = text_escape(buf, sizeof(buf), s, len);
		if (n >= sizeof(buf) && (e = malloc(n + 1)))
			text_escape(e, n + 1, s, len);
		s = e ? e : buf;
	}
	for (const char *c = s; *c; c++) {
		if (*c == '\\' || *c == '"')
			fprintf(f, "\\%c", *c);
		else
			fputc(*c, f);
	}
	free(e);
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

void prom_family(FILE *f, const char *name, const char *type, const char *help,
		 bool openmetrics)
{
	const char *suffix = "";

	if (!openmetrics && !strcmp(type, "counter"))
		suffix = "_total";
	if (!strcmp(type, "info")) {
		if (!openmetrics) {
			suffix = "_info";
			type = "gauge";
		}
	}
	fprintf(f, "# HELP %s%s ", name, suffix);
	help_text(f, help);
	fprintf(f, "\n# TYPE %s%s %s\n", name, suffix, type);
}

/* ns as seconds, exactly: "0.000000255", "1.5", "34.359738367". */
static void write_seconds(FILE *f, uint64_t ns)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(f, "%" PRIu64 "%s%s", ns / 1000000000, n ? "." : "", frac);
}

/* A value in the exposition's unit: seconds for latencies (raw is ns). */
static void write_value(FILE *f, double raw, bool latency)
{
	if (latency && raw >= 0 && raw < 1.8e19 && raw == floor(raw))
		write_seconds(f, (uint64_t)raw);
	else
		fprintf(f, "%.15g", latency ? raw / 1e9 : raw);
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

static void write_labels(FILE *f, const struct measurement *m, const struct m_group *g,
			 char names[M_MAX_BY][64])
{
	char buf[512];

	for (int i = 0; i < m->nby; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "", names[i]);
		prom_label_value(f, fmt_value(&g->key[i], m->by_fmt[i], buf, sizeof(buf)));
		fputc('"', f);
	}
}

static void write_hist(FILE *f, const char *fam, const struct measurement *m,
		       const struct m_group *g, char names[M_MAX_BY][64], const double *le,
		       int nle)
{
	bool latency = m->kind != M_VALUE;
	struct hist h;
	uint64_t cum = 0;
	unsigned int i = 0;

	if (g)
		m_hist_get(&g->h, &h);
	else
		memset(&h, 0, sizeof(h));
	for (int b = 0; b <= nle; b++) {
		/* a fine bucket counts below le when its midpoint does: exact
		 * for the log2 rows, within a fine bucket (1/8 of the value)
		 * for other bounds */
		for (; i < HIST_BUCKETS &&
		       (b == nle || (hist_bucket_low(i) + (double)hist_bucket_high(i)) / 2 <= le[b]);
		     i++)
			cum += h.slots[i];
		fprintf(f, "%s_bucket{", fam);
		if (g)
			write_labels(f, m, g, names);
		fprintf(f, "%sle=\"", g && m->nby ? "," : "");
		if (b == nle)
			fputs("+Inf", f);
		else
			write_value(f, le[b], latency);
		fprintf(f, "\"} %" PRIu64 "\n", cum);
	}
	fprintf(f, "%s_sum", fam);
	if (g && m->nby) {
		fputc('{', f);
		write_labels(f, m, g, names);
		fputc('}', f);
	}
	fputc(' ', f);
	if (latency)
		write_seconds(f, h.sum);
	else
		fprintf(f, "%" PRIu64, (uint64_t)h.sum);
	fprintf(f, "\n%s_count", fam);
	if (g && m->nby) {
		fputc('{', f);
		write_labels(f, m, g, names);
		fputc('}', f);
	}
	fprintf(f, " %" PRIu64 "\n", (uint64_t)h.count);
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

static void write_measurement(FILE *f, const struct prom_source *s, bool om)
{
	const struct measurement *m = s->m;
	char fam[160], unit[64], names[M_MAX_BY][64], help[1024];
	double le[PROM_MAX_BUCKETS + LOG2_VAL_LAST + 1];
	int nle;

	label_names(m, names);
	snprintf(help, sizeof(help), "%s", m->title);
	if (m->counts) {
		snprintf(fam, sizeof(fam), "kdist_%s_events", s->name);
		prom_family(f, fam, "counter", help, om);
		for (int i = 0; i < m->ngroups || (!i && !m->nby); i++) {
			fprintf(f, "%s_total", fam);
			if (m->nby) {
				fputc('{', f);
				write_labels(f, m, &m->groups[i], names);
				fputc('}', f);
			}
			fprintf(f, " %" PRIu64 "\n", i < m->ngroups ? (uint64_t)m->groups[i].h.count : 0);
		}
		return;
	}
	if (m->kind == M_VALUE)
		unit_name(unit, sizeof(unit), m->value_unit);
	snprintf(fam, sizeof(fam), "kdist_%s_%s", s->name, m->kind == M_VALUE ? unit : "seconds");
	prom_family(f, fam, "histogram", help, om);
	if (om && m->kind != M_VALUE)
		fprintf(f, "# UNIT %s seconds\n", fam);
	nle = raw_bounds(s->b, m->kind != M_VALUE, le);
	if (!m->nby && !m->ngroups)
		write_hist(f, fam, m, NULL, names, le, nle);
	for (int i = 0; i < m->ngroups; i++)
		write_hist(f, fam, m, &m->groups[i], names, le, nle);
	if (m->kind != M_FUNC)
		return;
	snprintf(fam, sizeof(fam), "kdist_%s_self_seconds", s->name);
	prom_family(f, fam, "counter", "time in the function minus its traced callees", om);
	for (int i = 0; i < m->ngroups; i++) {
		fprintf(f, "%s_total{", fam);
		write_labels(f, m, &m->groups[i], names);
		fputs("} ", f);
		write_seconds(f, m->groups[i].self_ns);
		fputc('\n', f);
	}
}

void prom_write(FILE *f, const struct prom_source *src, int n, bool om)
{
	for (int i = 0; i < n; i++)
		write_measurement(f, &src[i], om);

	prom_family(f, "kdist_lost_events", "counter",
		    "events a measurement could not count, by reason (0: none lost)", om);
	for (int i = 0; i < n; i++) {
		for (int d = 0; d < src[i].m->ndrops; d++)
			fprintf(f, "kdist_lost_events_total{measurement=\"%s\",reason=\"%s\"} %" PRIu64
				"\n", src[i].name, src[i].m->drops[d].name, src[i].m->drops[d].value);
	}
	prom_family(f, "kdist_groups", "gauge",
		    "label sets (groups) of a measurement; past kdist_max_groups, events are "
		    "lost as group_table_full", om);
	for (int i = 0; i < n; i++)
		fprintf(f, "kdist_groups{measurement=\"%s\"} %d\n", src[i].name, src[i].m->ngroups);
	prom_family(f, "kdist_max_groups", "gauge", "the in-kernel group bound of a measurement",
		    om);
	for (int i = 0; i < n; i++)
		fprintf(f, "kdist_max_groups{measurement=\"%s\"} %d\n", src[i].name,
			src[i].max_groups);
	prom_family(f, "kdist_bpf_runs", "counter",
		    "runs of a measurement's BPF programs (kernel BPF statistics)", om);
	for (int i = 0; i < n; i++) {
		if (src[i].m->cost.programs && !src[i].m->cost.err)
			fprintf(f, "kdist_bpf_runs_total{measurement=\"%s\"} %" PRIu64 "\n",
				src[i].name, src[i].m->cost.runs);
	}
	prom_family(f, "kdist_bpf_run_seconds", "counter",
		    "time spent in a measurement's BPF programs (kernel BPF statistics)", om);
	for (int i = 0; i < n; i++) {
		if (!src[i].m->cost.programs || src[i].m->cost.err)
			continue;
		fprintf(f, "kdist_bpf_run_seconds_total{measurement=\"%s\"} ", src[i].name);
		write_seconds(f, src[i].m->cost.run_ns);
		fputc('\n', f);
	}
}
