// SPDX-License-Identifier: GPL-2.0
/* Symbolization: kallsyms, ELF function symbols, library paths and
 * per-process address resolution.  Everything is kept in sorted arrays and
 * looked up by binary search. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "syms.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define DEBUG_DIR "/usr/lib/debug"

/* Leading underscores of a name: fewer means a more "public" alias. */
static unsigned int name_underscores(const char *s)
{
	unsigned int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse hex digits (optional 0x) at *p; advances *p.  false if none. */
static bool parse_hex(char **p, uint64_t *val)
{
	char *s = *p;
	uint64_t v = 0;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0)
		s += 2;
	if (hexval(*s) < 0)
		return false;
	while ((d = hexval(*s)) >= 0) {
		v = (v << 4) | (uint64_t)d;
		s++;
	}
	*p = s;
	*val = v;
	return true;
}

static int copy_str(char *out, size_t outlen, const char *s)
{
	size_t n = strlen(s);

	if (n >= outlen)
		return -ENAMETOOLONG;
	memcpy(out, s, n + 1);
	return 0;
}

/* ======================================================================
 * Kernel symbols
 * ====================================================================== */

/* Symbols beyond the last one of vmlinux or of a module are only trusted
 * this far; past it the address is more likely in a gap. */
#define KSYM_TAIL_MAX (64 * 1024)

struct ksym_ent {
	struct ksym sym;	/* first: ksyms_find() returns &ent->sym */
	uint32_t idx;		/* line number, for a stable order */
	uint8_t rank;		/* T=0, W=1, t=2, w=3 */
	uint8_t underscores;
};

struct ksyms {
	struct ksym_ent *ents;
	size_t nr;
	char *buf;		/* file contents; names point into it */
};

static int ksym_rank(char type)
{
	switch (type) {
	case 'T': return 0;
	case 'W': return 1;
	case 't': return 2;
	case 'w': return 3;
	default: return -1;
	}
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->underscores != y->underscores)
		return x->underscores - y->underscores;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Parse the buffer in place.  Returns 0, -ENOMEM or -EPERM (all
 * addresses zero: hidden by kptr_restrict). */
static int ksyms_parse(struct ksyms *ks)
{
	size_t cap = 0;
	uint32_t idx = 0;
	bool nonzero = false, any = false;
	char *p = ks->buf;

	while (*p) {
		char *line = p, *nl = strchrnul(p, '\n');
		char *name, *end, *mod = NULL;
		uint64_t addr;
		unsigned int us;
		int rank;

		p = *nl ? nl + 1 : nl;
		*nl = '\0';
		idx++;

		/* "ffffffff81000000 T _text" or "... t foo\t[mod]" */
		if (!parse_hex(&line, &addr) || line[0] != ' ' || !line[1] ||
		    line[2] != ' ')
			continue;
		any = true;
		if (addr)
			nonzero = true;
		rank = ksym_rank(line[1]);
		if (rank < 0)
			continue;
		name = line + 3;
		end = name + strcspn(name, " \t");
		if (end == name)
			continue;
		if (*end) {
			char *q = end + 1, *close;

			*end = '\0';
			q += strspn(q, " \t");
			if (*q == '[' && (close = strchr(q, ']'))) {
				*close = '\0';
				mod = q + 1;
			}
		}
		us = name_underscores(name);
		if (ks->nr == cap) {
			size_t ncap = cap ? cap * 2 : 16384;
			struct ksym_ent *n = realloc(ks->ents, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			ks->ents = n;
			cap = ncap;
		}
		ks->ents[ks->nr++] = (struct ksym_ent){
			.sym = { .addr = addr, .name = name, .module = mod },
			.idx = idx,
			.rank = (uint8_t)rank,
			.underscores = (uint8_t)(us > 255 ? 255 : us),
		};
	}
	if (any && !nonzero)
		return -EPERM;
	if (ks->nr)
		qsort(ks->ents, ks->nr, sizeof(*ks->ents), ksym_cmp);
	return 0;
}

struct ksyms *ksyms_load_file(const char *path)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	int err;

	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	err = read_file(path, &ks->buf, NULL);
	if (err) {
		kd_err("failed to read kernel symbols from %s: %s", path,
		       strerror(-err));
		goto fail;
	}
	err = ksyms_parse(ks);
	if (err == -EPERM) {
		kd_err("failed to read kernel symbols from %s: addresses are hidden (kptr_restrict); run as root",
		       path);
		goto fail;
	}
	if (err) {
		kd_err("failed to parse kernel symbols from %s: %s", path,
		       strerror(-err));
		goto fail;
	}
	kd_info("loaded %zu kernel text symbols from %s", ks->nr, path);
	return ks;
fail:
	ksyms_free(ks);
	errno = -err;
	return NULL;
}

