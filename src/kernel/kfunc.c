// SPDX-License-Identifier: GPL-2.0
#include "kernel/kfunc.h"
#include "kernel/engine.h"
#include "kernel/feature.h"
#include "lib/util.h"
#include "lib/progress.h"

#include "kernel/copy.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

bool stop_requested(void)
{
	sigset_t s;

	if (sigpending(&s))
		return false;
	return sigismember(&s, SIGINT) || sigismember(&s, SIGTERM) || sigismember(&s, SIGHUP);
}

struct bpf_link *kfunc_attach_one(struct bpf_program *prog, const char *name, bool retprobe,
				  uint64_t cookie)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = retprobe, .bpf_cookie = cookie);

	return bpf_program__attach_kprobe_opts(prog, name, &ko);
}

int kfunc_prog_copy(struct bpf_program *tpl, uint32_t id, int btf_id, int obj_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = bpf_program__expected_attach_type(tpl),
		    .attach_btf_id = btf_id, .attach_btf_obj_fd = obj_fd);
	/* the template's instructions as loaded: relocated, map fds in */
	size_t n = bpf_program__insn_cnt(tpl);
	struct bpf_insn *in = malloc(n * sizeof(*in));
	int fd;

	if (!in)
		return -ENOMEM;
	memcpy(in, bpf_program__insns(tpl), n * sizeof(*in));
	for (size_t i = 0; i < n; i++)
		if (in[i].code == (BPF_ALU64 | BPF_MOV | BPF_K) && in[i].imm == PROG_COPY_MARK)
			in[i].imm = id;
	fd = bpf_prog_load(bpf_program__type(tpl), bpf_program__name(tpl), "GPL", in, n, &lo);
	fd = fd < 0 ? -errno : fd;
	free(in);
	return fd;
}

/* A number read from a file of PMU pmu: its type, or the bit of its
 * retprobe flag ("config:0"); -errno. */
static int pmu_number(const char *pmu, const char *file, const char *prefix)
{
	char p[128], *text;
	long v;

	snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s/%s", pmu, file);
	if (read_file(p, &text, NULL))
		return -ENOENT;
	v = strncmp(text, prefix, strlen(prefix)) ? -1 : strtol(text + strlen(prefix), NULL, 10);
	free(text);
	return v < 0 || v > 63 ? -EINVAL : (int)v;
}

int kfunc_perf_probe(int prog_fd, bool uprobe, bool ret, const char *name, uint64_t offset,
		     int pid)
{
	const char *pmu = uprobe ? "uprobe" : "kprobe";
	int type = pmu_number(pmu, "type", ""), bit = pmu_number(pmu, "format/retprobe", "config:");
	struct perf_event_attr a = {
		.size = sizeof(a),
		.sample_period = 1,
		.wakeup_events = 1,
		.config1 = (uint64_t)(unsigned long)name,	/* kprobe_func, uprobe_path */
		.config2 = offset,
	};
	int fd;

	if (type < 0 || bit < 0)
		return type < 0 ? type : bit;
	a.type = type;
	a.config = ret ? 1ULL << bit : 0;
	/* a kprobe's program runs on every CPU: the event names one */
	fd = syscall(__NR_perf_event_open, &a, pid > 0 ? pid : -1, pid > 0 ? -1 : 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

bool kfunc_attach_copies(struct engine *e, struct bpf_program *entry, struct bpf_program *ret,
			 uint32_t id, const char *name, const char *path, uint64_t offset, int pid)
{
	struct bpf_program *prog[2] = { ret, entry };
	int pfd[2] = { -1, -1 }, efd[2] = { -1, -1 }, err = 0, k;

	for (k = 0; k < 2 && !err; k++) {
		if (!prog[k])
			continue;
		pfd[k] = kfunc_prog_copy(prog[k], id, 0, 0);
		err = pfd[k] < 0 ? pfd[k] : 0;
		if (!err)
			efd[k] = kfunc_perf_probe(pfd[k], !!path, !k, path ? path : name, offset, pid);
		err = err ? err : efd[k] < 0 ? efd[k] : 0;
	}
	if (err)
		kd_info("skipping %s: %s%s: %s", name, path ? "u" : "k", k == 1 ? "retprobe" : "probe",
			strerror(-err));
	for (k = 0; k < 2; k++) {
		if (err || pfd[k] < 0 || efd[k] < 0) {
			if (efd[k] >= 0)
				close(efd[k]);
			if (pfd[k] >= 0)
				close(pfd[k]);
		} else if (engine_fd(e, efd[k], false) || engine_fd(e, pfd[k], true)) {
			err = -ENOMEM;
		}
	}
	return !err;
}

void kfunc_attach_error(const char *what, int err)
{
	if (!feature_has(FEAT_KPROBE, NULL))
		kd_err("failed to attach %s: this kernel has no kprobes (CONFIG_KPROBES)", what);
	else
		kd_err("failed to attach %s: %s", what, strerror(-err));
}

/* Attach prog to names[0..n) with kprobe.multi links.  When the kernel
 * refuses the set (one function it cannot trace fails the whole link), split
 * it in halves until the refused functions are alone: k bad functions cost
 * about 2 k log2(n) attempts. */
static int attach_multi(struct bpf_program *prog, bool retprobe, const char **names,
			const uint64_t *cookies, size_t n, bool *ok, struct engine_links *links)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .syms = names, .cookies = (const __u64 *)cookies, .cnt = n,
		    .retprobe = retprobe);
	struct bpf_link *l;
	int err;

	if (!n)
		return 0;
	if (stop_requested())
		return -EINTR;
	l = bpf_program__attach_kprobe_multi_opts(prog, NULL, &mo);
	if (l) {
		for (size_t i = 0; i < n; i++)
			ok[i] = true;
		return engine_links_add(links, l);
	}
	if (n == 1) {
		kd_info("skipping %s: kprobe.multi%s: %s", names[0], retprobe ? " return" : "",
			strerror(errno));
		ok[0] = false;
		return 0;
	}
	err = attach_multi(prog, retprobe, names, cookies, n / 2, ok, links);
	if (err)
		return err;
	return attach_multi(prog, retprobe, names + n / 2, cookies + n / 2, n - n / 2,
			    ok + n / 2, links);
}

