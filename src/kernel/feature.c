// SPDX-License-Identifier: GPL-2.0
#include "kernel/feature.h"
#include "kernel/tracefs.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static const char *const names[NR_FEATURES] = {
	[FEAT_TRACEFS] = "tracefs",
	[FEAT_BTF] = "BTF (/sys/kernel/btf/vmlinux)",
	[FEAT_TRACEPOINT] = "tracepoint programs",
	[FEAT_RAW_TP] = "raw tracepoint programs",
	[FEAT_TP_BTF] = "tp_btf programs",
	[FEAT_KPROBE] = "kprobes",
	[FEAT_KPROBE_MULTI] = "kprobe.multi",
	[FEAT_FENTRY] = "fentry/fexit",
	[FEAT_ATTACH_COOKIE] = "attach cookies (kprobes, uprobes)",
	[FEAT_UPROBE] = "uprobes",
	[FEAT_PERF_SAMPLING] = "perf_event sampling (cpu-clock)",
	[FEAT_STACK_MAP] = "stack trace maps",
	[FEAT_TASK_STORAGE_MAP] = "task storage maps",
	[FEAT_TASK_STORAGE_TP] = "task storage in tracepoint programs",
	[FEAT_TASK_STORAGE_KPROBE] = "task storage in kprobe programs",
	[FEAT_TASK_STORAGE_FENTRY] = "task storage in fentry programs",
	[FEAT_RINGBUF] = "ring buffer",
	[FEAT_ATOMICS] = "atomic fetch-add and compare-and-swap",
	[FEAT_PERF_NOPREALLOC] = "run-time hashes in perf_event programs",
};

const char *feature_name(enum feature f)
{
	return names[f];
}

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
	{ .code = 0x95 },
};

static int load_prog(enum bpf_prog_type type, enum bpf_attach_type at, int btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = at, .attach_btf_id = btf_id);

	return bpf_prog_load(type, NULL, "GPL", ret0, ARRAY_SIZE(ret0), &o);
}

static int vmlinux_type_id(const char *name, int kind)
{
	struct btf *b = btf__load_vmlinux_btf();
	int id;

	if (!b)
		return -ENOENT;
	id = btf__find_by_name_kind(b, name, kind);
	btf__free(b);
	return id;
}

static bool try_attach_tracing(enum bpf_attach_type at, int btf_id, int obj_fd,
			       const char **why)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = at, .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = obj_fd);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", ret0, ARRAY_SIZE(ret0), &o), lfd;

	if (fd < 0) {
		*why = errno == EPERM ? "program load refused (EPERM)" : strerror(errno);
		return false;
	}
	lfd = bpf_raw_tracepoint_open(NULL, fd);
	if (lfd < 0)
		*why = strerror(errno);
	else
		close(lfd);
	close(fd);
	return lfd >= 0;
}

static bool probe_kprobe_multi(const char **why)
{
	const char *syms[] = { "vfs_read" };
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int fd = load_prog(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0), lfd;

	if (fd < 0) {
		*why = strerror(errno);
		return false;
	}
	/* a kernel without the attach type (before 5.18) finds it invalid;
	 * one built without fprobe does not support it */
	lfd = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	if (lfd < 0)
		*why = errno == EOPNOTSUPP ? "not in this kernel (CONFIG_FPROBE)" :
		       errno == EINVAL ? "not in this kernel (Linux 5.18)" : strerror(errno);
	else
		close(lfd);
	close(fd);
	return lfd >= 0;
}

/* BPF atomics that return the old value (Linux 5.12): small-number groups
 * (dense.bpf.h) hand out their slots with them. */