struct ksyms *ksyms_load(void)
{
	return ksyms_load_file("/proc/kallsyms");
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->ents);
	free(ks->buf);
	free(ks);
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

const struct ksym *ksyms_at(const struct ksyms *ks, size_t i)
{
	return ks && i < ks->nr ? &ks->ents[i].sym : NULL;
}

static bool same_module(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi, i;
	const struct ksym_ent *e;

	if (!ks || !ks->nr)
		return NULL;
	/* first entry with sym.addr > addr */
	hi = ks->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->ents[mid].sym.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	/* the preferred alias sorts first among equal addresses */
	while (i > 0 && ks->ents[i - 1].sym.addr == ks->ents[i].sym.addr)
		i--;
	e = &ks->ents[i];
	if (addr - e->sym.addr >= KSYM_TAIL_MAX &&
	    (lo == ks->nr || !same_module(e->sym.module, ks->ents[lo].sym.module)))
		return NULL;
	return &e->sym;
}

const char *ksyms_name_of(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *s = ksyms_find(ks, addr);

	return s ? s->name : NULL;
}

const struct ksym *ksyms_find_name(const struct ksyms *ks, const char *name)
{
	size_t i;

	if (!ks)
		return NULL;
	for (i = 0; i < ks->nr; i++)
		if (!strcmp(ks->ents[i].sym.name, name))
			return &ks->ents[i].sym;
	return NULL;
}

/* ======================================================================
 * ELF symbols
 * ====================================================================== */

struct elf_seg {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	uint32_t flags;
};

struct elf_syms {
	char *path;
	struct elf_sym *syms;
	size_t nr, cap;
	char *strs;		/* names; while loading, sym.name holds offsets */
	size_t strs_len, strs_cap;
	struct elf_seg *segs;
	size_t nr_segs;
};

static bool libelf_ready(void)
{
	static int state;	/* 0 unknown, 1 ok, -1 failed */

	if (!state)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

static int elf_syms_add(struct elf_syms *es, const char *name, size_t len,
			const GElf_Sym *sym)
{
	if (es->nr == es->cap) {
		size_t ncap = es->cap ? es->cap * 2 : 1024;
		struct elf_sym *n = realloc(es->syms, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		es->syms = n;
		es->cap = ncap;
	}
	if (es->strs_len + len + 1 > es->strs_cap) {
		size_t ncap = es->strs_cap ? es->strs_cap : 16384;
		char *n;

		while (ncap < es->strs_len + len + 1)
			ncap *= 2;
		n = realloc(es->strs, ncap);
		if (!n)
			return -ENOMEM;
		es->strs = n;
		es->strs_cap = ncap;
	}
	memcpy(es->strs + es->strs_len, name, len);
	es->strs[es->strs_len + len] = '\0';
	es->syms[es->nr++] = (struct elf_sym){
		.name = (const char *)(uintptr_t)es->strs_len,
		.addr = sym->st_value,
		.size = sym->st_size,
		.bind = GELF_ST_BIND(sym->st_info),
		.type = GELF_ST_TYPE(sym->st_info),
	};
	es->strs_len += len + 1;
	return 0;
}

/* Add the function symbols of every section of type sh_type.  Returns the
 * number of such sections found, or -errno. */
static int elf_syms_collect(struct elf_syms *es, Elf *elf, GElf_Word sh_type)
{
	Elf_Scn *scn = NULL;
	int found = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t n, i, entsize;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		found++;
		entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		if (!entsize)
			continue;
		n = data->d_size / entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			size_t len;
			int type, err;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC)
				continue;
			if (sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			/* "memcpy@@GLIBC_2.14" -> "memcpy"; "@x" would be nameless */
			len = name ? strcspn(name, "@") : 0;
			if (!len)
				continue;
			err = elf_syms_add(es, name, len, &sym);
			if (err)
				return err;
		}
	}
	return found;
}

