// SPDX-License-Identifier: GPL-2.0
/* The progress line of long attach and detach work: its text, when it is
 * drawn (on a terminal, after PROGRESS_DELAY_NS), its count from many
 * threads at once, and nothing at all off a terminal. */
#include "check.h"
#include "lib/progress.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *add_thousand(void *arg)
{
	for (int i = 0; i < 1000; i++)
		progress_add(arg, 1);
	return NULL;
}

static void test_text(void)
{
	char buf[160];

	progress_text(buf, sizeof(buf), "attaching functions", 1234, 5000, 3.4);
	check("text", !strcmp(buf, "attaching functions: 1,234 of 5,000 (24%), 3 s"), "%s", buf);
	progress_text(buf, sizeof(buf), "detaching probes", 2000000, 1500000, 61.5);
	check("text: never past the total",
	      !strcmp(buf, "detaching probes: 1,500,000 of 1,500,000 (100%), 62 s"), "%s", buf);
	progress_text(buf, sizeof(buf), "attaching", 7, 0, 0.2);
	check("text: not counted", !strcmp(buf, "attaching, 0 s"), "%s", buf);
}

/* As on a terminal: the line into a memory stream. */
static void test_line(void)
{
	struct progress p;
	pthread_t t[4];
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);

	/* begun off a terminal (no ticker thread), then drawn as on one */
	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		skip("the line", "cannot redirect stderr");
		return;
	}
	progress_begin(&p, "detaching probes", 5000);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null);
	p.f = f;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, add_thousand, &p);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	check("short work draws nothing", !progress_tick(&p, p.t0 + PROGRESS_DELAY_NS - 1), NULL);
	fflush(f);
	check("nothing written before the delay", len == 0, "%zu bytes", len);
	check("drawn after the delay", progress_tick(&p, p.t0 + 2 * PROGRESS_DELAY_NS + 200000000),
	      NULL);
	fflush(f);
	check("the line, rewritten in place, counted from four threads",
	      out && !strcmp(out, "\r\033[Kdetaching probes: 4,000 of 5,000 (80%), 1 s"), "%s", out);
	progress_end(&p);
	fflush(f);
	check("cleared at the end", out && len > 4 && !strcmp(out + len - 4, "\r\033[K"), "%s",
	      out ? out : "");
	fclose(f);
	free(out);
}

/* Off a terminal (stderr a file): no line, no thread. */
static void test_off_terminal(void)
{
	struct progress p;
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);

	if (!tmp || saved < 0 || dup2(fileno(tmp), STDERR_FILENO) < 0) {
		skip("off a terminal", "cannot redirect stderr");
		return;
	}
	progress_begin(&p, "attaching functions", 10);
	progress_add(&p, 10);
	check("off a terminal: nothing drawn", !p.f && !p.running &&
	      !progress_tick(&p, p.t0 + 10 * PROGRESS_DELAY_NS), NULL);
	progress_end(&p);
	fflush(stderr);
	check("off a terminal: nothing written", ftell(tmp) == 0 && lseek(STDERR_FILENO, 0, SEEK_END) == 0,
	      NULL);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fclose(tmp);
}

int main(void)
{
	test_text();
	test_line();
	test_off_terminal();
	return check_done();
}
