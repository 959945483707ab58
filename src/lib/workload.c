// SPDX-License-Identifier: GPL-2.0
#include "lib/workload.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cgroup2_mount(char *out, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *e;
	int err = -ENOENT;

	if (!f)
		return -errno;
	while ((e = getmntent(f))) {
		if (!strcmp(e->mnt_type, "cgroup2")) {
			snprintf(out, len, "%s", e->mnt_dir);
			err = 0;
			break;
		}
	}
	endmntent(f);
	return err;
}

int cgroup_id_of(const char *path, uint64_t *id)
{
	char full[512], mnt[256];
	struct stat st;
	struct statfs fs;

	/* a path relative to the cgroup2 mount is accepted too */
	if (path[0] != '/' && !cgroup2_mount(mnt, sizeof(mnt)))
		snprintf(full, sizeof(full), "%s/%s", mnt, path);
	else
		snprintf(full, sizeof(full), "%s", path);
	if (stat(full, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || statfs(full, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC)
		return -ENOTDIR;
	/* on 64-bit kernels the cgroup id is the kernfs inode number */
	*id = st.st_ino;
	return 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static bool executable(const char *path)
{
	struct stat st;

	return !access(path, X_OK) && !stat(path, &st) && S_ISREG(st.st_mode);
}

int workload_check(char **argv)
{
	const char *path = getenv("PATH");
	char full[4096];

	if (strchr(argv[0], '/')) {
		errno = 0;
		if (executable(argv[0]))
			return 0;
		kd_err("bad workload '%s': %s", argv[0], errno ? strerror(errno) : "not a file");
		return -ENOEXEC;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p; p += strcspn(p, ":") + !!p[strcspn(p, ":")]) {
		size_t len = strcspn(p, ":");

		snprintf(full, sizeof(full), "%.*s/%s", (int)len, len ? p : ".", argv[0]);
		if (executable(full))
			return 0;
	}
	kd_err("bad workload '%s': no such command in $PATH", argv[0]);
	return -ENOENT;
}

/* No cgroup v2 mounted (a cgroup v1 system, or a minimal one): mount it
 * over /sys/fs/cgroup in a mount namespace of kdist's own.  The cgroup v2
 * hierarchy always exists (and bpf_get_current_cgroup_id() reads it) even
 * when v1 hierarchies hold every controller; the mount is seen by kdist
 * alone and goes with it however it exits.  The workload, forked before,
 * keeps the system's mounts. */
static int cgroup2_mount_private(char *out, size_t len)
{
	const char *dir = "/sys/fs/cgroup";

	if (unshare(CLONE_NEWNS))
		return -errno;
	/* private first, or the mount would propagate back to shared peers */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("cgroup2", dir, "cgroup2", 0, NULL))
		return -errno;
	kd_info("no cgroup v2 mounted: mounted one at %s for kdist alone", dir);
	snprintf(out, len, "%s", dir);
	return 0;
}

/* Wait until the child sits in its read() of the go pipe.  What it does
 * before (glibc's bookkeeping after fork, closing the pipe's other end) is
 * kdist's doing, not the workload's, and on a busy machine the child may
 * not have run at all by the time the probes are attached: its first
 * syscalls would be traced (three more than the workload's own).
 * /proc/PID/syscall names the syscall a task is blocked in ("running"
 * while it runs); where it cannot be read, kdist does not wait. */
static void workload_wait_held(pid_t pid)
{
	char path[64], *text;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 5000; i++) {
		struct timespec ms = { 0, 1000 * 1000 };
		bool done;

		if (read_file(path, &text, NULL))
			return;
		/* empty: not readable like this; a number: blocked in it */
		done = !text[0] || (text[0] >= '0' && text[0] <= '9' && atol(text) == SYS_read);
		free(text);
		if (done)
			return;
		nanosleep(&ms, NULL);
	}
}

int workload_prepare(struct workload *w, const char *cmd, char **argv)
{
	char mnt[256], pidbuf[32];
	int pfd[2], err;

	memset(w, 0, sizeof(*w));
	w->go_fd = -1;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (w->pid == 0) {
		const char *prog = cmd ? "sh" : argv[0];
		char go;
		sigset_t all;

		/* the few calls between the go and exec are the workload's:
		 * named as it will be (its comm after exec), not "kdist" */
		prctl(PR_SET_NAME, strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog);
		/* hold until the probes are attached; EOF means kdist gave up */
		close(pfd[1]);
		if (read(pfd[0], &go, 1) != 1)
			_exit(127);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		/* kdist's stdout carries its results alone (-o json | jq): what
		 * the workload prints goes to kdist's stderr */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if (cmd)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		else
			execvp(argv[0], argv);
		fprintf(stderr, "kdist: failed to run %s: %s\n", cmd ? "/bin/sh" : argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pfd[0]);
	w->go_fd = pfd[1];

	err = cgroup2_mount(mnt, sizeof(mnt));
	if (err == -ENOENT)
		err = cgroup2_mount_private(mnt, sizeof(mnt));
	if (!err) {
		snprintf(w->cgroup_dir, sizeof(w->cgroup_dir), "%s/kdist-%d", mnt, getpid());
		if (mkdir(w->cgroup_dir, 0755) && errno != EEXIST)
			err = -errno;
		snprintf(pidbuf, sizeof(pidbuf), "%d", w->pid);
		if (!err) {
			char procs[300];

			snprintf(procs, sizeof(procs), "%s/cgroup.procs", w->cgroup_dir);
			err = write_str(procs, pidbuf);
		}
		if (!err)
			err = cgroup_id_of(w->cgroup_dir, &w->cgroup_id);
	}
	if (err) {
		kd_err("failed to create a cgroup for the workload: %s", strerror(-err));
		workload_cleanup(w);
		return err;
	}
	workload_wait_held(w->pid);
	return 0;
}

int workload_start(struct workload *w)
{
	int err = 0;

	if (write(w->go_fd, "g", 1) != 1)
		err = -errno;
	close(w->go_fd);
	w->go_fd = -1;
	return err;
}

bool workload_done(struct workload *w)
{
	if (!w->exited && w->pid > 0 && waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		w->exited = true;
	return w->exited;
}

void workload_cleanup(struct workload *w)
{
	char path[300];

	if (w->go_fd >= 0) {
		close(w->go_fd);	/* a held child exits on EOF */
		w->go_fd = -1;
	}
	if (w->pid > 0 && !w->exited) {
		if (!workload_done(w))
			kill(w->pid, SIGTERM);
		if (waitpid(w->pid, &w->status, 0) == w->pid)
			w->exited = true;
	}
	if (!w->cgroup_dir[0])
		return;
	/* children left behind by the workload go too (cgroup.kill: 5.14+) */
	snprintf(path, sizeof(path), "%s/cgroup.kill", w->cgroup_dir);
	for (int i = 0; i < 100 && rmdir(w->cgroup_dir) && errno == EBUSY; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (i == 0)
			write_str(path, "1");
		nanosleep(&ts, NULL);
	}
	w->cgroup_dir[0] = '\0';
}

int workload_status(const struct workload *w)
{
	if (WIFEXITED(w->status) && WEXITSTATUS(w->status)) {
		kd_err("the workload exited with status %d", WEXITSTATUS(w->status));
		return WEXITSTATUS(w->status);
	}
	if (WIFSIGNALED(w->status)) {
		kd_err("the workload was killed by signal %d (%s)", WTERMSIG(w->status),
		       strsignal(WTERMSIG(w->status)));
		return 128 + WTERMSIG(w->status);
	}
	return 0;
}
