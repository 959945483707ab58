// SPDX-License-Identifier: GPL-2.0
/* Histogram math: bucket layout, statistics and percentiles against values
 * computed directly from the samples. */
#include "check.h"
#include "model/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_layout(void)
{
	int bad = 0;

	/* every bucket's bounds map back to it, and buckets tile [0, 2^64) */
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		if (hist_index(hist_bucket_low(i)) != i || hist_index(hist_bucket_high(i)) != i)
			bad++;
		if (i && hist_bucket_low(i) != hist_bucket_high(i - 1) + 1)
			bad++;
	}
	check("buckets tile the range", !bad && hist_bucket_high(HIST_BUCKETS - 1) == UINT64_MAX,
	      "%d bad buckets", bad);
	check("small values exact", hist_index(0) == 0 && hist_index(7) == 7 && hist_index(8) == 8,
	      NULL);
	/* relative width at most 1/HIST_SUB of the lower bound */
	bad = 0;
	for (unsigned int i = HIST_SUB; i < HIST_BUCKETS; i++) {
		double lo = hist_bucket_low(i), w = hist_bucket_high(i) - lo + 1;

		if (w / lo > 1.0 / HIST_SUB + 1e-12)
			bad++;
	}
	check("bucket width <= 1/8 of value", !bad, "%d too wide", bad);
	check("ilog2", hist_ilog2(1) == 0 && hist_ilog2(1023) == 9 && hist_ilog2(1024) == 10 &&
	      hist_ilog2(UINT64_MAX) == 63, NULL);
}

static void test_stats(void)
{
	enum { N = 20000 };
	static uint64_t v[N];
	struct hist h = { 0 };
	double sum = 0, sq = 0, mean, sd, worst = 0;
	const double qs[] = { 0.5, 0.9, 0.99, 0.999 };

	srand(42);
	for (int i = 0; i < N; i++) {
		/* log-uniform from 100 ns to 100 ms */
		v[i] = (uint64_t)exp(log(100) + (log(1e8) - log(100)) * (rand() / (double)RAND_MAX));
		hist_add(&h, v[i]);
		sum += v[i];
		sq += (double)v[i] * v[i];
	}
	mean = sum / N;
	sd = sqrt(sq / N - mean * mean);
	qsort(v, N, sizeof(v[0]), cmp_u64);
	check("count/min/max exact", h.count == N && h.min == v[0] && h.max == v[N - 1], NULL);
	check("sum exact", h.sum == (uint64_t)sum, "%llu vs %.0f", (unsigned long long)h.sum, sum);
	check("mean", fabs(hist_mean(&h) - mean) < 1e-6 * mean, "%f vs %f", hist_mean(&h), mean);
	check("stddev", fabs(hist_stddev(&h) - sd) < 1e-6 * sd, "%f vs %f", hist_stddev(&h), sd);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double truth = v[(size_t)ceil(qs[i] * N) - 1], got = hist_quantile(&h, qs[i]);
		double err = fabs(got - truth) / truth;

		if (err > worst)
			worst = err;
	}
	/* the documented bound: half a bucket, 1/(2*HIST_SUB) */
	check("percentiles within 6.25%", worst <= 1.0 / (2 * HIST_SUB), "worst %.4f", worst);
	printf("     worst percentile error %.2f%%\n", worst * 100);
}

static void test_sumsq_wide(void)
{
	struct hist h = { 0 };
	uint64_t big = 10ULL * 1000 * 1000 * 1000 * 60; /* one minute in ns */
	unsigned __int128 want = (unsigned __int128)big * big * 1000;

	for (int i = 0; i < 1000; i++)
		hist_add(&h, big);
	check("sum of squares is 128-bit",
	      h.sumsq_lo == (uint64_t)want && h.sumsq_hi == (uint64_t)(want >> 64), NULL);
	check("stddev of constants is 0", hist_stddev(&h) < 1e-3 * big, "%g", hist_stddev(&h));
}

static void test_merge_sub(void)
{
	struct hist a = { 0 }, b = { 0 }, all = { 0 }, m, d;

	for (uint64_t x = 1; x < 5000; x += 7) {
		hist_add(x % 2 ? &a : &b, x * 1000);
		hist_add(&all, x * 1000);
	}
	m = a;
	hist_merge(&m, &b);
	check("merge equals recording all", !memcmp(&m, &all, sizeof(m)), NULL);
	hist_sub(&d, &all, &a);
	check("sub recovers the rest", d.count == b.count && d.sum == b.sum &&
	      !memcmp(d.slots, b.slots, sizeof(d.slots)) && d.sumsq_lo == b.sumsq_lo &&
	      d.sumsq_hi == b.sumsq_hi, NULL);
	check("sub bounds its extremes", d.min <= b.min && d.max >= b.max &&
	      hist_index(d.min) == hist_index(b.min) && hist_index(d.max) == hist_index(b.max), NULL);
}

