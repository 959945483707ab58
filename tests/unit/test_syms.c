// SPDX-License-Identifier: GPL-2.0
/* Unit test of the symbol modules behind src/syms/syms.h; needs no root.
 * Built and run by `make check-unit`.
 *
 * Checks that compare against the ELF file parse it here with plain <elf.h>
 * structures (and nm/objcopy when available), independently of libelf. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "syms/syms.h"
#include "lib/util.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include "check.h"
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- independent ELF reading (plain <elf.h>, 64-bit native) ----------- */

struct raw_elf {
	unsigned char *buf;
	size_t len;
	bool owned;
};

static int raw_elf_read(const char *path, struct raw_elf *re)
{
	char *buf;
	size_t len;
	int err = read_file(path, &buf, &len);

	if (err)
		return err;
	re->buf = (unsigned char *)buf;
	re->len = len;
	re->owned = true;
	if (len < sizeof(Elf64_Ehdr) || memcmp(buf, ELFMAG, SELFMAG) ||
	    buf[EI_CLASS] != ELFCLASS64) {
		free(buf);
		return -ENOEXEC;
	}
	return 0;
}

static const Elf64_Shdr *raw_shdr(const struct raw_elf *re, size_t i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)re->buf;

	if (!eh->e_shoff || i >= eh->e_shnum ||
	    eh->e_shoff + (i + 1) * sizeof(Elf64_Shdr) > re->len)
		return NULL;
	return (const Elf64_Shdr *)(re->buf + eh->e_shoff) + i;
}

/* st_value of the first defined symbol called name in .symtab/.dynsym. */
static bool raw_sym_value(const struct raw_elf *re, const char *name,
			  uint64_t *value)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)re->buf;

	for (size_t i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = raw_shdr(re, i), *strsh;
		const Elf64_Sym *syms;

		if (!sh || (sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM))
			continue;
		strsh = raw_shdr(re, sh->sh_link);
		if (!strsh || sh->sh_offset + sh->sh_size > re->len ||
		    strsh->sh_offset + strsh->sh_size > re->len)
			continue;
		syms = (const Elf64_Sym *)(re->buf + sh->sh_offset);
		for (size_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); k++) {
			const char *n = (const char *)re->buf + strsh->sh_offset +
					syms[k].st_name;

			if (syms[k].st_shndx != SHN_UNDEF && !strcmp(n, name)) {
				*value = syms[k].st_value;
				return true;
			}
		}
	}
	return false;
}

static bool raw_vaddr_to_offset(const struct raw_elf *re, uint64_t vaddr,
				uint64_t *off)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)re->buf;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(re->buf + eh->e_phoff);

	for (size_t i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (vaddr >= ph[i].p_vaddr && vaddr < ph[i].p_vaddr + ph[i].p_filesz) {
			*off = vaddr - ph[i].p_vaddr + ph[i].p_offset;
			return true;
		}
	}
	return false;
}

static size_t raw_build_id(const struct raw_elf *re, unsigned char *out,
			   size_t max)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)re->buf;

	for (size_t i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = raw_shdr(re, i);
		size_t off;

		if (!sh || sh->sh_type != SHT_NOTE ||
		    sh->sh_offset + sh->sh_size > re->len)
			continue;
		for (off = 0; off + sizeof(Elf64_Nhdr) <= sh->sh_size;) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)
				(re->buf + sh->sh_offset + off);
			const char *nm = (const char *)(nh + 1);
			const unsigned char *desc = (const unsigned char *)nm +
						    ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(nm, "GNU", 4) && nh->n_descsz <= max) {
				memcpy(out, desc, nh->n_descsz);
				return nh->n_descsz;
			}
			off += sizeof(*nh) + ((nh->n_namesz + 3) & ~3u) +
			       ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static void raw_elf_free(struct raw_elf *re)
{
	if (re->owned)
		free(re->buf);
}

