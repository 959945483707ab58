// SPDX-License-Identifier: GPL-2.0
/* kdist func: attaching the functions (fentry copies, kprobe.multi,
 * kprobes, uprobe.multi, uprobes). */
#include "cmd/func/func_int.h"
#include "kernel/explain_bpf.h"
#include "kernel/feature.h"
#include "func.skel.h"
#include "kernel/kfunc.h"
#include "kernel/umulti.h"
#include "lib/util.h"
#include "lib/progress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* The methods used, '+' between them: fentry, kprobe.multi or kprobe,
 * uprobe.multi or uprobe. */
static const char *attach_name(const struct func *fp)
{
	static char s[64];
	size_t len = 0;

	s[0] = '\0';
	if (fp->nfentry)
		len += snprintf(s + len, sizeof(s) - len, "fentry");
	if (fp->nkprobe || (fp->nkernel && !fp->nfentry))
		len += snprintf(s + len, sizeof(s) - len, "%s%s", len ? "+" : "",
				fp->multi ? "kprobe.multi" : "kprobe");
	if (fp->nuser)
		snprintf(s + len, sizeof(s) - len, "%s%s", len ? "+" : "",
			 fp->nufds ? "uprobe.multi" : "uprobe");
	return s;
}

/* The measurement starts once everything is attached: what the first
 * probes saw while the rest were attached is not part of it. */
static void reset_counts(struct func *fp)
{
	int fd = bpf_map__fd(fp->skel->maps.func_vals);
	struct func_key k, next;

	memset(fp->eng.buf, 0, fp->eng.ncpu * engine_percpu_stride(sizeof(struct func_val)));
	for (__u32 i = 0; !fp->cfg.grouped && i < fp->n; i++)
		bpf_map_update_elem(fd, &i, fp->eng.buf, BPF_EXIST);
	fd = bpf_map__fd(fp->skel->maps.group_vals);
	while (fp->cfg.grouped && !bpf_map_get_next_key(fd, NULL, &next)) {
		k = next;
		if (bpf_map_delete_elem(fd, &k))
			break;
	}
	for (__u32 d = 0; d < NR_FDROPS; d++)
		bpf_map_update_elem(fp->eng.drops_fd, &d, fp->eng.buf, BPF_EXIST);
	/* every page free again (the buffer is zeroes, larger than a page) */
	bpf_map_update_elem(bpf_map__fd(fp->skel->maps.func_pages), &(__u32){ 0 }, fp->eng.buf,
			    BPF_EXIST);
	engine_reset(&fp->eng);
}

/* Single uprobes, an entry and a return link per function of path (NULL:
 * of every binary). */
static int attach_user_single(struct func *fp, struct options *o, const char *path,
			      size_t *attached)
{
	for (size_t i = 0; i < fp->n; i++) {
		struct fn *f = &fp->fns[i];
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = i, .retprobe = true);
		struct bpf_link *lr, *le;
		int err;

		if (!f->path || (path && f->path != path))
			continue;
		if (stop_requested())
			return -EINTR;
		/* tried, attached or not: a refusal can take as long */
		progress_add(fp->progress, 1);
		if (!fp->cfg.cookies) {
			if (!kfunc_attach_copies(&fp->eng, fp->skel->progs.func_entry,
						 fp->skel->progs.func_exit, i, f->label, f->path, f->offset,
						 o->pid ? o->pid : -1)) {
				fp->skipped++;
				continue;
			}
			f->attached = true;
			fp->nuprobes += 2;
			(*attached)++;
			continue;
		}
		lr = bpf_program__attach_uprobe_opts(fp->skel->progs.func_exit,
						     o->pid ? o->pid : -1, f->path, f->offset, &uo);
		uo.retprobe = false;
		le = lr ? bpf_program__attach_uprobe_opts(fp->skel->progs.func_entry,
							  o->pid ? o->pid : -1, f->path,
							  f->offset, &uo) : NULL;
		if (!le) {
			kd_info("skipping %s: %s", f->label, strerror(errno));
			bpf_link__destroy(lr);
			fp->skipped++;
			continue;
		}
		/* kfunc's list owns every link, kernel or user */
		err = engine_link(&fp->eng, lr);
		if (!err)
			err = engine_link(&fp->eng, le);
		else
			bpf_link__destroy(le);
		if (err)
			return err;
		f->attached = true;
		fp->nuprobes += 2;
		(*attached)++;
	}
	return 0;
}

static int keep_ufd(struct func *fp, int fd)
{
	int *v = realloc(fp->ufds, (fp->nufds + 1) * sizeof(*v));

	if (!v) {
		close(fd);
		return -ENOMEM;
	}
	fp->ufds = v;
	fp->ufds[fp->nufds++] = fd;
	return 0;
}

