// SPDX-License-Identifier: GPL-2.0
/*
 * What running a measuring command takes beyond its own prepare, attach,
 * read and cleanup: signals, the root check, options resolved on this
 * machine, start and stop.  main's run loop (kdist.c) runs one session
 * with them, kdist serve (serve.c) many.
 */
#include "kernel/container.h"
#include "lib/util.h"
#include "lib/workload.h"
#include "cmd/session.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

int kdist_signalfd(void)
{
	sigset_t mask;
	int sfd;

	/* A shell starts background commands with SIGINT ignored, and an
	 * ignored signal never reaches a signalfd: take the defaults back so
	 * that Ctrl-C and kill -INT always end the run with its result. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		sfd = -errno;
		kd_err("failed to create signalfd: %s", strerror(errno));
	}
	return sfd;
}

bool kdist_end_pending(void)
{
	sigset_t set;

	/* blocked (kdist_signalfd): pending until the run loop reads them */
	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 || sigismember(&set, SIGTERM) == 1);
}

int kdist_need_root(void)
{
	if (geteuid() == 0)
		return 0;
	kd_err("failed to start: kdist needs root (CAP_BPF and CAP_PERFMON) to load BPF");
	return -EPERM;
}

int options_resolve(struct options *o)
{
	return o->cgset ? 0 : cgroup_set_new(o->cgroup, &o->cond, &o->cgset);
}

int session_start(struct session *s)
{
	int err = s->cmd->prepare(s);

	if (!err)
		err = s->cmd->attach(s);
	if (err)
		session_stop(s);
	return err;
}

void session_stop(struct session *s)
{
	if (s->cmd->cleanup && s->priv)
		s->cmd->cleanup(s);
	s->priv = NULL;
}
