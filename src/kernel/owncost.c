// SPDX-License-Identifier: GPL-2.0
/* kdist's own cost, per engine: see owncost.h. */
#include "kernel/owncost.h"
#include "lib/util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* kdist's cost: unless -v asks for the exact figure, its programs time
 * themselves in windows of STATS_WINDOW_MS (owncost.bpf.h), which
 * engine_read scales by the time they covered (docs/pair.md, "kdist's own
 * cost"), each on until the engine's programs ran in it (at most
 * STATS_WINDOW_MAX_MS): STATS_FIRST_MS after the start, then after gaps that double, at
 * most STATS_GAP_MAX_MS.  -v holds the kernel's BPF run-time statistics
 * (run_cnt, run_time_ns) instead, for the whole run: they cost every BPF
 * program of the machine two clock reads per run while a BPF_ENABLE_STATS
 * descriptor is open, and each switch of them patches the kernel's code.
 * Exiting closes the descriptor. */
#define STATS_WINDOW_MS 50
#define STATS_WINDOW_MAX_MS 1000
#define STATS_FIRST_MS 1000
#define STATS_GAP_MAX_MS 60000

static int stats_fd = -1, stats_users, stats_err;
static bool stats_off;

/* The sampler: a thread that opens every engine's window (its programs
 * time themselves meanwhile) and reads what they added up inside it; each
 * engine adds up its windows (win_*) since engine_reset. */
static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t stop_cv;
	bool running, stop;
	struct cost_state *sampled;
} sampler = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Sleep ms unless told to stop (lock held); true when told to stop. */
static bool sampler_sleep(unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	while (!sampler.stop && pthread_cond_timedwait(&sampler.stop_cv, &sampler.lock, &ts) == 0)
		;
	return sampler.stop;
}

/* The runs and time e's programs added up in windows, summed over the CPUs
 * (the sampler's own buffer: e->buf is the main thread's); false when e
 * has no cost map or it cannot be read. */
static bool own_cost(struct cost_state *e, struct kd_cost *sum)
{
	__u32 zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (e->cost_fd < 0 || bpf_map_lookup_elem(e->cost_fd, &zero, e->buf))
		return false;
	for (int c = 0; c < e->ncpu; c++) {
		sum->runs += e->buf[c].runs;
		sum->ns += e->buf[c].ns;
	}
	return true;
}

static void window_set(struct cost_state *e, __u32 open)
{
	__u32 zero = 0;

	if (e->window_fd >= 0)
		bpf_map_update_elem(e->window_fd, &zero, &open, BPF_ANY);
}

/* Open e's window: its programs time themselves from now on. */
static void window_open(struct cost_state *e)
{
	struct kd_cost c;

	if (!own_cost(e, &c))
		return;
	e->w_runs = c.runs;
	e->w_run_ns = c.ns;
	window_set(e, 1);
	e->w_t = now_ns();
	e->w_open = true;
}

/* Close e's window once its programs ran in it, or anyway when force:
 * false while it stays open.  Closed even when the window does not count
 * (e was reset meanwhile): its programs would go on timing every run. */
static bool window_close(struct cost_state *e, bool force)
{
	struct kd_cost c;
	uint64_t t;

	if (!force && e->w_t && own_cost(e, &c) && c.runs == e->w_runs)
		return false;
	window_set(e, 0);
	e->w_open = false;
	if (!e->w_t)
		return true;	/* reset meanwhile */
	t = now_ns();
	if (!own_cost(e, &c)) {
		e->w_t = 0;
		return true;
	}
	e->last_win_runs = c.runs - e->w_runs;
	e->last_win_run_ns = c.ns - e->w_run_ns;
	e->last_win_ns = t - e->w_t;
	e->win_runs += e->last_win_runs;
	e->win_run_ns += e->last_win_run_ns;
	e->win_ns += e->last_win_ns;
	e->w_t = 0;
	return true;
}

/* The windows: each stays open STATS_WINDOW_MS, and on until its
 * programs ran once (at most STATS_WINDOW_MAX_MS, or until kdist stops).
 * A rate taken over windows that end at a run is still unbiased: for
 * events that come at a steady rate, the runs expected in a window whose
 * end is decided by what came so far are that rate times its expected
 * length (Wald's identity), so the runs and time added up over the
 * windows estimate the rate as fixed windows would.  A window that saw
 * no run would say "no cost" for programs that do run, as a profile's at
 * 99 Hz can in 50 ms of an emulated machine. */
static void *sampler_run(void *arg)
{
	unsigned int gap = STATS_FIRST_MS;

	pthread_mutex_lock(&sampler.lock);
	while (!sampler.stop) {
		struct cost_state *e;
		unsigned int open_ms = 0;
		bool open = true;

		if (sampler_sleep(gap))
			break;
		gap = gap < STATS_GAP_MAX_MS / 2 ? gap * 2 : STATS_GAP_MAX_MS;
		for (e = sampler.sampled; e; e = e->next_sampled)
			window_open(e);
		while (open) {
			bool force;

			force = sampler_sleep(STATS_WINDOW_MS);
			open_ms += STATS_WINDOW_MS;
			force = force || open_ms >= STATS_WINDOW_MAX_MS;
			open = false;
			for (e = sampler.sampled; e; e = e->next_sampled)
				if (e->w_open && !window_close(e, force))
					open = true;
		}
	}
	pthread_mutex_unlock(&sampler.lock);
	return arg;
}