static bool file_bytes_equal_mem(const char *path, uint64_t off,
				 const void *mem, size_t n)
{
	unsigned char buf[64];
	int fd = open(path, O_RDONLY);
	bool ok;

	if (fd < 0 || n > sizeof(buf))
		return false;
	ok = pread(fd, buf, n, (off_t)off) == (ssize_t)n && !memcmp(buf, mem, n);
	close(fd);
	return ok;
}

/* Value of a symbol as printed by nm, or false if nm is unavailable. */
static bool nm_value(const char *path, const char *name, uint64_t *value)
{
	char cmd[PATH_MAX + 64], line[512];
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -- '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char sym[256], type;
		unsigned long long v;

		if (sscanf(line, "%llx %c %255s", &v, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			*value = v;
			found = true;
		}
	}
	pclose(f);
	return found;
}

static bool have_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* ---- functions looked up in this very binary -------------------------- */

__attribute__((noinline, noclone, used))
static int test_target_func(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i * 3 + (acc >> 1);
	return acc;
}

static int (*volatile target_ptr)(int) = test_target_func;

/* ---- kernel symbols --------------------------------------------------- */

static char fixture_dir[PATH_MAX + 16];

static void find_fixture_dir(void)
{
	char src[PATH_MAX], *slash;
	struct stat st;

	snprintf(src, sizeof(src), "%s", __FILE__);
	slash = strrchr(src, '/');
	if (slash) {
		*slash = '\0';
		snprintf(fixture_dir, sizeof(fixture_dir), "%s/fixtures", src);
		if (!stat(fixture_dir, &st))
			return;
	}
	snprintf(fixture_dir, sizeof(fixture_dir), "tests/unit/fixtures");
}

static bool name_is(const struct ksym *s, const char *name)
{
	return s && !strcmp(s->name, name);
}

static void test_kallsyms_fixture(const char *tmpdir)
{
	char path[PATH_MAX + 32];
	struct ksyms *ks;
	const struct ksym *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", fixture_dir);
	ks = ksyms_load_file(path);
	if (!check("ksyms_load_file fixture", ks != NULL, "%s: %s", path, strerror(errno)))
		return;

	check("ksyms keeps only text symbols", ksyms_count(ks) == 13,
	      "count %zu, want 13", ksyms_count(ks));

	s = ksyms_find(ks, 0xffffffff81000000ull);
	check("ksyms alias keeps first global name", name_is(s, "_text"),
	      "got %s", s ? s->name : "NULL");

	s = ksyms_find(ks, 0xffffffff81002000ull);
	check("ksyms alias prefers global over local", name_is(s, "do_sys_open"),
	      "got %s", s ? s->name : "NULL");

	s = ksyms_find(ks, 0xffffffff81002123ull);
	check("ksyms address between symbols",
	      name_is(s, "do_sys_open") && s->addr == 0xffffffff81002000ull &&
	      !s->module, "got %s", s ? s->name : "NULL");

	s = ksyms_find(ks, 0xffffffff81002400ull + 0x10);
	check("ksyms unsorted input sorted", name_is(s, "vfs_read"),
	      "got %s", s ? s->name : "NULL");

	s = ksyms_find(ks, 0xffffffff81001850ull);
	check("ksyms skips data symbols", name_is(s, "arch_weak_func"),
	      "got %s", s ? s->name : "NULL");

	check("ksyms below first symbol is NULL",
	      !ksyms_find(ks, 0xffffffff80ffffffull), NULL);

	s = ksyms_find(ks, 0xffffffffc0000210ull);
	check("ksyms module symbol",
	      name_is(s, "ext4_file_read_iter") && s->module &&
	      !strcmp(s->module, "ext4"),
	      "got %s [%s]", s ? s->name : "NULL",
	      s && s->module ? s->module : "-");

	s = ksyms_find(ks, 0xffffffffc0000150ull);
	check("ksyms module lookup skips module rodata",
	      name_is(s, "ext4_get_block") && s->module &&
	      !strcmp(s->module, "ext4"), "got %s", s ? s->name : "NULL");

	s = ksyms_find(ks, 0xffffffffc0000200ull + 0x8000);
	check("ksyms tail of last module symbol", name_is(s, "ext4_file_read_iter"),
	      "got %s", s ? s->name : "NULL");

	s = ksyms_find(ks, 0xffffffffc0020000ull + 0x10);
	check("ksyms bpf program symbol",
	      name_is(s, "bpf_prog_6deef7357e7b4530_sd_fw_ingress") &&
	      s->module && !strcmp(s->module, "bpf"),
	      "got %s", s ? s->name : "NULL");

	check("ksyms far past the last symbol is NULL",
	      !ksyms_find(ks, 0xffffffffc0020000ull + 0x1000000), NULL);
	check("ksyms gap between vmlinux and modules is NULL",
	      !ksyms_find(ks, 0xffffffffa0000000ull), NULL);

	check("ksyms_name_of",
	      ksyms_name_of(ks, 0xffffffff81001101ull) &&
	      !strcmp(ksyms_name_of(ks, 0xffffffff81001101ull),
		      "secondary_startup_64_no_verify"), NULL);

	s = ksyms_find_name(ks, "xfs_vn_open");
	check("ksyms_find_name",
	      s && s->addr == 0xffffffffc0010000ull && s->module &&
	      !strcmp(s->module, "xfs"), NULL);
	check("ksyms_find_name ignores data", !ksyms_find_name(ks, "init_task"),
	      NULL);
	ksyms_free(ks);

	/* as seen by an unprivileged user with kptr_restrict */
	snprintf(path, sizeof(path), "%s/kallsyms-hidden", tmpdir);
	f = fopen(path, "w");
	if (f) {
		fputs("0000000000000000 T _text\n0000000000000000 t foo\t[ext4]\n", f);
		fclose(f);
	}
	fprintf(stderr, "(an error about hidden addresses is expected next)\n");
	ks = ksyms_load_file(path);
	check("ksyms hidden addresses fail with EPERM", !ks && errno == EPERM,
	      "ks=%p errno=%d", (void *)ks, errno);
	ksyms_free(ks);
}

