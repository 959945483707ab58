// SPDX-License-Identifier: GPL-2.0
/* The statistics of kdist diff against an independent computation of the
 * same test on the same counts (fixtures/mw_cases.py, plain Python: every
 * value expanded and ranked), and the quantile confidence intervals and
 * mean standard error on counts worked out by hand. */
#include "check.h"
#include "model/diffstat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mw_case {
	const char *name;
	int base[12][2], new[12][2];	/* {bucket, count}, ended by {-1, 0} */
	double u, z, p, auc;
};

static const struct mw_case cases[] = {
#include "fixtures/mw_cases.h"
};

static void fill(struct hist *h, const int (*b)[2])
{
	memset(h, 0, sizeof(*h));
	for (; (*b)[0] >= 0; b++) {
		h->slots[(*b)[0]] += (*b)[1];
		h->count += (*b)[1];
	}
}

/* equal to 1e-9 of the larger, or both below 1e-300 (p far in the tail) */
static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) || fmax(fabs(a), fabs(b)) < 1e-300;
}

static void test_mw_against_python(void)
{
	static struct hist a, b;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mw_case *c = &cases[i];
		struct mw_test t;
		char name[128];
		int err;

		fill(&a, c->base);
		fill(&b, c->new);
		err = mw_test(&a, &b, &t);
		snprintf(name, sizeof(name), "Mann-Whitney U, %s", c->name);
		check(name, !err && close_to(t.u, c->u) && close_to(t.z, c->z) &&
		      close_to(t.p, c->p) && close_to(t.auc, c->auc),
		      "u %.17g z %.17g p %.17g auc %.17g; expected %.17g %.17g %.17g %.17g",
		      t.u, t.z, t.p, t.auc, c->u, c->z, c->p, c->auc);
	}
}

static void test_mw_empty(void)
{
	static struct hist a, b;
	struct mw_test t;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	b.slots[20] = b.count = 3;
	check("an empty side is no test", mw_test(&a, &b, &t) == -22, NULL);
}

static void test_rate(void)
{
	double z, p;

	rate_test(100, 1, 100, 1, &z, &p);
	check("equal counts, equal durations: z 0, p 1", z == 0 && p == 1, "z %g p %g", z, p);
	rate_test(100, 1, 200, 2, &z, &p);
	check("equal rates over different durations: z 0", fabs(z) < 1e-12, "z %g", z);
	/* 100 vs 200 in equal time: given 300, NEW ~ B(300, 1/2): z = 50 / sqrt(75) */
	rate_test(100, 1, 200, 1, &z, &p);
	check("100 vs 200 events: z = 50/sqrt(75)", fabs(z - 50 / sqrt(75)) < 1e-12, "z %.17g", z);
	rate_test(0, 1, 0, 1, &z, &p);
	check("no events: p 1", p == 1, "p %g", p);
}

static void test_z_critical(void)
{
	check("z for alpha 0.05 is 1.959964", fabs(z_critical(0.05) - 1.959963984540054) < 1e-9, "%.15g",
	      z_critical(0.05));
	check("z for alpha 0.01 is 2.575829", fabs(z_critical(0.01) - 2.5758293035489) < 1e-9, "%.15g",
	      z_critical(0.01));
}

static void test_quantile_ci(void)
{
	static struct hist h;
	double lo, hi;

	/* 100 values, 10 in each of buckets 100..109 */
	memset(&h, 0, sizeof(h));
	for (int i = 100; i < 110; i++)
		h.slots[i] = 10;
	h.count = 100;
	h.min = hist_bucket_low(100);
	h.max = hist_bucket_high(109);
	/* median, z 1.96: ranks floor(50 - 9.8) = 40 (bucket 103) and
	 * ceil(50 + 9.8) + 1 = 61 (bucket 106) */
	quantile_ci(&h, 0.5, 1.96, &lo, &hi);
	check("median CI: low edge of bucket 103, high edge of bucket 106",
	      lo == hist_bucket_low(103) && hi == hist_bucket_high(106), "%g %g", lo, hi);
	/* 0.9, z 1.96: 90 -/+ 5.88: ranks 84 (bucket 108) and 97 (bucket 109) */
	quantile_ci(&h, 0.9, 1.96, &lo, &hi);
	check("p90 CI: buckets 108 to 109", lo == hist_bucket_low(108) && hi == hist_bucket_high(109),
	      "%g %g", lo, hi);
	/* p99 of 100: ranks floor(99 - 1.95) = 97 (bucket 109) and
	 * ceil(99 + 1.95) + 1 = 102 > 100: open above */
	quantile_ci(&h, 0.99, 1.96, &lo, &hi);
	check("p99 of 100 values: no upper bound", isinf(hi) && lo == hist_bucket_low(109), "%g %g",
	      lo, hi);
	/* the range [min, max] narrows the edge buckets */
	h.min = hist_bucket_low(100) + 5;
	quantile_ci(&h, 0.05, 1.96, &lo, &hi);
	check("p5 of 100: no lower bound", lo == 0, "%g", lo);
	h.slots[100] = 50;
	h.count = 140;
	quantile_ci(&h, 0.1, 1.96, &lo, &hi);
	check("a rank in the min bucket starts at min", lo == hist_bucket_low(100) + 5, "%g", lo);
}

static void test_mean_stderr(void)
{
	static struct hist h;

	/* 2 and 4: mean 3, sample variance 2, standard error sqrt(2/2) = 1 */
	memset(&h, 0, sizeof(h));
	h.slots[2] = h.slots[4] = 1;
	h.count = 2;
	h.sum = 6;
	check("stderr of {2, 4} is 1", fabs(mean_stderr(&h) - 1) < 1e-12, "%g", mean_stderr(&h));
	h.slots[4] = 0;
	h.count = 1;
	check("one value: no standard error", isinf(mean_stderr(&h)), NULL);
}

int main(void)
{
	test_mw_against_python();
	test_mw_empty();
	test_rate();
	test_z_critical();
	test_quantile_ci();
	test_mean_stderr();
	return check_done();
}