/* The functions of path in two uprobe.multi links, returns first.  1 if
 * the kernel refuses the set (then nothing of path is attached). */
static int attach_user_multi(struct func *fp, struct options *o, const char *path,
			     size_t *attached)
{
	uint64_t *offs = malloc(fp->n * sizeof(*offs)), *cookies = malloc(fp->n * sizeof(*cookies));
	int lr = -1, le = -1, err = -ENOMEM;
	size_t k = 0;

	if (!offs || !cookies)
		goto out;
	for (size_t i = 0; i < fp->n; i++) {
		if (fp->fns[i].path != path)
			continue;
		offs[k] = fp->fns[i].offset;
		cookies[k++] = i;
	}
	err = 0;
	if (!k)
		goto out;
	lr = uprobe_multi_attach(fp->skel->progs.func_exit_umulti, path, offs, cookies, k,
				 true, o->pid);
	le = lr < 0 ? lr : uprobe_multi_attach(fp->skel->progs.func_entry_umulti, path, offs,
					       cookies, k, false, o->pid);
	if (le < 0) {
		kd_info("uprobe.multi refused for %zu functions of %s: %s: one uprobe each",
			k, path, strerror(-le));
		if (lr >= 0)
			close(lr);
		err = 1;
		goto out;
	}
	err = keep_ufd(fp, lr);
	if (err) {
		close(le);
		goto out;
	}
	err = keep_ufd(fp, le);
	if (err)
		goto out;
	for (size_t j = 0; j < k; j++)
		fp->fns[cookies[j]].attached = true;
	fp->nuprobes += 2 * k;
	*attached += k;
	progress_add(fp->progress, k);
out:
	free(offs);
	free(cookies);
	return err;
}

static int attach_user(struct func *fp, struct options *o, size_t *attached)
{
	int err = 0;

	if (!fp->umulti)
		return attach_user_single(fp, o, NULL, attached);
	for (int i = 0; !err && i < fp->npaths; i++) {
		err = stop_requested() ? -EINTR : attach_user_multi(fp, o, fp->paths[i], attached);
		if (err > 0)
			err = attach_user_single(fp, o, fp->paths[i], attached);
	}
	return err;
}

/* Kernel function i by an fentry and an fexit program of its own, with i
 * in place of PROG_COPY_MARK: return first, as with kprobes.  0, or
 * -errno with the reason in why (the function is then left as it was). */
static int attach_fentry_one(struct func *fp, size_t i, char *why, size_t len)
{
	struct bpf_program *tpl[2] = { fp->skel->progs.func_fexit, fp->skel->progs.func_fentry };
	int pfd[2] = { -1, -1 }, lfd[2] = { -1, -1 }, err = 0;
	struct kfunc_btf kb;
	const char *bwhy;

	if (kfunc_btf_find(fp->fns[i].name, fp->fns[i].module, &kb, &bwhy)) {
		snprintf(why, len, "%s", bwhy);
		return -ENOENT;
	}
	for (int k = 0; k < 2 && !err; k++) {
		uint64_t t0 = now_ns();

		pfd[k] = kfunc_prog_copy(tpl[k], i, kb.id, kb.obj_fd);
		fp->fentry_load_ns += now_ns() - t0;
		if (pfd[k] < 0) {
			err = pfd[k];
			snprintf(why, len, "%s program refused: %s", k ? "fentry" : "fexit",
				 strerror(-err));
			break;
		}
		/* the attach of fentry programs since they came (Linux 5.5):
		 * no cookie to give, the copy knows its function */
		lfd[k] = bpf_raw_tracepoint_open(NULL, pfd[k]);
		if (lfd[k] < 0) {
			err = -errno;
			snprintf(why, len, "%s attach refused: %s", k ? "fentry" : "fexit",
				 strerror(-err));
		}
	}
	if (err) {
		for (int k = 0; k < 2; k++) {
			if (lfd[k] >= 0)
				close(lfd[k]);
			if (pfd[k] >= 0)
				close(pfd[k]);
		}
		return err;
	}
	for (int k = 0; k < 2; k++) {
		err = engine_fd(&fp->eng, lfd[k], false);
		if (err) {
			close(pfd[k]);
			if (!k)
				close(lfd[1]), close(pfd[1]);
			return err;
		}
		err = engine_fd(&fp->eng, pfd[k], true);
		if (err) {
			if (!k)
				close(lfd[1]), close(pfd[1]);
			return err;
		}
	}
	return 0;
}

/* Every kernel function by fentry/fexit.  A function fentry cannot take is
 * left to kprobes where they are loaded, else skipped: said with -v. */
