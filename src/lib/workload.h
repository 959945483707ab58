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

/* 0 when -- CMD ARGS can start: argv[0] is an executable file, as given
 * or in $PATH; else -errno after "bad workload ...". */
int workload_check(char **argv);
int workload_prepare(struct workload *w, const char *cmd, char **argv);
int workload_start(struct workload *w);
/* true once the workload has exited (non-blocking). */
bool workload_done(struct workload *w);
/* Stop it if still running, wait for it, remove its cgroup. */
void workload_cleanup(struct workload *w);
/* After it ended on its own: 0 when it succeeded, else kdist's exit status
 * (its own, or 128 + the signal that killed it) after saying which. */
int workload_status(const struct workload *w);

/* cgroup id (kernfs inode) of a cgroup v2 directory, for --cgroup:
 * -ENOTDIR when path is not a directory of the cgroup v2 file system. */
int cgroup_id_of(const char *path, uint64_t *id);

#endif
