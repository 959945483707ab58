// SPDX-License-Identifier: GPL-2.0
/* hotspots N: N rounds of busy CPU work, 3 ms in hot_three() for every
 * 1 ms in hot_one(), so on-CPU samples fall 3:1 between them.  The work is
 * measured in time, not iterations: equal loops can run at different
 * speeds (alignment, store forwarding); and in the thread's CPU time, not
 * wall time, so the samples are N * 4 ms of CPU however busy the machine
 * (the clock is a system call here, hence long loops between reads). */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void hot_three(void)
{
	long end = now_ns() + 3000000;

	while (now_ns() < end)
		for (int i = 0; i < 50000; i++)
			sink += i;
}

__attribute__((noinline)) void hot_one(void)
{
	long end = now_ns() + 1000000;

	while (now_ns() < end)
		for (int i = 0; i < 50000; i++)
			sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500;

	for (long i = 0; i < n; i++) {
		hot_three();
		hot_one();
	}
	return 0;
}