static int attach_fentry(struct func *fp)
{
	uint64_t t0 = now_ns();
	char why[160];

	kfunc_raise_fd_limit();
	for (size_t i = 0; i < fp->n; i++) {
		struct fn *f = &fp->fns[i];
		int err;

		if (f->path)
			continue;
		if (stop_requested())
			return -EINTR;
		why[0] = '\0';
		err = attach_fentry_one(fp, i, why, sizeof(why));
		/* one left to kprobes is counted there */
		if (!err || !fp->kprobes)
			progress_add(fp->progress, 1);
		if (err == -ENOMEM) {
			kd_err("failed to attach %s by fentry: %s", f->name,
			       why[0] ? why : strerror(ENOMEM));
			return err;
		}
		if (err) {
			if (fp->kprobes)
				kd_info("%s: by kprobes, not fentry: %s", f->name, why);
			else
				kd_info("skipping %s: fentry: %s", f->name, why);
			continue;
		}
		f->attached = true;
		fp->nfentry++;
	}
	kd_info("%zu functions by fentry/fexit: %.1f ms loading their programs, %.1f ms in all",
		fp->nfentry, fp->fentry_load_ns / 1e6, (now_ns() - t0) / 1e6);
	return 0;
}

static size_t count_attached(const struct func *fp)
{
	size_t n = 0;

	for (size_t i = 0; i < fp->n; i++)
		n += fp->fns[i].attached;
	return n;
}

static int attach_all(struct session *s)
{
	struct func *fp = s->priv;
	struct measurement *m = &fp->header;
	uint64_t t0 = now_ns();
	size_t attached = 0;
	int err = 0;

	kd_info("attaching %zu functions", fp->n);
	if (fp->fentry)
		err = attach_fentry(fp);
	if (!err && fp->nkernel && fp->kprobes) {
		const char **names = calloc(fp->n, sizeof(*names));
		uint64_t *cookies = calloc(fp->n, sizeof(*cookies));
		bool *ok = calloc(fp->n, sizeof(bool));
		size_t k = 0;

		if (!names || !cookies || !ok)
			err = -ENOMEM;
		for (size_t i = 0; !err && i < fp->n; i++) {
			if (fp->fns[i].path || fp->fns[i].attached)
				continue;
			names[k] = fp->fns[i].name;
			cookies[k++] = i;
		}
		if (!err && k) {
			struct kfunc_req r = {
				.entry = fp->multi ? fp->skel->progs.func_entry_multi :
					 fp->skel->progs.func_entry,
				.ret = fp->multi ? fp->skel->progs.func_exit_multi :
				       fp->skel->progs.func_exit,
				.multi = fp->multi, .names = names, .cookies = cookies, .n = k,
				.progress = fp->progress,
				.copies = fp->cfg.cookies ? NULL : &fp->eng,
			};
			err = kfunc_attach(&r, ok, &fp->eng.links);
		}
		for (size_t i = 0; (err >= 0 || err == -EINTR) && i < k; i++)
			fp->fns[cookies[i]].attached = ok[i];
		if (err >= 0) {
			fp->nkprobe = err;
			err = 0;
		}
		free(names);
		free(cookies);
		free(ok);
	}
	if (!err) {
		attached = fp->nfentry + fp->nkprobe;
		fp->skipped += fp->nkernel - attached;
	}
	if (!err && fp->nuser)
		err = attach_user(fp, s->opt, &attached);
	if (err == -EINTR) {
		kd_err("interrupted while attaching (%zu of %zu functions done): detaching",
		       count_attached(fp), fp->n);
		return err;
	}
	if (err)
		return err;
	if (!attached) {
		if (fp->nkernel && !fp->nuser && !fp->fentry)
			kfunc_attach_error(fp->fns[0].name, -ENOENT);
		kd_err("failed to attach any of the %zu functions (see -v)", fp->n);
		return -ENOENT;
	}
	reset_counts(fp);
	m->funcs_attached = attached;
	m->funcs_skipped = fp->skipped;
	m->attach_ms = (now_ns() - t0) / 1e6;
	snprintf(m->events[0].attach, sizeof(m->events[0].attach), "%s", attach_name(fp));
	kd_info("%zu functions attached with %s, %zu skipped, in %.1f ms", attached,
		attach_name(fp), fp->skipped, m->attach_ms);
	return 0;
}

/* Thousands of functions take seconds to attach (a VM kernel's fentry
 * copies, one kprobe each): on a terminal, a line says how far it is. */
int func_attach(struct session *s)
{
	struct func *fp = s->priv;
	struct progress pr;
	int err;

	/* --explain's state machine first: it follows a thread from the
	 * first call it enters */
	if (fp->cfg.explain) {
		err = explain_attach(&fp->eng, fp->skel->obj, fp->cfg.explain, &fp->header);
		if (err)
			return err;
	}
	progress_begin(&pr, "attaching functions", fp->n);
	fp->progress = &pr;
	err = attach_all(s);
	fp->progress = NULL;
	progress_end(&pr);
	return err;
}
