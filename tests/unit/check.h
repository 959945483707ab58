/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' one harness: check() prints PASS/FAIL, check_done()
 * prints "N passed, N failed, N skipped" and gives the exit code. */
#ifndef KDIST_CHECK_H
#define KDIST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int n_pass, n_fail, n_skip;

__attribute__((format(printf, 3, 4), unused))
static int check(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", ok ? "PASS" : "FAIL", name);
	if (!ok && fmt) {
		fputs(": ", stdout);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	if (ok)
		n_pass++;
	else
		n_fail++;
	return ok;
}

__attribute__((unused))
static void skip(const char *name, const char *why)
{
	printf("SKIP %s: %s\n", name, why);
	n_skip++;
}

__attribute__((unused))
static int check_done(void)
{
	printf("%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}

#endif
