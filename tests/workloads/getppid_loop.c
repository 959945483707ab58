// SPDX-License-Identifier: GPL-2.0
/* getppid_loop N [wait]: N getppid(2) calls; prints the nanoseconds per
 * call.  With "wait", first reads one byte from stdin, so a tracer can be
 * attached to this pid before the loop starts. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b;
	char go;

	if (argc > 2 && read(0, &go, 1) != 1)
		return 1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