/* kernel variables' addresses: a per-CPU one at 0 is an address (x86-64's
 * per-CPU section starts there); all zero is kptr_restrict; no local
 * variables at all is a kernel without CONFIG_KALLSYMS_ALL */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_kallsyms_data(const char *tmpdir)
{
	char path[PATH_MAX + 32];
	uint64_t a = 1;
	int err;

	snprintf(path, sizeof(path), "%s/kallsyms-data", tmpdir);
	write_file(path, "0000000000000000 A __per_cpu_start\n"
			 "0000000000034e40 D runqueues\n"
			 "ffffffff81000000 T _text\n"
			 "ffffffff82a0c000 d local_var\n"
			 "ffffffff82b00000 D jiffies\n"
			 "ffffffffc0001000 d mod_var\t[mod]\n"
			 "ffffffff81001000 T text_only\n");
	err = ksyms_data_addr(path, "__per_cpu_start", &a);
	check("kallsyms data: a per-CPU address 0", !err && a == 0, "err %d addr %llx", err,
	      (unsigned long long)a);
	err = ksyms_data_addr(path, "runqueues", &a);
	check("kallsyms data: runqueues", !err && a == 0x34e40, "err %d addr %llx", err,
	      (unsigned long long)a);
	err = ksyms_data_addr(path, "jiffies", &a);
	check("kallsyms data: jiffies", !err && a == 0xffffffff82b00000ull, "err %d", err);
	check("kallsyms data: a module's variable is not vmlinux's",
	      ksyms_data_addr(path, "mod_var", &a) == -ENOENT, "found");
	check("kallsyms data: a function is no variable",
	      ksyms_data_addr(path, "text_only", &a) == -ENOENT, "found");
	{
		const char *names[3] = { "jiffies", "__per_cpu_start", "no_such" };
		uint64_t as[3];
		bool got[3];

		err = ksyms_data_addrs(path, names, as, got, 3);
		check("kallsyms data: several names in one pass, the missing one said",
		      err == -ENOENT && got[0] && got[1] && !got[2] &&
		      as[0] == 0xffffffff82b00000ull && as[1] == 0, "err %d", err);
	}
	write_file(path, "0000000000000000 D jiffies\n0000000000000000 d x\n");
	check("kallsyms data: hidden addresses", ksyms_data_addr(path, "jiffies", &a) == -EPERM,
	      "not EPERM");
	write_file(path, "ffffffff81000000 T _text\nffffffff82b00000 D __start_rodata\n");
	check("kallsyms data: no variables listed",
	      ksyms_data_addr(path, "jiffies", &a) == -ENODATA, "not ENODATA");
}

