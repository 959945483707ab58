/* SPDX-License-Identifier: GPL-2.0 */
/* The statistics of kdist diff: a two-sample test on two histograms, a
 * test of two event rates, and what a histogram can resolve. */
#ifndef KDIST_DIFFSTAT_H
#define KDIST_DIFFSTAT_H

#include "hist.h"

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

/* The width of the bucket that holds v (1 below HIST_SUB): two estimates
 * closer than this may be the same value seen through the buckets. */
double hist_resolution(double v);

#endif
