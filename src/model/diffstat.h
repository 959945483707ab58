/* SPDX-License-Identifier: GPL-2.0 */
/* The statistics of kdist diff: a two-sample test on two histograms, a
 * test of two event rates, and what a histogram can resolve. */
#ifndef KDIST_DIFFSTAT_H
#define KDIST_DIFFSTAT_H

#include "model/hist.h"

/* Mann-Whitney U of NEW against BASE, every value of one bucket taken as
 * tied with the others of that bucket (the histogram knows no more). */
struct mw_test {
	double u;	/* U of NEW: pairs (base, new) with new > base, ties 1/2 */
	double mean_u;	/* n_base * n_new / 2 */
	double sd_u;	/* with the tie correction; 0 when every value ties */
	double z;	/* (u - mean_u) / sd_u: > 0 when NEW tends to be larger */
	double p;	/* two-sided, normal approximation; 1 when sd_u is 0 */
	double auc;	/* u / (n_base * n_new): P(new > base) + P(tie) / 2 */
};

/* 0, or -EINVAL when either histogram is empty. */
int mw_test(const struct hist *base, const struct hist *new, struct mw_test *t);

/* Two event counts over two durations: is the rate different?  Given the
 * total, NEW's count is binomial with the share of NEW's duration; the
 * normal approximation of that gives z and the two-sided p (1 when both
 * counts are 0). */
void rate_test(double n_base, double d_base, double n_new, double d_new, double *z, double *p);

/* z such that a standard normal value lies outside [-z, z] with
 * probability alpha (two-sided critical value). */
double z_critical(double alpha);

/* A distribution-free confidence interval of the q-quantile: with n values,
 * the number at or below the true quantile is binomial(n, q), so the order
 * statistics of ranks n*q -/+ z*sqrt(n*q*(1-q)) (z = z_critical(alpha))
 * enclose it with probability about 1 - alpha.  The histogram knows a rank
 * only to its bucket: *lo is the low edge of the lower rank's bucket, *hi
 * the high edge of the upper rank's (both within [min, max]).  A rank
 * outside 1..n leaves that side open: *lo = 0, *hi = INFINITY (too few
 * values beyond a tail percentile to bound it). */
void quantile_ci(const struct hist *h, double q, double z, double *lo, double *hi);

/* The standard error of the mean, from the values' spread over the buckets
 * (each bucket's values at its midpoint). */
double mean_stderr(const struct hist *h);

#endif
