// SPDX-License-Identifier: GPL-2.0
/* Per-process symbolization: the mappings of /proc/PID/maps, the ELF
 * symbols of each mapped file (loaded on first use) and the JIT symbols of
 * a perf map. */
#include "syms/procsyms.h"
#include "syms/elfsyms.h"
#include "syms/symtab.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

struct proc_module {
	char *name;		/* path from maps, without " (deleted)" */
	uint64_t start, end;	/* first mapping, for map_files */
	bool deleted;
	bool pseudo;		/* "[heap]", "[vdso]", ... */
	bool tried;
	struct elf_syms *syms;
};

struct proc_map {
	uint64_t start, end, offset;
	int mod;		/* index in mods, -1 for anonymous */
};

struct jit_sym {
	uint64_t start, size;
	const char *name;
	uint32_t seq;		/* line number: later lines win */
};

struct proc_syms {
	pid_t pid;
	struct proc_map *maps;
	size_t nr_maps;
	struct proc_module *mods;
	size_t nr_mods;
	struct jit_sym *jit;
	size_t nr_jit;
	char *jit_buf;
	int nexec;		/* executable mappings */
};

static int proc_module_get(struct proc_syms *ps, const char *name, bool deleted,
			   uint64_t start, uint64_t end)
{
	struct proc_module *n, *m;

	/* mappings of one file are adjacent: check the latest first */
	for (size_t i = ps->nr_mods; i-- > 0;)
		if (!strcmp(ps->mods[i].name, name))
			return (int)i;
	n = realloc(ps->mods, (ps->nr_mods + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	ps->mods = n;
	m = &ps->mods[ps->nr_mods];
	*m = (struct proc_module){
		.name = strdup(name),
		.start = start,
		.end = end,
		.deleted = deleted,
		.pseudo = name[0] == '[',
	};
	if (!m->name)
		return -ENOMEM;
	return (int)ps->nr_mods++;
}

static int proc_maps_parse(struct proc_syms *ps)
{
	char path[64], *buf, *p;
	size_t cap = 0;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)ps->pid);
	err = read_file(path, &buf, NULL);
	if (err)
		return err;
	for (p = buf; *p;) {
		char *line = p, *nl = strchrnul(p, '\n'), *name;
		struct proc_map *maps;
		uint64_t start, end, off;
		char perms[8] = "";
		int pos = -1, mod = -1;
		size_t len;
		bool deleted = false;

		p = *nl ? nl + 1 : nl;
		*nl = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %*u %n",
			   &start, &end, perms, &off, &pos) < 4 || pos < 0)
			continue;
		ps->nexec += perms[2] == 'x';
		name = str_trim(line + pos);
		len = strlen(name);
		if (len > 10 && !strcmp(name + len - 10, " (deleted)")) {
			name[len - 10] = '\0';
			deleted = true;
		}
		if (*name) {
			mod = proc_module_get(ps, name, deleted, start, end);
			if (mod < 0) {
				err = mod;
				break;
			}
		}
		maps = symtab_reserve(ps->maps, &cap, ps->nr_maps + 1,
				      sizeof(*maps));
		if (!maps) {
			err = -ENOMEM;
			break;
		}
		ps->maps = maps;
		ps->maps[ps->nr_maps++] = (struct proc_map){
			.start = start, .end = end, .offset = off, .mod = mod,
		};
	}
	free(buf);
	return err;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The last NStgid of the process: its pid inside its own namespace. */
static pid_t proc_ns_pid(pid_t pid)
{
	char path[64], *buf, *line;
	pid_t ns = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, &buf, NULL))
		return 0;
	line = strstr(buf, "\nNStgid:");
	if (line) {
		char *tok, *save = NULL;

		line[strcspn(line + 1, "\n") + 1] = '\0';
		strtok_r(line + 1, " \t", &save);
		while ((tok = strtok_r(NULL, " \t", &save)))
			ns = (pid_t)atoi(tok);
	}
	free(buf);
	return ns;
}

/* A hexadecimal number (0x optional) and the blanks after it, at *p. */
static bool jit_number(char **p, uint64_t *val)
{
	char *s = *p;

	if (!isxdigit((unsigned char)*s))
		return false;
	*val = strtoull(s, &s, 16);
	if (*s != ' ' && *s != '\t')
		return false;
	*p = s + strspn(s, " \t");
	return true;
}

