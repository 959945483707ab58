// SPDX-License-Identifier: GPL-2.0
/*
 * kdist func PATTERN...: calls, inclusive ("total") and exclusive ("self")
 * time and the distribution of every function of a set: kernel functions
 * by glob, user functions by u:PATH:GLOB, minus !GLOB exclusions.
 */
#include "func.h"
#include "engine.h"
#include "feature.h"
#include "func.skel.h"
#include "kdist.h"
#include "kfunc.h"
#include "spec.h"
#include "syms.h"
#include "tracefs.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

struct fn {
	char *label;		/* kernel: name; user: "binary:name" */
	char *name;
	const char *path;	/* user functions: the resolved binary */
	uint64_t offset;	/* user functions: file offset */
	bool attached;
};

struct func {
	struct func_bpf *skel;
	struct fn *fns;
	size_t n, cap;
	char **paths;		/* resolved user binaries, owned */
	int npaths;
	struct func_cfg cfg;
	bool multi;		/* kernel functions through kprobe.multi */
	size_t nkernel, nuser;
	size_t skipped;		/* matched but not traceable or not attached */
	struct engine eng;	/* its links: every link, kernel or user */
	struct measurement header;
};

static const char *const drop_names[NR_FDROPS] = {
	[FDROP_RET_NO_ENTRY] = "return_without_entry",
	[FDROP_RET_MISSED] = "return_missed",
	[FDROP_DEPTH] = "depth_overflow",
	[FDROP_STACK_FULL] = "stack_table_full",
	[FDROP_GROUP_FULL] = "group_table_full",
};

struct patterns {
	const char **kernel, **user, **excl;
	int nkernel, nuser, nexcl;
};

static bool excluded(const struct patterns *pt, const char *name)
{
	for (int i = 0; i < pt->nexcl; i++)
		if (glob_match(pt->excl[i], name))
			return true;
	return false;
}

