// SPDX-License-Identifier: GPL-2.0
/* Cgroup v2 names and live cgroup sets: see container.h. */
#include "kernel/container.h"
#include "kernel/filter.h"
#include "model/measure.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

static const char *const field_names[NR_CG_FIELDS] = {
	[CG_CONTAINER] = "container", [CG_POD] = "pod", [CG_NAMESPACE] = "namespace",
	[CG_UNIT] = "unit",
};

const char *cg_field_name(enum cg_field f)
{
	return f < NR_CG_FIELDS ? field_names[f] : NULL;
}

int cg_field_of(const char *name)
{
	for (int i = 0; i < NR_CG_FIELDS; i++)
		if (!strcmp(name, field_names[i]))
			return i;
	return -1;
}

/* ---- paths into identities ---- */

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* c (len n) is PREFIX<64 hex>SUFFIX for one of the runtimes' scope and
 * cgroupfs names, or a bare id (cgroupfs drivers: /docker/<id>,
 * /kubepods/burstable/pod<uid>/<id>).  Copies the id. */
static bool container_component(const char *c, size_t n, char *id)
{
	/* conmon, the monitor beside a CRI-O or podman container, has
	 * crio-conmon-<id>.scope and libpod-conmon-<id>.scope: not these */
	static const char *const prefixes[] = { "", "docker-", "cri-containerd-", "crio-", "libpod-" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t p = strlen(prefixes[i]), rest;

		if (n < p + CG_ID_LEN || strncmp(c, prefixes[i], p))
			continue;
		rest = n - p - CG_ID_LEN;
		if (rest && (rest != 6 || strncmp(c + p + CG_ID_LEN, ".scope", 6)))
			continue;
		if (!all_hex(c + p, CG_ID_LEN))
			continue;
		memcpy(id, c + p, CG_ID_LEN);
		id[CG_ID_LEN] = '\0';
		return true;
	}
	return false;
}

/* pod<uid> (cgroupfs) or kubepods[-QOS]-pod<uid with _ for ->.slice
 * (systemd driver: a dash in a slice name means nesting; kind's nodes say
 * kubelet-kubepods-...). */
static bool pod_component(const char *c, size_t n, char *uid)
{
	const char *p = NULL;
	size_t tail = 4 + CG_UID_LEN + 6;	/* -pod<uid>.slice */

	if (n == 3 + CG_UID_LEN && !strncmp(c, "pod", 3))
		p = c + 3;
	else if (n > tail && memmem(c, n - tail, "kubepods", 8) &&
		 !strncmp(c + n - tail, "-pod", 4) && !strncmp(c + n - 6, ".slice", 6))
		p = c + n - 6 - CG_UID_LEN;
	if (!p)
		return false;
	for (int i = 0; i < CG_UID_LEN; i++) {
		char ch = p[i] == '_' ? '-' : p[i];
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? ch != '-' : !isxdigit((unsigned char)ch))
			return false;
		uid[i] = ch;
	}
	uid[CG_UID_LEN] = '\0';
	return true;
}

static bool unit_component(const char *c, size_t n)
{
	static const char *const suffixes[] = { ".service", ".scope", ".slice", ".socket",
						".mount", ".swap" };

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t s = strlen(suffixes[i]);

		if (n > s && !strncmp(c + n - s, suffixes[i], s))
			return true;
	}
	return false;
}

/* The innermost component of each kind wins: a container's own cgroups
 * below its scope are still that container, a container in a container
 * is the inner one. */
void cg_path_parse(const char *path, struct cg_ident *id)
{
	memset(id, 0, sizeof(*id));
	for (const char *c = path; *c;) {
		size_t n;

		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (!n)
			break;
		if (!container_component(c, n, id->container))
			pod_component(c, n, id->pod_uid);
		if (unit_component(c, n) && n < sizeof(id->unit))
			snprintf(id->unit, sizeof(id->unit), "%.*s", (int)n, c);
		c += n;
	}
}