static int elf_syms_read_segments(struct elf_syms *es, Elf *elf)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return 0;	/* no program headers: no offsets */
	es->segs = calloc(n ? n : 1, sizeof(*es->segs));
	if (!es->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* a range that wraps past 2^64 maps nothing (a corrupt file);
		 * kept, it would turn addresses into wrapped offsets */
		if (ph.p_offset > UINT64_MAX - ph.p_filesz ||
		    ph.p_vaddr > UINT64_MAX - ph.p_filesz)
			continue;
		es->segs[es->nr_segs++] = (struct elf_seg){
			.vaddr = ph.p_vaddr,
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
			.flags = ph.p_flags,
		};
	}
	return 0;
}

/* The GNU build-id among the notes in data: copies up to max bytes,
 * returns its length or 0. */
static size_t note_build_id(Elf_Data *data, uint8_t *out, size_t max)
{
	size_t off = 0, next, noff, doff;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + noff, "GNU", 4) && nh.n_descsz > 0) {
			size_t n = nh.n_descsz < max ? nh.n_descsz : max;

			memcpy(out, (char *)data->d_buf + doff, n);
			return n;
		}
		off = next;
	}
	return 0;
}

/* Copies up to max bytes of the GNU build-id; returns its length or 0:
 * from the note sections, or without section headers the PT_NOTE segments. */
static size_t elf_build_id(Elf *elf, uint8_t *out, size_t max)
{
	Elf_Scn *scn = NULL;
	size_t nph, i;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		n = note_build_id(data, out, max);
		if (n)
			return n;
	}
	/* no section headers: try the PT_NOTE segments */
	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		size_t n;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ELF_T_NHDR);
		if (!data)
			continue;
		n = note_build_id(data, out, max);
		if (n)
			return n;
	}
	return 0;
}

static bool elf_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_size > 0)
			return true;
	return false;
}

/* CRC-32 (IEEE, as used by .gnu_debuglink) of a whole file. */
static int file_crc32(const char *path, uint32_t *out)
{
	static uint32_t table[256];
	static bool table_ready;
	unsigned char buf[65536];
	uint32_t crc = 0xffffffffu;
	ssize_t r;
	int fd;

	if (!table_ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		table_ready = true;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return (int)r;
		}
		for (ssize_t i = 0; i < r; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
	}
	close(fd);
	*out = crc ^ 0xffffffffu;
	return 0;
}

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_file_open(const char *path, struct elf_file *f)
{
	f->elf = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		f->fd = -1;
		f->elf = NULL;
		return -ENOEXEC;
	}
	return 0;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Open a debug file candidate; it must have a .symtab and match the
 * build-id (if the binary has one) or else the debuglink CRC. */
static bool debug_try(const char *cand, const uint8_t *bid, size_t bid_len,
		      const uint32_t *crc, struct elf_file *out)
{
	uint8_t cbid[64];
	size_t clen;

	if (access(cand, R_OK))
		return false;
	if (elf_file_open(cand, out))
		return false;
	if (!elf_has_symtab(out->elf))
		goto reject;
	if (bid_len) {
		clen = elf_build_id(out->elf, cbid, sizeof(cbid));
		if (clen != bid_len || memcmp(cbid, bid, bid_len))
			goto reject;
	} else if (crc) {
		uint32_t c;

		if (file_crc32(cand, &c) || c != *crc)
			goto reject;
	}
	return true;
reject:
	elf_file_close(out);
	return false;
}