static int fn_add(struct func *fp, const char *label, const char *name, const char *path,
		  uint64_t offset)
{
	struct fn *f;

	if (fp->n == fp->cap) {
		size_t cap = fp->cap ? fp->cap * 2 : 64;
		struct fn *v = realloc(fp->fns, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fp->fns = v;
		fp->cap = cap;
	}
	f = &fp->fns[fp->n];
	memset(f, 0, sizeof(*f));
	f->label = strdup(label);
	f->name = strdup(name);
	f->path = path;
	f->offset = offset;
	if (!f->label || !f->name) {
		free(f->label);
		free(f->name);
		return -ENOMEM;
	}
	fp->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool in_sorted(char **v, size_t n, const char *name)
{
	return n && bsearch(&name, v, n, sizeof(*v), cmp_str);
}

/* Function names of a file with one per line, the name first (tracefs
 * available_filter_functions: "name [module]"; kprobes blacklist:
 * "0xstart-0xend name"), sorted.  *buf owns the strings. */
static int read_names(const char *path, int field, char ***out, size_t *n, char **buf)
{
	size_t len, cap = 0;
	char *line, *save = NULL;
	int err;

	*out = NULL;
	*n = 0;
	err = read_file(path, buf, &len);
	if (err)
		return err;
	for (line = strtok_r(*buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok = strtok(line, " \t");

		for (int i = 0; tok && i < field; i++)
			tok = strtok(NULL, " \t");
		if (!tok)
			continue;
		if (*n == cap) {
			char **v = realloc(*out, (cap = cap ? cap * 2 : 4096) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			*out = v;
		}
		(*out)[(*n)++] = tok;
	}
	qsort(*out, *n, sizeof(**out), cmp_str);
	return 0;
}

/* Kernel functions: kallsyms text symbols matching a pattern, traceable
 * when ftrace lists them (available_filter_functions: not notrace, not
 * inlined away) and kprobes do not refuse them (the kprobes blacklist). */
static int add_kernel(struct func *fp, const struct patterns *pt)
{
	char path[512], *fbuf = NULL, *bbuf = NULL, **avail = NULL, **deny = NULL;
	const char **names = NULL, **exact = NULL;
	size_t navail, ndeny = 0, nnames = 0, matched = 0, nexact = 0;
	int *globs = NULL, nglobs = 0;
	int *per_glob = calloc(pt->nkernel, sizeof(int));
	struct ksyms *ks = NULL;
	const struct ksym *k;
	int err = -ENOMEM;

	if (!per_glob)
		goto out;
	if (!feature_has(FEAT_KPROBE, NULL)) {
		kd_err("failed to trace '%s': this kernel has no kprobes (CONFIG_KPROBES), "
		       "so no kernel functions; user functions (u:PATH:GLOB) work", pt->kernel[0]);
		err = -EOPNOTSUPP;
		goto out;
	}
	if (!tracefs_root()) {
		err = -ENODEV;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs_root());
	err = read_names(path, 0, &avail, &navail, &fbuf);
	if (err) {
		kd_err("failed to read %s: %s", path, strerror(-err));
		goto out;
	}
	if (read_names("/sys/kernel/debug/kprobes/blacklist", 1, &deny, &ndeny, &bbuf))
		kd_info("no kprobes blacklist (debugfs not mounted): relying on attach errors");
	ks = ksyms_load();
	if (!ks) {
		err = -errno;
		goto out;
	}
	names = malloc(ksyms_count(ks) * sizeof(*names));
	if (!names) {
		err = -ENOMEM;
		goto out;
	}
	/* Plain names by binary search, globs by matching: a list of 1000
	 * names would otherwise cost 1000 matches per kernel symbol. */
	exact = malloc(pt->nkernel * sizeof(*exact));
	globs = malloc(pt->nkernel * sizeof(*globs));
	if (!exact || !globs) {
		err = -ENOMEM;
		goto out;
	}
	for (int g = 0; g < pt->nkernel; g++) {
		if (strpbrk(pt->kernel[g], "*?[\\"))
			globs[nglobs++] = g;
		else
			exact[nexact++] = pt->kernel[g];
	}
	qsort(exact, nexact, sizeof(*exact), cmp_str);
	for (size_t i = 0; (k = ksyms_at(ks, i)); i++) {
		bool hit = in_sorted((char **)exact, nexact, k->name);

		/* padding and CFI stubs before functions are not functions */
		if (!strncmp(k->name, "__pfx_", 6) || !strncmp(k->name, "__cfi_", 6))
			continue;
		for (int j = 0; j < nglobs; j++) {
			if (glob_match(pt->kernel[globs[j]], k->name)) {
				per_glob[globs[j]]++;
				hit = true;
			}
		}
		if (hit && !excluded(pt, k->name))
			names[nnames++] = k->name;
	}
	qsort(names, nnames, sizeof(*names), cmp_str);
	for (int g = 0; g < pt->nkernel; g++) {
		if (!per_glob[g] && !in_sorted((char **)names, nnames, pt->kernel[g]) &&
		    !excluded(pt, pt->kernel[g])) {
			kd_err("failed to find kernel functions matching '%s': no such symbol "
			       "in /proc/kallsyms", pt->kernel[g]);
			err = -ENOENT;
			goto out;
		}
	}
	/* one function per name: that is what kprobes attach to by name */
	for (size_t i = 0; i < nnames; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		matched++;
		if (!in_sorted(avail, navail, names[i]) || in_sorted(deny, ndeny, names[i])) {
			fp->skipped++;
			continue;
		}
		err = fn_add(fp, names[i], names[i], NULL, 0);
		if (err)
			goto out;
		fp->nkernel++;
	}
	kd_info("%zu kernel functions match, %zu traceable", matched, fp->nkernel);
	err = 0;
out:
	free(per_glob);
	free(exact);
	free(globs);
	free(names);
	ksyms_free(ks);
	free(avail);
	free(fbuf);
	free(deny);
	free(bbuf);
	return err;
}

struct user_ctx {
	struct func *fp;
	const struct patterns *pt;
	const char *path, *base;
	struct elf_syms *es;
	uint64_t entry;
	size_t first, found;
	int err;
};

static int user_sym(const struct elf_sym *sym, void *arg)
{
	struct user_ctx *c = arg;
	uint64_t off = sym->offset;
	char label[320];

	if (excluded(c->pt, sym->name))
		return 0;
	c->found++;
	/* A uretprobe replaces the return address on entry; the entry point
	 * has none (its stack starts with argc), and an IFUNC symbol is the
	 * resolver, not the function. */
	if (sym->addr == c->entry || sym->type == STT_GNU_IFUNC ||
	    (!off && elf_syms_vaddr_to_offset(c->es, sym->addr, &off))) {
		kd_info("skipping %s in %s: %s", sym->name, c->path,
			sym->addr == c->entry ? "the entry point never returns" :
			sym->type == STT_GNU_IFUNC ? "an IFUNC resolver" : "no file offset");
		c->fp->skipped++;
		return 0;
	}
	/* the same function through another pattern */
	for (size_t i = c->first; i < c->fp->n; i++)
		if (c->fp->fns[i].path == c->path && c->fp->fns[i].offset == off)
			return 0;
	snprintf(label, sizeof(label), "%s:%s", c->base, sym->name);
	c->fp->nuser++;
	return fn_add(c->fp, label, sym->name, c->path, off);
}

static uint64_t elf_entry(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t e = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && eh.e_ident[EI_CLASS] == ELFCLASS64)
		e = eh.e_entry;
	close(fd);
	return e;
}

/* u:PATH:GLOB, PATH a file or a name such as libc */
static int add_user(struct func *fp, const struct patterns *pt, const char *spec)
{
	struct user_ctx c = { .fp = fp, .pt = pt };
	const char *glob = strrchr(spec + 2, ':');
	char want[256], path[512], **paths;
	int err, i;

	if (!glob || glob == spec + 2 || !glob[1] || glob - spec - 2 >= (long)sizeof(want)) {
		kd_err("bad pattern '%s': expected u:PATH:GLOB", spec);
		return -EINVAL;
	}
	snprintf(want, sizeof(want), "%.*s", (int)(glob - spec - 2), spec + 2);
	glob++;
	err = resolve_binary_path(want, path, sizeof(path));
	if (err) {
		kd_err("failed to find '%s' of %s: %s", want, spec, strerror(-err));
		return err;
	}
	for (i = 0; i < fp->npaths && strcmp(fp->paths[i], path); i++)
		;
	if (i == fp->npaths) {
		paths = realloc(fp->paths, (fp->npaths + 1) * sizeof(*paths));
		if (!paths)
			return -ENOMEM;
		fp->paths = paths;
		paths[fp->npaths] = strdup(path);
		if (!paths[fp->npaths])
			return -ENOMEM;
		fp->npaths++;
	}
	c.path = fp->paths[i];
	c.base = strrchr(c.path, '/') ? strrchr(c.path, '/') + 1 : c.path;
	c.es = elf_syms_load(c.path);
	if (!c.es)
		return -errno;
	c.entry = elf_entry(c.path);
	err = elf_syms_match(c.es, glob, user_sym, &c);
	elf_syms_free(c.es);
	if (err < 0)
		return err;
	if (!c.found) {
		kd_err("failed to find functions of %s matching '%s'", c.path, glob);
		return -ENOENT;
	}
	return 0;
}

static int parse_patterns(struct options *o, struct patterns *pt)
{
	pt->kernel = calloc(o->nargs, sizeof(char *));
	pt->user = calloc(o->nargs, sizeof(char *));
	pt->excl = calloc(o->nargs, sizeof(char *));
	if (!pt->kernel || !pt->user || !pt->excl)
		return -ENOMEM;
	for (int i = 0; i < o->nargs; i++) {
		const char *a = o->args[i];

		if (a[0] == '!' && a[1])
			pt->excl[pt->nexcl++] = a + 1;
		else if (!strncmp(a, "u:", 2))
			pt->user[pt->nuser++] = a;
		else if (!strncmp(a, "k:", 2) && a[2])
			pt->kernel[pt->nkernel++] = a + 2;
		else if (a[0] && a[0] != '!' && !strchr(a, ':'))
			pt->kernel[pt->nkernel++] = a;
		else {
			kd_err("bad pattern '%s': expected GLOB, k:GLOB, u:PATH:GLOB or !GLOB", a);
			return -EINVAL;
		}
	}
	if (!pt->nkernel && !pt->nuser) {
		kd_err("bad arguments: expected PATTERN..., e.g. kdist func 'vfs_*' or "
		       "kdist func 'u:libc:malloc'");
		return -EINVAL;
	}
	return 0;
}

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
		else {
			kd_err("bad --by '%s': func groups by pid, tid or comm", names[i]);
			return -EINVAL;
		}
		snprintf(m->by[m->nby++], sizeof(m->by[0]), "%s", names[i]);
	}
	c->grouped = n > 0;
	task_filter_set(&c->filter, o);
	return 0;
}

static int load(struct func *fp, struct options *o)
{
	struct bpf_program *prog;
	const char *why;
	int err;

	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL) <= 0) {
		kd_err("failed to prepare func: this kernel lacks bpf_get_attach_cookie (Linux 5.15)");
		return -EOPNOTSUPP;
	}
	fp->multi = fp->nkernel && feature_has(FEAT_KPROBE_MULTI, &why);
	if (fp->nkernel && !fp->multi)
		kd_info("no kprobe.multi (%s): one kprobe per function", why);
	fp->cfg.task_storage = feature_has(FEAT_TASK_STORAGE_KPROBE, NULL);
	kd_info("shadow stacks in %s", fp->cfg.task_storage ? "task storage" : "a tid-keyed hash");
	fp->skel = func_bpf__open();
	err = engine_opened(fp->skel);
	if (err)
		return err;
	fp->skel->rodata->cfg = fp->cfg;
	bpf_map__set_max_entries(fp->skel->maps.func_vals, fp->n);
	if (o->max_groups)
		bpf_map__set_max_entries(fp->skel->maps.group_vals, o->max_groups);
	bpf_object__for_each_program(prog, fp->skel->obj) {
		bool is_multi = prog == fp->skel->progs.func_entry_multi ||
				prog == fp->skel->progs.func_exit_multi;

		bpf_program__set_autoload(prog, is_multi ? fp->multi :
					  fp->nuser || (fp->nkernel && !fp->multi));
	}
	return engine_load(&fp->eng, fp->skel->skeleton, drop_names, NR_FDROPS);
}