static void test_kallsyms_live(void)
{
	const struct ksym *s, *t;
	struct ksyms *ks;
	uint64_t t0;
	char *buf;

	/* only meaningful where the addresses are visible */
	if (read_file("/proc/kallsyms", &buf, NULL)) {
		skip("ksyms live /proc/kallsyms", "not readable");
		return;
	}
	if (!strncmp(buf, "0000000000000000", 16)) {
		free(buf);
		skip("ksyms live /proc/kallsyms", "addresses hidden");
		return;
	}
	free(buf);
	t0 = now_ns();
	ks = ksyms_load();
	if (!check("ksyms live load", ks && ksyms_count(ks) > 1000, NULL))
		return;
	printf("     %zu kernel text symbols in %.1f ms\n", ksyms_count(ks),
	       (now_ns() - t0) / 1e6);
	s = ksyms_find_name(ks, "schedule");
	t = s ? ksyms_find(ks, s->addr + 1) : NULL;
	check("ksyms live lookup of schedule+1", s && t && t->addr == s->addr,
	      "schedule %p, found %s", s ? (void *)(uintptr_t)s->addr : NULL,
	      t ? t->name : "NULL");
	ksyms_free(ks);
}

/* ---- ELF symbols of this binary --------------------------------------- */

static char self_path[PATH_MAX];

static void test_elf_self(void)
{
	const struct elf_sym *s, *s2;
	struct elf_syms *es;
	struct raw_elf re;
	uint64_t value, off, nmv;

	es = elf_syms_load(self_path);
	if (!check("elf_syms_load self", es != NULL, "%s", strerror(errno)))
		return;
	if (!check("raw ELF read of self", !raw_elf_read(self_path, &re), NULL)) {
		elf_syms_free(es);
		return;
	}
	s = elf_syms_find_name(es, "test_target_func");
	check("elf static function found", s && s->bind == STB_LOCAL &&
	      s->type == STT_FUNC && s->size > 0, NULL);
	if (s && raw_sym_value(&re, "test_target_func", &value) &&
	    raw_vaddr_to_offset(&re, value, &off)) {
		check("elf st_value matches raw ELF", s->addr == value,
		      "%#" PRIx64 " vs %#" PRIx64, s->addr, value);
		check("elf uprobe offset matches raw ELF", s->offset == off,
		      "%#" PRIx64 " vs %#" PRIx64, s->offset, off);
		check("elf uprobe offset holds the function's code",
		      file_bytes_equal_mem(self_path, s->offset,
					   (const void *)test_target_func, 16),
		      NULL);
	} else {
		check("elf raw lookup of test_target_func", false, NULL);
	}
	if (s && nm_value(self_path, "test_target_func", &nmv))
		check("elf st_value matches nm", s->addr == nmv,
		      "%#" PRIx64 " vs %#" PRIx64, s->addr, nmv);
	else
		skip("elf st_value matches nm", "nm unavailable");

	if (s) {
		s2 = elf_syms_find(es, s->addr + s->size - 1);
		check("elf_syms_find inside function", s2 == s, "got %s",
		      s2 ? s2->name : "NULL");
		s2 = elf_syms_find(es, s->addr);
		check("elf_syms_find at start", s2 == s, NULL);
		check("elf vaddr/offset round trip",
		      !elf_syms_offset_to_vaddr(es, s->offset, &value) &&
		      value == s->addr, NULL);
	}
	s = elf_syms_find_name(es, "main");
	check("elf main is global", s && s->bind == STB_GLOBAL, NULL);
	check("elf_syms_find below text is NULL", !elf_syms_find(es, 0x10), NULL);
	raw_elf_free(&re);
	elf_syms_free(es);
}

