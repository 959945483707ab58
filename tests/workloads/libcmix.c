// SPDX-License-Identifier: GPL-2.0
/* libcmix [N]: what a traced program must still do exactly when every
 * function of libc (and of this program) carries a uprobe: printf-family
 * formatting, string and memory functions, setjmp/longjmp out of nested
 * calls, sigsetjmp/siglongjmp, a handled signal, vfork + _exit, fork +
 * exec, threads (one ending with pthread_exit), qsort with a callback, an
 * atexit handler, and exit status 3.  Its output depends on nothing but N,
 * so a traced run must print the same bytes as an untraced one. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static jmp_buf jb;
static sigjmp_buf sjb;
static volatile sig_atomic_t got_signal;
static volatile int armed = 1;	/* the jumps below always happen */

__attribute__((noinline)) static void dive(int depth)
{
	char pad[64];

	memset(pad, depth, sizeof(pad));
	if (depth > 0)
		dive(depth - 1);
	if (armed)
		longjmp(jb, 1 + pad[0]);
}

__attribute__((noinline)) static void sdive(int depth)
{
	if (depth > 0)
		sdive(depth - 1);
	if (armed)
		siglongjmp(sjb, 7);
}

__attribute__((noinline)) static int format(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;
	char buf[64];

	for (long i = 0; i < 1000; i++)
		sum += i * id;
	snprintf(buf, sizeof(buf), "%ld", sum);
	if (id == 3)
		pthread_exit((void *)strlen(buf));
	return (void *)(long)strlen(buf);
}

static void on_usr1(int sig)
{
	got_signal = sig;
}

static void at_exit(void)
{
	printf("atexit handler ran\n");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, st, v[16];
	char buf[256], *p;
	pthread_t t[4];
	pid_t pid;

	if (argc > 2 && !strcmp(argv[2], "child")) {
		printf("exec'd child %s\n", argv[1]);
		return 5;
	}
	atexit(at_exit);
	for (int i = 0; i < n; i++) {
		format(buf, sizeof(buf), "%d|%5.2f|%-6s|%x|%c|%%|%e", i, i / 3.0, "ab", i * 255,
		       'a' + i % 26, i * 1e10);
		printf("fmt %s len %zu\n", buf, strlen(buf));
		p = strchr(buf, '|');
		printf("strchr %td strrchr %td strstr %s\n", p - buf, strrchr(buf, '|') - buf,
		       strstr(buf, "ab") ? "yes" : "no");
		memset(buf, 'x', 100);
		buf[100] = 0;
		printf("memset %zu %d\n", strlen(buf), memcmp(buf, buf + 1, 99));
		fprintf(stdout, "strtol %ld atof %.3f\n", strtol("  -1234", NULL, 10), atof("2.5"));
	}
	for (int i = 0; i < 16; i++)
		v[i] = (i * 7919) % 31;
	qsort(v, 16, sizeof(v[0]), cmp_int);
	for (int i = 0; i < 16; i++)
		printf("%d%c", v[i], i == 15 ? '\n' : ' ');

	for (int i = 0; i < n; i++) {
		int r = setjmp(jb);

		if (!r)
			dive(i % 8);
		printf("longjmp returned %d\n", r);
		r = sigsetjmp(sjb, 1);
		if (!r)
			sdive(i % 5);
		printf("siglongjmp returned %d\n", r);
	}

	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	printf("signal handled: %d\n", got_signal == SIGUSR1);

	fflush(stdout);
	pid = vfork();
	if (!pid)
		_exit(4);
	waitpid(pid, &st, 0);
	printf("vfork child exit %d\n", WEXITSTATUS(st));

	fflush(stdout);
	pid = fork();
	if (!pid) {
		execl("/proc/self/exe", argv[0], "9", "child", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	printf("fork+exec child exit %d\n", WEXITSTATUS(st));

	fflush(stdout);
	pid = fork();
	if (!pid)
		exit(6);	/* runs the inherited atexit handler in the child */
	waitpid(pid, &st, 0);
	printf("fork child exit %d\n", WEXITSTATUS(st));

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(t[i], &r);
		printf("thread %d: %ld\n", i, (long)r);
	}
	exit(3);
}
