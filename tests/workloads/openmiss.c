// SPDX-License-Identifier: GPL-2.0
/* openmiss N DIR: openat(2) of N files DIR/missing-0 .. DIR/missing-N-1
 * that do not exist, each failing with ENOENT; exits 1 if one opens. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 3)
		return 2;
	for (long i = 0; i < atol(argv[1]); i++) {
		snprintf(path, sizeof(path), "%s/missing-%ld", argv[2], i);
		if (syscall(SYS_openat, AT_FDCWD, path, O_RDONLY) >= 0)
			return 1;
	}
	return 0;
}