#define NO_BUILD_ID "--remove-section=.note.gnu.build-id"

/* Stripped copies of this binary with their debug file next to them. */
static void test_debuglink(const char *tmpdir)
{
	char cmd[16 * PATH_MAX], dir[PATH_MAX], app[PATH_MAX + 16];
	const struct elf_sym *s;
	struct elf_syms *es;
	static const struct {
		const char *name;
		const char *prep;	/* extra objcopy step on the input */
		const char *debug_dir;	/* where the .debug file goes */
		bool corrupt;
		bool want;
	} cases[] = {
		{ "elf debuglink with build-id (.debug/)",
		  NULL, "/.debug", false, true },
		{ "elf debuglink CRC without build-id",
		  NO_BUILD_ID, "", false, true },
		{ "elf debuglink CRC mismatch rejected",
		  NO_BUILD_ID, "", true, false },
	};

	if (!have_tool("objcopy")) {
		skip("elf debuglink", "objcopy unavailable");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(dir, sizeof(dir), "%s/dl%zu", tmpdir, i);
		snprintf(app, sizeof(app), "%s/app", dir);
		snprintf(cmd, sizeof(cmd),
			 "(set -e; mkdir -p '%s%s'; objcopy %s '%s' '%s/full'; "
			 "objcopy --only-keep-debug '%s/full' '%s%s/app.debug'; "
			 "objcopy --strip-all --add-gnu-debuglink='%s%s/app.debug' '%s/full' '%s'; "
			 "rm -f '%s/full'%s) 2>'%s.log'",
			 dir, cases[i].debug_dir, cases[i].prep ? cases[i].prep : "",
			 self_path, dir, dir, dir, cases[i].debug_dir,
			 dir, cases[i].debug_dir, dir, app, dir,
			 cases[i].corrupt ? "; echo x >> \"$D\"" : "", dir);
		if (cases[i].corrupt) {
			char env[PATH_MAX + 32];

			snprintf(env, sizeof(env), "%s%s/app.debug", dir,
				 cases[i].debug_dir);
			setenv("D", env, 1);
		}
		if (system(cmd)) {
			check(cases[i].name, false, "objcopy failed, see %s.log", dir);
			continue;
		}
		es = elf_syms_load(app);
		s = es ? elf_syms_find_name(es, "test_target_func") : NULL;
		check(cases[i].name, es && (s != NULL) == cases[i].want,
		      "es=%p sym=%p", (void *)es, (const void *)s);
		elf_syms_free(es);
	}
}

