// SPDX-License-Identifier: GPL-2.0
/* getppid_loop N [wait]: N getppid(2) calls; prints the nanoseconds per
 * call of wall time and, with KDIST_WL_CPU set, after it those of the
 * thread's own CPU time (which excludes the time other tasks ran on its
 * CPU: the figure that holds on a loaded machine).  With "wait", first
 * reads one byte from stdin, so a tracer can be attached to this pid
 * before the loop starts. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b, ca, cb;
	char go;

	if (argc > 2 && read(0, &go, 1) != 1)
		return 1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	if (getenv("KDIST_WL_CPU"))
		printf(" %.1f", ((cb.tv_sec - ca.tv_sec) * 1e9 + (cb.tv_nsec - ca.tv_nsec)) / n);
	putchar('\n');
	return 0;
}
