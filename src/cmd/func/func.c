// SPDX-License-Identifier: GPL-2.0
/*
 * kdist func PATTERN...: calls, inclusive ("total") and exclusive ("self")
 * time and the distribution of every function of a set: kernel functions
 * by glob, user functions by u:PATH:GLOB, minus !GLOB exclusions.
 */
#include "cmd/func/func.h"
#include "kernel/engine.h"
#include "kernel/events.h"
#include "view/evline.h"
#include "kernel/feature.h"
#include "func.skel.h"
#include "kernel/kfunc.h"
#include "kernel/spec.h"
#include "kernel/stacks.h"
#include "syms/syms.h"
#include "kernel/tracefs.h"
#include "syms/uprobe.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

struct fn {
	char *label;		/* kernel: name; user: "binary:name" */
	char *name;
	char *module;		/* kernel functions of a module: its name */
	const char *path;	/* user functions: the resolved binary */
	uint64_t offset;	/* user functions: file offset */
	bool attached;
};

enum kmethod { KM_BEST, KM_FENTRY, KM_KPROBE_MULTI, KM_KPROBE };

struct func {
	struct func_bpf *skel;
	char *pages;		/* read_pages(): npages pages, ncpu values each */
	__u32 npages;
	struct fn *fns;
	size_t n, cap;
	char **paths;		/* resolved user binaries, owned */
	int npaths;
	struct func_cfg cfg;
	bool fentry;		/* kernel functions by fentry/fexit copies */
	bool kprobes;		/* kprobe programs loaded for kernel functions */
	bool multi;		/* ... as kprobe.multi */
	size_t nfentry, nkprobe;	/* kernel functions attached each way */
	uint64_t fentry_load_ns;	/* loading fentry copies, for -v */
	bool umulti;		/* user functions through uprobe.multi */
	int *ufds;		/* uprobe.multi link descriptors */
	size_t nufds;
	size_t nuprobes;	/* uprobes attached, entry and return */
	size_t nkernel, nuser;
	size_t skipped;		/* matched but not traceable or not attached */
	struct engine eng;	/* its links: every link, kernel or user */
	struct stack_syms *syms;	/* --stack */
	struct measurement header;
};

static const char *const drop_names[NR_FDROPS] = {
	[FDROP_RET_NO_ENTRY] = "return_without_entry",
	[FDROP_RET_MISSED] = "return_missed",
	[FDROP_DEPTH] = "depth_overflow",
	[FDROP_STACK_FULL] = "stack_table_full",
	[FDROP_GROUP_FULL] = "group_table_full",
	[FDROP_OUTPUT] = "output_dropped",
	[FDROP_BUCKETS_FULL] = "buckets_full",
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

static int fn_add(struct func *fp, const char *label, const char *name, const char *module,
		  const char *path, uint64_t offset)
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
	f->module = module ? strdup(module) : NULL;
	if (!f->label || !f->name || (module && !f->module)) {
		free(f->label);
		free(f->name);
		free(f->module);
		return -ENOMEM;
	}
	fp->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ksyms by name, vmlinux's first of a name (kprobes and fentry by name
 * attach to the first in kallsyms order) */
static int cmp_ksym_name(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (x->module != NULL) - (y->module != NULL);
}