static const char *attach_name(const struct func *fp)
{
	if (fp->nkernel && fp->nuser)
		return fp->multi ? "kprobe.multi+uprobe" : "kprobe+uprobe";
	if (fp->nkernel)
		return fp->multi ? "kprobe.multi" : "kprobe";
	return "uprobe";
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
	err = parse_patterns(o, &pt);
	if (!err)
		err = configure(fp, o);
	if (!err && pt.nkernel)
		err = add_kernel(fp, &pt);
	for (int i = 0; !err && i < pt.nuser; i++)
		err = add_user(fp, &pt, pt.user[i]);
	if (!err && !fp->n) {
		kd_err("failed to find traceable functions: %zu match, none can be traced "
		       "(see -v)", fp->skipped);
		err = -ENOENT;
	}
	free(pt.kernel);
	free(pt.user);
	free(pt.excl);
	if (err)
		return err;
	fill_header(fp, o);
	return load(fp, o);
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
	engine_reset(&fp->eng);
}

static int attach_user(struct func *fp, struct options *o, size_t *attached)
{
	for (size_t i = 0; i < fp->n; i++) {
		struct fn *f = &fp->fns[i];
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = i, .retprobe = true);
		struct bpf_link *lr, *le;
		int err;

		if (!f->path)
			continue;
		if (stop_requested())
			return -EINTR;
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
		(*attached)++;
	}
	return 0;
}