int cg_pod_lookup(const char *dir, const char *uid, char *ns, size_t nslen, char *name,
		  size_t namelen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = -ENOENT;

	if (!d)
		return -ENOENT;
	/* NAMESPACE_NAME_UID: neither a namespace nor a pod name (DNS names)
	 * holds an underscore */
	while ((e = readdir(d))) {
		const char *a = strchr(e->d_name, '_'), *b = a ? strchr(a + 1, '_') : NULL;

		if (!b || strcmp(b + 1, uid) || a == e->d_name || b == a + 1)
			continue;
		snprintf(ns, nslen, "%.*s", (int)(a - e->d_name), e->d_name);
		snprintf(name, namelen, "%.*s", (int)(b - a - 1), a + 1);
		err = 0;
		break;
	}
	closedir(d);
	return err;
}

/* Field f of the cgroup at path (NULL: not known) into buf. */
static const char *label_text(const char *path, enum cg_field f, char *buf, size_t len)
{
	struct cg_ident id;
	char ns[256], name[256];

	if (!path)
		return "?";
	cg_path_parse(path, &id);
	switch (f) {
	case CG_CONTAINER:
		return id.container[0] ? snprintf(buf, len, "%s", id.container), buf : "-";
	case CG_UNIT:
		return id.unit[0] ? snprintf(buf, len, "%s", id.unit), buf : "-";
	default:
		if (!id.pod_uid[0])
			return "-";
		if (cg_pod_lookup(CG_PODS_DIR, id.pod_uid, ns, sizeof(ns), name, sizeof(name)))
			/* no kubelet log directory (yet): the UID names the pod */
			return f == CG_POD ? snprintf(buf, len, "%s", id.pod_uid), buf : "-";
		snprintf(buf, len, "%s", f == CG_POD ? name : ns);
		return buf;
	}
}

/* ---- the name cache: cgroup id -> path ---- */

/* Bound of the cache: a node has a few thousand cgroups at most; the
 * paths of removed ones are kept (for names read after they went) and
 * are the first to go when it is full. */
#define CACHE_MAX 65536
#define CACHE_BUCKETS 8192

struct cg_entry {
	struct cg_entry *next;
	uint64_t id;
	char *path;		/* relative to the mount; NULL: not known */
	bool gone;
	const char *label[NR_CG_FIELDS];	/* interned, made at first use */
};

struct cgroup_set {
	int fd;
	int npat;
	char **pat;		/* NULL: every cgroup */
	int npred;
	struct {
		enum cg_field f;
		bool neg;
		char text[256];
	} pred[8];
	bool full_said;
	char *cond;		/* --if without the terms taken */
	struct cgroup_set *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cg_entry *cache[CACHE_BUCKETS];
static struct m_names stats = { .on = true };
static struct cgroup_set *sets;
static char mnt[256];
static int mnt_fd = -1, ino_fd = -1;
static struct {
	char *path;
	uint64_t id;
} *wds;
static int nwds;
static bool watching;

static struct cg_entry **bucket(uint64_t id)
{
	return &cache[hash_mix(id) % CACHE_BUCKETS];
}

static struct cg_entry *cache_find(uint64_t id)
{
	for (struct cg_entry *e = *bucket(id); e; e = e->next)
		if (e->id == id)
			return e;
	return NULL;
}

static void cache_evict_gone(void)
{
	for (int i = 0; i < CACHE_BUCKETS; i++) {
		for (struct cg_entry **p = &cache[i]; *p;) {
			struct cg_entry *e = *p;

			if (!e->gone) {
				p = &e->next;
				continue;
			}
			*p = e->next;
			free(e->path);
			free(e);
			stats.cached--;
			stats.evicted++;
		}
	}
}

/* The entry of id with path (NULL: not known), made or updated; NULL when
 * the cache is full of live cgroups or out of memory. */
static struct cg_entry *cache_put(uint64_t id, const char *path)
{
	struct cg_entry *e = cache_find(id);

