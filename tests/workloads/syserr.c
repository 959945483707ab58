// SPDX-License-Identifier: GPL-2.0
/* syserr N M [K]: N getppid(2) calls, M close(-1) calls failing with EBADF,
 * then K close(fd) of K different fds that are not open (100000 + i), each
 * failing with EBADF. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, m = argc > 2 ? atol(argv[2]) : 100;
	long k = argc > 3 ? atol(argv[3]) : 0;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < m; i++)
		syscall(SYS_close, -1);
	for (long i = 0; i < k; i++)
		syscall(SYS_close, 100000 + i);
	return 0;
}
