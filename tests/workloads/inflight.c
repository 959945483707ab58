// SPDX-License-Identifier: GPL-2.0
/* Several intervals in flight per key, with known pairing.
 *
 * inflight fifo N M SLEEP_US: N rounds, round r with key r: M calls of
 * fifo_begin(r) SLEEP_US apart, then M calls of fifo_end(r) 2 * SLEEP_US
 * apart.  The i-th begin (from 0) pairs with the i-th end: it lasts at
 * least (M + i) * SLEEP_US.  Each pair's time taken around both calls goes
 * to $KDIST_WL_TIMES as "pair NS" (report.h), in the order of the ends.
 *
 * inflight recurse N D SLEEP_US: N calls of recurse(D): level d sleeps
 * SLEEP_US and calls recurse(d - 1), down to level 1; a level's time,
 * taken by its caller around the call, is "level NS", innermost first: it
 * is at least d * SLEEP_US. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "report.h"

static long sleep_ns;

static void nap(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

__attribute__((noinline, noclone)) void fifo_begin(long key)
{
	asm volatile("" : : "r"(key) : "memory");
}

__attribute__((noinline, noclone)) void fifo_end(long key)
{
	asm volatile("" : : "r"(key) : "memory");
}

__attribute__((noinline, noclone)) long recurse(long d)
{
	long t0, r;

	nap(sleep_ns);
	if (d <= 1)
		return 1;
	t0 = wl_now();
	r = recurse(d - 1);
	wl_report("level", wl_now() - t0);
	return r + 1;	/* no tail call: every level returns through its own frame */
}

int main(int argc, char **argv)
{
	long n, m, t[64];

	if (argc < 5)
		return 2;
	n = atol(argv[2]);
	m = atol(argv[3]);
	sleep_ns = atol(argv[4]) * 1000L;
	wl_report_open();
	if (!strcmp(argv[1], "recurse")) {
		for (long i = 0; i < n; i++) {
			long t0 = wl_now();

			if (recurse(m) != m)
				return 3;
			wl_report("level", wl_now() - t0);
		}
		return 0;
	}
	if (strcmp(argv[1], "fifo") || m < 1 || m > 64)
		return 2;
	for (long r = 0; r < n; r++) {
		for (long i = 0; i < m; i++) {
			t[i] = wl_now();
			fifo_begin(r);
			nap(sleep_ns);
		}
		for (long i = 0; i < m; i++) {
			nap(sleep_ns);
			fifo_end(r);
			wl_report("pair", wl_now() - t[i]);
			nap(sleep_ns);
		}
	}
	return 0;
}
