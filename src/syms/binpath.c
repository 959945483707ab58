// SPDX-License-Identifier: GPL-2.0
/* Binary and library paths: a name given for a uprobe, resolved as the
 * shell finds a command and the dynamic linker a library. */
#include "syms/binpath.h"
#include "syms/elfsyms.h"
#include "lib/util.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_str(char *out, size_t outlen, const char *s)
{
	size_t n = strlen(s);

	if (n >= outlen)
		return -ENAMETOOLONG;
	memcpy(out, s, n + 1);
	return 0;
}

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH "riscv64-linux-gnu"
#define NATIVE_MACHINE EM_RISCV
#else
#define NATIVE_MACHINE EM_NONE	/* any machine */
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
	unsigned int class, machine;
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) ||
	    elf_file_arch(path, &class, &machine))
		return false;
	return class == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
	       (NATIVE_MACHINE == EM_NONE || machine == NATIVE_MACHINE);
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
		unsigned int class, machine;

		if (access(name, F_OK))
			return -ENOENT;
		/* an ELF object of another machine (an aarch64 build on x86)
		 * would take probes that nothing here ever runs into */
		if (!elf_file_arch(name, &class, &machine) && !is_native_elf(name))
			return -ENOEXEC;
		return copy_str(out, outlen, name);
	}
	if (!resolve_on_path(name, out, outlen))
		return 0;
	return resolve_library(name, out, outlen);
}