static bool probe_atomics(const char **why)
{
	/* *(u64 *)(r10 - 8) = 0; r1 = 1; r1 = atomic_fetch_add(r10 - 8, r1);
	 * r0 = 0; r0 = cmpxchg(r10 - 8, r0, r1); r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = 0x7a, .dst_reg = 10, .off = -8, .imm = 0 },
		{ .code = 0xb7, .dst_reg = 1, .imm = 1 },
		{ .code = 0xdb, .dst_reg = 10, .src_reg = 1, .off = -8, .imm = 0x01 },
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0xdb, .dst_reg = 10, .src_reg = 1, .off = -8, .imm = 0xf1 },
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0x95 },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", insns,
			       ARRAY_SIZE(insns), NULL);

	if (fd < 0) {
		*why = "no BPF atomic fetch or compare-and-swap (Linux 5.12)";
		return false;
	}
	close(fd);
	return true;
}

/* bpf_task_storage_get(map, current, 0, 0) in an fentry program on
 * vfs_read (Linux 5.11 for tracing programs).  libbpf's helper probe does
 * not load tracing programs; a task storage map needs BTF for its key and
 * value, so one int type is made for it. */
static bool probe_task_storage_fentry(const char **why)
{
	struct btf *b = btf__new_empty();
	int id = b ? btf__add_int(b, "int", 4, BTF_INT_SIGNED) : -ENOMEM, mfd = -1, fd = -1;

	*why = "program load refused";
	if (id > 0 && !btf__load_into_kernel(b)) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .btf_fd = btf__fd(b), .btf_key_type_id = id,
			    .btf_value_type_id = id, .map_flags = BPF_F_NO_PREALLOC);

		mfd = bpf_map_create(BPF_MAP_TYPE_TASK_STORAGE, NULL, 4, 4, 0, &mo);
		if (mfd < 0)
			*why = "no task storage maps (Linux 5.11)";
	} else {
		*why = "no BTF objects in the kernel";
	}
	if (mfd >= 0) {
		const struct bpf_insn insns[] = {
			{ .code = 0x85, .imm = BPF_FUNC_get_current_task_btf },
			{ .code = 0xbf, .dst_reg = 2, .src_reg = 0 },		/* r2 = r0 */
			{ .code = 0x18, .dst_reg = 1, .src_reg = 1, .imm = mfd },	/* r1 = map */
			{ 0 },
			{ .code = 0xb7, .dst_reg = 3, .imm = 0 },
			{ .code = 0xb7, .dst_reg = 4, .imm = 0 },
			{ .code = 0x85, .imm = BPF_FUNC_task_storage_get },
			{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
			{ .code = 0x95 },
		};
		LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
			    .attach_btf_id = vmlinux_type_id("vfs_read", BTF_KIND_FUNC));

		fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, ARRAY_SIZE(insns), &o);
		if (fd < 0)
			*why = "helper not available to fentry programs";
		else
			close(fd);
		close(mfd);
	}
	btf__free(b);
	return fd >= 0;
}

/* A perf_event program that uses a hash map allocated at run time
 * (BPF_F_NO_PREALLOC): refused before Linux 6.1 (bpf_mem_alloc), where such
 * a program must use preallocated hashes. */
static bool probe_perf_noprealloc(const char **why)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	int mfd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 4, 1, &mo), fd;

	if (mfd < 0) {
		*why = strerror(errno);
		return false;
	}
	const struct bpf_insn insns[] = {
		{ .code = 0x18, .dst_reg = 1, .src_reg = 1, .imm = mfd },	/* r1 = map */
		{ 0 },
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0x95 },
	};
	fd = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, NULL, "GPL", insns, ARRAY_SIZE(insns), NULL);
	if (fd < 0)
		*why = "preallocated hashes only (Linux 6.1)";
	else
		close(fd);
	close(mfd);
	return fd >= 0;
}

static bool probe_perf_sampling(const char **why)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(a),
		.sample_freq = 49,
		.freq = 1,
	};
	int fd = syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		*why = strerror(errno);
		return false;
	}
	close(fd);
	return true;
}

static bool pmu_present(const char *pmu, const char **why)
{
	char p[128];

	snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s", pmu);
	if (!access(p, F_OK))
		return true;
	*why = "no such PMU in /sys/bus/event_source/devices";
	return false;
}

