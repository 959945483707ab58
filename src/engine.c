// SPDX-License-Identifier: GPL-2.0
/* The BPF session layer: see engine.h. */
#include "engine.h"
#include "hist.h"
#include "measure.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* BPF run-time statistics (run_cnt, run_time_ns of every program) cost two
 * clock reads per program run, so the kernel keeps them off unless a
 * BPF_ENABLE_STATS descriptor is open or the global sysctl is on.  kdist
 * holds one descriptor while any engine is open: closing it (or exiting)
 * turns them off again, whatever happens to kdist. */
static int stats_fd = -1, stats_users, stats_err;

static void stats_get(struct engine *e)
{
	if (!stats_users++) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		stats_err = stats_fd < 0 ? errno : 0;
		if (stats_err)
			kd_info("no BPF run-time statistics: %s", strerror(stats_err));
	}
	e->stats = true;
}

static void stats_put(struct engine *e)
{
	if (!e->stats)
		return;
	e->stats = false;
	if (--stats_users)
		return;
	if (stats_fd >= 0)
		close(stats_fd);
	stats_fd = -1;
}

int engine_opened(const void *skel)
{
	int err = errno;

	if (skel)
		return 0;
	kd_err("failed to open the BPF object: %s", strerror(err));
	return -err;
}

size_t engine_percpu_stride(size_t value_size)
{
	return (value_size + 7) & ~(size_t)7;
}

int engine_load(struct engine *e, struct bpf_object_skeleton *s,
		const char *const *drop_names, int ndrops)
{
	struct bpf_map *map;
	size_t largest = sizeof(uint64_t);
	int err;

	e->drops_fd = -1;
	e->ncpu = libbpf_num_possible_cpus();
	if (e->ncpu <= 0)
		return e->ncpu ? e->ncpu : -ENODEV;
	err = bpf_object__load_skeleton(s);
	if (err) {
		kd_err("failed to load BPF programs: %s (run with -v for the verifier log)",
		       strerror(-err));
		return err;
	}
	e->obj = *s->obj;
	bpf_object__for_each_map(map, e->obj) {
		enum bpf_map_type t = bpf_map__type(map);

		if ((t == BPF_MAP_TYPE_PERCPU_ARRAY || t == BPF_MAP_TYPE_PERCPU_HASH) &&
		    bpf_map__value_size(map) > largest)
			largest = bpf_map__value_size(map);
	}
	e->buf = calloc(e->ncpu, engine_percpu_stride(largest));
	if (!e->buf)
		return -ENOMEM;
	map = bpf_object__find_map_by_name(e->obj, "drops");
	if (ndrops && (!map || bpf_map__max_entries(map) < (unsigned int)ndrops)) {
		kd_err("failed to load BPF programs: %d loss counters, the object has %u",
		       ndrops, map ? bpf_map__max_entries(map) : 0);
		return -EINVAL;
	}
	e->drops_fd = map ? bpf_map__fd(map) : -1;
	e->drop_names = drop_names;
	e->ndrops = ndrops;
	stats_get(e);
	engine_reset(e);
	return 0;
}

struct prog_counters {
	uint64_t misses, runs, run_ns;
	int programs;
	bool has_misses;	/* the kernel reports recursion_misses (5.12) */
};

/* The counters of every loaded program, summed. */
static struct prog_counters prog_counters(struct engine *e)
{
	struct prog_counters pc = { .has_misses = true };
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, e->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;	/* not loaded */
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		pc.programs++;
		/* the kernel fills what it knows and says how much */
		if (len < offsetof(struct bpf_prog_info, recursion_misses) +
			  sizeof(info.recursion_misses))
			pc.has_misses = false;
		pc.misses += info.recursion_misses;
		pc.runs += info.run_cnt;
		pc.run_ns += info.run_time_ns;
	}
	return pc;
}

void engine_reset(struct engine *e)
{
	struct prog_counters pc = prog_counters(e);

	e->misses0 = pc.misses;
	e->runs0 = pc.runs;
	e->run_ns0 = pc.run_ns;
}

