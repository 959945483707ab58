/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF session layer: what every measuring command (pair and the
 * recipes, func, profile, offcpu, wakeup) does with its BPF object on the
 * user side, written once.
 *
 *   engine_opened()/engine_load()  open and load a skeleton, one error idiom
 *   engine_link()                  keep a link; engine_close() detaches all
 *                                  of them, in parallel for large sets
 *   engine_sum_hist/_u64()         the per-CPU values of one key, summed
 *   engine_read()                  what the session knows about itself, into
 *                                  each measurement: the named drop counters
 *                                  (the `drops` map of common.bpf.h), the
 *                                  program runs the kernel skipped
 *                                  (skipped_by_kernel) and the programs' own
 *                                  cost (run count and run time)
 *
 * A command embeds one struct engine per BPF object and calls engine_close()
 * before destroying its skeleton.  The BPF side is common.bpf.h.
 */
#ifndef KDIST_ENGINE_H
#define KDIST_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_object;
struct bpf_object_skeleton;
struct bpf_link;
struct hist;
struct measurement;

struct engine_links {
	struct bpf_link **v;
	size_t n, cap;
};

struct engine {
	struct bpf_object *obj;
	int ncpu;
	void *buf;			/* one per-CPU value of the largest map */
	int drops_fd;
	const char *const *drop_names;	/* per entry of `drops` */
	int ndrops;
	struct engine_links links;
	bool stats;			/* holds a reference on the run-time stats */
	/* program counters when the measurement started (engine_reset) */
	uint64_t misses0, runs0, run_ns0;
};

/* 0 when skel (the result of NAME__open()) is there, else -errno after
 * saying why. */
int engine_opened(const void *skel);
/* Load the opened skeleton s (skel->skeleton) and get ready to read it:
 * drop_names[0..ndrops) name the entries of its `drops` map.  Enables BPF
 * run-time statistics for as long as an engine is open.  0 or -errno, said. */
int engine_load(struct engine *e, struct bpf_object_skeleton *s,
		const char *const *drop_names, int ndrops);
/* The measurement starts now: skipped runs and cost are counted from here
 * (the drop counters are the command's to reset). */
void engine_reset(struct engine *e);
/* Detach every link, free what engine_load took; the skeleton stays. */
void engine_close(struct engine *e);

/* Keep link l (NULL: failed, errno set): 0, or -errno (l destroyed). */
int engine_link(struct engine *e, struct bpf_link *l);
int engine_links_add(struct engine_links *l, struct bpf_link *link);
/* Destroy the links from index `from` on, in parallel when there are many. */
void engine_links_truncate(struct engine_links *l, size_t from);
void engine_links_destroy(struct engine_links *l);

/* The per-CPU values of key in map fd, in e->buf: value_size bytes each,
 * 8-byte aligned as the kernel copies them.  NULL with errno on failure. */
const void *engine_percpu(struct engine *e, int fd, const void *key);
size_t engine_percpu_stride(size_t value_size);
/* Sum of the struct hist at the start of every CPU's value. */
int engine_sum_hist(struct engine *e, int fd, const void *key, size_t value_size,
		    struct hist *sum);
int engine_sum_u64(struct engine *e, int fd, const void *key, uint64_t *sum);

/* Add the drop counters, skipped_by_kernel and the cost to m. 0 or -errno. */
int engine_read(struct engine *e, struct measurement *m);

#endif
