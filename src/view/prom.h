/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus view of measurements: the text exposition format 0.0.4
 * and OpenMetrics 1.0.  One histogram family per measurement, labelled by
 * its grouping; losses, kdist's own cost and the group counts as families
 * shared by every measurement.  Every value is cumulative from the
 * in-kernel counters, so counters never go backwards.
 */
#ifndef KDIST_PROM_H
#define KDIST_PROM_H

#include <stdbool.h>
#include <stdio.h>

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

/* The families of n measurements. */
void prom_write(FILE *f, const struct prom_source *src, int n, bool openmetrics);

/* One family's HELP and TYPE ("counter", "gauge", "histogram", "info"):
 * name is the family's, without _total or _info. */
void prom_family(FILE *f, const char *name, const char *type, const char *help,
		 bool openmetrics);
/* A label value: the bytes of s as text_escape() shows them (valid UTF-8
 * without control characters: "\xff" for a byte that is not UTF-8), then
 * \ and " escaped as the exposition format wants. */
void prom_label_value(FILE *f, const char *s);

#endif
