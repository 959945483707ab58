// SPDX-License-Identifier: GPL-2.0
#include "feature.h"
#include "tracefs.h"
#include "util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
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
	[FEAT_UPROBE] = "uprobes",
	[FEAT_PERF_SAMPLING] = "perf_event sampling (cpu-clock)",
	[FEAT_STACK_MAP] = "stack trace maps",
	[FEAT_TASK_STORAGE_TP] = "task storage in tracepoint programs",
	[FEAT_TASK_STORAGE_KPROBE] = "task storage in kprobe programs",
	[FEAT_RINGBUF] = "ring buffer",
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

static bool try_attach_tracing(enum bpf_attach_type at, int btf_id, const char **why)
{
	int fd = load_prog(BPF_PROG_TYPE_TRACING, at, btf_id), lfd;

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
	lfd = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	if (lfd < 0)
		*why = errno == EOPNOTSUPP ? "not in this kernel (CONFIG_FPROBE)" : strerror(errno);
	else
		close(lfd);
	close(fd);
	return lfd >= 0;
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
		return try_attach_tracing(BPF_TRACE_RAW_TP, id, why);
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
		return try_attach_tracing(BPF_TRACE_FENTRY, id, why);
	case FEAT_PERF_SAMPLING:
		return probe_perf_sampling(why);
	case FEAT_STACK_MAP:
		r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_STACK_TRACE, NULL);
		if (r <= 0)
			*why = "map type not supported";
		return r > 0;
	case FEAT_RINGBUF:
		r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
		if (r <= 0)
			*why = "map type not supported";
		return r > 0;
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

bool fentry_works(const char *name, bool ret, unsigned int *nargs, const char **why)
{
	static struct btf *btf;
	const struct btf_type *t;
	int id;

	if (!feature_has(FEAT_FENTRY, why))
		return false;
	if (!btf)
		btf = btf__load_vmlinux_btf();
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;
	if (id < 0) {
		*why = "not in vmlinux's BTF (a module's function, or one BTF leaves out)";
		return false;
	}
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	*nargs = btf_vlen(t);
	return try_attach_tracing(ret ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY, id, why);
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
