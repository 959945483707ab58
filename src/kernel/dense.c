// SPDX-License-Identifier: GPL-2.0
/* Small-number groups, the user side (dense.h). */
#include "kernel/dense.h"
#include "kernel/engine.h"
#include "model/hist.h"
#include "lib/util.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/*
 * The outer map's template, typed like the arrays it holds: Linux 6.1 and
 * older compare a map's timer offset with the template's, and that offset
 * is "no BTF" for a map created without types but "none found" for the
 * object's own arrays, which have them, so an untyped template refuses them.
 * Its own types (a u32 key, an opaque struct hist of the size) suffice.
 */
static int template_create(unsigned int n)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	struct btf *btf = btf__new_empty();
	int key, value, fd = -1;

	if (!btf)
		return -1;
	key = btf__add_int(btf, "u32", sizeof(uint32_t), 0);
	value = btf__add_struct(btf, "hist", sizeof(struct hist));
	if (key > 0 && value > 0 && !btf__load_into_kernel(btf)) {
		opts.btf_fd = btf__fd(btf);
		opts.btf_key_type_id = key;
		opts.btf_value_type_id = value;
		fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "dense_inner", sizeof(uint32_t),
				    sizeof(struct hist), n, &opts);
	}
	btf__free(btf);	/* the map holds the kernel's copy */
	return fd;
}

int dense_size(struct dense *d, struct bpf_map *slot, struct bpf_map *a, struct bpf_map *b,
	       struct bpf_map *outer, bool on, bool drain)
{
	/* slot 0 means "none yet": slots are 1..DENSE_SLOTS */
	unsigned int n = DENSE_SLOTS + 1;

	d->inner_fd = -1;
	if (!on)
		return 0;	/* the object's sizes: one entry each */
	bpf_map__set_max_entries(slot, DENSE_VALUES);
	bpf_map__set_max_entries(a, n);
	bpf_map__set_max_entries(b, drain ? n : 1);
	/* the outer map's template, of the size the verifier inlines the
	 * lookups for and the swap checks (libbpf cannot resize its own) */
	d->inner_fd = template_create(n);
	if (d->inner_fd < 0 || bpf_map__set_inner_map_fd(outer, d->inner_fd)) {
		int err = -errno;

		kd_err("failed to create the group arrays: %s", strerror(-err));
		return err;
	}
	return 0;
}

int dense_open(struct dense *d, struct engine *e, struct bpf_map *slot, struct bpf_map *a,
	       struct bpf_map *b, struct bpf_map *outer)
{
	d->slot_fd = bpf_map__fd(slot);
	d->table_fd = bpf_map__fd(outer);
	d->fd[0] = bpf_map__fd(a);
	d->fd[1] = bpf_map__fd(b);
	d->table = 0;
	close(d->inner_fd);	/* the outer map keeps what it needs of it */
	d->inner_fd = -1;
	d->zeros = calloc(e->ncpu, engine_percpu_stride(sizeof(struct hist)));
	return d->zeros ? 0 : -ENOMEM;
}

void dense_close(struct dense *d)
{
	if (d->inner_fd > 0)	/* 0: never sized (a zeroed struct) */
		close(d->inner_fd);
	d->inner_fd = -1;
	free(d->zeros);
	d->zeros = NULL;
}

int dense_read(struct dense *d, struct engine *e, bool take,
	       int (*add)(void *ctx, uint64_t number, const struct hist *h), void *ctx)
{
	uint64_t owner[DENSE_SLOTS + 1] = { 0 };
	bool owned[DENSE_SLOTS + 1] = { false };
	int fd = d->fd[d->table], err = 0;

	if (take) {
		/* the update returns once no program writes to the old table */
		int next = d->fd[!d->table];
		uint32_t zero = 0;

		if (bpf_map_update_elem(d->table_fd, &zero, &next, BPF_ANY))
			return -errno;
		d->table = !d->table;
	}
	/* which number holds each slot, read after the swap: every slot
	 * written in the old table was given before (the numbers are few,
	 * read them all) */
	for (uint32_t v = 0; v < DENSE_VALUES; v++) {
		uint64_t s;

		if (bpf_map_lookup_elem(d->slot_fd, &v, &s))
			return -errno;
		if (s && s <= DENSE_SLOTS) {
			owner[s] = v;
			owned[s] = true;
		}
	}
	for (uint32_t s = 1; !err && s <= DENSE_SLOTS; s++) {
		struct hist h;

		if (!owned[s])
			continue;
		err = engine_sum_hist(e, fd, &s, sizeof(h), &h);
		if (!err && take && h.count)
			err = bpf_map_update_elem(fd, &s, d->zeros, BPF_ANY) ? -errno : 0;
		if (!err && h.count)
			err = add(ctx, owner[s], &h);
	}
	return err;
}