static int cmp_ksym_key(const void *key, const void *elem)
{
	return strcmp(((const struct ksym *)key)->name, (*(const struct ksym *const *)elem)->name);
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
	const struct ksym **names = NULL;
	const char **exact = NULL;
	size_t navail, ndeny = 0, nnames = 0, matched = 0, nexact = 0;
	int *globs = NULL, nglobs = 0;
	int *per_glob = calloc(pt->nkernel, sizeof(int));
	struct ksyms *ks = NULL;
	const struct ksym *k;
	int err = -ENOMEM;

	if (!per_glob)
		goto out;
	if (!feature_has(FEAT_KPROBE, NULL) && !feature_has(FEAT_FENTRY_COOKIE, NULL)) {
		const char *why;

		feature_has(FEAT_FENTRY_COOKIE, &why);
		kd_err("failed to trace '%s': this kernel has no kprobes (CONFIG_KPROBES) and no "
		       "fentry (%s), so no kernel functions; user functions (u:PATH:GLOB) work",
		       pt->kernel[0], why);
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
			names[nnames++] = k;
	}
	qsort(names, nnames, sizeof(*names), cmp_ksym_name);
	for (int g = 0; g < pt->nkernel; g++) {
		if (!per_glob[g] && !bsearch(&(struct ksym){ .name = pt->kernel[g] }, names, nnames,
					     sizeof(*names), cmp_ksym_key) &&
		    !excluded(pt, pt->kernel[g])) {
			kd_err("failed to find kernel functions matching '%s': no such symbol "
			       "in /proc/kallsyms (a module's functions are there only while "
			       "it is loaded: lsmod, modprobe)", pt->kernel[g]);
			err = -ENOENT;
			goto out;
		}
	}
	/* one function per name: that is what kprobes attach to by name */
	for (size_t i = 0; i < nnames; i++) {
		const char *name = names[i]->name;

		if (i && !strcmp(name, names[i - 1]->name))
			continue;
		matched++;
		/* the kprobes blacklist holds for fentry too: the same set
		 * whatever the method, and what is unsafe to probe stays so */
		if (!in_sorted(avail, navail, name) || in_sorted(deny, ndeny, name)) {
			fp->skipped++;
			continue;
		}
		err = fn_add(fp, name, name, names[i]->module, NULL, 0);
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
	int fd;			/* the binary, for first instructions */
	uint64_t entry;
	size_t first, found;
	int err;
};

static int user_sym(const struct elf_sym *sym, void *arg)
{
	struct user_ctx *c = arg;
	uint64_t off = sym->offset;
	const char *why;
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
	why = uprobe_unsafe(c->fd, sym, off, true);
	if (why) {
		kd_info("skipping %s in %s: %s", sym->name, c->path, why);
		c->fp->skipped++;
		return 0;
	}
	/* the same function through another pattern */
	for (size_t i = c->first; i < c->fp->n; i++)
		if (c->fp->fns[i].path == c->path && c->fp->fns[i].offset == off)
			return 0;
	snprintf(label, sizeof(label), "%s:%s", c->base, sym->name);
	c->fp->nuser++;
	return fn_add(c->fp, label, sym->name, NULL, c->path, off);
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
	err = uprobe_refuse_self(path, spec);
	if (err)
		return err;
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
	c.fd = open(c.path, O_RDONLY | O_CLOEXEC);
	err = c.fd < 0 ? -errno : elf_syms_match(c.es, glob, user_sym, &c);
	if (c.fd < 0)
		kd_err("failed to open %s: %s", c.path, strerror(-err));
	else
		close(c.fd);
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

/* One line (or JSON line) per call slower than --slower-than. */
static int print_slow(void *ctx, void *data, size_t size)
{
	struct func *fp = ctx;
	const struct func_slow *e = data;
	FILE *f = events_file();
	char comm[FUNC_STR_LEN + 1];

	if (size < sizeof(*e) || e->func >= fp->n)
		return 0;
	snprintf(comm, sizeof(comm), "%.*s", FUNC_STR_LEN, e->comm);
	events_begin(f, "slow", "start_");
	events_head(f, e->ts, comm, e->id >> 32, (uint32_t)e->id, e->cpu, e->delta);
	events_field(f, "function", fp->fns[e->func].label, true);
	if (fp->syms) {
		/* a user function returns in user mode: no kernel stack */
		events_stack(f, "kstack", fp->fns[e->func].path ? NULL :
			     stack_syms_stack(fp->syms, e->kstack, false, 0));
		events_stack(f, "ustack", stack_syms_stack(fp->syms, e->ustack, true, e->id >> 32));
	}
	events_end(f);
	return 0;
}

/* How the kernel functions are attached: --attach, else fentry/fexit where
 * the kernel has them (with cookies, which tell the functions apart) and the
 * set is small enough to load two programs per function quickly, else
 * kprobe.multi, else one kprobe per function.  Functions fentry cannot take
 * (no BTF, refused by the kernel) go by kprobes where those are loaded. */
static int choose_method(struct func *fp, struct options *o)
{
	const char *fwhy = "", *mwhy = "", *kwhy = "";
	bool fentry = feature_has(FEAT_FENTRY_COOKIE, &fwhy);
	bool multi = feature_has(FEAT_KPROBE_MULTI, &mwhy);
	bool kprobe = feature_has(FEAT_KPROBE, &kwhy);
	enum kmethod want = !o->attach ? KM_BEST : !strcmp(o->attach, "fentry") ? KM_FENTRY :
			    !strcmp(o->attach, "kprobe.multi") ? KM_KPROBE_MULTI : KM_KPROBE;

	if (!fp->nkernel)
		return 0;
	switch (want) {
	case KM_FENTRY:
		if (!fentry) {
			kd_err("failed to attach by fentry: %s", fwhy);
			return -EOPNOTSUPP;
		}
		fp->fentry = true;
		kd_info("kernel functions by fentry/fexit (--attach fentry)");
		return 0;
	case KM_KPROBE_MULTI:
		if (!multi) {
			kd_err("failed to attach by kprobe.multi: %s", kprobe ? mwhy : kwhy);
			return -EOPNOTSUPP;
		}
		fp->kprobes = fp->multi = true;
		kd_info("kernel functions by kprobe.multi (--attach kprobe.multi)");
		return 0;
	case KM_KPROBE:
		if (!kprobe) {
			kd_err("failed to attach by kprobe: this kernel has no kprobes (%s)", kwhy);
			return -EOPNOTSUPP;
		}
		fp->kprobes = true;
		kd_info("kernel functions by one kprobe each (--attach kprobe)");
		return 0;
	case KM_BEST:
		break;
	}
	fp->multi = multi;
	if (fentry && (fp->nkernel <= FUNC_FENTRY_MAX || !kprobe)) {
		size_t nobtf = 0;
		struct kfunc_btf kb;
		const char *bwhy;

		for (size_t i = 0; i < fp->n; i++)
			nobtf += !fp->fns[i].path &&
				 kfunc_btf_find(fp->fns[i].name, fp->fns[i].module, &kb, &bwhy);
		fp->fentry = true;
		kd_info("kernel functions by fentry/fexit: %zu functions, at most %d go by fentry",
			fp->nkernel, FUNC_FENTRY_MAX);
		/* kprobes for what fentry cannot take (compiler clones such as
		 * .isra.0 have no BTF).  Before Linux 6.2 a kprobe program
		 * cannot use task storage, and the shadow stacks of all would
		 * move to the slower tid-keyed hash: there, only when needed. */
		fp->kprobes = kprobe && (feature_has(FEAT_TASK_STORAGE_KPROBE, NULL) || fp->nuser ||
					 nobtf);
		return 0;
	}
	if (fentry)
		kd_info("kernel functions not by fentry/fexit: %zu functions, more than %d "
			"(two program loads each, and a slow detach)", fp->nkernel, FUNC_FENTRY_MAX);
	else
		kd_info("kernel functions not by fentry/fexit: %s", fwhy);
	if (!kprobe) {
		kd_err("failed to attach kernel functions: no fentry (%s) and no kprobes (%s)",
		       fwhy, kwhy);
		return -EOPNOTSUPP;
	}
	fp->kprobes = true;
	if (!multi)
		kd_info("no kprobe.multi (%s): one kprobe per function", mwhy);
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
	err = choose_method(fp, o);
	if (err)
		return err;
	fp->umulti = fp->nuser && uprobe_multi_supported(&why);
	if (fp->nuser && !fp->umulti)
		kd_info("no uprobe.multi (%s): one uprobe per function and side", why);
	/* every loaded program type must allow task storage: kprobe-type
	 * programs (kprobes, uprobes) since Linux 6.2, fentry ones since 5.11 */
	fp->cfg.task_storage = (!(fp->kprobes || fp->nuser) ||
				feature_has(FEAT_TASK_STORAGE_KPROBE, NULL)) &&
			       (!fp->fentry || feature_has(FEAT_TASK_STORAGE_FENTRY, NULL));
	kd_info("shadow stacks in %s", fp->cfg.task_storage ? "task storage" : "a tid-keyed hash");
	fp->skel = func_bpf__open();
	err = engine_opened(fp->skel);
	if (err)
		return err;
	/* The bucket pool: --max-buckets as given (cli.c bounds it: a page
	 * number is 16 bits), else 4 pages per row of the table (a function,
	 * or with --by a group: each has pages of its own) and at least every
	 * page of one histogram. */
	if (o->max_buckets) {
		fp->cfg.pages = (o->max_buckets + FUNC_PAGE_SLOTS - 1) / FUNC_PAGE_SLOTS;
	} else {
		size_t rows = fp->n;

		if (fp->cfg.grouped)
			rows = o->max_groups ? (size_t)o->max_groups :
					       bpf_map__max_entries(fp->skel->maps.group_vals);
		fp->cfg.pages = rows > FUNC_MAX_PAGES / 4 ? FUNC_MAX_PAGES : 4 * rows;
		if (fp->cfg.pages < FUNC_PAGES)
			fp->cfg.pages = FUNC_PAGES;
	}
	fp->cfg.slow_ns = o->slower_ns;
	fp->cfg.slow_stack = !!o->stack;
	fp->skel->rodata->cfg = fp->cfg;
	bpf_map__set_max_entries(fp->skel->maps.func_pages, fp->cfg.pages + 1);
	bpf_map__set_max_entries(fp->skel->maps.func_vals, fp->n);
	if (o->slower_ns)
		bpf_map__set_max_entries(fp->skel->maps.slow_calls, 1 << 20);
	if (o->stack) {
		bpf_map__set_max_entries(fp->skel->maps.stacks, 16384);
		bpf_map__set_max_entries(fp->skel->maps.procs_told, PROCS_TOLD);
		bpf_map__set_max_entries(fp->skel->maps.proc_notes, PROC_NOTES_BYTES);
	}
	if (o->max_groups)
		bpf_map__set_max_entries(fp->skel->maps.group_vals, o->max_groups);
	bpf_object__for_each_program(prog, fp->skel->obj) {
		bool is_multi = prog == fp->skel->progs.func_entry_multi ||
				prog == fp->skel->progs.func_exit_multi;
		bool is_umulti = prog == fp->skel->progs.func_entry_umulti ||
				 prog == fp->skel->progs.func_exit_umulti;
		bool is_fentry = prog == fp->skel->progs.func_fentry ||
				 prog == fp->skel->progs.func_fexit;

		if (is_umulti)
			uprobe_multi_prepare(prog);
		/* the templates load against vfs_read, which the fentry probe
		 * attached to; only their copies are attached */
		if (is_fentry && fp->fentry) {
			err = bpf_program__set_attach_target(prog, 0, "vfs_read");
			if (err) {
				kd_err("failed to prepare fentry programs: %s", strerror(-err));
				return err;
			}
		}
		/* single uprobes stay loaded with uprobe.multi: the fallback
		 * for a binary whose set the kernel refuses */
		bpf_program__set_autoload(prog, is_fentry ? fp->fentry :
					  is_multi ? fp->kprobes && fp->multi :
					  is_umulti ? fp->umulti :
					  fp->nuser || (fp->kprobes && !fp->multi));
	}
	err = engine_load(&fp->eng, fp->skel->skeleton, drop_names, NR_FDROPS);
	if (!err && o->slower_ns)
		err = events_add(bpf_map__fd(fp->skel->maps.slow_calls), print_slow, fp);
	if (!err && o->stack) {
		fp->syms = stack_syms_new(bpf_map__fd(fp->skel->maps.stacks));
		err = fp->syms ? stack_syms_follow(fp->syms, bpf_map__fd(fp->skel->maps.proc_notes)) :
				 -ENOMEM;
	}
	return err;
}

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

/* A copy of template tpl bound to kernel function kb: its fd, or -errno. */
static int fentry_copy(struct bpf_program *tpl, const struct kfunc_btf *kb)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = bpf_program__expected_attach_type(tpl),
		    .attach_btf_id = kb->id, .attach_btf_obj_fd = kb->obj_fd);
	/* the template's instructions as loaded: relocated, map fds in */
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(tpl), "GPL",
			       bpf_program__insns(tpl), bpf_program__insn_cnt(tpl), &lo);

	return fd < 0 ? -errno : fd;
}