static const char *elf_debuglink(Elf *elf, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *sname, *link;
		size_t len, crc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || !data->d_size)
			return NULL;
		link = data->d_buf;
		len = strnlen(link, data->d_size);
		crc_off = (len + 4) & ~(size_t)3;
		if (len == 0 || len == data->d_size || crc_off + 4 > data->d_size)
			return NULL;
		memcpy(crc, (const char *)data->d_buf + crc_off, 4);
		return link;
	}
	return NULL;
}

/* Find and open the separate debug file of a stripped binary. */
static bool debug_file_open(const char *path, Elf *elf, struct elf_file *out)
{
	uint8_t bid[64];
	size_t bid_len = elf_build_id(elf, bid, sizeof(bid));
	char cand[PATH_MAX + 64], real[PATH_MAX], *slash;
	const char *link;
	uint32_t crc;

	if (bid_len >= 2) {
		int n = snprintf(cand, sizeof(cand), DEBUG_DIR "/.build-id/%02x/",
				 bid[0]);

		for (size_t i = 1; i < bid_len; i++)
			n += snprintf(cand + n, sizeof(cand) - n, "%02x", bid[i]);
		snprintf(cand + n, sizeof(cand) - n, ".debug");
		if (debug_try(cand, bid, bid_len, NULL, out))
			goto found;
	}

	link = elf_debuglink(elf, &crc);
	if (!link || strchr(link, '/') || !realpath(path, real))
		return false;
	slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';		/* real is now the directory ("" for "/") */
	snprintf(cand, sizeof(cand), "%s/%s", real, link);
	if (debug_try(cand, bid, bid_len, &crc, out))
		goto found;
	snprintf(cand, sizeof(cand), "%s/.debug/%s", real, link);
	if (debug_try(cand, bid, bid_len, &crc, out))
		goto found;
	snprintf(cand, sizeof(cand), DEBUG_DIR "%s/%s", real, link);
	if (debug_try(cand, bid, bid_len, &crc, out))
		goto found;
	return false;
found:
	kd_info("using debug symbols of %s from %s", path, cand);
	return true;
}

static unsigned int bind_rank(uint8_t bind)
{
	switch (bind) {
	case STB_GLOBAL: return 0;
	case STB_WEAK: return 1;
	case STB_LOCAL: return 2;
	default: return 3;
	}
}

/* Address order; among aliases the preferred name first. */
static int elf_sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	unsigned int ux, uy;
	size_t lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (bind_rank(x->bind) != bind_rank(y->bind))
		return (int)bind_rank(x->bind) - (int)bind_rank(y->bind);
	ux = name_underscores(x->name);
	uy = name_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

