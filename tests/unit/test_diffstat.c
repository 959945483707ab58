// SPDX-License-Identifier: GPL-2.0
/* The statistics of kdist diff against an independent computation of the
 * same test on the same counts (fixtures/mw_cases.py, plain Python: every
 * value expanded and ranked), and the resolution rule. */
#include "check.h"
#include "diffstat.h"

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

static void test_resolution(void)
{
	check("exact below 8: resolution 1", hist_resolution(5) == 1, "%g", hist_resolution(5));
	/* [1048576, 1179647]: 2^20 split in 8 */
	check("1 ms bucket is 131072 ns wide", hist_resolution(1100000) == 131072, "%g",
	      hist_resolution(1100000));
	check("at most 1/8 of the value", hist_resolution(1048576) / 1048576 == 0.125, "%g",
	      hist_resolution(1048576));
}

int main(void)
{
	test_mw_against_python();
	test_mw_empty();
	test_rate();
	test_resolution();
	return check_done();
}
