// SPDX-License-Identifier: GPL-2.0
/*
 * Stack measurements, user side: stack map entries to symbolized frames, the
 * process watch that keeps user frames nameable after a process exits, and
 * the read side shared by profile, offcpu and wakeup.
 */
#include "kernel/stacks.h"
#include "kernel/spec.h"
#include "syms/syms.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define SEEN_BUCKETS 4096
#define WATCH_PERIOD_MS 50

/* Stack map entries symbolized so far: an id stays the same stack. */
struct seen {
	struct seen *next;
	int id;
	bool user;
	pid_t pid;
	const struct m_stack *stack;
};

struct proc {
	pid_t pid;
	struct proc_syms *syms;	/* NULL: the process was gone */
	/* the program it ran when its maps were read: an exec (a shell's -c
	 * becoming the workload) replaces the maps under the same pid */
	dev_t exe_dev;
	ino_t exe_ino;
	/* its executable mappings then: the dynamic loader maps the libraries
	 * after exec, and a program may load more, so a count that grew is
	 * read again */
	int nexec;
};

struct stack_syms {
	int stacks_fd, by_hash_fd;
	const struct ksyms *ksyms;
	bool ksyms_tried;
	struct seen *seen[SEEN_BUCKETS];
	/* processes: shared with the watch thread */
	pthread_mutex_t lock;
	struct proc *procs;
	size_t nprocs, cap;
	/* the watch */
	pthread_t thread;
	pthread_cond_t wake;		/* stop: ends the watch's sleep */
	bool watching, stop;
	struct ring_buffer *notes;	/* stack_syms_follow(), or NULL */
	int keys_fd;			/* stack_syms_watch(), or -1 */
	size_t key_size;
	size_t pid_offs[4];
	int npids;
};

/* A stack map takes each stack once; stacks_by_hash only those whose
 * bucket held another: a sixteenth of them is room for a few thousand
 * colliding pairs, 1 MB preallocated (perf_event programs use no other
 * hash maps). */
void stack_maps_size(struct bpf_object *obj, unsigned int entries)
{
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "stacks"), entries);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "stacks_by_hash"),
				 entries / 16 ? entries / 16 : 1);
}

struct stack_syms *stack_syms_new(const struct bpf_object *obj)
{
	struct stack_syms *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return NULL;
	ss->stacks_fd = obj ? bpf_map__fd(bpf_object__find_map_by_name(obj, "stacks")) : -1;
	ss->by_hash_fd = obj ? bpf_map__fd(bpf_object__find_map_by_name(obj, "stacks_by_hash")) : -1;
	ss->keys_fd = -1;
	pthread_mutex_init(&ss->lock, NULL);
	pthread_cond_init(&ss->wake, NULL);
	return ss;
}

void stack_syms_free(struct stack_syms *ss)
{
	if (!ss)
		return;
	stack_syms_unwatch(ss);
	ring_buffer__free(ss->notes);
	for (int i = 0; i < SEEN_BUCKETS; i++) {
		for (struct seen *l = ss->seen[i], *n; l; l = n) {
			n = l->next;
			free(l);
		}
	}
	for (size_t i = 0; i < ss->nprocs; i++)
		proc_syms_free(ss->procs[i].syms);
	free(ss->procs);
	pthread_cond_destroy(&ss->wake);
	pthread_mutex_destroy(&ss->lock);
	free(ss);
}

/* Called with the lock held. */
static struct proc *proc_find(struct stack_syms *ss, pid_t pid)
{
	for (size_t i = 0; i < ss->nprocs; i++)
		if (ss->procs[i].pid == pid)
			return &ss->procs[i];
	return NULL;
}

/* The program pid runs now (its /proc/PID/exe); false when it is gone. */
static bool exe_of(pid_t pid, dev_t *dev, ino_t *ino)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/* Whether pid's program is mapped: exec points /proc/PID/exe at the new
 * program before it maps it, and sets start_code (/proc/PID/stat field 26)
 * once it has.  Maps read in between hold nothing of the program. */
static bool code_mapped(pid_t pid)
{
	char path[32], buf[1024], *p;
	unsigned long long start_code = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;	/* gone: nothing to wait for */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the comm before it may hold anything */
	return !p || sscanf(p + 2, "%*c" "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s"
			    "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
			    &start_code) != 1 || start_code != 0;
}

/* The number of executable mappings of pid now; -1 when it is gone. */
static int exec_maps(pid_t pid)
{
	char path[32], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* "start-end perms ...": perms is rwxp, x its third letter */
	while (fgets(line, sizeof(line), f)) {
		const char *perms = strchr(line, ' ');

		n += perms && perms[1] && perms[2] && perms[3] == 'x';
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;	/* the rest of a long path */
	}
	fclose(f);
	return n;
}

