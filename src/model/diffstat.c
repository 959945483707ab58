// SPDX-License-Identifier: GPL-2.0
#include "model/diffstat.h"

#include <errno.h>
#include <math.h>

int mw_test(const struct hist *base, const struct hist *new, struct mw_test *t)
{
	double n1 = base->count, n2 = new->count, n = n1 + n2;
	double below = 0, r2 = 0, ties = 0, var;

	if (!base->count || !new->count)
		return -EINVAL;
	/* ranks 1..n over the pooled values in bucket order; a bucket's
	 * values share the mean of the ranks they span */
	for (int i = 0; i < HIST_BUCKETS; i++) {
		double k = (double)base->slots[i] + (double)new->slots[i];

		if (!k)
			continue;
		r2 += (double)new->slots[i] * (below + (k + 1) / 2);
		ties += k * k * k - k;
		below += k;
	}
	t->u = r2 - n2 * (n2 + 1) / 2;
	t->mean_u = n1 * n2 / 2;
	var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
	t->sd_u = var > 0 ? sqrt(var) : 0;
	t->z = t->sd_u ? (t->u - t->mean_u) / t->sd_u : 0;
	t->p = t->sd_u ? erfc(fabs(t->z) / sqrt(2)) : 1;
	t->auc = t->u / (n1 * n2);
	return 0;
}

void rate_test(double n_base, double d_base, double n_new, double d_new, double *z, double *p)
{
	double n = n_base + n_new, q = d_new / (d_base + d_new), sd = sqrt(n * q * (1 - q));

	*z = sd > 0 ? (n_new - n * q) / sd : 0;
	*p = sd > 0 ? erfc(fabs(*z) / sqrt(2)) : 1;
}

double z_critical(double alpha)
{
	double lo = 0, hi = 40;

	/* erfc(z / sqrt 2) falls from 1 to 0 as z grows */
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / sqrt(2)) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The bucket holding the value of rank r (1-based), or -1. */
static int rank_bucket(const struct hist *h, double r)
{
	double seen = 0;

	for (int i = 0; i < HIST_BUCKETS; i++) {
		seen += (double)h->slots[i];
		if (seen >= r)
			return i;
	}
	return -1;
}

void quantile_ci(const struct hist *h, double q, double z, double *lo, double *hi)
{
	double n = (double)h->count, w = z * sqrt(n * q * (1 - q));
	double rlo = floor(n * q - w), rhi = ceil(n * q + w) + 1;
	int i;

	*lo = 0;
	*hi = INFINITY;
	if (rlo >= 1 && (i = rank_bucket(h, rlo)) >= 0)
		*lo = fmax((double)hist_bucket_low(i), (double)h->min);
	if (rhi <= n && (i = rank_bucket(h, rhi)) >= 0)
		*hi = fmin((double)hist_bucket_high(i), (double)h->max);
}

double mean_stderr(const struct hist *h)
{
	double n = (double)h->count, mean, ss = 0;

	if (h->count < 2)
		return INFINITY;
	mean = hist_mean(h);
	for (int i = 0; i < HIST_BUCKETS; i++) {
		double mid, d;

		if (!h->slots[i])
			continue;
		mid = ((double)hist_bucket_low(i) + (double)hist_bucket_high(i)) / 2;
		d = mid - mean;
		ss += (double)h->slots[i] * d * d;
	}
	return sqrt(ss / (n - 1) / n);
}
