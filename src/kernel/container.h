/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup v2 names: what a cgroup id is in a container fleet, and the live
 * cgroup sets of --cgroup.
 *
 *   cg_path_parse()     a cgroup v2 path into container id, pod UID and
 *                       systemd unit, for the layouts container runtimes
 *                       and systemd make (pure, unit-tested)
 *   cgroup_label()      a cgroup id's container, pod, namespace or unit, as
 *                       the :container, :pod, :namespace and :unit
 *                       formatters print it; resolved once per id, cached
 *   cgroup_set_new()    --cgroup PATH,GLOB... and --if terms on container,
 *                       pod, namespace or unit: a BPF hash map of the ids of
 *                       the cgroups they select, kept up to date while
 *                       cgroups come and go
 *
 * Both rest on one watcher: a thread with an inotify watch on every
 * directory of the cgroup v2 tree, which records each cgroup's path when
 * it appears (so names outlive the cgroup: a container removed before the
 * read still has its name) and adds it to the sets that select it.
 */
#ifndef KDIST_CONTAINER_H
#define KDIST_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cg_field { CG_CONTAINER, CG_POD, CG_NAMESPACE, CG_UNIT, NR_CG_FIELDS };

#define CG_ID_LEN 64	/* docker, containerd, CRI-O and podman ids: 64 hex */
#define CG_UID_LEN 36	/* a Kubernetes pod UID, with its dashes */

struct cg_ident {
	char container[CG_ID_LEN + 1];	/* "" when none */
	char pod_uid[CG_UID_LEN + 1];
	char unit[256];			/* the innermost systemd unit */
};

/* The identity a cgroup path (relative to the cgroup2 mount, "/a/b")
 * names; fields it does not name stay "". */
void cg_path_parse(const char *path, struct cg_ident *id);
/* "container", "pod", "namespace", "unit", or NULL. */
const char *cg_field_name(enum cg_field f);
/* The field of that name, or -1. */
int cg_field_of(const char *name);

/* Where pod names come from: the kubelet's /var/log/pods/NS_NAME_UID. */
#define CG_PODS_DIR "/var/log/pods"
/* Namespace and name of the pod with UID uid from the directory names of
 * dir: 0, or -ENOENT. */
int cg_pod_lookup(const char *dir, const char *uid, char *ns, size_t nslen, char *name,
		  size_t namelen);

/* Field f of cgroup id as views print it: interned; "-" when the cgroup
 * is not in a container (pod) or under no unit, "?" when its path is not
 * known (it went before kdist saw it).  NULL when out of memory. */
const char *cgroup_label(uint64_t id, enum cg_field f);
/* Start the watcher (once): 0 or -errno, said. */
int cgroups_watch(void);

/* The cgroups to trace, kept in a BPF map (hash, key u64 cgroup id). */
struct cgroup_set;
/* spec: --cgroup's comma-separated paths and globs (NULL: every cgroup),
 * each selecting the cgroups it matches and all below them; *cond: --if,
 * whose terms on container, pod, namespace and unit (== or != a quoted
 * text, a glob for ==) are taken out of it into the set.  *out stays NULL
 * when neither selects anything.  0 or -errno, said. */
int cgroup_set_new(const char *spec, const char **cond, struct cgroup_set **out);
int cgroup_set_fd(const struct cgroup_set *s);
/* The set and its map go (the objects that reuse the map keep it). */
void cgroup_set_free(struct cgroup_set *s);
/* Whether every cgroup made below a member belongs to the set too (no --if
 * terms judge each one): then the kernel adds them at mkdir. */
bool cgroup_set_inherits(const struct cgroup_set *s);

/* The name cache's counters (JSON, -v). */
struct m_names;
void cgroup_stats(struct m_names *st);

#endif
