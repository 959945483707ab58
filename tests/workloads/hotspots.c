// SPDX-License-Identifier: GPL-2.0
/* hotspots N: N rounds of busy CPU work, 3 ms in hot_three() for every
 * 1 ms in hot_one(), so on-CPU samples fall 3:1 between them.  The work is
 * measured in time, not iterations: equal loops can run at different
 * speeds (alignment, store forwarding); and in the thread's CPU time, not
 * wall time, so the samples are N * 4 ms of CPU however busy the machine
 * (the clock is a system call here, hence long loops between reads).
 *
 * A round's length varies (0.5 to 1.5 ms of hot_one, pairs of rounds
 * summing to 2 ms): with a fixed 4 ms round, a sampling period that
 * divides it unevenly sees the same phases of every round, e.g. 499 Hz
 * (2.004 ms) lands both samples of a round in hot_three for half the
 * phases and one in each for the other half, far from 3:1. */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void hot_three(long ns)
{
	long end = now_ns() + 3 * ns;

	while (now_ns() < end)
		for (int i = 0; i < 50000; i++)
			sink += i;
}

__attribute__((noinline)) void hot_one(long ns)
{
	long end = now_ns() + ns;

	while (now_ns() < end)
		for (int i = 0; i < 50000; i++)
			sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500;
	unsigned int seed = 1;
	long unit = 1000000;

	for (long i = 0; i < n; i++) {
		if (i % 2 == 0) {
			seed = seed * 1103515245 + 12345;
			unit = 500000 + (seed >> 8) % 1000000;
		} else {
			unit = 2000000 - unit;
		}
		hot_three(unit);
		hot_one(unit);
	}
	return 0;
}
