/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Groups that are one small number (a syscall, an IRQ, a softirq vector,
 * a CPU): kept in per-CPU arrays indexed by a slot, instead of a per-CPU
 * hash keyed by the number.  The array lookups are inlined by the
 * verifier; a hash lookup is a call that hashes the key and walks a
 * bucket (docs/pair.md, "Small-number groups").  The BPF side is
 * dense.bpf.h; this is the user side, shared by the engines that use it.
 */
#ifndef KDIST_DENSE_H
#define KDIST_DENSE_H

/* Numbers 0..DENSE_VALUES-1 get a slot, at most DENSE_SLOTS of them, in
 * the order they first come; the others, and numbers beyond the slots,
 * go to the group hash as before.  A slot is a histogram per CPU (4 KiB),
 * allocated with the map: DENSE_SLOTS of them per CPU and table. */
#define DENSE_VALUES 1024
#define DENSE_SLOTS 64
#define DENSE_NONE 0xffffffffu	/* a number that found no slot free */

#ifndef __BPF__
#include <stdbool.h>
#include <stdint.h>

struct engine;
struct hist;
struct bpf_map;

struct dense {
	int slot_fd;		/* dense_slot: number -> slot */
	int table_fd;		/* dense_table: the table programs write to */
	int fd[2];		/* dense_a, dense_b */
	int table;		/* which of them is in dense_table */
	void *zeros;		/* one zeroed per-CPU value of a slot */
	int inner_fd;		/* dense_table's template, until the load */
};

/* Size the maps of an object before it loads: on, the numbers and slots
 * above, with a second table when groups are taken out at every read
 * (drain); off, one entry each.  0 or -errno. */
int dense_size(struct dense *d, struct bpf_map *slot, struct bpf_map *a, struct bpf_map *b,
	       struct bpf_map *outer, bool on, bool drain);

/* After the load.  0 or -errno. */
int dense_open(struct dense *d, struct engine *e, struct bpf_map *slot, struct bpf_map *a,
	       struct bpf_map *b, struct bpf_map *outer);
void dense_close(struct dense *d);

/* Every slot's histogram, summed over CPUs, handed to add(ctx, number, h)
 * when it counted something.  take: first put the other table in the
 * programs' place, and zero the slots read from the old one. */
int dense_read(struct dense *d, struct engine *e, bool take,
	       int (*add)(void *ctx, uint64_t number, const struct hist *h), void *ctx);
#endif

#endif
