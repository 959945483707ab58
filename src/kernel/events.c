// SPDX-License-Identifier: GPL-2.0
/* The ring buffers of single events (see events.h); evline.c prints them. */
#include "kernel/events.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

/* Events handled per events_poll(): main's loop checks its signals between
 * calls, so a producer faster than the printing cannot hold it. */
#define EVENTS_BUDGET 4096

struct source {
	int (*fn)(void *ctx, void *data, size_t size);
	void *ctx;
	struct ring_buffer *rb;	/* one per source: each is drained on its own */
};

static struct {
	int epfd;		/* the sources' epoll fds, one fd for main to poll */
	struct source src[8];
	int nsrc;
	int handled;
	uint64_t until;		/* events_drain(): the last time it prints */
	bool past;		/* events_drain(): a record after until came */
} ev;

static int handle(void *ctx, void *data, size_t size)
{
	struct source *s = ctx;

	/* every record starts with its bpf_ktime_get_ns() */
	if (ev.until && size >= sizeof(uint64_t) && *(uint64_t *)data > ev.until) {
		ev.past = true;
		return -ESRCH;
	}
	s->fn(s->ctx, data, size);
	/* negative stops ring_buffer__consume() where it is */
	return !ev.until && ++ev.handled >= EVENTS_BUDGET ? -EAGAIN : 0;
}

int events_add(int map_fd, int (*fn)(void *ctx, void *data, size_t size), void *ctx)
{
	struct source *s;
	struct epoll_event e = { .events = EPOLLIN };
	int err;

	if (ev.nsrc == (int)ARRAY_SIZE(ev.src)) {
		kd_err("failed to read events: more than %zu ring buffers", ARRAY_SIZE(ev.src));
		return -E2BIG;
	}
	if (!ev.nsrc) {
		ev.epfd = epoll_create1(EPOLL_CLOEXEC);
		if (ev.epfd < 0) {
			err = -errno;
			goto fail;
		}
	}
	s = &ev.src[ev.nsrc];
	*s = (struct source){ fn, ctx, ring_buffer__new(map_fd, handle, s, NULL) };
	if (!s->rb) {
		err = -errno;
		goto fail;
	}
	e.data.ptr = s;
	if (epoll_ctl(ev.epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(s->rb), &e)) {
		err = -errno;
		ring_buffer__free(s->rb);
		goto fail;
	}
	ev.nsrc++;
	return 0;
fail:
	kd_err("failed to read events: %s", strerror(-err));
	if (!ev.nsrc && ev.epfd >= 0)
		close(ev.epfd);
	return err;
}

int events_fd(void)
{
	return ev.nsrc ? ev.epfd : -1;
}

/* Each source in turn, from where the last call stopped: one that floods
 * cannot keep the others waiting. */
static int consume(void)
{
	static int next;
	int err = 0;

	ev.handled = 0;
	ev.past = false;
	for (int i = 0; i < ev.nsrc && !err; i++) {
		struct source *s = &ev.src[(next + i) % ev.nsrc];

		err = ring_buffer__consume(s->rb);
		if (err == -ESRCH && ev.past)
			err = 0;	/* this one is done, the next may not be */
		else if (err == -EAGAIN)
			next = (next + i + 1) % ev.nsrc;
		err = err > 0 ? 0 : err;
	}
	return err;
}

int events_poll(void)
{
	int err;

	if (!ev.nsrc)
		return 0;
	err = consume();
	return err == -EAGAIN ? 0 : err;
}

int events_drain(uint64_t until)
{
	int err;

	if (!ev.nsrc)
		return 0;
	ev.until = until;
	err = consume();
	ev.until = 0;
	return err;
}

void events_close(void)
{
	for (int i = 0; i < ev.nsrc; i++)
		ring_buffer__free(ev.src[i].rb);
	if (ev.nsrc)
		close(ev.epfd);
	ev.nsrc = 0;
}