/* ---- library paths and libc ------------------------------------------- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static char libc_path[PATH_MAX];

static void test_resolve_paths(void)
{
	char out[PATH_MAX], out2[PATH_MAX];
	int err;

	err = resolve_binary_path("libc", libc_path, sizeof(libc_path));
	check("resolve_binary_path libc", !err &&
	      !strcmp(base_name(libc_path), "libc.so.6"), "err %d, got %s", err,
	      err ? "" : libc_path);
	err = resolve_binary_path("c", out, sizeof(out));
	check("resolve_binary_path c", !err && !strcmp(out, libc_path),
	      "err %d, got %s", err, err ? "" : out);
	err = resolve_binary_path("libc.so.6", out, sizeof(out));
	check("resolve_binary_path libc.so.6", !err && !strcmp(out, libc_path),
	      "err %d, got %s", err, err ? "" : out);
	err = resolve_binary_path("libc.so", out, sizeof(out));
	check("resolve_binary_path libc.so skips linker script",
	      !err && !strcmp(base_name(out), "libc.so.6"), "err %d, got %s",
	      err, err ? "" : out);
	err = resolve_binary_path("sh", out, sizeof(out));
	check("resolve_binary_path sh on PATH",
	      !err && !strcmp(base_name(out), "sh") && !access(out, X_OK),
	      "err %d", err);
	err = resolve_binary_path(self_path, out, sizeof(out));
	check("resolve_binary_path with slash", !err && !strcmp(out, self_path),
	      NULL);
	check("resolve_binary_path missing file",
	      resolve_binary_path("/nonexistent/kdist/x", out, sizeof(out)) == -ENOENT,
	      NULL);
	check("resolve_binary_path unknown library",
	      resolve_binary_path("kdist_no_such_lib_zz", out, sizeof(out)) == -ENOENT,
	      NULL);
	check("resolve_binary_path short buffer",
	      resolve_binary_path("libc", out2, 4) == -ENAMETOOLONG, NULL);
}

/* The address of a function in the loaded libc itself, even if another
 * object (a sanitizer runtime, say) interposes it. */
static void *libc_sym(const char *name)
{
	void *h = dlopen(libc_path, RTLD_NOW | RTLD_NOLOAD), *p;

	if (!h)
		return NULL;
	p = dlsym(h, name);
	dlclose(h);
	return p;
}

struct match_ctx {
	int calls;
	uint64_t last_addr;
	bool ordered;
	uint64_t malloc_addr;
	int ifuncs;
};

static int count_cb(const struct elf_sym *s, void *ctx)
{
	struct match_ctx *m = ctx;

	if (m->calls && s->addr <= m->last_addr)
		m->ordered = false;
	m->last_addr = s->addr;
	m->calls++;
	if (!strcmp(s->name, "malloc"))
		m->malloc_addr = s->addr;
	if (s->type == STT_GNU_IFUNC)
		m->ifuncs++;
	return 0;
}

static int stop_cb(const struct elf_sym *s, void *ctx)
{
	(void)s;
	(void)ctx;
	return -ECANCELED;
}

static void test_libc(void)
{
	struct match_ctx m = { .ordered = true };
	const struct elf_sym *s;
	struct elf_syms *es = NULL;
	double best = 1e9;
	struct raw_elf re;
	void *rt_malloc;
	int n;

	if (!libc_path[0]) {
		skip("libc symbols", "libc not found");
		return;
	}
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = now_ns();
		double ms;

		elf_syms_free(es);
		es = elf_syms_load(libc_path);
		ms = (now_ns() - t0) / 1e6;
		if (ms < best)
			best = ms;
	}
	if (!check("elf_syms_load libc", es != NULL, "%s", strerror(errno)))
		return;
	printf("     %zu function symbols of %s in %.2f ms\n",
	       elf_syms_count(es), libc_path, best);

	n = elf_syms_match(es, "malloc", count_cb, &m);
	check("elf_syms_match malloc exactly once", n == 1 && m.calls == 1,
	      "n=%d calls=%d", n, m.calls);
	s = elf_syms_find_name(es, "malloc");
	check("elf_syms_find_name malloc", s && s->addr == m.malloc_addr &&
	      s->offset && s->size, NULL);

	rt_malloc = libc_sym("malloc");
	check("libc malloc offset holds malloc's code",
	      s && rt_malloc &&
	      file_bytes_equal_mem(libc_path, s->offset, rt_malloc, 32), NULL);

	if (s && !raw_elf_read(libc_path, &re)) {
		uint64_t v, off;

		check("libc malloc offset matches raw ELF",
		      raw_sym_value(&re, "malloc", &v) &&
		      raw_vaddr_to_offset(&re, v, &off) && off == s->offset,
		      NULL);
		raw_elf_free(&re);
	}

	memset(&m, 0, sizeof(m));
	m.ordered = true;
	n = elf_syms_match(es, "*alloc*", count_cb, &m);
	check("elf_syms_match glob one call per address",
	      n > 5 && m.ordered && n == m.calls, "n=%d ordered=%d", n, m.ordered);
	check("elf_syms_match glob picks malloc over __libc_malloc",
	      m.malloc_addr == (s ? s->addr : 1), NULL);

	memset(&m, 0, sizeof(m));
	elf_syms_match(es, "*", count_cb, &m);
	check("libc IFUNC symbols kept", m.ifuncs > 0, "ifuncs=%d", m.ifuncs);

	check("elf_syms_match callback error stops",
	      elf_syms_match(es, "*", stop_cb, NULL) == -ECANCELED, NULL);
	check("elf_syms_match no match", elf_syms_match(es, "kdist_nothing*",
							 count_cb, &m) == 0, NULL);

	if (s) {
		const struct elf_sym *a = elf_syms_find(es, s->addr + 1);

		check("libc alias lookup gives malloc", a && !strcmp(a->name, "malloc"),
		      "got %s", a ? a->name : "NULL");
	}

	/* stripped libc with a separate debug file under /usr/lib/debug */
	if (!raw_elf_read(libc_path, &re)) {
		unsigned char bid[64] = { 0 };
		size_t len = raw_build_id(&re, bid, sizeof(bid));
		char dbg[PATH_MAX];
		int pos;

		raw_elf_free(&re);
		pos = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", bid[0]);
		for (size_t i = 1; i < len; i++)
			pos += snprintf(dbg + pos, sizeof(dbg) - pos, "%02x", bid[i]);
		snprintf(dbg + pos, sizeof(dbg) - pos, ".debug");
		if (len && !access(dbg, R_OK)) {
			s = elf_syms_find_name(es, "_int_malloc");
			check("libc local symbols from build-id debug file",
			      s && s->bind == STB_LOCAL && s->offset, NULL);
		} else {
			skip("libc local symbols from build-id debug file",
			     "no debug file installed");
		}
	}
	elf_syms_free(es);
}

