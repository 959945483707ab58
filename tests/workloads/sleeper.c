// SPDX-License-Identifier: GPL-2.0
/* sleeper N MS [THREADS]: exactly N nanosleep(2) calls of MS milliseconds
 * (a decimal: 1.3 is 1.3 ms) per thread, through the nanosleep syscall itself (glibc's nanosleep()
 * uses clock_nanosleep).  Each sleep's duration goes to $KDIST_WL_TIMES as
 * "nanosleep NS" (report.h). */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "report.h"

static long n, sleep_ns;

static void *run(void *arg)
{
	struct timespec ts = { sleep_ns / 1000000000L, sleep_ns % 1000000000L };

	for (long i = 0; i < n; i++) {
		long t0 = wl_now();

		syscall(SYS_nanosleep, &ts, NULL);
		wl_report("nanosleep", wl_now() - t0);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	pthread_t t[64];

	if (argc < 3 || threads < 1 || threads > 64)
		return 2;
	n = atol(argv[1]);
	sleep_ns = (long)(atof(argv[2]) * 1e6 + 0.5);
	wl_report_open();
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, run, NULL);
	run(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
