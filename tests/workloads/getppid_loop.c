// SPDX-License-Identifier: GPL-2.0
/* getppid_loop N [wait|bracket]: N getppid(2) calls; prints the
 * nanoseconds per call of wall time and, with KDIST_WL_CPU set, after it
 * those of the thread's own CPU time (which excludes the time other tasks
 * ran on its CPU: the figure that holds on a loaded machine).  With
 * "wait", first reads one byte from stdin, so a tracer can be attached to
 * this pid before the loop starts.
 *
 * With "bracket", three phases, each begun by a byte on stdin and ended by
 * a line "PHASE WALL CPU" (ns per call): "before" of N/2 calls, "during" of
 * N, "after" of N/2.  A tracer attached for "during" alone costs "during"
 * less the mean of the other two, measured in one process seconds apart:
 * the machine's drift between separate runs stays out of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

/* n calls: ns per call of wall time and of the thread's CPU time */
static void loop(long n, double *wall, double *cpu)
{
	struct timespec a, b, ca, cb;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*wall = ns(&a, &b) / n;
	*cpu = ns(&ca, &cb) / n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *mode = argc > 2 ? argv[2] : "";
	double wall, cpu;
	char go;

	if (n < 2)
		n = 2;
	if (!strcmp(mode, "bracket")) {
		static const char *const phase[] = { "before", "during", "after" };

		for (int i = 0; i < 3; i++) {
			if (read(0, &go, 1) != 1)
				return 1;
			loop(i == 1 ? n : n / 2, &wall, &cpu);
			printf("%s %.1f %.1f\n", phase[i], wall, cpu);
			fflush(stdout);
		}
		return 0;
	}
	if (*mode && read(0, &go, 1) != 1)
		return 1;
	loop(n, &wall, &cpu);
	printf("%.1f", wall);
	if (getenv("KDIST_WL_CPU"))
		printf(" %.1f", cpu);
	putchar('\n');
	return 0;
}
