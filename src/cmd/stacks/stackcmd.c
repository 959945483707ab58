// SPDX-License-Identifier: GPL-2.0
/* The stack commands' shared user side: see stackcmd.h. */
#include "cmd/stacks/stackcmd.h"
#include "kernel/container.h"
#include "kernel/filter.h"
#include "kernel/keys.h"
#include "kernel/spec.h"
#include "lib/util.h"
#include "cmd/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static const char *const field_names[NR_STACK_FIELDS] = {
	[SF_COMM] = "comm", [SF_PID] = "pid", [SF_TID] = "tid",
	[SF_KSTACK] = "kstack", [SF_USTACK] = "ustack",
	[SF_WAKER_COMM] = "waker_comm", [SF_WAKER_PID] = "waker_pid",
	[SF_WAKER_TID] = "waker_tid", [SF_WAKER_KSTACK] = "waker_kstack",
	[SF_WAKER_USTACK] = "waker_ustack", [SF_CGROUP] = "cgroup",
};

static const char *const drop_names[NR_SDROPS] = {
	[SDROP_COLLISION] = "stack_collision",
	[SDROP_MAP_FULL] = "stack_map_full",
	[SDROP_GROUP_FULL] = "group_table_full",
	[SDROP_STORAGE] = "storage_failed",
	[SDROP_SWITCH_IN_UNSEEN] = "switch_in_unseen",
};

int stack_cmd_init(struct stack_cmd *sc, const struct options *o, const char *dflt,
		   unsigned int allowed, size_t value_size)
{
	char names[M_MAX_BY][64], list[256] = "";
	int n, err;

	n = name_list_parse(o->by ? o->by : dflt, names, M_MAX_BY, "--by");
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int f = 0, cg = cg_field_of(names[i]);

		while (f < NR_STACK_FIELDS && strcmp(names[i], field_names[f]))
			f++;
		if (cg >= 0)
			f = SF_CGROUP;
		if (f == NR_STACK_FIELDS || !(allowed & SF_BIT(f))) {
			for (f = 0; f < NR_STACK_FIELDS; f++)
				if (allowed & SF_BIT(f))
					snprintf(list + strlen(list), sizeof(list) - strlen(list),
						 "%s%s", list[0] ? ", " : "", f == SF_CGROUP ?
						 "cgroup, container, pod, namespace, unit" :
						 field_names[f]);
			kd_err("bad --by '%s': expected %s", names[i], list);
			return -EINVAL;
		}
		/* the cgroup's id, or its container, pod... named from it */
		sc->fmt[i] = cg >= 0 ? FMT_CONTAINER + cg : FMT_AUTO;
		if (cg >= 0 && (err = key_prepare(sc->fmt[i])))
			return err;
		sc->by[i] = f;
		sc->fields |= SF_BIT(f);
		snprintf(sc->header.by[i], sizeof(sc->header.by[i]), "%s", names[i]);
	}
	sc->nby = sc->header.nby = n;
	sc->value_size = value_size;
	return 0;
}

void stack_cmd_cfg(const struct stack_cmd *sc, const struct options *o, struct stack_cfg *c)
{
	c->fields = sc->fields;
	task_filter_set(&c->filter, o);
}

int stack_cmd_start(struct stack_cmd *sc, struct bpf_object_skeleton *s,
		    const struct bpf_map *groups)
{
	bool ustacks = sc->fields & (SF_BIT(SF_USTACK) | SF_BIT(SF_WAKER_USTACK));
	struct bpf_map *notes = bpf_object__find_map_by_name(*s->obj, "proc_notes");
	size_t offs[2];
	int n = 0, err;

	/* user frames are named from the maps of processes told while they
	 * run (procnote.bpf.h, by who_current()): the maps sized only then */
	if (ustacks) {
		bpf_map__set_max_entries(bpf_object__find_map_by_name(*s->obj, "procs_told"),
					 PROCS_TOLD);
		bpf_map__set_max_entries(notes, PROC_NOTES_BYTES);
	}
	stack_maps_size(*s->obj, STACK_ENTRIES);
	err = engine_load(&sc->eng, s, drop_names, NR_SDROPS);
	if (err)
		return err;
	sc->groups_fd = bpf_map__fd(groups);
	sc->syms = stack_syms_new(*s->obj);
	if (!sc->syms)
		return -ENOMEM;
	/* /proc/kallsyms read now, before anything samples: read while
	 * profile samples at its maximum rate, it took 7 s instead of 60 ms */
	if (sc->fields & (SF_BIT(SF_KSTACK) | SF_BIT(SF_WAKER_KSTACK)))
		stack_syms_load_kernel(sc->syms);
	/* a told address space wakes the maps' reader at once: a short-lived
	 * process is read while it lives */
	if (ustacks) {
		err = stack_syms_follow(sc->syms, bpf_map__fd(notes));
		if (err)
			return err;
	}
	if (sc->fields & SF_BIT(SF_USTACK))
		offs[n++] = offsetof(struct stack_key, who.pid);
	if (sc->fields & SF_BIT(SF_WAKER_USTACK))
		offs[n++] = offsetof(struct stack_key, waker.pid);
	return n ? stack_syms_watch(sc->syms, sc->groups_fd, sizeof(struct stack_key), offs, n) :
		   0;
}

static struct m_value field_value(struct stack_cmd *sc, int i, const struct stack_key *k)
{
	enum stack_field f = sc->by[i];
	const struct stack_who *w = f >= SF_WAKER_COMM && f != SF_CGROUP ? &k->waker : &k->who;