	if (!e) {
		if (stats.cached >= CACHE_MAX)
			cache_evict_gone();
		if (stats.cached >= CACHE_MAX || !(e = calloc(1, sizeof(*e))))
			return NULL;
		e->id = id;
		e->next = *bucket(id);
		*bucket(id) = e;
		stats.cached++;
	}
	if (path && (!e->path || strcmp(e->path, path))) {
		free(e->path);
		e->path = strdup(path);
		memset(e->label, 0, sizeof(e->label));
	}
	e->gone = false;
	return e;
}

/* The cgroup v2 mount that shows the whole hierarchy: its root is the
 * root cgroup (id 1).  In a container, the runtime's own mount shows only
 * the container's cgroup namespace; a host's /sys/fs/cgroup mounted
 * beside it (the DaemonSet of docs/serve.md) shows all. */
static int find_mount(void)
{
	FILE *f;
	struct mntent *e;
	struct stat st;
	int err = 0;

	if (mnt_fd >= 0)
		return 0;
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return -errno;
	mnt[0] = '\0';
	while ((e = getmntent(f))) {
		if (strcmp(e->mnt_type, "cgroup2") || strlen(e->mnt_dir) >= sizeof(mnt))
			continue;
		if (!mnt[0] || (!stat(e->mnt_dir, &st) && st.st_ino == 1))
			snprintf(mnt, sizeof(mnt), "%s", e->mnt_dir);
		if (!stat(e->mnt_dir, &st) && st.st_ino == 1)
			break;
	}
	endmntent(f);
	if (!mnt[0]) {
		kd_err("failed to find the cgroup v2 mount: none in /proc/self/mounts");
		return -ENOENT;
	}
	if (stat(mnt, &st) || st.st_ino != 1)
		kd_info("%s shows part of the cgroup v2 hierarchy (a cgroup namespace): "
			"cgroups outside it have no name", mnt);
	mnt_fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt_fd < 0) {
		err = -errno;
		kd_err("failed to open %s: %s", mnt, strerror(errno));
	}
	return err;
}

/* A cgroup the watcher did not see (it started later, or the cache had no
 * room): its path from its id, a kernfs file handle. */