/* /tmp/perf-PID.map: "START SIZE name" per line, hexadecimal numbers. */
static int proc_jit_load(struct proc_syms *ps)
{
	char path[96], *p;
	size_t cap = 0;
	uint32_t seq = 0;
	pid_t ns;
	int err;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)ps->pid);
	err = read_file(path, &ps->jit_buf, NULL);
	if (err == -ENOENT && (ns = proc_ns_pid(ps->pid)) > 0 && ns != ps->pid) {
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map",
			 (int)ps->pid, (int)ns);
		err = read_file(path, &ps->jit_buf, NULL);
	}
	if (err == -ENOENT)
		return 0;
	if (err == -EINVAL || err == -EFBIG) {
		/* the process chose what is there: a FIFO, a link to a device, a
		 * file without end; its other frames are still named */
		kd_err("failed to read %s: %s (its JIT frames stay unnamed)", path,
		       err == -EINVAL ? "not a regular file" : read_input_strerror(err, READ_FILE_MAX));
		return 0;
	}
	if (err)
		return err;

	for (p = ps->jit_buf; *p;) {
		char *line = p, *nl = strchrnul(p, '\n'), *name;
		struct jit_sym *jit;
		uint64_t start, size;

		p = *nl ? nl + 1 : nl;
		*nl = '\0';
		seq++;
		line += strspn(line, " \t");
		if (!jit_number(&line, &start) || !jit_number(&line, &size))
			continue;
		name = str_trim(line);
		if (!*name || !size)
			continue;
		jit = symtab_reserve(ps->jit, &cap, ps->nr_jit + 1, sizeof(*jit));
		if (!jit)
			return -ENOMEM;
		ps->jit = jit;
		ps->jit[ps->nr_jit++] = (struct jit_sym){
			.start = start, .size = size, .name = name, .seq = seq,
		};
	}
	if (ps->nr_jit)
		qsort(ps->jit, ps->nr_jit, sizeof(*ps->jit), jit_cmp);
	kd_info("loaded %zu JIT symbols from %s", ps->nr_jit, path);
	return 0;
}

struct proc_syms *proc_syms_load(pid_t pid)
{
	struct proc_syms *ps = calloc(1, sizeof(*ps));
	int err;

	if (!ps) {
		errno = ENOMEM;
		return NULL;
	}
	ps->pid = pid;
	err = proc_maps_parse(ps);
	if (err) {
		kd_err("failed to read memory maps of pid %d: %s", (int)pid,
		       strerror(-err));
		goto fail;
	}
	err = proc_jit_load(ps);
	if (err) {
		kd_err("failed to read JIT symbols of pid %d: %s", (int)pid,
		       strerror(-err));
		goto fail;
	}
	return ps;
fail:
	proc_syms_free(ps);
	errno = -err;
	return NULL;
}

void proc_syms_free(struct proc_syms *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->nr_mods; i++) {
		free(ps->mods[i].name);
		elf_syms_free(ps->mods[i].syms);
	}
	free(ps->mods);
	free(ps->maps);
	free(ps->jit);
	free(ps->jit_buf);
	free(ps);
}

static const struct proc_map *proc_map_find(const struct proc_syms *ps,
					    uint64_t addr)
{
	size_t lo = symtab_upper(ps->maps, ps->nr_maps, sizeof(*ps->maps),
				 offsetof(struct proc_map, start), addr);

	if (!lo || addr >= ps->maps[lo - 1].end)
		return NULL;
	return &ps->maps[lo - 1];
}

static const struct jit_sym *proc_jit_find(const struct proc_syms *ps,
					   uint64_t addr)
{
	const struct jit_sym *best = NULL;
	size_t j, limit = 64;
	size_t lo = symtab_upper(ps->jit, ps->nr_jit, sizeof(*ps->jit),
				 offsetof(struct jit_sym, start), addr);

	/* overlapping entries (re-used code memory): the latest line wins */
	for (j = lo; j-- > 0 && limit--;) {
		const struct jit_sym *s = &ps->jit[j];

		if (addr - s->start < s->size && (!best || s->seq > best->seq))
			best = s;
	}
	return best;
}

