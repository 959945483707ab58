// SPDX-License-Identifier: GPL-2.0
#include "hist.h"

#include <math.h>
#include <string.h>

hist_u64 hist_bucket_low(unsigned int i)
{
	unsigned int k, sub;

	if (i < HIST_SUB)
		return i;
	k = i / HIST_SUB - 1 + HIST_SUB_BITS;
	sub = i % HIST_SUB;
	return (hist_u64)(HIST_SUB + sub) << (k - HIST_SUB_BITS);
}

hist_u64 hist_bucket_high(unsigned int i)
{
	unsigned int k;

	if (i < HIST_SUB)
		return i;
	k = i / HIST_SUB - 1 + HIST_SUB_BITS;
	return hist_bucket_low(i) + ((hist_u64)1 << (k - HIST_SUB_BITS)) - 1;
}

static void sumsq_add(struct hist *a, hist_u64 lo, hist_u64 hi)
{
	hist_u64 n = a->sumsq_lo + lo;

	a->sumsq_hi += hi + (n < lo);
	a->sumsq_lo = n;
}

void hist_merge(struct hist *a, const struct hist *b)
{
	if (!b->count)
		return;
	if (!a->count || b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->count += b->count;
	a->sum += b->sum;
	sumsq_add(a, b->sumsq_lo, b->sumsq_hi);
	for (int i = 0; i < HIST_BUCKETS; i++)
		a->slots[i] += b->slots[i];
}

void hist_sub(struct hist *out, const struct hist *cur, const struct hist *prev)
{
	unsigned __int128 c = ((unsigned __int128)cur->sumsq_hi << 64) | cur->sumsq_lo;
	unsigned __int128 p = ((unsigned __int128)prev->sumsq_hi << 64) | prev->sumsq_lo;
	unsigned __int128 d = c - p;
	int lo = -1, hi = -1;

	out->count = cur->count - prev->count;
	out->sum = cur->sum - prev->sum;
	out->sumsq_lo = (hist_u64)d;
	out->sumsq_hi = (hist_u64)(d >> 64);
	for (int i = 0; i < HIST_BUCKETS; i++) {
		out->slots[i] = cur->slots[i] - prev->slots[i];
		if (out->slots[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
	}
	/* The interval's extremes are only known to bucket precision, unless
	 * the all-time extreme fell into this interval's extreme bucket. */
	if (lo < 0) {
		out->min = out->max = 0;
		return;
	}
	out->min = hist_bucket_low(lo);
	if (cur->min >= out->min && cur->min <= hist_bucket_high(lo))
		out->min = cur->min;
	out->max = hist_bucket_high(hi);
	if (cur->max >= hist_bucket_low(hi) && cur->max <= out->max)
		out->max = cur->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / h->count : 0.0;
}

double hist_stddev(const struct hist *h)
{
	long double n = h->count, mean, sq, var;

	if (h->count < 2)
		return 0.0;
	sq = ldexpl((long double)h->sumsq_hi, 64) + (long double)h->sumsq_lo;
	mean = (long double)h->sum / n;
	/* population variance; clamp the rounding noise of E[x^2]-E[x]^2 */
	var = sq / n - mean * mean;
	return var > 0 ? sqrtl(var) : 0.0;
}

double hist_quantile(const struct hist *h, double q)
{
	hist_u64 rank, seen = 0;
	double v;

	if (!h->count)
		return 0.0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* nearest-rank: the smallest value with at least q*count at or below */
	rank = (hist_u64)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < HIST_BUCKETS; i++) {
		double lo, hi;

		seen += h->slots[i];
		if (seen < rank)
			continue;
		/* the bucket's values taken as spread evenly over the part of
		 * it that [min, max] leaves, the rank's share of the way in:
		 * never outside [min, max], and never outside the bucket that
		 * holds the true value */
		lo = hist_bucket_low(i) > h->min ? hist_bucket_low(i) : h->min;
		hi = hist_bucket_high(i) < h->max ? hist_bucket_high(i) : h->max;
		if (hi < lo)
			hi = lo;
		v = lo + (hi - lo) * ((double)(rank - (seen - h->slots[i])) - 0.5) /
			 (double)h->slots[i];
		return v;
	}
	return h->max;
}

int hist_fold_log2(const struct hist *h, double divisor, hist_u64 out[65])
{
	int used = 0;

	memset(out, 0, 65 * sizeof(out[0]));
	for (int i = 0; i < HIST_BUCKETS; i++) {
		double mid;
		int j = 0;

		if (!h->slots[i])
			continue;
		mid = ((double)hist_bucket_low(i) + (double)hist_bucket_high(i)) / 2 / divisor;
		if (mid >= 2.0)
			j = (int)floor(log2(mid));
		if (j > 64)
			j = 64;
		out[j] += h->slots[i];
		if (j + 1 > used)
			used = j + 1;
	}
	return used;
}

void hist_fold_linear(const struct hist *h, double min, double step, int n, hist_u64 *out,
		      hist_u64 *below, hist_u64 *above)
{
	memset(out, 0, n * sizeof(out[0]));
	*below = *above = 0;
	for (int i = 0; i < HIST_BUCKETS; i++) {
		double mid, j;

		if (!h->slots[i])
			continue;
		mid = ((double)hist_bucket_low(i) + (double)hist_bucket_high(i)) / 2;
		j = floor((mid - min) / step);
		if (j < 0)
			*below += h->slots[i];
		else if (j >= n)
			*above += h->slots[i];
		else
			out[(int)j] += h->slots[i];
	}
}