static char *path_by_handle(uint64_t id)
{
	union {
		struct file_handle h;
		char buf[sizeof(struct file_handle) + sizeof(uint64_t)];
	} fh = { .h = { .handle_bytes = sizeof(uint64_t), .handle_type = 0xfe /* FILEID_KERNFS */ } };
	char link[64], full[4096];
	size_t ml = strlen(mnt);
	ssize_t n;
	int fd;

	memcpy(fh.h.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(mnt_fd, &fh.h, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;	/* ESTALE: removed */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, full, sizeof(full) - 1);
	close(fd);
	if (n < 0 || (size_t)n < ml || strncmp(full, mnt, ml))
		return NULL;
	full[n] = '\0';
	return strdup(full[ml] ? full + ml : "/");
}

const char *cgroup_label(uint64_t id, enum cg_field f)
{
	struct cg_entry *e;
	const char *label;
	char buf[256];

	pthread_mutex_lock(&lock);
	stats.lookups++;
	e = cache_find(id);
	if (!e) {
		char *path = mnt_fd >= 0 ? path_by_handle(id) : NULL;

		stats.misses++;
		stats.unknown += !path;
		e = cache_put(id, path);
		if (e && !path)
			e->gone = true;	/* ids are not reused: "?" stays right */
		if (!e) {
			label = m_intern(label_text(path, f, buf, sizeof(buf)), sizeof(buf));
			free(path);
			pthread_mutex_unlock(&lock);
			return label;
		}
		free(path);
	}
	if (!e->label[f])
		e->label[f] = m_intern(label_text(e->path, f, buf, sizeof(buf)), sizeof(buf));
	label = e->label[f];
	pthread_mutex_unlock(&lock);
	return label;
}

void cgroup_stats(struct m_names *st)
{
	pthread_mutex_lock(&lock);
	*st = stats;
	pthread_mutex_unlock(&lock);
}

/* ---- sets ---- */

/* Whether pattern p matches path or a cgroup above it. */
static bool pattern_selects(const char *p, const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (!strcmp(p, "/") || n >= sizeof(buf))
		return !strcmp(p, "/");
	memcpy(buf, path, n + 1);
	for (;;) {
		if (!fnmatch(p, buf, FNM_PATHNAME))
			return true;
		while (n && buf[n] != '/')
			n--;
		if (!n)
			return false;
		buf[n] = '\0';
	}
}

static bool set_selects(const struct cgroup_set *s, const char *path)
{
	bool any = !s->pat;
	char buf[256];

	for (int i = 0; !any && i < s->npat; i++)
		any = pattern_selects(s->pat[i], path);
	for (int i = 0; any && i < s->npred; i++) {
		const char *v = label_text(path, s->pred[i].f, buf, sizeof(buf));

		any = !fnmatch(s->pred[i].text, v, 0) != s->pred[i].neg;
	}
	return any;
}

static void set_update(struct cgroup_set *s, uint64_t id, const char *path)
{
	unsigned char one = 1;

	if (path && set_selects(s, path)) {
		if (bpf_map_update_elem(s->fd, &id, &one, BPF_ANY) && !s->full_said) {
			s->full_said = true;
			kd_err("failed to trace cgroup %s: %s (at most %d cgroups)", path,
			       strerror(errno), CGROUP_SET_MAX);
		} else {
			kd_info("cgroup set: + %s (id %llu)", path, (unsigned long long)id);
		}
	} else {
		bpf_map_delete_elem(s->fd, &id);
	}
}

/* ---- the watcher ---- */

static int wd_set(int wd, const char *path, uint64_t id)
{
	if (wd >= nwds) {
		int n = wd + 64;
		void *nw = realloc(wds, n * sizeof(*wds));

		if (!nw)
			return -ENOMEM;
		wds = nw;
		memset(wds + nwds, 0, (n - nwds) * sizeof(*wds));
		nwds = n;
	}
	free(wds[wd].path);
	wds[wd].path = strdup(path);
	wds[wd].id = id;
	return wds[wd].path ? 0 : -ENOMEM;
}

/* A cgroup seen (at start, or created): watched, recorded, added to the
 * sets that select it; then the cgroups below it, which may have come
 * before the watch did.  Called with the lock held. */
static void cgroup_seen(const char *path)
{
	char full[4096], sub[4096];
	struct stat st;
	struct dirent *d;
	DIR *dir;
	int wd;

	snprintf(full, sizeof(full), "%s%s", mnt, strcmp(path, "/") ? path : "");
	wd = inotify_add_watch(ino_fd, full, IN_CREATE | IN_DELETE_SELF | IN_ONLYDIR);
	if (wd < 0 || stat(full, &st))
		return;	/* gone already */
	/* on 64-bit kernels the cgroup id is the kernfs inode number */
	if (wd_set(wd, path, st.st_ino))
		return;
	cache_put(st.st_ino, path);
	for (struct cgroup_set *s = sets; s; s = s->next)
		set_update(s, st.st_ino, path);
	dir = opendir(full);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", strcmp(path, "/") ? path : "", d->d_name);
		cgroup_seen(sub);
	}
	closedir(dir);
}

static void cgroup_gone(int wd)
{
	struct cg_entry *e;

	if (wd < 0 || wd >= nwds || !wds[wd].path)
		return;
	e = cache_find(wds[wd].id);
	if (e)
		e->gone = true;
	for (struct cgroup_set *s = sets; s; s = s->next)
		bpf_map_delete_elem(s->fd, &wds[wd].id);
	free(wds[wd].path);
	wds[wd].path = NULL;
}