/* Kernel function i by an fentry and an fexit program of its own, the
 * cookie i telling them apart: return first, as with kprobes.  0, or
 * -errno with the reason in why (the function is then left as it was). */
static int attach_fentry_one(struct func *fp, size_t i, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .tracing.cookie = i);
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

		pfd[k] = fentry_copy(tpl[k], &kb);
		fp->fentry_load_ns += now_ns() - t0;
		if (pfd[k] < 0) {
			err = pfd[k];
			snprintf(why, len, "%s program refused: %s", k ? "fentry" : "fexit",
				 strerror(-err));
			break;
		}
		lfd[k] = bpf_link_create(pfd[k], 0, bpf_program__expected_attach_type(tpl[k]), &lo);
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

static int func_attach(struct session *s)
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

/* Every CPU's bucket pages, read once per reading: the pool's pages in use,
 * one value per CPU each (fp->pages, fp->npages). */
static int read_pages(struct func *fp)
{
	size_t stride = engine_percpu_stride(sizeof(struct func_page));
	int fd = bpf_map__fd(fp->skel->maps.func_pages);
	__u32 used = 0;
	char *buf;

	buf = realloc(fp->pages, stride * fp->eng.ncpu);
	if (!buf)
		return -ENOMEM;
	fp->pages = buf;
	if (bpf_map_lookup_elem(fd, &(__u32){ 0 }, buf))
		return -errno;
	for (int c = 0; c < fp->eng.ncpu; c++) {
		const struct func_page *pool = (const void *)(buf + c * stride);

		if (pool->slots[0] > used)
			used = pool->slots[0] > fp->cfg.pages ? fp->cfg.pages : pool->slots[0];
	}
	buf = realloc(fp->pages, stride * fp->eng.ncpu * (used + 1));
	if (!buf)
		return -ENOMEM;
	fp->pages = buf;
	fp->npages = used + 1;
	for (__u32 p = 1; p <= used; p++)
		if (bpf_map_lookup_elem(fd, &p, buf + p * stride * fp->eng.ncpu))
			return -errno;
	return 0;
}

