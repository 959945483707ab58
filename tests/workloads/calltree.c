// SPDX-License-Identifier: GPL-2.0
/* calltree N: a known call tree for user-function tests.  Per iteration:
 *   outer -> middle x2 -> leaf x3 each (leaf sleeps 1 ms)
 *   outer -> recurse(4) -> recurse(3) ... -> recurse(0) (each spins ~0.2 ms)
 * so per iteration: outer 1, middle 2, leaf 6, recurse 5 calls.  Callers
 * time each call of leaf ("leaf NS") and of recurse ("recurse NS", and
 * "recurse_outer NS" for the outermost) for $KDIST_WL_TIMES (report.h). */
#include <stdlib.h>
#include <time.h>
#include "report.h"

volatile unsigned long sink;

static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

__attribute__((noinline)) void leaf(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void middle(void)
{
	for (int i = 0; i < 3; i++) {
		long t0 = wl_now();

		leaf();
		wl_report("leaf", wl_now() - t0);
	}
}

__attribute__((noinline)) void recurse(int depth)
{
	spin_us(200);
	if (depth > 0) {
		long t0 = wl_now();

		recurse(depth - 1);
		wl_report("recurse", wl_now() - t0);
	}
	sink++;	/* not a tail call */
}

__attribute__((noinline)) void outer(void)
{
	long t0;

	middle();
	middle();
	t0 = wl_now();
	recurse(4);
	t0 = wl_now() - t0;
	wl_report("recurse", t0);
	wl_report("recurse_outer", t0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	wl_report_open();
	for (int i = 0; i < n; i++)
		outer();
	return 0;
}
