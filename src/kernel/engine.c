// SPDX-License-Identifier: GPL-2.0
/* The BPF session layer: see engine.h. */
#include "kernel/engine.h"
#include "kernel/feature.h"
#include "kernel/filter.h"
#include "model/hist.h"
#include "model/measure.h"
#include "kernel/spill.h"
#include "kernel/owncost.h"
#include "lib/util.h"
#include "lib/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/utsname.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* Where a kernel's types are looked for when it has no BTF of its own:
 * kdist's folder of BTF files by release (BTFHub's naming), then the
 * places libbpf reads an ELF vmlinux from (a debug package's). */
static const char *const btf_paths[] = {
	"/var/lib/kdist/btf/%1$s.btf",
	"/boot/vmlinux-%1$s",
	"/lib/modules/%1$s/vmlinux-%1$s",
	"/lib/modules/%1$s/build/vmlinux",
	"/usr/lib/modules/%1$s/kernel/vmlinux",
	"/usr/lib/debug/boot/vmlinux-%1$s",
	"/usr/lib/debug/boot/vmlinux-%1$s.debug",
	"/usr/lib/debug/lib/modules/%1$s/vmlinux",
};
static int btf_err;

int engine_btf_check(const char *path)
{
	libbpf_print_fn_t print;
	char why[128];
	struct stat st;
	struct btf *btf;
	int err;

	if (stat(path, &st)) {
		err = -errno;
		kd_err("bad --btf %s: %s", path, strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		kd_err("bad --btf %s: not a regular file", path);
		return -EINVAL;
	}
	/* the one line below says it: not libbpf's own too */
	print = libbpf_set_print(NULL);
	btf = btf__parse(path, NULL);
	err = libbpf_get_error(btf);
	libbpf_set_print(print);
	if (err) {
		libbpf_strerror(err, why, sizeof(why));
		kd_err("bad --btf %s: no BTF in it (%s): give a .btf file or a vmlinux with BTF", path, why);
		return -EINVAL;
	}
	btf__free(btf);
	return 0;
}

const struct bpf_object_open_opts *engine_open_opts(void)
{
	static char path[PATH_MAX];
	static struct bpf_object_open_opts o;
	struct utsname u;

	if (o.sz)
		return &o;
	o.sz = sizeof(o);
	if (kd_btf_file) {
		o.btf_custom_path = kd_btf_file;	/* checked with the options */
		return &o;
	}
	if (!access("/sys/kernel/btf/vmlinux", R_OK) || uname(&u))
		return &o;
	for (size_t i = 0; i < ARRAY_SIZE(btf_paths); i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(path, sizeof(path), btf_paths[i], u.release);
#pragma GCC diagnostic pop
		if (!access(path, R_OK)) {
			kd_info("the kernel's types from %s (no /sys/kernel/btf/vmlinux)", path);
			o.btf_custom_path = path;
			return &o;
		}
	}
	kd_err("failed to find the kernel's types: no /sys/kernel/btf/vmlinux "
	       "(CONFIG_DEBUG_INFO_BTF) and no /var/lib/kdist/btf/%s.btf: give one with "
	       "--btf FILE (BTFHub's archive, or pahole -J of the debug package's vmlinux; "
	       "docs/kernels.md)", u.release);
	btf_err = -ENOENT;
	return &o;
}

int engine_opened(const void *skel)
{
	int err = errno;

	if (skel && btf_err)
		return btf_err;
	if (skel)
		return 0;
	kd_err("failed to open the BPF object: %s", strerror(err));
	return -err;
}

size_t engine_percpu_stride(size_t value_size)
{
	return (value_size + 7) & ~(size_t)7;
}

static uint32_t spill_hash(const unsigned char *key, size_t n)
{
	return hash_bytes(key, n) % ENGINE_SPILL_BUCKETS;
}

static int spill_take(void *ctx, void *data, size_t size)
{
	struct engine *e = ctx;
	const struct spill_head *r = data;
	const unsigned char *key = (const unsigned char *)(r + 1);
	struct engine_spilled *s, **b;

	if (size < sizeof(*r) || r->key_size > size - sizeof(*r))
		return 0;	/* cannot happen: the kernel wrote it whole */
	b = &e->spill_hash[spill_hash(key, r->key_size)];
	for (s = *b; s; s = s->chain)
		if (s->key_size == r->key_size && !memcmp(s->key, key, r->key_size))
			break;
	if (!s) {
		s = calloc(1, sizeof(*s) + r->key_size);
		if (s)
			s->h = calloc(1, sizeof(*s->h));
		if (!s || !s->h) {
			free(s);
			e->spill_err = -ENOMEM;
			return -ENOMEM;
		}
		s->key_size = r->key_size;
		memcpy(s->key, key, r->key_size);
		s->chain = *b;
		*b = s;
		s->next = e->spilled;
		e->spilled = s;
	}
	e->nspilled++;
	hist_add(s->h, r->value);
	s->self += r->self;
	if (!r->nested)
		s->total += r->value;
	return 0;
}

void engine_spilled_clear(struct engine *e)
{
	while (e->spilled) {
		struct engine_spilled *s = e->spilled;

		e->spilled = s->next;
		free(s->h);
		free(s);
	}
	memset(e->spill_hash, 0, sizeof(e->spill_hash));
}

/* The engines with a spill ring, and an epoll fd over their rings. */
static struct engine *spilling;
static int spill_epfd = -1;

static int spill_watch(struct engine *e)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (spill_epfd < 0)
		spill_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (spill_epfd < 0 ||
	    epoll_ctl(spill_epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(e->spill_rb), &ev))
		return -errno;
	e->next_open = spilling;
	spilling = e;
	return 0;
}

static void spill_unwatch(struct engine *e)
{
	for (struct engine **p = &spilling; *p; p = &(*p)->next_open) {
		if (*p == e) {
			*p = e->next_open;
			break;
		}
	}
	epoll_ctl(spill_epfd, EPOLL_CTL_DEL, ring_buffer__epoll_fd(e->spill_rb), NULL);
	if (!spilling) {
		close(spill_epfd);
		spill_epfd = -1;
	}
}

int engine_spill_fd(void)
{
	return spill_epfd;
}

static int spill_drain(struct engine *e)
{
	int n = ring_buffer__consume(e->spill_rb);

	if (!e->spill_err && n < 0)
		e->spill_err = n;
	if (e->spill_err)
		kd_err("failed to read the spill ring: %s", strerror(-e->spill_err));
	return e->spill_err;
}

int engine_spill_drain(void)
{
	for (struct engine *e = spilling; e; e = e->next_open) {
		int err = spill_drain(e);

		if (err)
			return err;
	}
	return 0;
}

const struct engine_spilled *engine_spilled_next(const struct engine *e,
						 const struct engine_spilled *sp, void *key,
						 size_t key_size)
{
	for (sp = sp ? sp->next : e->spilled; sp; sp = sp->next) {
		if (sp->key_size == key_size) {
			memcpy(key, sp->key, key_size);
			return sp;
		}
	}
	return NULL;
}

/* The spill ring must hold a burst of new groups that find no memory: each
 * interval drains the group table, so a workload with 100,000 groups
 * creates them all again every interval, and an allocation fails for
 * thousands of them (measured: 18,652 of 100,000 in one second here).
 * So the ring takes a record per entry of the largest group table, from
 * SPILL_RING_BYTES (the default --max-groups fits) up to 64 MiB. */
static void spill_size(struct bpf_object *obj)
{
	struct bpf_map *map, *ring = bpf_object__find_map_by_name(obj, "spill");
	size_t want = 0, bytes = SPILL_RING_BYTES;

	if (!ring)
		return;
	bpf_object__for_each_map(map, obj) {
		/* a record: ring header, spill_head and the key, 8-byte aligned */
		size_t rec = (8 + sizeof(struct spill_head) + bpf_map__key_size(map) + 7) & ~(size_t)7;

		if (bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_HASH &&
		    (size_t)bpf_map__max_entries(map) * rec > want)
			want = (size_t)bpf_map__max_entries(map) * rec;
	}
	while (bytes < want && bytes < 64 << 20)
		bytes <<= 1;
	bpf_map__set_max_entries(ring, bytes);
}

/* The bytes a preallocated hash may take before its table is cut to fit:
 * a cut table counts what no longer fits as its group-table-full loss. */
#define PREALLOC_BUDGET (64ull << 20)

/* What a preallocated hash of max_entries takes: each element holds its
 * key, a header, and its value once or once per CPU. */
static unsigned long long prealloc_bytes(const struct bpf_map *m, unsigned int entries,
					 int ncpu)
{
	unsigned long long v = (bpf_map__value_size(m) + 7) & ~7u;

	if (bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_HASH)
		v = v * ncpu + 8;
	return (unsigned long long)entries * (bpf_map__key_size(m) + v + 48);
}

/* What older kernels need of an object before it loads.  A map the kernel
 * cannot create fails the whole load: without task storage maps (Linux
 * 5.11) every command keeps its per-thread state in a tid-keyed hash
 * (cfg.task_storage is off, feature.c says so), and the object's task
 * storage maps, then unused, become one-entry hashes the kernel has.
 *
 * Before Linux 6.1 (bpf_mem_alloc) a hash made with BPF_F_NO_PREALLOC
 * takes its elements from the kernel's allocators while the program runs,
 * in whatever context that is.  perf_event programs are refused such
 * hashes.  Programs on the scheduler's tracepoints may have them, and
 * deadlock: they run with the run queue locked, and an allocation that
 * wakes a worker (the per-CPU allocator's balance work, kswapd) takes that
 * lock again.  kdist offcpu froze a 5.10 guest so.  So on those kernels
 * every hash is preallocated, cut to PREALLOC_BUDGET bytes. */
static void prealloc_fit(struct bpf_map *m, int ncpu)
{
	enum bpf_map_type t = bpf_map__type(m);
	unsigned int n = bpf_map__max_entries(m);

	if ((t != BPF_MAP_TYPE_HASH && t != BPF_MAP_TYPE_PERCPU_HASH) ||
	    !(bpf_map__map_flags(m) & BPF_F_NO_PREALLOC))
		return;
	bpf_map__set_map_flags(m, bpf_map__map_flags(m) & ~BPF_F_NO_PREALLOC);
	while (n > 1 && prealloc_bytes(m, n, ncpu) > PREALLOC_BUDGET)
		n /= 2;
	if (n < bpf_map__max_entries(m)) {
		kd_info("map %s: %u entries, not %u: preallocated (no run-time hashes "
			"before Linux 6.1) within %llu MiB", bpf_map__name(m), n,
			bpf_map__max_entries(m), PREALLOC_BUDGET >> 20);
		bpf_map__set_max_entries(m, n);
	}
}

static void maps_fit_kernel(struct bpf_object *obj)
{
	bool prealloc = !feature_has(FEAT_PERF_NOPREALLOC, NULL);
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map *m, *inner;

	bpf_object__for_each_map(m, obj) {
		if (bpf_map__type(m) == BPF_MAP_TYPE_TASK_STORAGE &&
		    !feature_has(FEAT_TASK_STORAGE_MAP, NULL)) {
			bpf_map__set_type(m, BPF_MAP_TYPE_HASH);
			bpf_map__set_map_flags(m, 0);
			bpf_map__set_max_entries(m, 1);
			continue;
		}
		if (!prealloc)
			continue;
		prealloc_fit(m, ncpu > 0 ? ncpu : 1);
		/* an outer map's template must agree with the maps it holds */
		inner = bpf_map__inner_map(m);
		if (inner)
			prealloc_fit(inner, ncpu > 0 ? ncpu : 1);
	}
}

int engine_load(struct engine *e, struct bpf_object_skeleton *s,
		const char *const *drop_names, int ndrops)
{
	struct bpf_map *map;
	size_t largest = sizeof(uint64_t);
	int err;

	e->drops_fd = e->cost.cost_fd = e->cost.window_fd = -1;
	e->ncpu = libbpf_num_possible_cpus();
	if (e->ncpu <= 0)
		return e->ncpu ? e->ncpu : -ENODEV;
	spill_size(*s->obj);
	maps_fit_kernel(*s->obj);
	err = task_filter_load(*s->obj);
	if (!err)
		err = cost_prepare(*s->obj);
	if (!err)
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
	map = bpf_object__find_map_by_name(e->obj, "spill");
	if (map && bpf_map__fd(map) >= 0 && e->drops_fd >= 0) {
		e->spill_rb = ring_buffer__new(bpf_map__fd(map), spill_take, e, NULL);
		err = e->spill_rb ? spill_watch(e) : -errno;
		if (err) {
			kd_err("failed to read the spill ring: %s", strerror(-err));
			ring_buffer__free(e->spill_rb);
			e->spill_rb = NULL;
			return err;
		}
	}
	err = task_filter_attach(e);
	if (!err)
		err = cost_attach(&e->cost, e->obj, e->ncpu);
	if (err)
		return err;
	engine_reset(e);
	return 0;
}

struct prog_counters {
	uint64_t misses, runs, run_ns;
	int programs;
	bool has_misses;	/* the kernel reports recursion_misses (5.12) */
};

static void prog_count(struct prog_counters *pc, int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	if (fd < 0)
		return;	/* not loaded */
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	pc->programs++;
	/* the kernel fills what it knows and says how much */
	if (len < offsetof(struct bpf_prog_info, recursion_misses) + sizeof(info.recursion_misses))
		pc->has_misses = false;
	pc->misses += info.recursion_misses;
	pc->runs += info.run_cnt;
	pc->run_ns += info.run_time_ns;
}

/* The counters of every loaded program, summed. */
static struct prog_counters prog_counters(struct engine *e)
{
	struct prog_counters pc = { .has_misses = true };
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, e->obj)
		prog_count(&pc, bpf_program__fd(prog));
	for (size_t i = 0; i < e->nprog_fds; i++)
		prog_count(&pc, e->prog_fds[i]);
	return pc;
}

