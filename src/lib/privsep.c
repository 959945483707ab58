// SPDX-License-Identifier: GPL-2.0
/* kdist serve --user: see privsep.h and docs/serve.md "Security". */
#include "lib/privsep.h"
#include "lib/util.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

/* What the child sends for each /metrics: the format and its counts. */
struct ps_request {
	uint64_t requests, rejected;
	uint32_t format;		/* enum http_format */
};

/* ... and what the parent answers before the body: its length, or
 * PS_FAILED for a 500. */
#define PS_FAILED UINT64_MAX

/* The user of /etc/passwd named name, or whose uid is name, read directly:
 * kdist is static, and glibc's getpwnam() would load the host's NSS
 * modules (systemd, sss...) for a name its built-in "files" service does
 * not know, modules made for another glibc. */
static bool passwd_find(const char *name, bool by_uid, uid_t uid, struct privsep_user *u)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	bool found = false;

	if (!f)
		return false;
	while (!found && (pw = fgetpwent(f))) {
		if (by_uid ? pw->pw_uid != uid : strcmp(pw->pw_name, name))
			continue;
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
		snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
		found = true;
	}
	fclose(f);
	return found;
}

int privsep_user(const char *name, struct privsep_user *u)
{
	char *end;
	unsigned long id = strtoul(name, &end, 10);
	bool numeric = *name && !*end && id < UINT32_MAX;

	if (!passwd_find(name, false, 0, u) && !(numeric && passwd_find(NULL, true, id, u))) {
		if (!numeric) {
			kd_err("bad --user '%s': no such user in /etc/passwd (give its uid instead)", name);
			return -EINVAL;
		}
		/* a uid /etc/passwd does not name (LDAP, DynamicUser=): its
		 * own group */
		u->uid = u->gid = id;
		snprintf(u->name, sizeof(u->name), "%lu", id);
	}
	if (u->uid == 0) {
		kd_err("bad --user '%s': the serving process must not be root", name);
		return -EINVAL;
	}
	return 0;
}

static int full_io(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;

	while (len) {
		ssize_t r = out ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EPIPE;
		p += r;
		len -= r;
	}
	return 0;
}

int privsep_answer(int chan, struct http_server *counts,
		   struct http_body *(*metrics)(void *ctx, enum http_format format), void *ctx)
{
	struct ps_request rq;
	struct http_body *b;
	uint64_t len;
	int err = full_io(chan, &rq, sizeof(rq), false);

	if (err)
		return -EPIPE;
	counts->requests = rq.requests;
	counts->rejected = rq.rejected;
	b = metrics(ctx, rq.format < NR_HTTP_FORMATS ? rq.format : HTTP_TEXT);
	len = b ? b->len : PS_FAILED;
	err = full_io(chan, &len, sizeof(len), true);
	if (!err && b)
		err = full_io(chan, b->data, b->len, true);
	http_body_put(b);
	return err ? -EPIPE : 0;
}

/* The child's /metrics: asked of the parent. */
struct remote {
	int chan;
	struct http_server *h;
};

static struct http_body *remote_metrics(void *ctx, enum http_format format)
{
	struct remote *r = ctx;
	struct ps_request rq = { .requests = r->h->requests, .rejected = r->h->rejected,
				 .format = format };
	uint64_t len;
	char *data;

	if (full_io(r->chan, &rq, sizeof(rq), true) || full_io(r->chan, &len, sizeof(len), false)) {
		/* the parent is gone: so is everything to serve */
		_exit(1);
	}
	if (len == PS_FAILED || !(data = malloc(len ? len : 1)))
		return NULL;
	if (full_io(r->chan, data, len, false))
		_exit(1);
	return http_body_new(data, len, http_types[format]);
}

/* Close every descriptor but keep[0..n) (sorted), stdin/out/err kept. */
static void close_others(const int *keep, int n)
{
	unsigned int from = 3;

	for (int i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned int)keep[i] < from)
			continue;
		if ((unsigned int)keep[i] > from)
			close_range(from, keep[i] - 1, 0);
		from = keep[i] + 1;
	}
	close_range(from, ~0U, 0);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Every capability out of the effective, permitted, inheritable and
 * ambient sets, as whatever
 * user we are: a service started as USER with ambient capabilities keeps
 * them across setresuid() to the same user. */