static size_t count_attached(const struct func *fp)
{
	size_t n = 0;

	for (size_t i = 0; i < fp->n; i++)
		n += fp->fns[i].attached;
	return n;
}

static int func_attach(struct session *s)
{
	struct func *fp = s->priv;
	struct measurement *m = &fp->header;
	uint64_t t0 = now_ns();
	size_t attached = 0;
	int err = 0;

	kd_info("attaching %zu functions", fp->n);
	if (fp->nkernel) {
		const char **names = calloc(fp->n, sizeof(*names));
		uint64_t *cookies = calloc(fp->n, sizeof(*cookies));
		bool *ok = calloc(fp->n, sizeof(bool));
		size_t k = 0;

		if (!names || !cookies || !ok)
			err = -ENOMEM;
		for (size_t i = 0; !err && i < fp->n; i++) {
			if (fp->fns[i].path)
				continue;
			names[k] = fp->fns[i].name;
			cookies[k++] = i;
		}
		if (!err) {
			struct kfunc_req r = {
				.entry = fp->multi ? fp->skel->progs.func_entry_multi :
					 fp->skel->progs.func_entry,
				.ret = fp->multi ? fp->skel->progs.func_exit_multi :
				       fp->skel->progs.func_exit,
				.multi = fp->multi, .names = names, .cookies = cookies, .n = k,
			};
			err = kfunc_attach(&r, ok, &fp->eng.links);
		}
		for (size_t i = 0; (err >= 0 || err == -EINTR) && i < k; i++)
			fp->fns[cookies[i]].attached = ok[i];
		if (err > 0) {
			attached = err;
			fp->skipped += k - attached;
			err = 0;
		}
		free(names);
		free(cookies);
		free(ok);
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
		if (fp->nkernel && !fp->nuser)
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

static int read_val(struct func *fp, int fd, const void *key, struct func_val *sum)
{
	const struct func_val *v;
	int err = engine_sum_hist(&fp->eng, fd, key, sizeof(*v), &sum->h);

	if (err)
		return err;
	/* the values are still in the engine's buffer, one per CPU */
	_Static_assert(sizeof(*v) % 8 == 0, "per-CPU values are 8-byte aligned");
	v = fp->eng.buf;
	sum->total = sum->self = 0;
	for (int c = 0; c < fp->eng.ncpu; c++) {
		sum->total += v[c].total;
		sum->self += v[c].self;
	}
	return 0;
}

static int add_group(struct func *fp, struct measurement *m, const struct func_key *k,
		     const struct func_val *v)
{
	struct m_value key[M_MAX_BY];
	struct m_group *g;

	key[0] = mv_text(m_intern(fp->fns[k->id].label, strlen(fp->fns[k->id].label)));
	/* in the order given to --by */
	for (int j = 1; j < fp->header.nby; j++) {
		const char *by = fp->header.by[j];

		if (!strcmp(by, "comm"))
			key[j] = mv_text(m_intern(k->comm, FUNC_STR_LEN));
		else
			key[j] = mv_num(!strcmp(by, "pid") ? k->pid : k->tid);
		if (key[j].type == MV_TEXT && !key[j].text)
			return -ENOMEM;
	}
	if (!key[0].text)
		return -ENOMEM;
	g = measurement_group(m, key);
	if (!g)
		return -ENOMEM;
	if (m_hist_add(&g->h, &v->h))
		return -ENOMEM;
	g->self_ns += v->self;
	g->total_ns += v->total;
	return 0;
}

static int func_read(struct session *s, struct measurement *m)
{
	struct func *fp = s->priv;
	struct func_key k, next, *cur = NULL;
	struct func_val *v = malloc(sizeof(*v));
	int fd, err;

	if (!v)
		return -ENOMEM;
	measurement_copy_header(m, &fp->header);
	err = engine_read(&fp->eng, m);
	if (err)
		goto out;
	if (!fp->cfg.grouped) {
		fd = bpf_map__fd(fp->skel->maps.func_vals);
		for (__u32 i = 0; i < fp->n && !err; i++) {
			if (!fp->fns[i].attached)
				continue;
			memset(&k, 0, sizeof(k));
			k.id = i;
			err = read_val(fp, fd, &i, v);
			if (!err && v->h.count)
				err = add_group(fp, m, &k, v);
		}
		goto out;
	}
	fd = bpf_map__fd(fp->skel->maps.group_vals);
	while (!err && !bpf_map_get_next_key(fd, cur, &next)) {
		k = next;
		cur = &k;
		if (k.id >= fp->n || read_val(fp, fd, &k, v))
			continue;
		err = add_group(fp, m, &k, v);
	}
out:
	free(v);
	return err;
}

static void func_cleanup(struct session *s)
{
	struct func *fp = s->priv;

	engine_close(&fp->eng);
	func_bpf__destroy(fp->skel);
	for (size_t i = 0; i < fp->n; i++) {
		free(fp->fns[i].label);
		free(fp->fns[i].name);
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
	.opts = OPTS_MEASURE,
	.max_groups = 8192,
	.prepare = func_prepare,
	.attach = func_attach,
	.read = func_read,
	.cleanup = func_cleanup,
};