void engine_close(struct engine *e)
{
	engine_links_destroy(&e->links);
	stats_put(e);
	free(e->buf);
	e->buf = NULL;
}

const void *engine_percpu(struct engine *e, int fd, const void *key)
{
	return bpf_map_lookup_elem(fd, key, e->buf) ? NULL : e->buf;
}

int engine_sum_hist(struct engine *e, int fd, const void *key, size_t value_size,
		    struct hist *sum)
{
	const char *v = engine_percpu(e, fd, key);
	size_t stride = engine_percpu_stride(value_size);

	if (!v)
		return -errno;
	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < e->ncpu; c++)
		hist_merge(sum, (const struct hist *)(v + c * stride));
	return 0;
}

int engine_sum_u64(struct engine *e, int fd, const void *key, uint64_t *sum)
{
	const uint64_t *v = engine_percpu(e, fd, key);

	if (!v)
		return -errno;
	*sum = 0;
	for (int c = 0; c < e->ncpu; c++)
		*sum += v[c];
	return 0;
}

int engine_read(struct engine *e, struct measurement *m)
{
	struct prog_counters pc = prog_counters(e);
	struct m_cost cost = { .programs = pc.programs, .err = stats_err };
	int err;

	for (__u32 d = 0; d < (__u32)e->ndrops; d++) {
		uint64_t n;

		err = engine_sum_u64(e, e->drops_fd, &d, &n);
		if (err)
			return err;
		measurement_add_drop(m, e->drop_names[d], n);
	}
	/* a run the kernel did not make is an event the measurement lacks:
	 * a loss like the others (docs/pair.md, "Output") */
	if (pc.has_misses)
		measurement_add_drop(m, "skipped_by_kernel", pc.misses - e->misses0);
	cost.runs = pc.runs - e->runs0;
	cost.run_ns = pc.run_ns - e->run_ns0;
	m_cost_add(&m->cost, &cost);
	return 0;
}

int engine_links_add(struct engine_links *l, struct bpf_link *link)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct bpf_link **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = link;
	return 0;
}

int engine_link(struct engine *e, struct bpf_link *l)
{
	if (!l)
		return -errno;
	return engine_links_add(&e->links, l);
}

struct destroy_slice {
	struct bpf_link **v;
	size_t n;
};

static void *destroy_slice(void *arg)
{
	struct destroy_slice *d = arg;

	for (size_t i = 0; i < d->n; i++)
		bpf_link__destroy(d->v[i]);
	return NULL;
}

/* Closing a perf-event link waits for an RCU tasks-trace grace period
 * (perf_event_detach_bpf_prog), tens of milliseconds each: one thread
 * detaching 2000 uprobes takes minutes.  Concurrent closes share grace
 * periods, so large sets are detached by many threads at once. */
#define DESTROY_THREADS 64

void engine_links_truncate(struct engine_links *l, size_t from)
{
	struct destroy_slice d[DESTROY_THREADS];
	pthread_t t[DESTROY_THREADS];
	size_t n = l->n - from, at = from;
	size_t nt = n / 8 < DESTROY_THREADS ? n / 8 : DESTROY_THREADS;
	bool started[DESTROY_THREADS] = { 0 };

	if (l->n <= from)
		return;
	for (size_t i = 0; i < nt; i++) {
		d[i].v = l->v + at;
		d[i].n = (l->n - at) / (nt - i);
		started[i] = !pthread_create(&t[i], NULL, destroy_slice, &d[i]);
		if (!started[i])
			destroy_slice(&d[i]);
		at += d[i].n;
	}
	for (size_t i = 0; i < nt; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	/* fewer than 8 links: no threads */
	while (l->n > at)
		bpf_link__destroy(l->v[--l->n]);
	l->n = from;
}

void engine_links_destroy(struct engine_links *l)
{
	engine_links_truncate(l, 0);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