int elf_syms_vaddr_to_offset(const struct elf_syms *es, uint64_t vaddr,
			     uint64_t *offset)
{
	for (size_t i = 0; i < es->nr_segs; i++) {
		const struct elf_seg *s = &es->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offset = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_syms_offset_to_vaddr(const struct elf_syms *es, uint64_t offset,
			     uint64_t *vaddr)
{
	/* segments may share a page in the file: prefer executable ones */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < es->nr_segs; i++) {
			const struct elf_seg *s = &es->segs[i];

			if (!pass && !(s->flags & PF_X))
				continue;
			if (offset >= s->offset && offset - s->offset < s->filesz) {
				*vaddr = offset - s->offset + s->vaddr;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* Turn name offsets into pointers, sort, drop exact duplicates (a symbol
 * in both .symtab and .dynsym) and compute uprobe offsets. */
static void elf_syms_finish(struct elf_syms *es)
{
	size_t i, n = 0;

	if (!es->nr)
		return;
	for (i = 0; i < es->nr; i++)
		es->syms[i].name = es->strs + (uintptr_t)es->syms[i].name;
	qsort(es->syms, es->nr, sizeof(*es->syms), elf_sym_cmp);
	for (i = 0; i < es->nr; i++) {
		struct elf_sym *s = &es->syms[i];
		size_t j;
		bool dup = false;

		/* equal names need not be adjacent if their binds differ */
		for (j = n; j-- > 0 && es->syms[j].addr == s->addr;) {
			if (!strcmp(es->syms[j].name, s->name)) {
				if (s->size > es->syms[j].size)
					es->syms[j].size = s->size;
				dup = true;
				break;
			}
		}
		if (dup)
			continue;
		if (elf_syms_vaddr_to_offset(es, s->addr, &s->offset))
			s->offset = 0;
		es->syms[n++] = *s;
	}
	es->nr = n;
}

static struct elf_syms *elf_syms_build(const char *path, Elf *elf,
				       bool try_debug, int *errp)
{
	struct elf_syms *es = calloc(1, sizeof(*es));
	struct elf_file dbg = { .fd = -1 };
	int err, nsymtab;

	if (!es) {
		*errp = -ENOMEM;
		return NULL;
	}
	es->path = strdup(path);
	if (!es->path) {
		err = -ENOMEM;
		goto fail;
	}
	err = elf_syms_read_segments(es, elf);
	if (err)
		goto fail;
	nsymtab = elf_syms_collect(es, elf, SHT_SYMTAB);
	if (nsymtab < 0) {
		err = nsymtab;
		goto fail;
	}
	err = elf_syms_collect(es, elf, SHT_DYNSYM);
	if (err < 0)
		goto fail;
	if (!nsymtab && try_debug && debug_file_open(path, elf, &dbg)) {
		err = elf_syms_collect(es, dbg.elf, SHT_SYMTAB);
		elf_file_close(&dbg);
		if (err < 0)
			goto fail;
	}
	elf_syms_finish(es);
	return es;
fail:
	elf_syms_free(es);
	*errp = err;
	return NULL;
}

static struct elf_syms *elf_syms_open(const char *path, int *errp)
{
	struct elf_file f;
	struct elf_syms *es;
	int err;

	if (!libelf_ready()) {
		*errp = -EINVAL;
		return NULL;
	}
	err = elf_file_open(path, &f);
	if (err) {
		*errp = err;
		return NULL;
	}
	es = elf_syms_build(path, f.elf, true, errp);
	elf_file_close(&f);
	return es;
}

struct elf_syms *elf_syms_load(const char *path)
{
	uint64_t t0 = now_ns();
	struct elf_syms *es;
	int err = 0;

	es = elf_syms_open(path, &err);
	if (!es) {
		if (err == -ENOEXEC)
			kd_err("failed to read symbols of %s: not an ELF file", path);
		else if (err == -EINVAL)
			kd_err("failed to initialize libelf: %s", elf_errmsg(-1));
		else
			kd_err("failed to read symbols of %s: %s", path,
			       strerror(-err));
		errno = -err;
		return NULL;
	}
	kd_info("loaded %zu function symbols of %s in %.1f ms", es->nr, path,
		(now_ns() - t0) / 1e6);
	return es;
}

void elf_syms_free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->path);
	free(es->syms);
	free(es->strs);
	free(es->segs);
	free(es);
}

size_t elf_syms_count(const struct elf_syms *es)
{
	return es ? es->nr : 0;
}

const char *elf_syms_path(const struct elf_syms *es)
{
	return es->path;
}

const struct elf_sym *elf_syms_find(const struct elf_syms *es, uint64_t vaddr)
{
	const struct elf_sym *hit = NULL, *zero = NULL;
	size_t lo = 0, hi, j, limit = 64;
	uint64_t nearest, group;

	if (!es || !es->nr)
		return NULL;
	hi = es->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	nearest = group = es->syms[lo - 1].addr;
	/* Walk down: a containing symbol of the nearest address wins, then a
	 * size-less one there, then a larger symbol starting further down.
	 * Within one address the lowest index is the preferred alias. */
	for (j = lo; j-- > 0 && limit--;) {
		const struct elf_sym *s = &es->syms[j];

		if (s->addr != group) {
			if (hit || zero)
				break;
			group = s->addr;
		}
		if (vaddr - s->addr < s->size)
			hit = s;
		else if (!s->size && s->addr == nearest)
			zero = s;
	}
	return hit ? hit : zero;
}

const struct elf_sym *elf_syms_find_name(const struct elf_syms *es,
					 const char *name)
{
	const struct elf_sym *best = NULL;

	if (!es)
		return NULL;
	for (size_t i = 0; i < es->nr; i++) {
		const struct elf_sym *s = &es->syms[i];

		if (strcmp(s->name, name))
			continue;
		if (!best || bind_rank(s->bind) < bind_rank(best->bind))
			best = s;
		if (s->bind == STB_GLOBAL)
			break;
	}
	return best;
}

int elf_syms_match(const struct elf_syms *es, const char *glob, elf_sym_fn fn,
		   void *ctx)
{
	bool literal = !strpbrk(glob, "*?[\\");
	size_t i = 0, j, k;
	int calls = 0, err;

	if (!es)
		return 0;
	while (i < es->nr) {
		for (j = i + 1; j < es->nr && es->syms[j].addr == es->syms[i].addr; j++)
			;
		for (k = i; k < j; k++) {
			const struct elf_sym *s = &es->syms[k];

			if (literal ? strcmp(glob, s->name) : !glob_match(glob, s->name))
				continue;
			err = fn(s, ctx);
			if (err < 0)
				return err;
			calls++;
			break;
		}
		i = j;
	}
	return calls;
}

/* ======================================================================
 * Binary and library paths
 * ====================================================================== */

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH "riscv64-linux-gnu"
#define NATIVE_MACHINE EM_RISCV
#endif

static const char *const std_lib_dirs[] = {
#ifdef MULTIARCH
	"/lib/" MULTIARCH,
	"/usr/lib/" MULTIARCH,
#endif
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
	"/usr/local/lib",
};

/* A regular file holding an ELF object of our class (and machine). */
static bool is_native_elf(const char *path)
{
	unsigned char hdr[20];
	struct stat st;
	ssize_t r;
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	r = read(fd, hdr, sizeof(hdr));
	close(fd);
	if (r != (ssize_t)sizeof(hdr) || memcmp(hdr, ELFMAG, SELFMAG))
		return false;
	if (hdr[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return false;
#ifdef NATIVE_MACHINE
	{
		uint16_t machine;

		memcpy(&machine, hdr + 18, 2);
		if (hdr[EI_DATA] == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				     ELFDATA2LSB : ELFDATA2MSB) &&
		    machine != NATIVE_MACHINE)
			return false;
	}
#endif
	return true;
}

/* Score how well a directory entry matches "BASE.so[.VERSION]":
 * 0 = soname "BASE.so.N", 1 = "BASE.so.N.M...", 2 = "BASE.so"; -1 = no. */
static int lib_name_score(const char *ent, const char *base)
{
	size_t n = strlen(base);
	const char *v;

	if (strncmp(ent, base, n) || strncmp(ent + n, ".so", 3))
		return -1;
	v = ent + n + 3;
	if (!*v)
		return 2;
	if (*v != '.' || !v[1])
		return -1;
	v++;
	if (v[strspn(v, "0123456789")] == '\0')
		return 0;
	return 1;
}

struct lib_dirs {
	char **dirs;
	size_t nr;
};

static int lib_dirs_add(struct lib_dirs *ld, const char *dir)
{
	char **n;

	for (size_t i = 0; i < ld->nr; i++)
		if (!strcmp(ld->dirs[i], dir))
			return 0;
	n = realloc(ld->dirs, (ld->nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	ld->dirs = n;
	ld->dirs[ld->nr] = strdup(dir);
	if (!ld->dirs[ld->nr])
		return -ENOMEM;
	ld->nr++;
	return 0;
}

static void lib_dirs_free(struct lib_dirs *ld)
{
	for (size_t i = 0; i < ld->nr; i++)
		free(ld->dirs[i]);
	free(ld->dirs);
}

/* Standard directories, then the absolute directories listed in
 * /etc/ld.so.conf.d/ (one per line, '#' comments). */
static int lib_dirs_init(struct lib_dirs *ld)
{
	glob_t g;
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(std_lib_dirs); i++) {
		err = lib_dirs_add(ld, std_lib_dirs[i]);
		if (err)
			return err;
	}
	if (glob("/etc/ld.so.conf.d/*.conf", 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *buf, *line, *save = NULL;

		if (read_file(g.gl_pathv[i], &buf, NULL))
			continue;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			line[strcspn(line, "#")] = '\0';
			line = str_trim(line);
			if (line[0] == '/' && lib_dirs_add(ld, line)) {
				free(buf);
				globfree(&g);
				return -ENOMEM;
			}
		}
		free(buf);
	}
	globfree(&g);
	return 0;
}

/* Best "BASE.so*" ELF file in dir, written to out; -ENOENT if none. */
static int lib_find_in_dir(const char *dir, const char *base, char *out,
			   size_t outlen)
{
	char best[NAME_MAX + 1] = "", path[PATH_MAX];
	int best_score = 3;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		int score = lib_name_score(de->d_name, base);

		if (score < 0 || score > best_score)
			continue;
		/* same class: the higher version wins */
		if (score == best_score && strverscmp(de->d_name, best) <= 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) >= sizeof(path) ||
		    !is_native_elf(path))
			continue;
		best_score = score;
		snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!best[0])
		return -ENOENT;
	if ((size_t)snprintf(out, outlen, "%s/%s", dir, best) >= outlen)
		return -ENAMETOOLONG;
	return 0;
}

static int resolve_library(const char *name, char *out, size_t outlen)
{
	struct lib_dirs ld = { 0 };
	char path[PATH_MAX], base[NAME_MAX + 1], libbase[NAME_MAX + 4];
	size_t n;
	int err;

	err = lib_dirs_init(&ld);
	if (err)
		goto out;

	/* exact file name, e.g. "libc.so.6" */
	for (size_t i = 0; i < ld.nr; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", ld.dirs[i],
				     name) >= sizeof(path))
			continue;
		if (is_native_elf(path)) {
			err = copy_str(out, outlen, path);
			goto out;
		}
	}

	/* "libc" / "c" / "libc.so" -> libc.so* */
	n = strlen(name);
	if (n >= sizeof(base)) {
		err = -ENOENT;
		goto out;
	}
	memcpy(base, name, n + 1);
	if (n > 3 && !strcmp(base + n - 3, ".so"))
		base[n - 3] = '\0';
	snprintf(libbase, sizeof(libbase), "lib%s", base);
	err = -ENOENT;
	for (size_t i = 0; i < ld.nr && err == -ENOENT; i++) {
		err = lib_find_in_dir(ld.dirs[i], base, out, outlen);
		if (err == -ENOENT && strncmp(base, "lib", 3))
			err = lib_find_in_dir(ld.dirs[i], libbase, out, outlen);
	}
out:
	lib_dirs_free(&ld);
	return err;
}

