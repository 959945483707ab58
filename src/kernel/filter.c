// SPDX-License-Identifier: GPL-2.0
#include "kernel/filter.h"
#include "kernel/container.h"
#include "kernel/engine.h"
#include "lib/util.h"
#include "model/options.h"

#include <string.h>
#include <bpf/libbpf.h>

static const struct cgroup_set *pending;

void task_filter_set(struct task_filter *f, const struct options *o)
{
	f->tgid = o->pid;
	f->tid = o->tid;
	f->cgroup = o->cgroup_id ? o->cgroup_id : o->cgset ? CGROUP_ANY : 0;
	f->cgroup_set = o->cgset != NULL;
	f->comm_on = o->comm[0] != '\0';
	memcpy(f->comm, o->comm, sizeof(f->comm));
	pending = o->cgset;
}

int task_filter_load(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "cgroup_set");
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "cgroup_set_mkdir");

	if (prog)
		bpf_program__set_autoload(prog, pending && cgroup_set_inherits(pending));
	if (!map)
		return 0;
	if (!pending)
		return bpf_map__set_max_entries(map, 1);
	return bpf_map__reuse_fd(map, cgroup_set_fd(pending));
}

int task_filter_attach(struct engine *e)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(e->obj, "cgroup_set_mkdir");
	int err;

	if (!prog || bpf_program__fd(prog) < 0)
		return 0;
	err = engine_link(e, bpf_program__attach(prog));
	if (err)
		kd_err("failed to attach tp_btf/cgroup_mkdir: %s", strerror(-err));
	return err;
}