static void *watch_loop(void *arg)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	(void)arg;
	for (;;) {
		ssize_t n = read(ino_fd, buf, sizeof(buf));

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			kd_err("failed to watch the cgroup tree: %s", n ? strerror(errno) : "end");
			return NULL;
		}
		pthread_mutex_lock(&lock);
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			char path[4096];

			if (ev->mask & IN_Q_OVERFLOW) {
				/* events lost: look at the whole tree again */
				cgroup_seen("/");
			} else if ((ev->mask & IN_CREATE) && (ev->mask & IN_ISDIR) && ev->wd < nwds &&
				   wds[ev->wd].path) {
				snprintf(path, sizeof(path), "%s/%s",
					 strcmp(wds[ev->wd].path, "/") ? wds[ev->wd].path : "", ev->name);
				cgroup_seen(path);
			} else if (ev->mask & (IN_DELETE_SELF | IN_IGNORED)) {
				cgroup_gone(ev->wd);
			}
			p += sizeof(*ev) + ev->len;
		}
		pthread_mutex_unlock(&lock);
	}
}

static void stats_say(void)
{
	struct m_names st;

	cgroup_stats(&st);
	kd_info("cgroup names: %llu lookups, %llu misses (%llu unknown), %llu cached, %llu evicted",
		(unsigned long long)st.lookups, (unsigned long long)st.misses,
		(unsigned long long)st.unknown, (unsigned long long)st.cached,
		(unsigned long long)st.evicted);
}

int cgroups_watch(void)
{
	pthread_t t;
	int err;

	if (watching)
		return 0;
	err = find_mount();
	if (err)
		return err;
	ino_fd = inotify_init1(IN_CLOEXEC);
	if (ino_fd < 0) {
		err = -errno;
		kd_err("failed to watch the cgroup tree: %s", strerror(errno));
		return err;
	}
	pthread_mutex_lock(&lock);
	cgroup_seen("/");
	pthread_mutex_unlock(&lock);
	err = pthread_create(&t, NULL, watch_loop, NULL);
	if (err) {
		kd_err("failed to watch the cgroup tree: %s", strerror(err));
		return -err;
	}
	pthread_detach(t);
	watching = true;
	atexit(stats_say);
	return 0;
}

int cgroup_set_fd(const struct cgroup_set *s)
{
	return s->fd;
}

bool cgroup_set_inherits(const struct cgroup_set *s)
{
	return !s->npred;
}

/* One --cgroup entry, as a path relative to the mount: absolute paths
 * under the mount lose it, others are taken from the mount's root. */
static char *pattern_of(const char *given, size_t len)
{
	size_t ml = strlen(mnt);
	char *p;

	if (len >= ml && !strncmp(given, mnt, ml) && (len == ml || given[ml] == '/')) {
		given += ml;
		len -= ml;
	}
	while (len > 1 && given[len - 1] == '/')
		len--;
	if (!len)
		return strdup("/");
	if (asprintf(&p, "%s%.*s", given[0] == '/' ? "" : "/", (int)len, given) < 0)
		return NULL;
	return p;
}

static int set_patterns(struct cgroup_set *s, const char *spec)
{
	for (const char *c = spec; *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ',')) {
		size_t len = strcspn(c, ",");
		char full[4096], **np;
		struct stat st;
		char *p;

		if (!len) {
			kd_err("bad --cgroup '%s': empty path", spec);
			return -EINVAL;
		}
		np = realloc(s->pat, (s->npat + 1) * sizeof(*np));
		if (!np)
			return -ENOMEM;
		s->pat = np;
		p = pattern_of(c, len);
		if (!p)
			return -ENOMEM;
		s->pat[s->npat++] = p;
		if (strpbrk(p, "*?["))
			continue;	/* a glob may match cgroups made later */
		snprintf(full, sizeof(full), "%s%s", mnt, p);
		if (stat(full, &st)) {
			int err = errno;

			/* a directory elsewhere (/etc, a cgroup v1 hierarchy) */
			snprintf(full, sizeof(full), "%.*s", (int)len, c);
			if (c[0] == '/' && !stat(full, &st))
				err = ENOTDIR;
			kd_err("bad --cgroup '%.*s': %s", (int)len, c,
			       err == ENOTDIR ? "not a cgroup v2 directory" : strerror(err));
			return -err;
		}
		if (!S_ISDIR(st.st_mode)) {
			kd_err("bad --cgroup '%.*s': not a cgroup v2 directory", (int)len, c);
			return -ENOTDIR;
		}
	}
	return 0;
}

