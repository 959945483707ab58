// SPDX-License-Identifier: GPL-2.0
/* ELF function symbols: .symtab and .dynsym read with libelf into one array
 * sorted by address, the preferred alias first at each address; the
 * separate debug file of a stripped binary found by build-id or
 * .gnu_debuglink; PT_LOAD segments for file offsets. */
#include "syms/elfsyms.h"
#include "syms/symtab.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define DEBUG_DIR "/usr/lib/debug"

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

struct elf_file {
	int fd;
	Elf *elf;
};

/* -EINVAL if libelf cannot start, -ENOEXEC if path is not an ELF file. */
static int elf_file_open(const char *path, struct elf_file *f)
{
	f->elf = NULL;
	f->fd = -1;
	if (!libelf_ready())
		return -EINVAL;
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

int elf_file_arch(const char *path, unsigned int *class, unsigned int *machine)
{
	struct elf_file f;
	GElf_Ehdr eh;
	int err = elf_file_open(path, &f);

	if (err)
		return err;
	if (gelf_getehdr(f.elf, &eh)) {
		*class = eh.e_ident[EI_CLASS];
		*machine = eh.e_machine;
	} else {
		err = -ENOEXEC;
	}
	elf_file_close(&f);
	return err;
}

/* The contents of the next section of type sh_type after *scn (NULL: from
 * the first), its header in *sh; NULL when no further one has contents. */
static Elf_Data *elf_next_data(Elf *elf, Elf_Scn **scn, GElf_Word sh_type,
			       GElf_Shdr *sh)
{
	while ((*scn = elf_nextscn(elf, *scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(*scn, sh) || sh->sh_type != sh_type)
			continue;
		data = elf_getdata(*scn, NULL);
		if (data && data->d_buf && data->d_size)
			return data;
	}
	return NULL;
}

static int elf_syms_add(struct elf_syms *es, const char *name, size_t len,
			const GElf_Sym *sym)
{
	struct elf_sym *syms;
	char *strs;

	syms = symtab_reserve(es->syms, &es->cap, es->nr + 1, sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	es->syms = syms;
	strs = symtab_reserve(es->strs, &es->strs_cap, es->strs_len + len + 1, 1);
	if (!strs)
		return -ENOMEM;
	es->strs = strs;
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
 * number of such sections with contents, or -errno. */
static int elf_syms_collect(struct elf_syms *es, Elf *elf, GElf_Word sh_type)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	int found = 0;

	while ((data = elf_next_data(elf, &scn, sh_type, &sh))) {
		size_t n = entsize ? data->d_size / entsize : 0;

		found++;
		/* gelf_getsym() takes an int index */
		if (n > INT_MAX)
			n = INT_MAX;
		for (size_t i = 0; i < n; i++) {
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
	Elf_Data *data;
	GElf_Shdr sh;
	size_t nph, i, n;

	while ((data = elf_next_data(elf, &scn, SHT_NOTE, &sh)))
		if ((n = note_build_id(data, out, max)))
			return n;
	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		/* notes aligned to 8 pad their name and descriptor to 8 */
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 :
							      ELF_T_NHDR);
		if (data && (n = note_build_id(data, out, max)))
			return n;
	}
	return 0;
}

/* The file name in .gnu_debuglink and the CRC after it, or NULL. */
static const char *elf_debuglink(Elf *elf, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((data = elf_next_data(elf, &scn, SHT_PROGBITS, &sh))) {
		const char *sname = elf_strptr(elf, shstrndx, sh.sh_name);
		const char *link = data->d_buf;
		size_t len, crc_off;
		Elf_Data word = { .d_type = ELF_T_WORD, .d_size = 4,
				  .d_version = EV_CURRENT }, host = word;

		if (!sname || strcmp(sname, ".gnu_debuglink"))
			continue;
		len = strnlen(link, data->d_size);
		crc_off = (len + 4) & ~(size_t)3;
		if (len == 0 || len == data->d_size || crc_off + 4 > data->d_size)
			return NULL;
		/* the CRC is a word in the file's byte order */
		word.d_buf = (char *)data->d_buf + crc_off;
		host.d_buf = crc;
		if (!gelf_xlatetom(elf, &host, &word,
				   elf_getident(elf, NULL)[EI_DATA]))
			return NULL;
		return link;
	}
	return NULL;
}

/* Open a debug file candidate; it must have a .symtab and match the
 * build-id (if the binary has one) or else the debuglink CRC. */
static bool debug_try(const char *cand, const uint8_t *bid, size_t bid_len,
		      const uint32_t *crc, struct elf_file *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (access(cand, R_OK) || elf_file_open(cand, out))
		return false;
	if (!elf_next_data(out->elf, &scn, SHT_SYMTAB, &sh))
		goto reject;
	if (bid_len) {
		uint8_t cbid[64];
		size_t clen = elf_build_id(out->elf, cbid, sizeof(cbid));

		if (clen != bid_len || memcmp(cbid, bid, bid_len))
			goto reject;
	} else if (crc) {
		size_t len;
		const char *raw = elf_rawfile(out->elf, &len);

		if (!raw || crc32_z(0, (const Bytef *)raw, len) != *crc)
			goto reject;
	}
	return true;
reject:
	elf_file_close(out);
	return false;
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

static int addr_cmp(const struct elf_sym *x, const struct elf_sym *y)
{
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Address order; among aliases the preferred name first. */
static int elf_sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->addr != y->addr)
		return addr_cmp(x, y);
	if (bind_rank(x->bind) != bind_rank(y->bind))
		return (int)bind_rank(x->bind) - (int)bind_rank(y->bind);
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int addr_name_cmp(const struct elf_sym *x, const struct elf_sym *y)
{
	int c = addr_cmp(x, y);

	return c ? c : strcmp(x->name, y->name);
}

/* Address and name order, the best binding first: copies of one symbol
 * (in both .symtab and .dynsym) become neighbours. */
static int elf_sym_cmp_name(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	int c = addr_name_cmp(x, y);

	return c ? c : (int)bind_rank(x->bind) - (int)bind_rank(y->bind);
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

/* Turn name offsets into pointers, merge copies of a symbol (keeping the
 * best binding and the largest size), compute uprobe offsets and sort.
 * Two sorts keep this O(n log n) however many aliases share an address. */
static void elf_syms_finish(struct elf_syms *es)
{
	size_t i, n = 0;

	if (!es->nr)
		return;
	for (i = 0; i < es->nr; i++)
		es->syms[i].name = es->strs + (uintptr_t)es->syms[i].name;
	qsort(es->syms, es->nr, sizeof(*es->syms), elf_sym_cmp_name);
	for (i = 0; i < es->nr; i++) {
		struct elf_sym *s = &es->syms[i], *last = n ? &es->syms[n - 1] : NULL;

		if (last && !addr_name_cmp(s, last)) {
			if (s->size > last->size)
				last->size = s->size;
			continue;
		}
		if (elf_syms_vaddr_to_offset(es, s->addr, &s->offset))
			s->offset = 0;
		es->syms[n++] = *s;
	}
	es->nr = n;
	qsort(es->syms, es->nr, sizeof(*es->syms), elf_sym_cmp);
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

struct elf_syms *elf_syms_open(const char *path)
{
	struct elf_file f;
	struct elf_syms *es;
	int err;

	err = elf_file_open(path, &f);
	if (err) {
		errno = -err;
		return NULL;
	}
	es = elf_syms_build(path, f.elf, true, &err);
	elf_file_close(&f);
	if (!es)
		errno = -err;
	return es;
}

struct elf_syms *elf_syms_open_image(const char *name, void *img, size_t len)
{
	struct elf_syms *es = NULL;
	int err = -ENOEXEC;
	Elf *elf;

	if (!libelf_ready()) {
		errno = EINVAL;
		return NULL;
	}
	elf = elf_memory(img, len);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		es = elf_syms_build(name, elf, false, &err);
	if (elf)
		elf_end(elf);
	if (!es)
		errno = -err;
	return es;
}

struct elf_syms *elf_syms_load(const char *path)
{
	uint64_t t0 = now_ns();
	struct elf_syms *es = elf_syms_open(path);
	int err = errno;

	if (!es) {
		if (err == ENOEXEC)
			kd_err("failed to read symbols of %s: not an ELF file", path);
		else if (err == EINVAL)
			kd_err("failed to initialize libelf: %s", elf_errmsg(-1));
		else
			kd_err("failed to read symbols of %s: %s", path,
			       strerror(err));
		errno = err;
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
	size_t lo, j, limit = 64;
	uint64_t nearest, group;

	if (!es || !es->nr)
		return NULL;
	lo = symtab_upper(es->syms, es->nr, sizeof(*es->syms),
			  offsetof(struct elf_sym, addr), vaddr);
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