/* The symbols of pid as it is now, or NULL when it is gone; *dev, *ino
 * what it runs, 0 when its maps were read in the middle of an exec (so
 * that they are read again); *nexec its executable mappings in the maps
 * read.  Called unlocked. */
static struct proc_syms *load_now(pid_t pid, dev_t *dev, ino_t *ino, int *nexec)
{
	struct proc_syms *ps = NULL;
	char path[32];

	*dev = 0;
	*ino = 0;
	exe_of(pid, dev, ino);
	if (!code_mapped(pid))
		*dev = *ino = 0;
	/* a process gone before it was seen is common (short-lived
	 * processes): its frames stay addresses, quietly */
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!access(path, R_OK))
		ps = proc_syms_load(pid);
	*nexec = ps ? proc_syms_exec_maps(ps) : -1;
	return ps;
}

/* Called with the lock held; the loading itself runs unlocked. */
static struct proc *proc_get(struct stack_syms *ss, pid_t pid)
{
	struct proc *p = proc_find(ss, pid);
	struct proc_syms *syms;
	dev_t dev;
	ino_t ino;
	int nexec;

	if (p)
		return p;
	pthread_mutex_unlock(&ss->lock);
	syms = load_now(pid, &dev, &ino, &nexec);
	pthread_mutex_lock(&ss->lock);
	p = proc_find(ss, pid);		/* added meanwhile by the other thread */
	if (p) {
		proc_syms_free(syms);
		return p;
	}
	if (ss->nprocs == ss->cap) {
		size_t cap = ss->cap ? ss->cap * 2 : 16;
		struct proc *n = realloc(ss->procs, cap * sizeof(*n));

		if (!n) {
			proc_syms_free(syms);
			return NULL;
		}
		ss->procs = n;
		ss->cap = cap;
	}
	p = &ss->procs[ss->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->syms = syms;
	p->exe_dev = dev;
	p->exe_ino = ino;
	p->nexec = nexec;
	return p;
}

/* Read pid's maps the first time, and again when it has run exec since;
 * told (a note from the programs: a new address space), read them again in
 * any case, also when it was gone at the first look (the pid is in use
 * now).  Called with the lock held. */
static void proc_watch(struct stack_syms *ss, pid_t pid, bool told)
{
	bool known = proc_find(ss, pid);
	struct proc *p = proc_get(ss, pid);
	struct proc_syms *syms;
	dev_t dev;
	ino_t ino;
	int nexec;

	if (!p || (!p->syms && !told))
		return;
	/* a note is a new address space: read again even when the program
	 * is the same one (an exec of it, or maps read while it was being
	 * exec'd), unless proc_get() has just read it; else read again when
	 * it runs another program or has mapped more code */
	if (told ? known == false && p->syms :
	    !exe_of(pid, &dev, &ino) || (p->syms && dev == p->exe_dev && ino == p->exe_ino &&
					 exec_maps(pid) <= p->nexec))
		return;
	pthread_mutex_unlock(&ss->lock);
	syms = load_now(pid, &dev, &ino, &nexec);
	pthread_mutex_lock(&ss->lock);
	p = proc_find(ss, pid);		/* the array may have moved */
	if (!p || !syms) {
		proc_syms_free(syms);
		return;
	}
	proc_syms_free(p->syms);
	p->syms = syms;
	p->exe_dev = dev;
	p->exe_ino = ino;
	p->nexec = nexec;
}

static bool watch_stopping(struct stack_syms *ss)
{
	return __atomic_load_n(&ss->stop, __ATOMIC_RELAXED);
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The distinct pids of the keys in the key map now, sorted, into *pids
 * (grown as needed); their number, 0 when stopping or without a key map. */
static size_t watch_pids(struct stack_syms *ss, pid_t **pids, size_t *cap)
{
	unsigned char cur[256], next[256];
	size_t n = 0, u = 0, key_size, pid_offs[ARRAY_SIZE(ss->pid_offs)];
	int fd, npids;
	bool first = true;

	/* set by stack_syms_watch(), maybe after the thread started */
	pthread_mutex_lock(&ss->lock);
	fd = ss->keys_fd;
	key_size = ss->key_size;
	npids = ss->npids;
	memcpy(pid_offs, ss->pid_offs, sizeof(pid_offs));
	pthread_mutex_unlock(&ss->lock);
	while (fd >= 0 && !watch_stopping(ss) &&
	       !bpf_map_get_next_key(fd, first ? NULL : cur, next)) {
		memcpy(cur, next, key_size);
		first = false;
		if (n + npids > *cap) {
			size_t c = *cap ? *cap * 2 : 256;
			pid_t *v = realloc(*pids, c * sizeof(*v));

			if (!v)
				break;
			*pids = v;
			*cap = c;
		}
		for (int i = 0; i < npids; i++) {
			unsigned int pid;

			memcpy(&pid, cur + pid_offs[i], sizeof(pid));
			if (pid)
				(*pids)[n++] = pid;
		}
	}
	if (watch_stopping(ss))
		return 0;
	qsort(*pids, n, sizeof(**pids), pid_cmp);
	for (size_t i = 0; i < n; i++)
		if (!u || (*pids)[u - 1] != (*pids)[i])
			(*pids)[u++] = (*pids)[i];
	return u;
}

/* The watch walks the key map without the lock and takes it for one
 * process at a time: symbolizing waits for one process's maps at most,
 * not for a whole pass.  A pass is thousands of syscalls, and each one
 * waits behind the samples of its CPU when profile samples at its maximum
 * rate: it rests at least three times as long as its pass took, so it
 * never takes more than a quarter of a CPU from the threads that print. */
static void *watch(void *arg)
{
	struct stack_syms *ss = arg;
	pid_t *pids = NULL;
	size_t cap = 0;

	while (!watch_stopping(ss)) {
		uint64_t t = now_ns(), rest;
		size_t n = watch_pids(ss, &pids, &cap);

		for (size_t i = 0; i < n && !watch_stopping(ss); i++) {
			pthread_mutex_lock(&ss->lock);
			proc_watch(ss, pids[i], false);
			pthread_mutex_unlock(&ss->lock);
		}
		rest = 3 * (now_ns() - t);
		if (rest < WATCH_PERIOD_MS * 1000000ULL)
			rest = WATCH_PERIOD_MS * 1000000ULL;
		rest += now_ns();
		while (!watch_stopping(ss) && now_ns() < rest) {
			struct timespec ts;
			uint64_t left = rest - now_ns();

			/* a note wakes the thread at once; a stop within a
			 * period */
			if (ss->notes) {
				ring_buffer__poll(ss->notes, left < WATCH_PERIOD_MS * 1000000ULL ?
						  (int)(left / 1000000) + 1 : WATCH_PERIOD_MS);
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &ts);
			left += ts.tv_nsec;
			ts.tv_sec += left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			pthread_mutex_lock(&ss->lock);
			if (!ss->stop)
				pthread_cond_timedwait(&ss->wake, &ss->lock, &ts);
			pthread_mutex_unlock(&ss->lock);
		}
	}
	free(pids);
	return NULL;
}

static int note(void *ctx, void *data, size_t size)
{
	struct stack_syms *ss = ctx;
	const struct proc_note *n = data;

	if (size < sizeof(*n) || !n->pid)
		return 0;
	pthread_mutex_lock(&ss->lock);
	proc_watch(ss, n->pid, true);
	pthread_mutex_unlock(&ss->lock);
	return 0;
}

static int watch_start(struct stack_syms *ss)
{
	int err;

	if (ss->watching)
		return 0;
	err = pthread_create(&ss->thread, NULL, watch, ss);
	if (err) {
		kd_err("failed to start the process watch: %s", strerror(err));
		return -err;
	}
	ss->watching = true;
	return 0;
}

int stack_syms_watch(struct stack_syms *ss, int keys_fd, size_t key_size,
		     const size_t *pid_offs, int npids)
{
	if (key_size > 256 || npids > (int)ARRAY_SIZE(ss->pid_offs))
		return -EINVAL;
	pthread_mutex_lock(&ss->lock);
	ss->key_size = key_size;
	ss->npids = npids;
	memcpy(ss->pid_offs, pid_offs, npids * sizeof(*pid_offs));
	ss->keys_fd = keys_fd;
	pthread_mutex_unlock(&ss->lock);
	return watch_start(ss);
}

void stack_syms_unwatch(struct stack_syms *ss)
{
	if (!ss->watching)
		return;
	pthread_mutex_lock(&ss->lock);
	__atomic_store_n(&ss->stop, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&ss->wake);
	pthread_mutex_unlock(&ss->lock);
	pthread_join(ss->thread, NULL);
	ss->watching = false;
}

int stack_syms_follow(struct stack_syms *ss, int notes_fd)
{
	int err;

	/* before the thread starts: it polls the ring unlocked */
	if (ss->watching || ss->notes)
		return -EBUSY;
	ss->notes = ring_buffer__new(notes_fd, note, ss, NULL);
	if (!ss->notes) {
		err = -errno;
		kd_err("failed to read process notes: %s", strerror(-err));
		return err;
	}
	return watch_start(ss);
}

/* kdist's own frames at the leaf of a kernel stack taken from a BPF
 * program: the program (module "bpf" in kallsyms, or no symbol when
 * net.core.bpf_jit_kallsyms is off), trampolines and the tracing glue
 * between the traced code and the program. */
static bool own_frame(const struct ksym *s)
{
	static const char *const glue[] = {
		"bpf_", "__bpf_", "trace_call_bpf", "perf_trace_", "perf_syscall_",
		"__traceiter_", "__probestub_", "__perf_", "perf_tp_",
	};

	if (!s || (s->module && !strcmp(s->module, "bpf")))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(glue); i++)
		if (!strncmp(s->name, glue[i], strlen(glue[i])))
			return true;
	return false;
}

/* A kernel symbol as a frame names it: padding before a function
 * (__pfx_*, for call-depth tracking and FineIBT) is that function. */
static const char *kernel_frame_name(const struct ksym *s)
{
	if (!strncmp(s->name, "__pfx_", 6))
		return m_intern(s->name + 6, strlen(s->name));
	return m_intern(s->name, strlen(s->name));
}

void stack_syms_load_kernel(struct stack_syms *ss)
{
	if (ss->ksyms_tried)
		return;
	ss->ksyms_tried = true;
	ss->ksyms = ksyms_kernel();
}

static const struct m_stack *symbolize(struct stack_syms *ss, int id, bool user, pid_t pid)
{
	unsigned long long ips[STACK_DEPTH] = { 0 };
	struct m_frame frames[STACK_DEPTH];
	struct proc *p = NULL;
	int n = 0, leaf = 0, nf = 0;
	char name[256];

	if (bpf_map_lookup_elem(id & STACK_HASHED ? ss->by_hash_fd : ss->stacks_fd,
				&(unsigned int){ id }, ips))
		return m_stack_marker("[lost stack: not in the map]");
	while (n < STACK_DEPTH && ips[n])
		n++;
	if (!user)
		stack_syms_load_kernel(ss);
	if (user) {
		/* held until the frames are named: the watch may move the
		 * process table or replace its symbols meanwhile */
		pthread_mutex_lock(&ss->lock);
		p = proc_get(ss, pid);
	} else {
		while (leaf < n - 1 && own_frame(ss->ksyms ? ksyms_find(ss->ksyms, ips[leaf]) : NULL))
			leaf++;
		if (!ss->ksyms)
			leaf = 0;
	}
	for (int i = n - 1; i >= leaf; i--) {
		struct m_frame *f = &frames[nf++];
		const struct ksym *ks = NULL;

		memset(f, 0, sizeof(*f));
		f->addr = ips[i];
		if (!user && ss->ksyms) {
			/* a caller's frame holds its return address, which may be
			 * the first byte after a call that ends the function */
			ks = ksyms_find(ss->ksyms, i > 0 ? ips[i] - 1 : ips[i]);
			if (ks) {
				f->name = kernel_frame_name(ks);
				f->module = ks->module ? m_intern(ks->module, strlen(ks->module)) : NULL;
				f->offset = ips[i] - ks->addr;
			}
		} else if (user && p && p->syms) {
			proc_syms_resolve(p->syms, ips[i], name, sizeof(name));
			f->name = m_intern(name, sizeof(name));
		}
		if (!f->name) {
			snprintf(name, sizeof(name), "0x%llx", ips[i]);
			f->name = m_intern(name, sizeof(name));
		}
		if (!f->name)
			break;
	}
	if (user)
		pthread_mutex_unlock(&ss->lock);
	if (nf && !frames[nf - 1].name)
		return NULL;
	return m_stack_intern(frames, nf, user, n == STACK_DEPTH);
}

const struct m_stack *stack_syms_stack(struct stack_syms *ss, int id, bool user, pid_t pid)
{
	unsigned int h = ((unsigned int)id * 2654435761u ^ (unsigned int)pid * 40503u ^ user) %
			 SEEN_BUCKETS;
	struct seen *l;

	if (id == STACK_NONE)
		return m_stack_intern(NULL, 0, user, false);
	if (id == -EEXIST)
		return m_stack_marker("[lost stack: collision]");
	if (id == -ENOMEM)
		return m_stack_marker("[lost stack: map full]");
	if (id < 0)
		return m_stack_marker("[lost stack]");
	if (!user)
		pid = 0;
	for (l = ss->seen[h]; l; l = l->next)
		if (l->id == id && l->user == user && l->pid == pid)
			return l->stack;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->stack = symbolize(ss, id, user, pid);
	if (!l->stack) {
		free(l);
		return NULL;
	}
	l->id = id;
	l->user = user;
	l->pid = pid;
	l->next = ss->seen[h];
	ss->seen[h] = l;
	return l->stack;
}
