// SPDX-License-Identifier: GPL-2.0
/* kdist func: detaching, with a word when it takes a while. */
#include "cmd/func/func_int.h"
#include "lib/util.h"
#include "lib/progress.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

struct detach_notice {
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	bool done;
	size_t n;
	struct progress *progress;	/* on a terminal, says it instead */
};

/* Removing uprobes takes the kernel a while (single uprobes: an RCU grace
 * period each, shared by the threads engine.c detaches with), and signals
 * are held meanwhile: after a second say what is going on, and answer a
 * second Ctrl-C. */
static void *detach_notice(void *arg)
{
	struct detach_notice *d = arg;
	struct timespec t;
	bool said = false, told = false;
	sigset_t pend;
	int ticks = 0;

	pthread_mutex_lock(&d->lock);
	while (!d->done) {
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		if (pthread_cond_timedwait(&d->done_cv, &d->lock, &t) != ETIMEDOUT)
			continue;
		if (++ticks >= 10 && !said && d->progress->f) {
			said = true;
		} else if (ticks >= 10 && !said) {
			if (d->n >= 1000)
				fprintf(stderr, "detaching %zu,%03zu uprobes...\n", d->n / 1000,
					d->n % 1000);
			else
				fprintf(stderr, "detaching %zu uprobes...\n", d->n);
			said = true;
		}
		if (said && !told && !sigpending(&pend) &&
		    (sigismember(&pend, SIGINT) || sigismember(&pend, SIGTERM))) {
			progress_say(d->progress, "still detaching: kdist ends when every uprobe is "
				     "removed; SIGKILL now leaves the kernel to remove them (see kdist "
				     "func docs)\n");
			told = true;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

void func_detach(struct func *fp)
{
	struct progress pr;
	struct detach_notice d = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.done_cv = PTHREAD_COND_INITIALIZER,
		.n = fp->nuprobes,
		.progress = &pr,
	};
	uint64_t t0 = now_ns();
	pthread_t t;
	bool started;

	progress_begin(&pr, "detaching probes", fp->eng.links.n + fp->eng.nlink_fds + fp->nufds);
	started = fp->nuprobes && !pthread_create(&t, NULL, detach_notice, &d);
	for (size_t i = 0; i < fp->nufds; i++) {
		close(fp->ufds[i]);
		progress_add(&pr, 1);
	}
	fp->nufds = 0;
	fp->eng.links.progress = &pr;
	engine_close(&fp->eng);
	fp->eng.links.progress = NULL;
	if (started) {
		pthread_mutex_lock(&d.lock);
		d.done = true;
		pthread_cond_signal(&d.done_cv);
		pthread_mutex_unlock(&d.lock);
		pthread_join(t, NULL);
	}
	progress_end(&pr);
	kd_info("detached in %.1f ms", (now_ns() - t0) / 1e6);
}