	if (f == SF_CGROUP)
		return key_normalize(mv_num(k->who.cgroup), sc->fmt[i]);
	switch (f >= SF_WAKER_COMM ? f - SF_WAKER_COMM : f) {
	case SF_COMM:
		/* a block without sched_waking: preempted, or traced mid-sleep */
		if (!w->comm[0] && f == SF_WAKER_COMM)
			return mv_text(m_intern("[no waker]", 16));
		return mv_text(m_intern(w->comm, sizeof(w->comm)));
	case SF_PID:
		return mv_num(w->pid);
	case SF_TID:
		return mv_num(w->tid);
	case SF_KSTACK:
		return mv_stack(stack_syms_stack(sc->syms, w->kstack, false, 0));
	default:
		return mv_stack(stack_syms_stack(sc->syms, w->ustack, true, w->pid));
	}
}

/* The per-CPU values of one key (as the kernel copies them, 8-byte
 * aligned), summed into a histogram. */
static void sum_value(struct stack_cmd *sc, const void *percpu, struct hist *sum)
{
	size_t stride = engine_percpu_stride(sc->value_size);
	uint64_t n = 0;

	memset(sum, 0, sizeof(*sum));
	if (sc->value_size != sizeof(n)) {
		for (int c = 0; c < sc->eng.ncpu; c++)
			hist_merge(sum, (const struct hist *)((const char *)percpu + c * stride));
		return;
	}
	for (int c = 0; c < sc->eng.ncpu; c++)
		n += ((const uint64_t *)percpu)[c];
	/* n samples of value 1 */
	sum->count = sum->sum = sum->sumsq_lo = n;
	sum->slots[hist_index(1)] = n;
	if (n)
		sum->min = sum->max = 1;
}

/* Add h to the group of BPF key k; *truncated counts what was cut. */
static int add_group(struct stack_cmd *sc, struct measurement *m, const struct stack_key *k,
		     const struct hist *h, hist_u64 *truncated)
{
	struct m_value key[M_MAX_BY];
	struct m_group *g;
	bool trunc = false;

	for (int i = 0; i < sc->nby; i++) {
		key[i] = field_value(sc, i, k);
		if (key[i].type != MV_NUM && !key[i].text)
			return -ENOMEM;
		trunc |= key[i].type == MV_STACK && key[i].stack->truncated;
	}
	/* raw stacks that symbolize alike are one group */
	g = measurement_group(m, key);
	if (!g || m_hist_add(&g->h, h))
		return -ENOMEM;
	if (trunc)
		*truncated += h->count;
	return 0;
}

/* Groups read READ_CHUNK keys at a time, with their values, one syscall a
 * chunk instead of two a key: while profile samples at its maximum rate,
 * every syscall waits behind the samples of its CPU.  (Batch operations on
 * hash maps came in Linux 5.6, before the ring buffer of 5.8 that every
 * command's spill ring needs.) */
#define READ_CHUNK 256

int stack_cmd_read(struct stack_cmd *sc, struct measurement *m)
{
	size_t vsize = engine_percpu_stride(sc->value_size) * sc->eng.ncpu, chunk = READ_CHUNK;
	struct stack_key *keys = NULL, k;
	void *values = NULL;
	__u32 in, out;
	hist_u64 truncated = 0;
	bool first = true, done = false;
	int err;

	measurement_copy_header(m, &sc->header);
	err = engine_read(&sc->eng, m);
	if (err)
		return err;
	keys = malloc(chunk * sizeof(*keys));
	values = malloc(chunk * vsize);
	if (!keys || !values) {
		err = -ENOMEM;
		goto out;
	}
	while (!done) {
		__u32 count = chunk;

		err = bpf_map_lookup_batch(sc->groups_fd, first ? NULL : &in, &out, keys, values,
					   &count, NULL);
		if (err && errno == ENOSPC && !count) {
			/* one hash bucket holds more keys than a chunk */
			void *nk = realloc(keys, 2 * chunk * sizeof(*keys)), *nv;

			if (nk)
				keys = nk;
			nv = nk ? realloc(values, 2 * chunk * vsize) : NULL;
			if (!nv) {
				err = -ENOMEM;
				goto out;
			}
			values = nv;
			chunk *= 2;
			continue;
		}
		if (err && errno != ENOENT) {
			err = -errno;
			kd_err("failed to read the group table: %s", strerror(errno));
			goto out;
		}
		done = err;	/* ENOENT: this chunk was the last */
		err = 0;
		first = false;
		in = out;
		for (__u32 i = 0; i < count; i++) {
			struct hist h;

			/* Ctrl-C or SIGTERM during a read under the samples (-i
			 * at a high rate): the run ends after this read, so the
			 * sampling ends now and the rest of the read runs at
			 * full speed */
			if (!(i % 8) && kdist_end_pending())
				stack_cmd_stop(sc);
			sum_value(sc, (const char *)values + i * vsize, &h);
			if (!h.count)
				continue;
			err = add_group(sc, m, &keys[i], &h, &truncated);
			if (err)
				goto out;
		}
	}
	for (const struct engine_spilled *sp = NULL;
	     (sp = engine_spilled_next(&sc->eng, sp, &k, sizeof(k)));) {
		err = add_group(sc, m, &k, sp->h, &truncated);
		if (err)
			goto out;
	}
	/* not lost, but cut at STACK_DEPTH frames: counted with the losses so
	 * that no view hides it */
	measurement_add_drop(m, "stack_truncated", truncated);
out:
	free(keys);
	free(values);
	return err;
}

void stack_cmd_stop(struct stack_cmd *sc)
{
	/* the processes still alive are read when their stacks are named */
	stack_syms_unwatch(sc->syms);
	engine_links_truncate(&sc->eng.links, 0);
}

void stack_cmd_cleanup(struct stack_cmd *sc)
{
	engine_close(&sc->eng);
	stack_syms_free(sc->syms);
	measurement_clear(&sc->header);
	sc->syms = NULL;
}