/* The histogram of one function (and group), summed over the CPUs. */
static int read_val(struct func *fp, int fd, const void *key, struct hist *h,
		    unsigned long long *total, unsigned long long *self)
{
	size_t stride = engine_percpu_stride(sizeof(struct func_page));
	const struct func_val *v = engine_percpu(&fp->eng, fd, key);
	struct hist one;

	if (!v)
		return -errno;
	_Static_assert(sizeof(*v) % 8 == 0, "per-CPU values are 8-byte aligned");
	memset(h, 0, sizeof(*h));
	*total = *self = 0;
	for (int c = 0; c < fp->eng.ncpu; c++) {
		memset(&one, 0, sizeof(one));
		one.st = v[c].st;
		for (int j = 0; j < FUNC_PAGES; j++) {
			const struct func_page *pg;
			unsigned int p = v[c].page[j];

			if (!p || p >= fp->npages)
				continue;
			pg = (const void *)(fp->pages + (p * fp->eng.ncpu + c) * stride);
			memcpy(&one.slots[j * FUNC_PAGE_SLOTS], pg->slots, sizeof(pg->slots));
		}
		hist_merge(h, &one);
		*total += v[c].total;
		*self += v[c].self;
	}
	return 0;
}

/* The values read by read_val. */
struct func_sum {
	struct hist h;
	unsigned long long total, self;
};