/* Takes the --if terms on container, pod, namespace and unit out of *cond
 * into s: they are checked when a cgroup appears, not per event. */
static int set_predicates(struct cgroup_set *s, const char **cond)
{
	char *rest, *out;
	size_t olen = 0;
	int taken = s->npred;

	if (!*cond)
		return 0;
	rest = strdup(*cond);
	out = calloc(1, strlen(*cond) + 1);
	if (!rest || !out) {
		free(rest);
		free(out);
		return -ENOMEM;
	}
	for (char *t = rest; t;) {
		char *and = strstr(t, "&&"), *f, *v, *q;
		size_t flen;
		int field;

		if (and)
			*and = '\0';
		f = t + strspn(t, " \t");
		flen = strspn(f, "abcdefghijklmnopqrstuvwxyz_");
		field = -1;
		if (flen) {
			char name[16];

			snprintf(name, sizeof(name), "%.*s", (int)flen, f);
			field = cg_field_of(name);
		}
		if (field < 0) {
			/* a term for the command's own --if */
			olen += sprintf(out + olen, "%s%s", olen ? "&&" : "", t);
		} else {
			v = f + flen + strspn(f + flen, " \t");
			if (s->npred == (int)ARRAY_SIZE(s->pred) ||
			    (strncmp(v, "==", 2) && strncmp(v, "!=", 2)))
				goto bad;
			s->pred[s->npred].neg = v[0] == '!';
			v += 2;
			v += strspn(v, " \t");
			if ((*v != '\'' && *v != '"') || !(q = strchr(v + 1, *v)) ||
			    q[1 + strspn(q + 1, " \t")] || q - v - 1 >= (long)sizeof(s->pred[0].text))
				goto bad;
			s->pred[s->npred].f = field;
			snprintf(s->pred[s->npred].text, sizeof(s->pred[0].text), "%.*s",
				 (int)(q - v - 1), v + 1);
			s->npred++;
		}
		t = and ? and + 2 : NULL;
	}
	free(rest);
	if (s->npred == taken) {
		free(out);	/* none of ours: the text stays as given */
		return 0;
	}
	*cond = olen ? out : NULL;
	if (olen)
		s->cond = out;
	else
		free(out);
	return 0;
bad:
	kd_err("bad --if '%s': container, pod, namespace and unit take == or != and a quoted "
	       "text (a glob for ==), at most %zu terms", *cond, ARRAY_SIZE(s->pred));
	free(rest);
	free(out);
	return -EINVAL;
}

int cgroup_set_new(const char *spec, const char **cond, struct cgroup_set **out)
{
	struct cgroup_set *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->fd = -1;
	/* without a set, nothing needs the cgroup v2 mount: a system without
	 * one (cgroup v1 only) runs every command as before */
	err = set_predicates(s, cond);
	if (!err && (spec || s->npred))
		err = find_mount();
	if (!err && spec)
		err = set_patterns(s, spec);
	if (err || (!s->pat && !s->npred))
		goto out;
	err = cgroups_watch();
	if (err)
		goto out;
	s->fd = bpf_map_create(BPF_MAP_TYPE_HASH, "cgroup_set", sizeof(uint64_t), 1,
			       CGROUP_SET_MAX, NULL);
	if (s->fd < 0) {
		err = -errno;
		kd_err("failed to create the cgroup set map: %s", strerror(errno));
		goto out;
	}
	/* the cgroups there now; the watcher adds those to come */
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nwds; i++)
		if (wds[i].path)
			set_update(s, wds[i].id, wds[i].path);
	s->next = sets;
	sets = s;
	pthread_mutex_unlock(&lock);
	*out = s;
	return 0;
out:
	cgroup_set_free(s);
	return err;
}

void cgroup_set_free(struct cgroup_set *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&lock);
	for (struct cgroup_set **p = &sets; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	if (s->fd >= 0)
		close(s->fd);
	for (int i = 0; i < s->npat; i++)
		free(s->pat[i]);
	free(s->pat);
	free(s->cond);
	free(s);
}
