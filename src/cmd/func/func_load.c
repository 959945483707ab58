// SPDX-License-Identifier: GPL-2.0
/* kdist func: how the kernel functions are attached, and the BPF object
 * loaded for it. */
#include "cmd/func/func_int.h"
#include "kernel/events.h"
#include "view/evline.h"
#include "view/explain_view.h"
#include "kernel/explain_bpf.h"
#include "kernel/feature.h"
#include "func.skel.h"
#include "kernel/kfunc.h"
#include "kernel/stacks.h"
#include "kernel/umulti.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

enum kmethod { KM_BEST, KM_FENTRY, KM_KPROBE_MULTI, KM_KPROBE };

static const char *const drop_names[NR_FDROPS] = {
	[FDROP_RET_NO_ENTRY] = "return_without_entry",
	[FDROP_RET_MISSED] = "return_missed",
	[FDROP_DEPTH] = "depth_overflow",
	[FDROP_STACK_FULL] = "stack_table_full",
	[FDROP_GROUP_FULL] = "group_table_full",
	[FDROP_OUTPUT] = "output_dropped",
	[FDROP_BUCKETS_FULL] = "buckets_full",
	[FDROP_PATH_NULL] = "path_null",
	[FDROP_PATH_FAULT] = "path_fault",
	[FDROP_TEXT_CUT] = "text_cut",
	[FDROP_EX_STORAGE] = "storage_failed",
	[FDROP_EX_FULL] = "explain_table_full",
};

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
	if (fp->cfg.explain)
		explain_event_fields(f, &e->ex, &fp->header);
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
 * the kernel has them (a copy per function, which tells them apart) and the
 * set is small enough to load two programs per function quickly, else
 * kprobe.multi, else one kprobe per function.  Functions fentry cannot take
 * (no BTF, refused by the kernel) go by kprobes where those are loaded. */
static int choose_method(struct func *fp, struct options *o)
{
	const char *fwhy = "", *mwhy = "", *kwhy = "";
	bool fentry = feature_has(FEAT_FENTRY, &fwhy);
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

int func_load(struct func *fp, struct options *o)
{
	struct bpf_program *prog;
	const char *why;
	int err;

	/* each call is an interval of its thread; calls nest, so several
	 * are open at once, each split from its entry's snapshot */
	if (o->explain == EXPLAIN_FULL) {
		kd_err("bad option: --explain full names the longest block of one interval per "
		       "thread; calls nest: not with func");
		return -EINVAL;
	}
	if (o->explain == EXPLAIN_END) {
		kd_err("bad option: --explain end follows an interval to the thread it ends on; "
		       "a call returns on the thread it was made on: use --explain");
		return -EINVAL;
	}
	if (o->explain && !feature_has(FEAT_TASK_STORAGE_MAP, &why)) {
		kd_err("failed to explain calls: %s", why);
		return -EOPNOTSUPP;
	}
	fp->cfg.explain = o->explain;
	fp->cfg.explain_tid = !!o->explain;
	err = choose_method(fp, o);
	if (err)
		return err;
	/* kprobes and uprobes tell their functions apart by the attach
	 * cookie, else (before Linux 5.15) by a copy of their programs each */
	fp->cfg.cookies = feature_has(FEAT_ATTACH_COOKIE, &why);
	if ((fp->kprobes || fp->nuser) && !fp->cfg.cookies)
		kd_info("%s: a copy of the probe programs per function", why);
	fp->umulti = fp->nuser && uprobe_multi_supported(&why);
	if (fp->nuser && !fp->umulti)
		kd_info("no uprobe.multi (%s): one uprobe per function and side", why);
	/* every loaded program type must allow task storage: kprobe-type
	 * programs (kprobes, uprobes) since Linux 6.2, fentry ones since 5.11 */
	fp->cfg.task_storage = (!(fp->kprobes || fp->nuser) ||
				feature_has(FEAT_TASK_STORAGE_KPROBE, NULL)) &&
			       (!fp->fentry || feature_has(FEAT_TASK_STORAGE_FENTRY, NULL));
	kd_info("shadow stacks in %s", fp->cfg.task_storage ? "task storage" : "a tid-keyed hash");
	fp->skel = func_bpf__open_opts(engine_open_opts());
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
		stack_maps_size(fp->skel->obj, STACK_ENTRIES);
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

		if (!strncmp(bpf_program__name(prog), "ex_", 3)) {
			bpf_program__set_autoload(prog, explain_prog(prog, fp->cfg.explain));
			continue;
		}
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
	/* the path's and --explain's counters only where they can count */
	for (int d = 0; d < NR_FDROPS; d++)
		fp->drops_shown[d] = (d >= FDROP_PATH_NULL && d <= FDROP_TEXT_CUT && !fp->cfg.by_path) ||
				     (d >= FDROP_EX_STORAGE && !fp->cfg.explain) ? NULL : drop_names[d];
	err = engine_load(&fp->eng, fp->skel->skeleton, fp->drops_shown, NR_FDROPS);
	if (!err && o->slower_ns)
		err = events_add(bpf_map__fd(fp->skel->maps.slow_calls), print_slow, fp);
	if (!err && o->stack) {
		fp->syms = stack_syms_new(fp->skel->obj);
		err = fp->syms ? stack_syms_follow(fp->syms, bpf_map__fd(fp->skel->maps.proc_notes)) :
				 -ENOMEM;
	}
	return err;
}