static int resolve_on_path(const char *name, char *out, size_t outlen)
{
	const char *env = getenv("PATH");
	char path[PATH_MAX];
	struct stat st;

	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	while (*env) {
		size_t len = strcspn(env, ":");

		if (len && (size_t)snprintf(path, sizeof(path), "%.*s/%s",
					    (int)len, env, name) < sizeof(path) &&
		    !stat(path, &st) && S_ISREG(st.st_mode) &&
		    !access(path, X_OK))
			return copy_str(out, outlen, path);
		env += len;
		if (*env == ':')
			env++;
	}
	return -ENOENT;
}

int resolve_binary_path(const char *name, char *out, size_t outlen)
{
	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (access(name, F_OK))
			return -ENOENT;
		return copy_str(out, outlen, name);
	}
	if (!resolve_on_path(name, out, outlen))
		return 0;
	return resolve_library(name, out, outlen);
}

/* ======================================================================
 * Processes
 * ====================================================================== */

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
		uint64_t start, end, off;
		int pos = -1, mod = -1;
		size_t len;
		bool deleted = false;

		p = *nl ? nl + 1 : nl;
		*nl = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*x:%*x %*u %n",
			   &start, &end, &off, &pos) < 3 || pos < 0)
			continue;
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
		if (ps->nr_maps == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct proc_map *n = realloc(ps->maps, ncap * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			ps->maps = n;
			cap = ncap;
		}
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
	if (err)
		return err;

	for (p = ps->jit_buf; *p;) {
		char *line = p, *nl = strchrnul(p, '\n'), *name;
		uint64_t start, size;

		p = *nl ? nl + 1 : nl;
		*nl = '\0';
		seq++;
		line += strspn(line, " \t");
		if (!parse_hex(&line, &start) || (*line != ' ' && *line != '\t'))
			continue;
		line += strspn(line, " \t");
		if (!parse_hex(&line, &size) || (*line != ' ' && *line != '\t'))
			continue;
		name = str_trim(line);
		if (!*name || !size)
			continue;
		if (ps->nr_jit == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct jit_sym *n = realloc(ps->jit, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			ps->jit = n;
			cap = ncap;
		}
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

/* Size of a native ELF image in memory, from its header (the section
 * headers come last in the vdso); 0 if it is not one. */
static size_t elf_image_size(const unsigned char *img)
{
#if UINTPTR_MAX > 0xffffffffu
	Elf64_Ehdr eh;
	const unsigned char class = ELFCLASS64;
#else
	Elf32_Ehdr eh;
	const unsigned char class = ELFCLASS32;
#endif
	size_t sh_end, ph_end;

	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != class)
		return 0;
	sh_end = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	ph_end = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
	return sh_end > ph_end ? sh_end : ph_end;
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
	Elf *elf;
	int fd, err = 0;
	bool ok = false;

	if (!len || len > (16u << 20) || !libelf_ready())
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
		const unsigned char *own =
			(const unsigned char *)getauxval(AT_SYSINFO_EHDR);
		size_t own_len = own ? elf_image_size(own) : 0;

		if (!own_len || own_len > len)
			goto out;
		memcpy(img, own, own_len);
		len = own_len;
	}
	elf = elf_memory((char *)img, len);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		es = elf_syms_build("[vdso]", elf, false, &err);
	if (elf)
		elf_end(elf);
out:
	free(img);
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
			m->syms = elf_syms_open(path, &err);
		else if (!access(m->name, R_OK))
			m->syms = elf_syms_open(m->name, &err);
	}
	if (!m->syms && err != -ENOEXEC) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)ps->pid, m->start, m->end);
		if (!access(path, R_OK))
			m->syms = elf_syms_open(path, &err);
	}
	if (m->syms)
		kd_info("loaded %zu function symbols of %s", m->syms->nr,
			m->name);
	else
		kd_info("failed to load symbols of %s: %s", m->name,
			strerror(err ? -err : ENOENT));
	return m->syms;
}

static const struct proc_map *proc_map_find(const struct proc_syms *ps,
					    uint64_t addr)
{
	size_t lo = 0, hi = ps->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= ps->maps[lo - 1].end)
		return NULL;
	return &ps->maps[lo - 1];
}

static const struct jit_sym *proc_jit_find(const struct proc_syms *ps,
					   uint64_t addr)
{
	const struct jit_sym *best = NULL;
	size_t lo = 0, hi = ps->nr_jit, j, limit = 64;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->jit[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* overlapping entries (re-used code memory): the latest line wins */
	for (j = lo; j-- > 0 && limit--;) {
		const struct jit_sym *s = &ps->jit[j];

		if (addr - s->start < s->size && (!best || s->seq > best->seq))
			best = s;
	}
	return best;
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