int engine_fd(struct engine *e, int fd, bool prog)
{
	int **v = prog ? &e->prog_fds : &e->link_fds;
	size_t *n = prog ? &e->nprog_fds : &e->nlink_fds;
	int *nv;

	/* 16, then doubled: full when n is a power of two from 16 on */
	if (!*n || (*n >= 16 && !(*n & (*n - 1)))) {
		nv = realloc(*v, (*n ? 2 * *n : 16) * sizeof(**v));
		if (!nv) {
			close(fd);
			return -ENOMEM;
		}
		*v = nv;
	}
	(*v)[(*n)++] = fd;
	return 0;
}

void engine_reset(struct engine *e)
{
	struct prog_counters pc = prog_counters(e);
	uint32_t d = KD_DROP_SPILL;

	if (e->spill_rb) {
		ring_buffer__consume(e->spill_rb);
		engine_spilled_clear(e);
		e->spill_err = 0;
		memset(e->buf, 0, e->ncpu * sizeof(uint64_t));
		bpf_map_update_elem(e->drops_fd, &d, e->buf, BPF_ANY);
	}

	e->misses0 = pc.misses;
	e->runs0 = pc.runs;
	e->run_ns0 = pc.run_ns;
	cost_reset(&e->cost);
}

/* Closing a perf-event link waits for an RCU tasks-trace grace period
 * (perf_event_detach_bpf_prog), tens of milliseconds each: one thread
 * detaching 2000 uprobes takes minutes.  Concurrent closes share grace
 * periods, so large sets are detached by many threads at once. */
