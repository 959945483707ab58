/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by every user-space file: one error idiom, verbosity,
 * string utilities.  Functions return 0 or a negative errno; messages read
 * "kdist: failed to <verb> <object>: <reason>". */
#ifndef KDIST_UTIL_H
#define KDIST_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern int kd_verbose_level;
/* Set by a message "bad ..." or "unknown ...": a mistake in the command
 * line, which kdist exits 2 for (runtime failures exit 1). */
extern bool kd_bad_input;
/* When set, messages read "kdist: CONTEXT: ..." (serve names the
 * measurement a message is about). */
extern const char *kd_err_context;

/* One line to stderr, prefixed with "kdist: ".  A quoted value ('...')
 * longer than about 100 characters is shortened. */
void kd_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, only with -v. */
void kd_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Read a whole (small, e.g. procfs/tracefs) file into a NUL-terminated
 * malloc'd buffer.  Returns 0 or -errno. */
int read_file(const char *path, char **out, size_t *len);

/* Monotonic clock in nanoseconds. */
uint64_t now_ns(void);

/* A 64-bit hash of len bytes (FNV-1a, finished with hash_mix(): its low
 * bits are as good as its high ones, for tables that take them). */
uint64_t hash_bytes(const void *p, size_t len);
/* Mix the bits of x (the finalizer of MurmurHash3), e.g. to combine hashes. */
uint64_t hash_mix(uint64_t x);

/* Shell-style glob match (fnmatch without flags). */
bool glob_match(const char *pattern, const char *s);

/* Trim leading/trailing whitespace in place; returns s. */
char *str_trim(char *s);

#endif
