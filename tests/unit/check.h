/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' one harness: check() prints PASS/FAIL, check_done()
 * prints "N passed, N failed, N skipped" and gives the exit code. */
#ifndef KDIST_CHECK_H
#define KDIST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

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

/* What the code between stderr_capture() and stderr_captured() writes to
 * stderr, into buf (NUL-terminated, cut at size - 1). */
struct captured {
	FILE *tmp;
	int saved;
};

__attribute__((unused))
static struct captured stderr_capture(void)
{
	struct captured c = { tmpfile(), -1 };

	fflush(stderr);
	if (c.tmp) {
		c.saved = dup(2);
		dup2(fileno(c.tmp), 2);
	}
	return c;
}

__attribute__((unused))
static void stderr_captured(struct captured *c, char *buf, size_t size)
{
	size_t n = 0;

	fflush(stderr);
	if (c->tmp) {
		dup2(c->saved, 2);
		close(c->saved);
		rewind(c->tmp);
		n = fread(buf, 1, size - 1, c->tmp);
		fclose(c->tmp);
	}
	buf[n] = '\0';
}

__attribute__((unused))
static int check_done(void)
{
	printf("%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}

#endif