static int add_group(struct func *fp, struct measurement *m, const struct func_key *k,
		     const struct func_sum *v)
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
	struct func_sum *v = malloc(sizeof(*v));
	int fd, err;

	if (!v)
		return -ENOMEM;
	measurement_copy_header(m, &fp->header);
	err = engine_read(&fp->eng, m);
	if (!err)
		err = read_pages(fp);
	if (err)
		goto out;
	if (!fp->cfg.grouped) {
		fd = bpf_map__fd(fp->skel->maps.func_vals);
		for (__u32 i = 0; i < fp->n && !err; i++) {
			if (!fp->fns[i].attached)
				continue;
			memset(&k, 0, sizeof(k));
			k.id = i;
			err = read_val(fp, fd, &i, &v->h, &v->total, &v->self);
			if (!err && v->h.count)
				err = add_group(fp, m, &k, v);
		}
		goto out;
	}
	fd = bpf_map__fd(fp->skel->maps.group_vals);
	while (!err && !bpf_map_get_next_key(fd, cur, &next)) {
		k = next;
		cur = &k;
		if (k.id >= fp->n || read_val(fp, fd, &k, &v->h, &v->total, &v->self))
			continue;
		err = add_group(fp, m, &k, v);
	}
	for (const struct engine_spilled *sp = NULL;
	     !err && (sp = engine_spilled_next(&fp->eng, sp, &k, sizeof(k)));) {
		if (k.id >= fp->n)
			continue;
		v->h = *sp->h;
		v->self = sp->self;
		v->total = sp->total;
		err = add_group(fp, m, &k, v);
	}
