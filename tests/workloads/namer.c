// SPDX-License-Identifier: GPL-2.0
/* namer N DIR: renames itself (prctl PR_SET_NAME) to each hostile name of
 * the list below in turn; under each, N getppid(2) calls, one openat(2) of
 * DIR/NAME (which fails when DIR does not exist) and one 20 ms nanosleep.
 * tests/host/hostile.test.sh holds the same list. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *const names[] = {
	"\xff" "bad",			/* not UTF-8 */
	"\x1b]52;c;aGk=\x07",		/* OSC 52: writes the clipboard */
	"\x1b]0;pwn\x07",		/* sets the window title */
	"\x1b[2J\x1b[H",		/* clears the screen */
	"a\rb\nc\"d,e",			/* CR, LF, quote, comma */
	"=HYPERLINK(1)",		/* a spreadsheet formula */
	"<script>x",			/* markup */
	"a|b\\c",			/* a table's pipe, a backslash */
	"x y=1 \xc3\xa9",		/* a space, a field, valid UTF-8 */
};

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	char path[4096];
	long n;

	if (argc != 3)
		return 2;
	n = atol(argv[1]);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int fd;

		if (prctl(PR_SET_NAME, names[i]))
			return 1;
		for (long k = 0; k < n; k++)
			syscall(SYS_getppid);
		snprintf(path, sizeof(path), "%s/%s", argv[2], names[i]);
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			close(fd);
		syscall(SYS_nanosleep, &ts, NULL);
	}
	return 0;
}