/* Our own vdso and the length of its mapping (0 if unknown), which bounds
 * what can be copied from it. */
static const void *own_vdso(size_t *len)
{
	uintptr_t start = getauxval(AT_SYSINFO_EHDR);
	const struct proc_map *map;
	struct proc_syms *self;

	*len = 0;
	if (!start || !(self = calloc(1, sizeof(*self))))
		return NULL;
	self->pid = getpid();
	if (!proc_maps_parse(self) && (map = proc_map_find(self, start)))
		*len = map->end - start;
	proc_syms_free(self);
	return (const void *)start;
}

/* The vdso is read from the process memory; if that is not allowed, our
 * own vdso (same kernel, same image) is used when it fits. */
static struct elf_syms *proc_vdso_load(struct proc_syms *ps,
				       const struct proc_module *m)
{
	size_t len = m->end - m->start;
	struct elf_syms *es = NULL;
	unsigned char *img;
	char path[64];
	int fd;
	bool ok = false;

	if (!len || len > (16u << 20))
		return NULL;
	img = malloc(len);
	if (!img)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)ps->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ok = pread(fd, img, len, (off_t)m->start) == (ssize_t)len;
		close(fd);
	}
	if (!ok) {
		size_t own_len;
		const void *own = own_vdso(&own_len);

		if (!own_len || own_len > len)
			goto out;
		memcpy(img, own, own_len);
		len = own_len;
	}
	es = elf_syms_open_image("[vdso]", img, len);
out:
	free(img);
	return es;
}

/* Symbols of the file at path; *err is 0 or the positive errno. */
static struct elf_syms *proc_file_syms(const char *path, int *err)
{
	struct elf_syms *es = elf_syms_open(path);

	*err = es ? 0 : errno;
	return es;
}

static struct elf_syms *proc_module_syms(struct proc_syms *ps,
					 struct proc_module *m)
{
	char path[PATH_MAX + 32];
	int err = 0;

	if (m->tried)
		return m->syms;
	m->tried = true;
	if (m->pseudo) {
		if (!strcmp(m->name, "[vdso]"))
			m->syms = proc_vdso_load(ps, m);
		return m->syms;
	}
	if (!m->deleted) {
		/* through the process' root: right file in a container */
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)ps->pid,
			 m->name);
		if (!access(path, R_OK))
			m->syms = proc_file_syms(path, &err);
		else if (!access(m->name, R_OK))
			m->syms = proc_file_syms(m->name, &err);
	}
	if (!m->syms && err != ENOEXEC) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)ps->pid, m->start, m->end);
		if (!access(path, R_OK))
			m->syms = proc_file_syms(path, &err);
	}
	if (m->syms)
		kd_info("loaded %zu function symbols of %s",
			elf_syms_count(m->syms), m->name);
	else
		kd_info("failed to load symbols of %s: %s", m->name,
			strerror(err ? err : ENOENT));
	return m->syms;
}

int proc_syms_exec_maps(const struct proc_syms *ps)
{
	return ps->nexec;
}

int proc_syms_resolve(struct proc_syms *ps, uint64_t addr, char *buf,
		      size_t len)
{
	const struct proc_map *map = proc_map_find(ps, addr);
	const struct proc_module *mod = NULL;
	const struct jit_sym *jit;

	if (map && map->mod >= 0) {
		struct proc_module *m = &ps->mods[map->mod];
		struct elf_syms *es = proc_module_syms(ps, m);
		const struct elf_sym *s;
		uint64_t vaddr;

		mod = m;
		if (es && !elf_syms_offset_to_vaddr(es, addr - map->start + map->offset,
						    &vaddr) &&
		    (s = elf_syms_find(es, vaddr))) {
			snprintf(buf, len, "%s", s->name);
			return 0;
		}
	}
	jit = proc_jit_find(ps, addr);
	if (jit) {
		snprintf(buf, len, "%s", jit->name);
		return 0;
	}
	if (mod && mod->pseudo) {
		snprintf(buf, len, "%s", mod->name);
	} else if (mod) {
		const char *slash = strrchr(mod->name, '/');

		snprintf(buf, len, "[%s]", slash ? slash + 1 : mod->name);
	} else {
		snprintf(buf, len, "[unknown]");
	}
	return -ENOENT;
}
