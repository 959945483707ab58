// SPDX-License-Identifier: GPL-2.0
/* wideloop MS: MS milliseconds on the CPU in wide_loop(), whose loop body
 * is a few KB of straight-line code: its samples land at hundreds of
 * addresses, each a stack of its own in the kernel's stack map, all of
 * which symbolize as wide_loop.  The time is the thread's CPU time, not
 * wall time: on a busy machine the loop still gets its MS of samples, and
 * start-up and exit stay a small share of them. */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

#define S1 sink = sink * 31 + 7;
#define S8 S1 S1 S1 S1 S1 S1 S1 S1
#define S64 S8 S8 S8 S8 S8 S8 S8 S8
#define S512 S64 S64 S64 S64 S64 S64 S64 S64

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void wide_loop(long ms)
{
	long end = now_ns() + ms * 1000000L;

	/* the thread's CPU clock is a system call: read it every ~1,000
	 * loop bodies, so that its kernel path is a sliver of the samples */
	while (now_ns() < end) {
		for (int i = 0; i < 1024; i++) {
			S512
		}
	}
}

int main(int argc, char **argv)
{
	wide_loop(argc > 1 ? atol(argv[1]) : 1000);
	return 0;
}
