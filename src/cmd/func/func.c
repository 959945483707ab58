// SPDX-License-Identifier: GPL-2.0
/*
 * kdist func PATTERN...: calls, inclusive ("total") and exclusive ("self")
 * time and the distribution of every function of a set: kernel functions
 * by glob, user functions by u:PATH:GLOB, minus !GLOB exclusions.
 */
#include "cmd/func/func_int.h"
#include "func.skel.h"
#include "kernel/btfpath.h"
#include "kernel/container.h"
#include "kernel/keys.h"
#include "kernel/spec.h"
#include "kernel/stacks.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int configure(struct func *fp, struct options *o)
{
	struct func_cfg *c = &fp->cfg;
	struct measurement *m = &fp->header;
	char names[3][64];
	int n = o->by ? name_list_parse(o->by, names, 3, "--by") : 0;

	if (n < 0)
		return n;
	m->nby = 1;
	snprintf(m->by[0], sizeof(m->by[0]), "function");
	for (int i = 0; i < n; i++) {
		if (!strcmp(names[i], "pid"))
			c->by_pid = 1;
		else if (!strcmp(names[i], "tid"))
			c->by_tid = 1;
		else if (!strcmp(names[i], "comm"))
			c->by_comm = 1;
		else if (!strcmp(names[i], "cgroup") || cg_field_of(names[i]) >= 0)
			c->by_cgroup = 1;
		else if (!fp->by_path[0])	/* resolved once the functions are known */
			snprintf(fp->by_path, sizeof(fp->by_path), "%s", names[i]);
		else {
			kd_err("bad --by '%s': func groups by pid, tid, comm, cgroup, container, "
			       "pod, namespace, unit and one argument or path ('%s' is one)",
			       names[i], fp->by_path);
			return -EINVAL;
		}
		/* the cgroup id, named by the :container... formatters */
		if (cg_field_of(names[i]) >= 0) {
			int err;

			m->by_fmt[m->nby] = FMT_CONTAINER + cg_field_of(names[i]);
			err = key_prepare(m->by_fmt[m->nby]);
			if (err)
				return err;
		}
		snprintf(m->by[m->nby++], sizeof(m->by[0]), "%s", names[i]);
	}
	c->grouped = n > 0;
	task_filter_set(&c->filter, o);
	return 0;
}

/* --by PATH: an argument of each function of the set, or a path through
 * it, which must read the same (argument, offsets, type) in every one:
 * one configuration serves them all. */
static int func_by_path(struct func *fp)
{
	struct kpath kp, first = { 0 };
	struct kpath_type kt, t0 = { 0 };
	bool whole, whole0 = false;
	const char *f0 = NULL;
	int err;

	for (size_t i = 0; i < fp->n; i++) {
		const struct fn *f = &fp->fns[i];

		if (f->path) {
			kd_err("bad --by '%s': paths read kernel functions' arguments (BTF), not "
			       "those of %s", fp->by_path, f->label);
			return -EINVAL;
		}
		err = btfpath_resolve(BTF_ARGS_FUNC, f->name, f->label, fp->by_path, &kp, &kt,
				      &whole);
		if (err > 0) {
			kd_err("bad --by '%s': %s has no argument of that name", fp->by_path,
			       f->label);
			return -EINVAL;
		}
		if (err)
			return err;
		if (!f0) {
			f0 = f->label;
			first = kp;
			t0 = kt;
			whole0 = whole;
		} else if (memcmp(&kp, &first, sizeof(kp)) || whole != whole0 ||
			   kt.show != t0.show) {
			kd_err("bad --by '%s': %s and %s read it differently (argument %d and %d, "
			       "or the types on the way): give functions that agree", fp->by_path,
			       f0, f->label, first.arg + 1, kp.arg + 1);
			return -EINVAL;
		}
	}
	fp->cfg.by_path = 1;
	fp->cfg.path = first;
	fp->cfg.path_whole = whole0;
	fp->cfg.path_text = t0.show == KSHOW_STR;
	fp->by_path_enum = t0.show == KSHOW_ENUM ? t0.enum_id : 0;
	for (int j = 1; j < fp->header.nby; j++)
		if (!strcmp(fp->header.by[j], fp->by_path))
			fp->header.by_fmt[j] = btfpath_fmt(&t0);
	return 0;
}

static void fill_header(struct func *fp, struct options *o)
{
	struct measurement *m = &fp->header;
	struct m_event *e = &m->events[0];
	size_t len = 0;

	m->command = "func";
	m->kind = M_FUNC;
	m->nevents = 1;
	snprintf(e->role, sizeof(e->role), "function");
	for (int i = 0; i < o->nargs && len < sizeof(e->spec); i++)
		len += snprintf(e->spec + len, sizeof(e->spec) - len, "%s%s", i ? " " : "",
				o->args[i]);
	snprintf(m->title, sizeof(m->title), "func %s: calls, total and self time", e->spec);
	snprintf(m->key, sizeof(m->key), "thread (per-thread shadow stack, depth %d)",
		 FUNC_MAX_DEPTH);
}

static int func_prepare(struct session *s)
{
	struct options *o = s->opt;
	struct patterns pt = { 0 };
	struct func *fp = calloc(1, sizeof(*fp));
	int err;

	if (!fp)
		return -ENOMEM;
	s->priv = fp;
	err = func_parse_patterns(o, &pt);
	if (!err)
		err = configure(fp, o);
	if (!err && pt.nkernel)
		err = func_add_kernel(fp, &pt);
	for (int i = 0; !err && i < pt.nuser; i++)
		err = func_add_user(fp, &pt, pt.user[i]);
	if (!err && !fp->n) {
		kd_err("failed to find traceable functions: %zu match, none can be traced "
		       "(see -v)", fp->skipped);
		err = -ENOENT;
	}
	if (!err && fp->by_path[0])
		err = func_by_path(fp);
	free(pt.kernel);
	free(pt.user);
	free(pt.excl);
	if (err)
		return err;
	fill_header(fp, o);
	return func_load(fp, o);
}

static void func_cleanup(struct session *s)
{
	struct func *fp = s->priv;

	func_detach(fp);
	free(fp->ufds);
	stack_syms_free(fp->syms);
	func_bpf__destroy(fp->skel);
	free(fp->pages);
	for (size_t i = 0; i < fp->n; i++) {
		free(fp->fns[i].label);
		free(fp->fns[i].name);
		free(fp->fns[i].module);
	}
	free(fp->fns);
	for (int i = 0; i < fp->npaths; i++)
		free(fp->paths[i]);
	free(fp->paths);
	measurement_clear(&fp->header);
	free(fp);
	s->priv = NULL;
}

const struct command cmd_func = {
	.name = "func",
	.args = "PATTERN...",
	.summary = "per-function calls, total/self time, distribution (GLOB, u:PATH:GLOB, !GLOB)",
	.opts = OPTS_MEASURE | OPT(SLOWER_THAN) | OPT(STACK) | OPT(EXPLAIN) | OPT(MAX_BUCKETS) | OPT(ATTACH),
	.max_groups = 8192,
	.caps = CMD_SERVE | CMD_SELF_TIME,
	.by_help = "group by pid,tid,comm,cgroup,container,pod,namespace,unit,ARG|ARG->PATH",
	.prepare = func_prepare,
	.attach = func_attach,
	.read = func_read,
	.cleanup = func_cleanup,
};
