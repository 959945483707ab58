// SPDX-License-Identifier: GPL-2.0
#include "lib/progress.h"
#include "lib/util.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* 12345 as "12,345": counts of thousands of probes read at a glance */
static void thousands(char *buf, size_t len, size_t n)
{
	if (n >= 1000000)
		snprintf(buf, len, "%zu,%03zu,%03zu", n / 1000000, n / 1000 % 1000, n % 1000);
	else if (n >= 1000)
		snprintf(buf, len, "%zu,%03zu", n / 1000, n % 1000);
	else
		snprintf(buf, len, "%zu", n);
}

void progress_text(char *buf, size_t len, const char *what, size_t done, size_t total,
		   double secs)
{
	char d[32], t[32];

	thousands(d, sizeof(d), done < total ? done : total);
	thousands(t, sizeof(t), total);
	if (total)
		snprintf(buf, len, "%s: %s of %s (%d%%), %.0f s", what, d, t,
			 (int)(100.0 * (done < total ? done : total) / total), secs);
	else
		snprintf(buf, len, "%s, %.0f s", what, secs);
}

bool progress_tick(struct progress *p, uint64_t now)
{
	char line[160];

	if (!p->f || now - p->t0 < PROGRESS_DELAY_NS)
		return false;
	progress_text(line, sizeof(line), p->what, atomic_load(&p->done), p->total,
		      (now - p->t0) / 1e9);
	pthread_mutex_lock(&p->lock);
	fprintf(p->f, "\r\033[K%s", line);
	fflush(p->f);
	p->shown = true;
	pthread_mutex_unlock(&p->lock);
	return true;
}

static void *ticker(void *arg)
{
	struct progress *p = arg;
	struct timespec ts;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += PROGRESS_TICK_NS;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		if (pthread_cond_timedwait(&p->cv, &p->lock, &ts) != ETIMEDOUT || p->stop)
			continue;
		pthread_mutex_unlock(&p->lock);
		progress_tick(p, now_ns());
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void progress_begin(struct progress *p, const char *what, size_t total)
{
	pthread_condattr_t ca;

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->total = total;
	p->t0 = now_ns();
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* a person watches, and no -v lines run through it */
	if (!isatty(STDERR_FILENO) || kd_verbose_level)
		return;
	p->f = stderr;
	p->running = !pthread_create(&p->thread, NULL, ticker, p);
}

void progress_say(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&p->lock);
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&p->lock);
}

void progress_end(struct progress *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->lock);
	if (p->running)
		pthread_join(p->thread, NULL);
	p->running = false;
	if (p->shown && p->f)
		fputs("\r\033[K", p->f);
	p->shown = false;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
}
