// SPDX-License-Identifier: GPL-2.0
/* syserr N M: N getppid(2) calls and M close(-1) calls failing with EBADF. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, m = argc > 2 ? atol(argv[2]) : 100;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < m; i++)
		syscall(SYS_close, -1);
	return 0;
}
