// SPDX-License-Identifier: GPL-2.0
#include "model/hist.h"

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
	hist_u64 n = 0, bmin, bmax;
	int lo = -1, hi = -1;

	for (int i = 0; i < HIST_BUCKETS; i++) {
		if (!b->slots[i])
			continue;
		n += b->slots[i];
		a->slots[i] += b->slots[i];
		if (lo < 0)
			lo = i;
		hi = i;
	}
	if (!n)
		return;
	/* b's count is what its buckets hold: a per-CPU copy read while its
	 * CPU was adding an event has the event's bucket and not yet its
	 * count (hist_add), and every reader of a measurement checks that
	 * the count is the sum of the buckets.  The sums may hold that event
	 * or not: its value is within the bucket's bounds either way. */
	bmin = b->count ? b->min : hist_bucket_low(lo);
	bmax = b->count ? b->max : hist_bucket_high(hi);
	if (!a->count || bmin < a->min)
		a->min = bmin;
	if (bmax > a->max)
		a->max = bmax;
	a->count += n;
	a->sum += b->sum;
	sumsq_add(a, b->sumsq_lo, b->sumsq_hi);
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

const struct hist_shown hist_shown[HIST_NQUANTILES] = {
	{ 0.5, "p50", "p50" }, { 0.9, "p90", "p90" }, { 0.99, "p99", "p99" },
	{ 0.999, "p99.9", "p999" },
};

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

/* The log2 row of an integer value v: [2^j, 2^(j+1)) units, row 0 [0, 2). */
static int log2_row(double v, double divisor)
{
	double u = v / divisor;
	int j = u >= 2.0 ? (int)floor(log2(u)) : 0;

	/* log2 of a value just below a power of two may round up to it */
	if (j > 0 && u < ldexp(1.0, j))
		j--;
	return j > 64 ? 64 : j;
}

int hist_fold_log2(const struct hist *h, double divisor, hist_u64 out[65])
{
	double share[65] = { 0 }, cum = 0;
	hist_u64 done = 0;
	int used = 0;

	for (int i = 0; i < HIST_BUCKETS; i++) {
		double lo, hi, n;
		int r, rhi;

		if (!h->slots[i])
			continue;
		/* the part of the bucket [min, max] leaves (as hist_quantile) */
		lo = (double)(hist_bucket_low(i) > h->min ? hist_bucket_low(i) : h->min);
		hi = (double)(hist_bucket_high(i) < h->max ? hist_bucket_high(i) : h->max);
		if (hi < lo)
			hi = lo;
		r = log2_row(lo, divisor);
		rhi = log2_row(hi, divisor);
		if (r == rhi) {
			share[r] += (double)h->slots[i];
			continue;
		}
		/* integers lo..hi straddle row edges: each row its share */
		n = hi - lo + 1;
		for (; r <= rhi; r++) {
			double a = r ? ceil(ldexp(divisor, r)) : 0, b = ceil(ldexp(divisor, r + 1)) - 1;

			a = a > lo ? a : lo;
			b = b < hi ? b : hi;
			if (b >= a)
				share[r] += (double)h->slots[i] * (b - a + 1) / n;
		}
	}
	/* rounded running totals: the rows add up to the count */
	for (int j = 0; j < 65; j++) {
		cum += share[j];
		out[j] = (hist_u64)llround(cum) - done;
		done += out[j];
		if (out[j])
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