/* A per-CPU copy read while its CPU was adding an event (hist_add: the
 * bucket, then the count): merged, the count is what the buckets hold. */
static void test_merge_torn(void)
{
	struct hist one = { 0 }, torn = { 0 }, sum = { 0 };

	hist_add(&one, 5000);
	torn = one;
	torn.slots[hist_index(7000)]++;		/* a second event, its count not yet */
	hist_merge(&sum, &torn);
	check("torn copy: count is the buckets' 2", sum.count == 2, "%llu",
	      (unsigned long long)sum.count);
	torn = (struct hist){ 0 };
	torn.slots[hist_index(7000)]++;		/* the first event, no count yet */
	sum = (struct hist){ 0 };
	hist_merge(&sum, &torn);
	check("torn first event: count 1, min and max its bucket's bounds", sum.count == 1 &&
	      sum.min == hist_bucket_low(hist_index(7000)) &&
	      sum.max == hist_bucket_high(hist_index(7000)), "%llu %llu %llu",
	      (unsigned long long)sum.count, (unsigned long long)sum.min,
	      (unsigned long long)sum.max);
}

static void test_fold(void)
{
	struct hist h = { 0 };
	hist_u64 out[65];
	int used;

	hist_add(&h, 0);
	hist_add(&h, 1);
	hist_add(&h, 3);
	hist_add(&h, 1000);	/* [512, 1024) in ns */
	hist_add(&h, 5000);	/* 5 us: [4, 8) us */
	used = hist_fold_log2(&h, 1, out);
	check("fold ns", used == 13 && out[0] == 2 && out[1] == 1 && out[9] == 1 && out[12] == 1,
	      "used %d", used);
	used = hist_fold_log2(&h, 1000, out);
	check("fold us", used == 3 && out[0] == 4 && out[2] == 1, "used %d out0 %llu", used,
	      (unsigned long long)out[0]);

	/* rows at the unit's powers of two: 32 -> 63 usecs is [32000, 64000)
	 * ns, not [32768, 65536).  Eight values in the bucket [30720, 32767]
	 * split 5.0 : 3.0 by its integers below and above 32000; 64000 itself
	 * (in [61440, 65535]) and everything of [32768, 63999] land in row 5 */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 8; i++)
		hist_add(&h, 31000);
	hist_add(&h, 33000);
	used = hist_fold_log2(&h, 1000, out);
	check("fold us at the edge 32000 ns", used == 6 && out[4] == 5 && out[5] == 4,
	      "used %d row 16-31 %llu, 32-63 %llu", used, (unsigned long long)out[4],
	      (unsigned long long)out[5]);
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 100; i++)
		hist_add(&h, 40000 + 210 * i);	/* 40.00 .. 60.79 us: no bucket at an edge */
	used = hist_fold_log2(&h, 1000, out);
	check("fold us: [40, 61) us all in 32 -> 63", used == 6 && out[5] == 100,
	      "used %d row 32-63 %llu, 64-127 %llu", used, (unsigned long long)out[5],
	      (unsigned long long)out[6]);
	/* the rows add up to the count whatever the shares */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 1000; i++)
		hist_add(&h, 1000 + 7919ULL * i);
	used = hist_fold_log2(&h, 1000, out);
	{
		hist_u64 t = 0;

		for (int j = 0; j < used; j++)
			t += out[j];
		check("fold us: rows add up to the count", t == 1000, "%llu", (unsigned long long)t);
	}
}

/* Values in one bucket: percentiles move with the rank inside it and stay
 * within [min, max], where the bucket midpoint would sit below them all. */
static void test_quantile_in_bucket(void)
{
	struct hist h = { 0 };
	double p50, p99;

	hist_add(&h, 1000);
	for (int i = 0; i < 99; i++)
		hist_add(&h, 1020);	/* bucket 960..1023 holds both */
	p50 = hist_quantile(&h, 0.5);
	p99 = hist_quantile(&h, 0.99);
	check("in-bucket percentiles within [min, max]", p50 >= 1000 && p99 <= 1020, "p50 %.1f p99 %.1f",
	      p50, p99);
	check("in-bucket percentiles follow the rank", p50 < p99 && fabs(p50 - 1020) / 1020 < 0.0625,
	      "p50 %.1f p99 %.1f", p50, p99);
	memset(&h, 0, sizeof(h));
	hist_add(&h, 5000);
	check("one value: every percentile is it", hist_quantile(&h, 0.5) == 5000 &&
	      hist_quantile(&h, 0.999) == 5000, "%.1f", hist_quantile(&h, 0.5));
}

int main(void)
{
	test_layout();
	test_quantile_in_bucket();
	test_stats();
	test_sumsq_wide();
	test_merge_sub();
	test_merge_torn();
	test_fold();
	return check_done();
}
