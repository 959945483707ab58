/* SPDX-License-Identifier: GPL-2.0 */
/* One run of a measuring command, and what every run loop needs (session.c):
 * main's and serve's. */
#ifndef KDIST_SESSION_H
#define KDIST_SESSION_H

#include <stdbool.h>

#include "cmd/command.h"
#include "model/options.h"

/* What main does for every measuring command, for commands that run
 * several sessions (serve): */
/* SIGINT, SIGTERM, SIGHUP and SIGCHLD, blocked, to a signalfd; or -errno. */
int kdist_signalfd(void);
/* Whether a SIGINT or SIGTERM waits for the run loop (a long read may
 * stop its event sources at once, kdist_signalfd's signals being blocked). */
bool kdist_end_pending(void);
/* 0 as root, else -EPERM after saying why. */
int kdist_need_root(void);
/* Resolve what the options name on this machine (--cgroup's set). */
int options_resolve(struct options *o);
/* prepare and attach; on failure nothing stays loaded.  0 or -errno. */
int session_start(struct session *s);
/* Detach and free what the session holds; a stopped session may stop again. */
void session_stop(struct session *s);

#endif
