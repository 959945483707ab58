/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus view of measurements: the text exposition format 0.0.4,
 * OpenMetrics 1.0 and the protobuf exposition (client_model's
 * MetricFamily, delimited), the last with native histograms.  One histogram
 * family per measurement, labelled by its grouping; losses, kdist's own
 * cost and the group counts as families shared by every measurement.
 * Every value is cumulative from the in-kernel counters, so counters never
 * go backwards.
 *
 * Native histograms use schema PROM_SCHEMA: 16 exponential buckets per
 * power of two (bounds 2^(i/16), each 4.4% wider than the last).  kdist's
 * own buckets are log-linear (8 per power of two, at most 1/8 of their
 * value wide) and their edges fall on no exponential bound, so each goes
 * whole to the exponential bucket that holds its midpoint.  A value v is
 * then counted in a bucket [a, b] with b <= 1.108 v and a >= v / 1.108
 * (tests/unit/test_prom.c checks every bucket): a quantile Prometheus takes
 * from it is within 10.8% of the true one, inside kdist's own 12.5%
 * (hist.h).  Schema 3 (8 per power of two, as kdist's) would allow 13.9%.
 */
#ifndef KDIST_PROM_H
#define KDIST_PROM_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/pb.h"
#include "model/measure.h"

#define PROM_MAX_BUCKETS 64

/* Bucket upper bounds.  log2: the log2 rows of the text view, a fixed
 * range (latencies 2^8-1 ns .. 2^35-1 ns, values 0 .. 2^40-1), exact;
 * otherwise le[] as given, in seconds for latencies, in the value's own
 * unit for values. */
struct prom_buckets {
	bool log2;
	int n;
	double le[PROM_MAX_BUCKETS];
};

/* "0.001,0.01,0.1" (ascending, > 0), or "log2".  0, or -EINVAL after one
 * line naming what. */
int prom_buckets_parse(const char *s, struct prom_buckets *b, const char *what);

struct prom_source {
	const char *name;	/* a metric name part: [a-zA-Z_][a-zA-Z0-9_]* */
	const struct measurement *m;
	const struct prom_buckets *b;
	int max_groups;		/* its in-kernel group bound */
};

enum prom_format {
	PROM_TEXT,		/* text/plain; version=0.0.4 */
	PROM_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
	PROM_PROTOBUF,		/* io.prometheus.client.MetricFamily, delimited */
	NR_PROM_FORMATS,
};

#define PROM_SCHEMA 4

/* Where families go: text to f, protobuf to pb. */
struct prom_out {
	enum prom_format fmt;
	FILE *f;
	struct pb pb;
	int type;		/* the open family's, protobuf */
	bool open;
	char sample[200];	/* the open family's sample name (with _total) */
};

struct prom_label {
	const char *name, *value;	/* value: any bytes, escaped as written */
};

/* The families of n measurements. */
void prom_write(struct prom_out *o, const struct prom_source *src, int n);

/* One family: name without _total or _info; type "counter", "gauge",
 * "histogram" or "info"; unit ("seconds") or NULL. */
void prom_family(struct prom_out *o, const char *name, const char *type, const char *help,
		 const char *unit);
/* A sample of the open counter, gauge or info family: v, or ns as
 * seconds (written exactly in text). */
void prom_sample(struct prom_out *o, const struct prom_label *l, int nl, double v);
void prom_sample_ns(struct prom_out *o, const struct prom_label *l, int nl, uint64_t ns);
/* The end of the last family (OpenMetrics: # EOF).  0, or -ENOMEM. */
int prom_end(struct prom_out *o);

/* The labels of measurement m's group g (NULL: none), named validly for
 * Prometheus (--by names up to a ':' formatter; le, __ names and repeats
 * renamed). */
struct prom_labels {
	char names[M_MAX_BY][64];
	char vals[M_MAX_BY][512];
	struct prom_label l[M_MAX_BY];
	int n;
};
void prom_labels(const struct measurement *m, const struct m_group *g, struct prom_labels *out);

/* A label value s as text_escape() shows it (valid UTF-8 without control
 * characters), in buf or in *alloc, which the caller frees. */
const char *prom_label_text(const char *s, char *buf, size_t size, char **alloc);

/* The native histogram of h (raw units: ns when latency): the count of
 * values 0, and of each bucket index of PROM_SCHEMA (bucket i holds
 * (2^((i-1)/16), 2^(i/16)] in seconds, or in the value's unit), ascending
 * in idx[], into at most max entries.  The number of buckets. */
int prom_native(const struct hist *h, bool latency, uint64_t *zero, int32_t *idx,
		uint64_t *count, int max);

#endif