/* ---- process symbolization -------------------------------------------- */

static void test_proc(const char *tmpdir)
{
	char name[256], map_path[64], junk[PATH_MAX + 32];
	unsigned char *jit_area, *junk_map = NULL;
	struct proc_syms *ps;
	uint64_t base, vdso;
	FILE *f;
	int err, fd;

	/* JIT area: anonymous memory described by /tmp/perf-PID.map */
	jit_area = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit_area == MAP_FAILED) {
		check("mmap JIT area", false, "%s", strerror(errno));
		return;
	}
	base = (uintptr_t)jit_area;
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map_path, "w");
	if (!check("write perf map fixture", f != NULL, "%s", strerror(errno)))
		return;
	fprintf(f, "%" PRIx64 " 100 jit_func_one\n", base);
	fprintf(f, "0x%" PRIx64 " 0x80 LazyCompile:*foo bar.js:1\n", base + 0x100);
	fprintf(f, "%" PRIx64 " 10 old_code\n", base + 0x1000);
	fprintf(f, "garbage line\n");
	fprintf(f, "%" PRIx64 " 10 new_code\n", base + 0x1000);
	fclose(f);

	/* a mapped file without symbols */
	snprintf(junk, sizeof(junk), "%s/kdist-junk.bin", tmpdir);
	fd = open(junk, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		char page[4096];

		memset(page, 0x5a, sizeof(page));
		if (write(fd, page, sizeof(page)) == (ssize_t)sizeof(page))
			junk_map = mmap(NULL, sizeof(page), PROT_READ, MAP_PRIVATE,
					fd, 0);
		close(fd);
		if (junk_map == MAP_FAILED)
			junk_map = NULL;
	}

	ps = proc_syms_load(getpid());
	unlink(map_path);
	if (!check("proc_syms_load self", ps != NULL, "%s", strerror(errno)))
		goto out;

	err = proc_syms_resolve(ps, (uintptr_t)target_ptr, name, sizeof(name));
	check("proc static function by runtime address (PIE/ASLR)",
	      !err && !strcmp(name, "test_target_func"), "err %d, got %s", err, name);
	err = proc_syms_resolve(ps, (uintptr_t)target_ptr + 5, name, sizeof(name));
	check("proc address inside function gives name without offset",
	      !err && !strcmp(name, "test_target_func"), "got %s", name);
	err = proc_syms_resolve(ps, (uintptr_t)libc_sym("malloc"),
				name, sizeof(name));
	check("proc libc function", !err && !strcmp(name, "malloc"), "got %s", name);

	vdso = getauxval(AT_SYSINFO_EHDR);
	if (vdso) {
		const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(uintptr_t)vdso;
		struct raw_elf re = {
			.buf = (unsigned char *)(uintptr_t)vdso,
			.len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize,
		};
		uint64_t v, off;

		if (raw_sym_value(&re, "__vdso_clock_gettime", &v) &&
		    raw_vaddr_to_offset(&re, v, &off)) {
			err = proc_syms_resolve(ps, vdso + off + 1, name, sizeof(name));
			check("proc vdso function",
			      !err && (!strcmp(name, "__vdso_clock_gettime") ||
				       !strcmp(name, "clock_gettime")),
			      "err %d, got %s", err, name);
		} else {
			skip("proc vdso function", "no __vdso_clock_gettime");
		}
	}

	err = proc_syms_resolve(ps, base + 0x10, name, sizeof(name));
	check("proc perf map symbol", !err && !strcmp(name, "jit_func_one"),
	      "err %d, got %s", err, name);
	err = proc_syms_resolve(ps, base + 0x17f, name, sizeof(name));
	check("proc perf map name with spaces, 0x prefix",
	      !err && !strcmp(name, "LazyCompile:*foo bar.js:1"), "got %s", name);
	err = proc_syms_resolve(ps, base + 0x1004, name, sizeof(name));
	check("proc perf map later entry wins", !err && !strcmp(name, "new_code"),
	      "got %s", name);
	err = proc_syms_resolve(ps, base + 0x180, name, sizeof(name));
	check("proc perf map end is exclusive",
	      err == -ENOENT && !strcmp(name, "[unknown]"), "err %d, got %s",
	      err, name);
	err = proc_syms_resolve(ps, 0x10, name, sizeof(name));
	check("proc unmapped address is [unknown]",
	      err == -ENOENT && !strcmp(name, "[unknown]"), "got %s", name);
	if (junk_map) {
		err = proc_syms_resolve(ps, (uintptr_t)junk_map + 0x10, name,
					sizeof(name));
		check("proc file without symbols gives [basename]",
		      err == -ENOENT && !strcmp(name, "[kdist-junk.bin]"),
		      "err %d, got %s", err, name);
	}
	err = proc_syms_resolve(ps, (uintptr_t)target_ptr, name, 5);
	check("proc resolve truncates to buffer", !strcmp(name, "test"),
	      "got %s", name);
	proc_syms_free(ps);

	errno = 0;
	fprintf(stderr, "(an error about a missing pid is expected next)\n");
	ps = proc_syms_load(0x3fffffff);
	check("proc_syms_load of a missing pid fails", !ps && errno == ENOENT,
	      "errno %d", errno);
out:
	if (junk_map)
		munmap(junk_map, 4096);
	munmap(jit_area, 0x10000);
}

int main(void)
{
	char tmpdir[] = "/tmp/kdist-test-syms.XXXXXX", cmd[64];
	ssize_t n;

	if (target_ptr(3) < 0)	/* keep test_target_func alive */
		return 2;
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n <= 0 || !mkdtemp(tmpdir)) {
		perror("setup");
		return 2;
	}
	self_path[n] = '\0';
	find_fixture_dir();

	test_kallsyms_fixture(tmpdir);
	test_kallsyms_data(tmpdir);
	test_kallsyms_live();
	test_elf_self();
	test_debuglink(tmpdir);
	test_resolve_paths();
	test_libc();
	test_proc(tmpdir);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return check_done();
}