/* Entry and return links for a set, both or neither per function: returns
 * first, then entries where the return attached; if an entry was refused
 * after its return attached, start over with the functions that took both.
 * The set shrinks each round, so this ends; normally after one round. */
static int attach_set_multi(const struct kfunc_req *r, bool *ok, struct engine_links *links)
{
	size_t n = r->n, m, mark = links->n;
	const char **names = malloc(n * sizeof(*names));
	uint64_t *cookies = malloc(n * sizeof(*cookies));
	size_t *idx = malloc(n * sizeof(*idx));
	bool *okr = calloc(n, sizeof(bool)), *oke = calloc(n, sizeof(bool));
	int err = -ENOMEM;

	if (!names || !cookies || !idx || !okr || !oke)
		goto out;
	for (size_t i = 0; i < n; i++) {
		names[i] = r->names[i];
		cookies[i] = r->cookies[i];
		idx[i] = i;
		ok[i] = false;
	}
	for (;;) {
		engine_links_truncate(links, mark);
		memset(okr, 0, n);
		memset(oke, 0, n);
		err = r->ret ? attach_multi(r->ret, true, names, cookies, n, okr, links) : 0;
		if (err)
			goto out;
		if (!r->ret)
			memset(okr, 1, n);
		/* compact to the functions whose return attached */
		for (size_t i = m = 0; i < n; i++) {
			if (!okr[i])
				continue;
			names[m] = names[i];
			cookies[m] = cookies[i];
			idx[m++] = idx[i];
		}
		err = r->entry ? attach_multi(r->entry, false, names, cookies, m, oke, links) : 0;
		if (err)
			goto out;
		if (!r->entry)
			memset(oke, 1, m);
		n = 0;
		for (size_t i = 0; i < m; i++) {
			if (!oke[i])
				continue;
			names[n] = names[i];
			cookies[n] = cookies[i];
			idx[n++] = idx[i];
		}
		if (n == m || !r->ret)
			break;
	}
	for (size_t i = 0; i < n; i++)
		ok[idx[i]] = true;
	progress_add(r->progress, r->n);
	err = n;
out:
	if (err < 0)
		engine_links_truncate(links, mark);
	free(names);
	free(cookies);
	free(idx);
	free(okr);
	free(oke);
	return err;
}

/* One perf-event kprobe per function and side: every link holds a perf
 * event and a link descriptor, more than the usual 1024 for large sets. */
void kfunc_raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int kfunc_attach(const struct kfunc_req *r, bool *ok, struct engine_links *links)
{
	size_t mark = links->n;
	int n = 0, err;

	if (r->multi)
		return attach_set_multi(r, ok, links);
	kfunc_raise_fd_limit();
	for (size_t i = 0; i < r->n; i++) {
		struct bpf_link *lr = NULL, *le = NULL;

		ok[i] = false;
		if (stop_requested())
			return -EINTR;	/* links stay for engine_links_destroy() */
		progress_add(r->progress, 1);
		if (r->copies) {
			ok[i] = kfunc_attach_copies(r->copies, r->entry, r->ret, r->cookies[i],
						    r->names[i], NULL, 0, -1);
			n += ok[i];
			continue;
		}
		if (r->ret) {
			lr = kfunc_attach_one(r->ret, r->names[i], true, r->cookies[i]);
			if (!lr) {
				kd_info("skipping %s: kretprobe: %s", r->names[i], strerror(errno));
				continue;
			}
		}
		if (r->entry) {
			le = kfunc_attach_one(r->entry, r->names[i], false, r->cookies[i]);
			if (!le) {
				kd_info("skipping %s: kprobe: %s", r->names[i], strerror(errno));
				bpf_link__destroy(lr);
				continue;
			}
		}
		err = lr ? engine_links_add(links, lr) : 0;
		if (err)
			bpf_link__destroy(le);
		else if (le)
			err = engine_links_add(links, le);
		if (err) {
			engine_links_truncate(links, mark);
			return err;
		}
		ok[i] = true;
		n++;
	}
	return n;
}
