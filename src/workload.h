/* SPDX-License-Identifier: GPL-2.0 */
/* -c 'CMD' and -- CMD ARGS: the workload is forked at once but held until
 * the probes are attached; it runs in a cgroup of its own so that it and
 * all its children, and nothing else, are traced. */
#ifndef KDIST_WORKLOAD_H
#define KDIST_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;
	char cgroup_dir[256];
	uint64_t cgroup_id;
	bool exited;
	int status;
};

int workload_prepare(struct workload *w, const char *cmd, char **argv);
int workload_start(struct workload *w);
/* true once the workload has exited (non-blocking). */
bool workload_done(struct workload *w);
/* Stop it if still running, wait for it, remove its cgroup. */
void workload_cleanup(struct workload *w);

/* cgroup id (kernfs inode) of a cgroup v2 directory, for --cgroup. */
int cgroup_id_of(const char *path, uint64_t *id);

#endif