static int drop_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

#if defined(__x86_64__)
#define PS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/*
 * What an HTTP server never needs, refused with EPERM: BPF and perf (the
 * maps are the parent's), other processes' memory, running programs,
 * identities and capabilities, namespaces and mounts, modules and kexec,
 * keys.  A deny list, not an allow list: the serving side runs glibc's
 * and the TLS library's code paths, whose exact syscalls vary by version.
 */
static int install_seccomp(void)
{
#ifdef PS_AUDIT_ARCH
	static const int deny[] = {
		SYS_bpf, SYS_perf_event_open, SYS_ptrace, SYS_process_vm_readv,
		SYS_process_vm_writev, SYS_execve, SYS_execveat, SYS_setuid, SYS_setgid,
		SYS_setreuid, SYS_setregid, SYS_setresuid, SYS_setresgid, SYS_setgroups,
		SYS_setfsuid, SYS_setfsgid, SYS_capset, SYS_mount, SYS_umount2, SYS_pivot_root,
		SYS_chroot, SYS_setns, SYS_unshare, SYS_init_module, SYS_finit_module,
		SYS_delete_module, SYS_kexec_load, SYS_kexec_file_load, SYS_reboot,
		SYS_swapon, SYS_swapoff, SYS_open_by_handle_at, SYS_keyctl, SYS_add_key,
		SYS_request_key, SYS_userfaultfd, SYS_io_uring_setup, SYS_fanotify_init,
	};
	enum { N = ARRAY_SIZE(deny) };
	struct sock_filter f[5 + N + 2];
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };
	int k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PS_AUDIT_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	/* x32's numbers alias x86_64's with bit 30 set: none of them */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, N + 1, 0);
	for (int i = 0; i < N; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, deny[i], N - i, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0))
		return -errno;
#endif
	return 0;
}

static int drop_privileges(const struct privsep_user *u)
{
	int err = 0;

	/* while CAP_SETPCAP may still be ours; EPERM without it */
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	if (getuid() != u->uid || geteuid() != u->uid) {
		if (setgroups(1, &u->gid) || setresgid(u->gid, u->gid, u->gid) ||
		    setresuid(u->uid, u->uid, u->uid))
			err = -errno;
	}
	if (!err)
		err = drop_caps();
	if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		err = -errno;
	if (!err)
		err = install_seccomp();
	if (err)
		kd_err("failed to drop privileges to user '%s': %s", u->name, strerror(-err));
	return err;
}

static void child_serve(struct http_server *h, const struct privsep_user *u, int chan)
{
	struct pollfd pfd[2 + HTTP_MAX_CONNS];
	int keep[] = { h->fd, h->spare_fd, chan };
	struct remote r = { .chan = chan, .h = h };
	sigset_t none;

	/* the parent's signalfd set: the child goes with SIGINT and SIGTERM,
	 * and with the parent */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	qsort(keep, ARRAY_SIZE(keep), sizeof(int), cmp_int);
	close_others(keep, ARRAY_SIZE(keep));
	if (getppid() == 1 || drop_privileges(u))
		_exit(1);
	h->metrics = remote_metrics;
	h->ctx = &r;
	for (;;) {
		int timeout, n;

		pfd[0] = (struct pollfd){ .fd = chan, .events = POLLIN };
		n = 1 + http_pollfds(h, pfd + 1, &timeout);
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			_exit(1);
		/* the parent says nothing unasked: readable is its end */
		if (pfd[0].revents)
			_exit(0);
		http_serve(h, pfd + 1, n - 1);
	}
}

int privsep_fork(struct http_server *h, const struct privsep_user *u, int *chan, pid_t *pid)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		kd_err("failed to create the serving process's channel: %s", strerror(errno));
		return -errno;
	}
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		int err = -errno;

		kd_err("failed to fork the serving process: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (*pid == 0) {
		close(sv[0]);
		child_serve(h, u, sv[1]);
	}
	close(sv[1]);
	/* the parent keeps the listening socket, unpolled, for the next
	 * child (a reload of --web-config) */
	*chan = sv[0];
	return 0;
}
