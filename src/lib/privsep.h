/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdist serve --user: the process that talks to the network runs without
 * privileges.  The parent loads, attaches, reads the maps and reloads on
 * SIGHUP, as before; a child it forks after attaching holds only the
 * listening socket, one end of a socket pair and stderr, drops to USER,
 * every capability and any way back (no_new_privs), installs a seccomp
 * filter, and serves HTTP.  For each /metrics it asks the parent, which
 * answers with the rendered body: the only thing the parent reads from
 * the child is a fixed-size request, never network bytes.
 */
#ifndef KDIST_PRIVSEP_H
#define KDIST_PRIVSEP_H

#include "lib/http.h"

#include <stdbool.h>
#include <sys/types.h>

struct privsep_user {
	uid_t uid;
	gid_t gid;
	char name[64];
};

/* USER (a name or a number) looked up: 0, or -EINVAL after one line. */
int privsep_user(const char *name, struct privsep_user *u);

/* Fork the serving child, which serves h (open, listening) as u and never
 * returns.  In the parent: the channel to it (>= 0) in *chan and its pid;
 * the parent must not serve h itself (it keeps the listening socket for
 * another child).  0 or -errno after one line. */
int privsep_fork(struct http_server *h, const struct privsep_user *u, int *chan, pid_t *pid);

/* In the parent, when chan is readable: answer the child's one request
 * with metrics(ctx, format), after copying its HTTP counts into
 * counts.  0, or -EPIPE once the child is gone. */
int privsep_answer(int chan, struct http_server *counts,
		   struct http_body *(*metrics)(void *ctx, enum http_format format), void *ctx);

#endif
