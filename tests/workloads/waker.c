// SPDX-License-Identifier: GPL-2.0
/* waker N MS: a thread "waker" sleeps MS ms and then wakes a thread
 * "wakee" blocked in read(2) on a pipe, N times: the wakee spends about
 * N * MS ms off CPU, each time woken from waker_loop() (through poke(),
 * which keeps waker_loop visible to frame-pointer unwinding across the
 * libc write wrapper).  The wakee's lifetime, from its start to its last
 * read's return, goes to $KDIST_WL_TIMES as "wakee NS" (report.h), and
 * the waker thread's id as "waker_tid TID".
 * waker N MS cat: the wakee is cat(1) in a process of its own, reading the
 * pipe to its end (the waker and the wakee are different programs); no
 * times are reported.  Each write waits (up to a second) until cat sleeps,
 * so that on a loaded machine too each write wakes it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "report.h"

static int fds[2];
static long n, ms;
static pid_t wakee_pid;	/* cat's: waited on to sleep before each write */

/* Until process pid sleeps (state S in /proc/PID/stat), at most 1 s. */
static void wait_asleep(pid_t pid)
{
	struct timespec ms1 = { 0, 1000000 };
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int i = 0; i < 1000; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (len <= 0)
			return;
		buf[len] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		nanosleep(&ms1, NULL);
	}
}

__attribute__((noinline)) void poke(void)
{
	char c = 'x';

	if (write(fds[1], &c, 1) != 1)
		exit(1);
}

__attribute__((noinline)) void *waker_loop(void *arg)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	pthread_setname_np(pthread_self(), "waker");
	wl_report("waker_tid", gettid());
	for (long i = 0; i < n; i++) {
		syscall(SYS_nanosleep, &ts, NULL);
		if (wakee_pid)
			wait_asleep(wakee_pid);
		poke();
	}
	return arg;
}

__attribute__((noinline)) void *wakee_loop(void *arg)
{
	char c;
	long t0 = wl_now();

	pthread_setname_np(pthread_self(), "wakee");
	for (long i = 0; i < n; i++)
		if (read(fds[0], &c, 1) != 1)
			exit(1);
	wl_report("wakee", wl_now() - t0);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc < 3 || pipe(fds))
		return 2;
	n = atol(argv[1]);
	ms = atol(argv[2]);
	if (argc > 3 && !strcmp(argv[3], "cat")) {
		pid_t cat = fork();

		if (cat == 0) {
			dup2(fds[0], 0);
			dup2(open("/dev/null", O_WRONLY), 1);
			close(fds[0]);
			close(fds[1]);
			execlp("cat", "cat", (char *)NULL);
			_exit(127);
		}
		close(fds[0]);
		wakee_pid = cat;
		waker_loop(NULL);
		close(fds[1]);
		return waitpid(cat, NULL, 0) == cat ? 0 : 1;
	}
	wl_report_open();
	pthread_create(&b, NULL, wakee_loop, NULL);
	pthread_create(&a, NULL, waker_loop, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