out:
	free(v);
	return err;
}

struct detach_notice {
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	bool done;
	size_t n;
};

/* Removing uprobes takes the kernel a while (single uprobes: an RCU grace
 * period each, shared by the threads engine.c detaches with), and signals
 * are held meanwhile: after a second say what is going on, and answer a
 * second Ctrl-C. */
static void *detach_notice(void *arg)
{
	struct detach_notice *d = arg;
	struct timespec t;
	bool said = false, told = false;
	sigset_t pend;
	int ticks = 0;

	pthread_mutex_lock(&d->lock);
	while (!d->done) {
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		if (pthread_cond_timedwait(&d->done_cv, &d->lock, &t) != ETIMEDOUT)
			continue;
		if (++ticks >= 10 && !said) {
			if (d->n >= 1000)
				fprintf(stderr, "detaching %zu,%03zu uprobes...\n", d->n / 1000,
					d->n % 1000);
			else
				fprintf(stderr, "detaching %zu uprobes...\n", d->n);
			said = true;
		}
		if (said && !told && !sigpending(&pend) &&
		    (sigismember(&pend, SIGINT) || sigismember(&pend, SIGTERM))) {
			fprintf(stderr, "still detaching: kdist ends when every uprobe is removed; "
				"SIGKILL now leaves the kernel to remove them (see kdist func docs)\n");
			told = true;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static void detach(struct func *fp)
{
	struct detach_notice d = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.done_cv = PTHREAD_COND_INITIALIZER,
		.n = fp->nuprobes,
	};
	uint64_t t0 = now_ns();
	pthread_t t;
	bool started = fp->nuprobes && !pthread_create(&t, NULL, detach_notice, &d);

	for (size_t i = 0; i < fp->nufds; i++)
		close(fp->ufds[i]);
	fp->nufds = 0;
	engine_close(&fp->eng);
	if (started) {
		pthread_mutex_lock(&d.lock);
		d.done = true;
		pthread_cond_signal(&d.done_cv);
		pthread_mutex_unlock(&d.lock);
		pthread_join(t, NULL);
	}
	kd_info("detached in %.1f ms", (now_ns() - t0) / 1e6);
}

static void func_cleanup(struct session *s)
{
	struct func *fp = s->priv;

	detach(fp);
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
	.opts = OPTS_MEASURE | OPT(SLOWER_THAN) | OPT(STACK) | OPT(MAX_BUCKETS) | OPT(ATTACH),
	.max_groups = 8192,
	.caps = CMD_SERVE | CMD_SELF_TIME,
	.prepare = func_prepare,
	.attach = func_attach,
	.read = func_read,
	.cleanup = func_cleanup,
};
