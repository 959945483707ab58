// SPDX-License-Identifier: GPL-2.0
/* pingpong N [US]: two threads wake each other N times through pipes, so the
 * kernel sees N wakeups of each thread by the other (sched_wakeup with the
 * wakee's pid, then sched_switch with next_pid = the wakee).  With US, each
 * thread sleeps US microseconds before writing, so the reader is surely
 * asleep: then there are exactly 2N pipe wakeups and 2N timer wakeups. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int a2b[2], b2a[2];
static long n, us;

static void pause_us(void)
{
	if (us)
		usleep(us);
}

static void *pong(void *arg)
{
	char c;

	for (long i = 0; i < n; i++) {
		if (read(a2b[0], &c, 1) != 1)
			break;
		pause_us();
		if (write(b2a[1], &c, 1) != 1)
			break;
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c = 'x';

	n = argc > 1 ? atol(argv[1]) : 1000;
	us = argc > 2 ? atol(argv[2]) : 0;
	if (pipe(a2b) || pipe(b2a))
		return 1;
	pthread_create(&t, NULL, pong, NULL);
	for (long i = 0; i < n; i++) {
		pause_us();
		if (write(a2b[1], &c, 1) != 1 || read(b2a[0], &c, 1) != 1)
			return 1;
	}
	pthread_join(t, NULL);
	return 0;
}