static bool probe(enum feature f, const char **why)
{
	int id, r;

	switch (f) {
	case FEAT_TRACEFS:
		return tracefs_root() != NULL;
	case FEAT_BTF:
		if (!access("/sys/kernel/btf/vmlinux", R_OK))
			return true;
		*why = "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)";
		return false;
	case FEAT_TRACEPOINT:
	case FEAT_RAW_TP:
		r = libbpf_probe_bpf_prog_type(f == FEAT_TRACEPOINT ? BPF_PROG_TYPE_TRACEPOINT :
					       BPF_PROG_TYPE_RAW_TRACEPOINT, NULL);
		if (r <= 0)
			*why = "program type not supported";
		return r > 0;
	case FEAT_TP_BTF:
		id = vmlinux_type_id("btf_trace_sched_switch", BTF_KIND_TYPEDEF);
		if (id < 0) {
			*why = "no BTF for tracepoints";
			return false;
		}
		return try_attach_tracing(BPF_TRACE_RAW_TP, id, 0, why);
	case FEAT_KPROBE:
		return pmu_present("kprobe", why);
	case FEAT_UPROBE:
		return pmu_present("uprobe", why);
	case FEAT_KPROBE_MULTI:
		return probe_kprobe_multi(why);
	case FEAT_FENTRY:
		id = vmlinux_type_id("vfs_read", BTF_KIND_FUNC);
		if (id < 0) {
			*why = "no BTF for vfs_read";
			return false;
		}
		return try_attach_tracing(BPF_TRACE_FENTRY, id, 0, why);
	case FEAT_ATTACH_COOKIE:
		r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL);
		if (r <= 0)
			*why = "no bpf_get_attach_cookie (Linux 5.15)";
		return r > 0;
	case FEAT_PERF_SAMPLING:
		return probe_perf_sampling(why);
	case FEAT_PERF_NOPREALLOC:
		return probe_perf_noprealloc(why);
	case FEAT_STACK_MAP:
		r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_STACK_TRACE, NULL);
		if (r <= 0)
			*why = "map type not supported";
		return r > 0;
	case FEAT_ATOMICS:
		return probe_atomics(why);
	case FEAT_RINGBUF:
		r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
		if (r <= 0)
			*why = "map type not supported";
		return r > 0;
	case FEAT_TASK_STORAGE_MAP:
		r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL);
		if (r <= 0)
			*why = "map type not supported (Linux 5.11)";
		return r > 0;
	case FEAT_TASK_STORAGE_FENTRY:
		if (!feature_has(FEAT_FENTRY, why))
			return false;
		return probe_task_storage_fentry(why);
	case FEAT_TASK_STORAGE_TP:
	case FEAT_TASK_STORAGE_KPROBE:
		r = libbpf_probe_bpf_helper(f == FEAT_TASK_STORAGE_TP ? BPF_PROG_TYPE_TRACEPOINT :
					    BPF_PROG_TYPE_KPROBE, BPF_FUNC_task_storage_get, NULL);
		if (r <= 0)
			*why = "helper not available to this program type";
		return r > 0;
	default:
		return false;
	}
}

bool prog_type_task_storage(int prog_type)
{
	if (prog_type == BPF_PROG_TYPE_TRACING)
		return feature_has(FEAT_TASK_STORAGE_FENTRY, NULL);
	return libbpf_probe_bpf_helper(prog_type, BPF_FUNC_task_storage_get, NULL) > 0;
}

bool raw_tp_exists(const char *name)
{
	static int fd = -1;
	int lfd;

	if (fd < 0)
		fd = load_prog(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0);
	if (fd < 0)
		return false;
	lfd = bpf_raw_tracepoint_open(name, fd);
	if (lfd < 0)
		return false;
	close(lfd);
	return true;
}

/* Kernel BTF objects: vmlinux's, then each module's as first needed. */
struct kbtf {
	char name[64];
	struct btf *btf;
	int fd;			/* the kernel's BTF object; 0 for vmlinux */
	struct kbtf_func *funcs;	/* its FUNCs by name (btf__find_by_name_kind
					 * scans every type: 1 ms a name in vmlinux) */
	size_t nfuncs;
};
struct kbtf_func {
	const char *name;
	int id;
};
static struct kbtf *kbtfs;
static int nkbtfs;
static bool modules_listed;

static struct btf *vmlinux_btf(void)
{
	if (!nkbtfs) {
		struct btf *b = btf__load_vmlinux_btf();

		kbtfs = calloc(1, sizeof(*kbtfs));
		if (!b || !kbtfs) {
			btf__free(b);
			return NULL;
		}
		snprintf(kbtfs[0].name, sizeof(kbtfs[0].name), "vmlinux");
		kbtfs[0].btf = b;
		nkbtfs = 1;
	}
	return kbtfs[0].btf;
}

/* Every module's BTF object the kernel holds (one per loaded module with
 * BTF), by walking the BTF ids: the object's fd is what a program attached
 * to a module function names as attach_btf_obj_fd. */
