// SPDX-License-Identifier: GPL-2.0
/* callers N: work() reached from two callers, 3 calls through caller_a()
 * for each through caller_b(), N rounds; and N * 3 nanosleep(2) plus N
 * clock_nanosleep(2) of 1 ms, so the kernel starts hrtimers from two
 * syscalls in a 3:1 ratio.  step() sits between each caller and work():
 * at work()'s entry a frame-pointer unwind misses the direct caller. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
	sink++;
}

__attribute__((noinline)) void step(void)
{
	work();
	sink++;
}

__attribute__((noinline)) void caller_a(void)
{
	step();
	sink++;
}

__attribute__((noinline)) void caller_b(void)
{
	step();
	sink++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	struct timespec ts = { 0, 1000000 };

	for (long i = 0; i < n; i++) {
		for (int j = 0; j < 3; j++) {
			caller_a();
			syscall(SYS_nanosleep, &ts, NULL);
		}
		caller_b();
		syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
	}
	return 0;
}