#define DESTROY_THREADS 64

void engine_close(struct engine *e)
{
	/* the sampler reads the cost maps: not once they are closed */
	cost_detach(&e->cost);
	engine_links_destroy(&e->links);
	/* fentry links: closing one waits for RCU tasks grace periods under
	 * ftrace's locks, so closing them in parallel gains nothing */
	for (size_t i = 0; i < e->nlink_fds; i++) {
		close(e->link_fds[i]);
		progress_add(e->links.progress, 1);
	}
	for (size_t i = 0; i < e->nprog_fds; i++)
		close(e->prog_fds[i]);
	free(e->link_fds);
	free(e->prog_fds);
	e->link_fds = e->prog_fds = NULL;
	e->nlink_fds = e->nprog_fds = 0;
	if (e->nspilled)
		kd_info("%llu events came through the spill ring: the kernel had no memory for "
			"their new group at that moment", (unsigned long long)e->nspilled);
	if (e->spill_rb)
		spill_unwatch(e);
	ring_buffer__free(e->spill_rb);
	e->spill_rb = NULL;
	engine_spilled_clear(e);
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

/* The bytes the kernel accounts to a map (fdinfo "memlock"), 0 if unknown. */
static uint64_t map_memlock(int fd)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static uint64_t maps_memlock(struct engine *e)
{
	struct bpf_map *map;
	uint64_t sum = 0;

	bpf_object__for_each_map(map, e->obj)
		if (bpf_map__fd(map) >= 0)
			sum += map_memlock(bpf_map__fd(map));
	return sum;
}

int engine_read(struct engine *e, struct measurement *m)
{
	struct prog_counters pc = prog_counters(e);
	struct m_cost cost = { .programs = pc.programs, .err = cost_err() };
	int err = e->spill_rb ? spill_drain(e) : 0;
	uint64_t runs, run_ns;

	if (err)
		return err;
	for (__u32 d = 0; d < (__u32)e->ndrops; d++) {
		uint64_t n;

		if (!e->drop_names[d])
			continue;	/* a counter this run does not use */
		err = engine_sum_u64(e, e->drops_fd, &d, &n);
		if (err)
			return err;
		measurement_add_drop(m, e->drop_names[d], n);
	}
	if (e->spill_rb) {
		uint64_t n;
		__u32 d = KD_DROP_SPILL;

		err = engine_sum_u64(e, e->drops_fd, &d, &n);
		if (err)
			return err;
		measurement_add_drop(m, "group_memory_failed", n);
	}
	/* a run the kernel did not make is an event the measurement lacks:
	 * a loss like the others (docs/pair.md, "Output") */
	if (pc.has_misses)
		measurement_add_drop(m, "skipped_by_kernel", pc.misses - e->misses0);
	cost.runs = pc.runs - e->runs0;
	cost.run_ns = pc.run_ns - e->run_ns0;
	cost.sampled = cost_window(&e->cost, &runs, &run_ns);
	if (cost.sampled > 0 && cost.sampled < 1) {
		/* the windows' share of the programs' work, scaled up */
		cost.runs = runs / cost.sampled + 0.5;
		cost.run_ns = run_ns / cost.sampled + 0.5;
	} else if (cost.sampled <= 0 && !cost.err) {
		cost.err = EAGAIN;	/* no window yet: nothing to scale */
	}
	cost.map_bytes = maps_memlock(e);
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
	struct progress *progress;
};

static void *destroy_slice(void *arg)
{
	struct destroy_slice *d = arg;

	for (size_t i = 0; i < d->n; i++) {
		bpf_link__destroy(d->v[i]);
		progress_add(d->progress, 1);
	}
	return NULL;
}


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
		d[i].progress = l->progress;
		started[i] = !pthread_create(&t[i], NULL, destroy_slice, &d[i]);
		if (!started[i])
			destroy_slice(&d[i]);
		at += d[i].n;
	}
	for (size_t i = 0; i < nt; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	/* fewer than 8 links: no threads */
	while (l->n > at) {
		bpf_link__destroy(l->v[--l->n]);
		progress_add(l->progress, 1);
	}
	l->n = from;
}

void engine_links_destroy(struct engine_links *l)
{
	engine_links_truncate(l, 0);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