static void sampler_list(struct cost_state *e, bool in)
{
	struct cost_state **p;

	pthread_mutex_lock(&sampler.lock);
	for (p = &sampler.sampled; *p && *p != e; p = &(*p)->next_sampled)
		;
	if (*p && !in)
		*p = e->next_sampled;
	else if (!*p && in) {
		e->next_sampled = sampler.sampled;
		sampler.sampled = e;
	}
	pthread_mutex_unlock(&sampler.lock);
}

static int sampler_start(void)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	/* sampler_sleep's deadlines are on the monotonic clock */
	if (pthread_condattr_init(&ca) || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&sampler.stop_cv, &ca))
		return EINVAL;
	pthread_condattr_destroy(&ca);
	/* signals (Ctrl-C, the interval timer) stay the main thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	sampler.stop = false;
	err = pthread_create(&sampler.thread, NULL, sampler_run, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	sampler.running = !err;
	if (err)
		pthread_cond_destroy(&sampler.stop_cv);
	return err;
}

static void sampler_stop(void)
{
	if (!sampler.running)
		return;
	pthread_mutex_lock(&sampler.lock);
	sampler.stop = true;
	pthread_cond_signal(&sampler.stop_cv);
	pthread_mutex_unlock(&sampler.lock);
	pthread_join(sampler.thread, NULL);
	pthread_cond_destroy(&sampler.stop_cv);
	sampler.running = false;
}

/* Sampled unless -v: the exact figure costs every BPF program of the
 * machine the statistics for the whole run. */
static bool stats_sampled(void)
{
	return !kd_verbose_level;
}

void cost_wanted(bool on)
{
	stats_off = !on;
}

static void stats_get(struct cost_state *e)
{
	if (!stats_users++) {
		stats_fd = -1;
		stats_err = 0;
		if (stats_off)
			stats_err = EOPNOTSUPP;
		else if (stats_sampled())
			stats_err = sampler_start();
		else if ((stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME)) < 0)
			stats_err = errno;
		if (stats_err && !stats_off)
			kd_info("no cost figures: %s", strerror(stats_err));
	}
	e->stats = true;
	if (sampler.running)
		sampler_list(e, true);
}

static void stats_put(struct cost_state *e)
{
	if (!e->stats)
		return;
	e->stats = false;
	sampler_list(e, false);
	if (--stats_users)
		return;
	sampler_stop();
	if (stats_fd >= 0)
		close(stats_fd);
	stats_fd = -1;
}

/* The share of the time since engine_reset that e's windows covered, and
 * what its programs added up in them (without a window since then, the
 * run's last window, as its share of that time): 1 and nothing when the
 * kernel's statistics are on throughout (-v) or the cost is off. */
double cost_window(struct cost_state *e, uint64_t *runs, uint64_t *run_ns)
{
	double share;
	bool last;

	if (!sampler.running)
		return 1;
	pthread_mutex_lock(&sampler.lock);
	last = !e->win_ns && e->last_win_ns;	/* none since engine_reset */
	share = (double)(last ? e->last_win_ns : e->win_ns) / (now_ns() - e->t0 + 1);
	*runs = last ? e->last_win_runs : e->win_runs;
	*run_ns = last ? e->last_win_run_ns : e->win_run_ns;
	pthread_mutex_unlock(&sampler.lock);
	return share;
}

/* Set the bool `name` of obj's read-only data (before loading): false
 * when obj has none. */
static bool rodata_set(struct bpf_object *obj, const char *name, bool v)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	struct bpf_map *map;
	size_t size;
	char *data;
	int id;

	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (id < 0)
		return false;
	sec = btf__type_by_id(btf, id);
	bpf_object__for_each_map(map, obj) {
		const char *n = bpf_map__name(map);
		size_t len = strlen(n);

		if (!bpf_map__is_internal(map) || len < 7 || strcmp(n + len - 7, ".rodata"))
			continue;
		/* the skeleton writes its .rodata there too, before loading */
		data = (char *)bpf_map__initial_value(map, &size);
		vs = btf_var_secinfos(sec);
		for (int i = 0; data && i < btf_vlen(sec); i++, vs++) {
			const struct btf_type *var = btf__type_by_id(btf, vs->type);

			if (!strcmp(btf__name_by_offset(btf, var->name_off), name) &&
			    vs->size == sizeof(v) && vs->offset + sizeof(v) <= size) {
				memcpy(data + vs->offset, &v, sizeof(v));
				return true;
			}
		}
	}
	return false;
}

int cost_prepare(struct bpf_object *obj)
{
	/* the programs time themselves only when the cost is sampled */
	if (!stats_off && stats_sampled() && !rodata_set(obj, "kd_cost_timed", true)) {
		kd_err("failed to load BPF programs: the object has no kd_cost_timed");
		return -EINVAL;
	}
	return 0;
}

int cost_attach(struct cost_state *e, struct bpf_object *obj, int ncpu)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "kd_cost");

	e->ncpu = ncpu;
	e->buf = map ? calloc(ncpu, sizeof(*e->buf)) : NULL;
	if (map && !e->buf)
		return -ENOMEM;
	e->cost_fd = map ? bpf_map__fd(map) : -1;
	map = bpf_object__find_map_by_name(obj, "kd_cost_window");
	e->window_fd = map ? bpf_map__fd(map) : -1;
	stats_get(e);
	return 0;
}

void cost_reset(struct cost_state *e)
{
	pthread_mutex_lock(&sampler.lock);
	e->t0 = now_ns();
	e->win_ns = e->win_runs = e->win_run_ns = e->w_t = 0;
	pthread_mutex_unlock(&sampler.lock);
}

void cost_detach(struct cost_state *e)
{
	stats_put(e);
	free(e->buf);
	e->buf = NULL;
}

int cost_err(void)
{
	return stats_err;
}
