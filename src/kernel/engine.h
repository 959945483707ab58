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
 *   engine_spill_*()               the events whose group the kernel could
 *                                  not create at once (spill.h), kept by key
 *                                  for the command to add to its groups
 *
 * A command embeds one struct engine per BPF object and calls engine_close()
 * before destroying its skeleton.  The BPF side is common.bpf.h.
 */
#ifndef KDIST_ENGINE_H
#define KDIST_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/owncost.h"

struct bpf_object;
struct bpf_object_skeleton;
struct bpf_link;
struct hist;
struct ring_buffer;
struct measurement;
struct kd_cost;

struct engine_links {
	struct bpf_link **v;
	size_t n, cap;
	struct progress *progress;	/* counts the links destroyed, or NULL */
};

/* The events of one group key that came through the spill ring. */
struct engine_spilled {
	struct engine_spilled *next, *chain;
	struct hist *h;			/* their values */
	uint64_t self, total;		/* func: self time, time outside recursion */
	size_t key_size;
	unsigned char key[];
};

#define ENGINE_SPILL_BUCKETS 1024

struct engine {
	struct bpf_object *obj;
	int ncpu;
	void *buf;			/* one per-CPU value of the largest map */
	int drops_fd;
	const char *const *drop_names;	/* per entry of `drops` */
	int ndrops;
	struct engine_links links;
	/* descriptors of links and programs made without libbpf objects
	 * (func's fentry clones): engine_fd() */
	int *link_fds, *prog_fds;
	size_t nlink_fds, nprog_fds;
	/* program counters when the measurement started (engine_reset) */
	uint64_t misses0, runs0, run_ns0;
	struct cost_state cost;		/* kdist's own cost: owncost.c's alone */
	struct ring_buffer *spill_rb;	/* NULL: the object has no spill ring */
	int spill_err;			/* a record could not be kept: -errno */
	uint64_t nspilled;		/* events taken, for -v */
	struct engine_spilled *spilled, *spill_hash[ENGINE_SPILL_BUCKETS];
	struct engine *next_open;	/* the engines with a spill ring */
};

/* 0 when skel (the result of NAME__open()) is there, else -errno after
 * saying why. */
/* The open options of every BPF object: the kernel's types for CO-RE from
 * --btf FILE, or where the kernel has no /sys/kernel/btf/vmlinux from the
 * first file of the search path (docs/kernels.md).  When there is none it
 * says so in one line and engine_opened() fails, before anything loads. */
/* --btf FILE: a regular file (a FIFO would block the open, with Ctrl-C
 * held off) that libbpf reads as BTF, raw or in an ELF file.  0, or
 * -errno after one line naming it; checked with the options, before
 * anything is loaded. */
int engine_btf_check(const char *path);
const struct bpf_object_open_opts *engine_open_opts(void);
int engine_opened(const void *skel);
/* Load the opened skeleton s (skel->skeleton) and get ready to read it:
 * drop_names[0..ndrops) name the entries of its `drops` map.  Measures its
 * cost (owncost.h) for as long as it is open.  0 or -errno, said. */
int engine_load(struct engine *e, struct bpf_object_skeleton *s,
		const char *const *drop_names, int ndrops);
/* The measurement starts now: skipped runs, cost and spilled events are
 * counted from here (the command's drop counters are the command's to
 * reset). */
void engine_reset(struct engine *e);
/* Detach every link, free what engine_load took; the skeleton stays. */
void engine_close(struct engine *e);

/* Keep a link's (prog false) or a program's descriptor made outside the
 * skeleton: closed by engine_close(), links first; the programs' skipped
 * runs and cost are counted with the skeleton's.  0, or -errno (fd closed). */
int engine_fd(struct engine *e, int fd, bool prog);
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

/* Take what waits in the spill ring (engine_read does it first), then add
 * the drop counters, group_memory_failed, skipped_by_kernel and the cost to
 * m.  0 or -errno. */
int engine_read(struct engine *e, struct measurement *m);

/* An fd that polls readable when spilled events wait in the ring of any
 * open engine (-1: none can come); the run loops poll it and call
 * engine_spill_drain() so that no ring fills between reads. */
int engine_spill_fd(void);
/* Take the spilled events that wait, of every open engine, into its
 * `spilled`.  0 or -errno, said. */
int engine_spill_drain(void);
/* The spilled group after sp (NULL: the first), its key copied to key
 * (key_size bytes, the command's group key); NULL after the last. */
const struct engine_spilled *engine_spilled_next(const struct engine *e,
						 const struct engine_spilled *sp, void *key,
						 size_t key_size);
/* Forget the spilled events taken so far: the command keeps them in its
 * own totals from now on. */
void engine_spilled_clear(struct engine *e);

#endif