static void list_modules(void)
{
	struct btf *base = vmlinux_btf();
	__u32 id = 0;

	if (modules_listed || !base)
		return;
	modules_listed = true;
	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info;
		__u32 len = sizeof(info);
		char name[64] = "";
		struct kbtf *v;
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.kernel_btf ||
		    !strcmp(name, "vmlinux") || !(v = realloc(kbtfs, (nkbtfs + 1) * sizeof(*v)))) {
			close(fd);
			continue;
		}
		kbtfs = v;
		v = &kbtfs[nkbtfs];
		memset(v, 0, sizeof(*v));
		v->btf = btf__load_from_kernel_by_id_split(id, base);
		if (!v->btf) {
			close(fd);
			continue;
		}
		snprintf(v->name, sizeof(v->name), "%s", name);
		v->fd = fd;
		nkbtfs++;
	}
}

static int cmp_kbtf_func(const void *a, const void *b)
{
	const struct kbtf_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* the first of a name, as btf__find_by_name_kind() gives */
	return c ? c : x->id - y->id;
}

static void kbtf_index(struct kbtf *k)
{
	__u32 n = btf__type_cnt(k->btf), first = k->fd ? btf__type_cnt(btf__base_btf(k->btf)) : 1;

	k->funcs = malloc((n - first + 1) * sizeof(*k->funcs));
	if (!k->funcs)
		return;
	for (__u32 id = first; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);

		if (btf_is_func(t))
			k->funcs[k->nfuncs++] = (struct kbtf_func){ btf__name_by_offset(k->btf, t->name_off), id };
	}
	qsort(k->funcs, k->nfuncs, sizeof(*k->funcs), cmp_kbtf_func);
}

static int kbtf_find(struct kbtf *k, const char *name)
{
	size_t lo = 0, hi;

	if (!k->funcs)
		kbtf_index(k);
	if (!k->funcs)
		return btf__find_by_name_kind(k->btf, name, BTF_KIND_FUNC);
	/* the first entry not below name */
	for (hi = k->nfuncs; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(k->funcs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nfuncs && !strcmp(k->funcs[lo].name, name) ? k->funcs[lo].id : -ENOENT;
}

static bool kbtf_has(struct kbtf *k, const char *name, struct kfunc_btf *kb)
{
	int id = kbtf_find(k, name);
	const struct btf_type *t;

	if (id < 0)
		return false;
	t = btf__type_by_id(k->btf, btf__type_by_id(k->btf, id)->type);
	kb->id = id;
	kb->obj_fd = k->fd;
	kb->nargs = btf_vlen(t);
	kb->module = k->fd ? k->name : NULL;
	return true;
}

int kfunc_btf_find(const char *name, const char *module, struct kfunc_btf *kb, const char **why)
{
	if (!vmlinux_btf()) {
		*why = "no kernel BTF (/sys/kernel/btf/vmlinux)";
		return -ENOENT;
	}
	if (!module && kbtf_has(&kbtfs[0], name, kb))
		return 0;
	list_modules();
	for (int i = 1; i < nkbtfs; i++)
		if ((!module || !strcmp(kbtfs[i].name, module)) && kbtf_has(&kbtfs[i], name, kb))
			return 0;
	if (module && access("/sys/kernel/btf/vmlinux", F_OK) == 0) {
		char p[128];

		snprintf(p, sizeof(p), "/sys/kernel/btf/%s", module);
		*why = access(p, F_OK) ? "its module has no BTF (CONFIG_DEBUG_INFO_BTF_MODULES)" :
					 "not in its module's BTF";
	} else {
		*why = "not in the kernel's BTF (vmlinux or a module's)";
	}
	return -ENOENT;
}

bool fentry_works(const char *name, bool ret, unsigned int *nargs, const char **why)
{
	struct kfunc_btf kb;

	if (!feature_has(FEAT_FENTRY, why))
		return false;
	if (kfunc_btf_find(name, NULL, &kb, why))
		return false;
	*nargs = kb.nargs;
	return try_attach_tracing(ret ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY, kb.id, kb.obj_fd, why);
}

bool feature_has(enum feature f, const char **why)
{
	static signed char cache[NR_FEATURES];
	static const char *reasons[NR_FEATURES];
	const char *dummy;

	if (!why)
		why = &dummy;
	if (!cache[f])
		cache[f] = probe(f, &reasons[f]) ? 1 : -1;
	*why = reasons[f] ? reasons[f] : "";
	return cache[f] > 0;
}
