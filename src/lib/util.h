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
/* --btf FILE: the kernel's types for CO-RE (engine_open_opts) */
extern const char *kd_btf_file;
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

/* Read a whole regular file (procfs, tracefs, a binary, a process's
 * /tmp/perf-PID.map) into a NUL-terminated malloc'd buffer.  Returns 0 or
 * -errno: -EINVAL for anything but a regular file (a process may put a FIFO
 * or a link to /dev/zero where kdist reads its JIT symbols), -EFBIG beyond
 * READ_FILE_MAX. */
#define READ_FILE_MAX (1ul << 30)
int read_file(const char *path, char **out, size_t *len);
/* read_file with at most max bytes (-EFBIG beyond): a file whose content
 * decides what is safe (a --web-config) must be one that stays put. */
int read_file_max(const char *path, size_t max, char **out, size_t *len);

/* Read a file a user names (a config, a saved measurement, folded stacks)
 * with bounds that hostile input cannot get past: at most max bytes (-EFBIG
 * beyond), regular files and pipes only (-EINVAL for devices, sockets and
 * directories: /dev/zero never ends), and a pipe or FIFO that sends nothing
 * for INPUT_IDLE_MS gives -ETIMEDOUT instead of blocking forever (a FIFO
 * with no writer included).  Same result as read_file otherwise. */
#define INPUT_IDLE_MS 10000
int read_input(const char *path, size_t max, char **out, size_t *len);
/* The reason for read_input's error, for "failed to read FILE: <reason>". */
const char *read_input_strerror(int err, size_t max);

/* Names are data, never markup or control.  What traced processes choose
 * (their comm, the files they open, symbols of their binaries, cgroup paths)
 * reaches every view through text_escape(): valid, printable UTF-8 stays as
 * it is; a backslash becomes "\\"; every other byte (control characters,
 * DEL, C1 controls, bytes that are not valid UTF-8) becomes "\xHH".  The
 * result is valid UTF-8 free of control characters, and text_unescape()
 * turns it back into the original bytes.  Writes at most size - 1 bytes and
 * a NUL (never a partial escape); returns the length it needed (as
 * snprintf does), so a result >= size means it was cut. */
size_t text_escape(char *dst, size_t size, const char *src, size_t len);
/* True when s needs no escaping (the common case: views skip the copy). */
bool text_is_safe(const char *s, size_t len);
/* True when s is text_escape's output already: printable UTF-8 whose
 * backslashes each start "\\\\" or "\\xHH".  Escaping is done once, where
 * names enter the measurement; a view that may also see raw strings
 * escapes only what is not in this form. */
bool text_is_escaped(const char *s, size_t len);
/* The inverse of text_escape, in place; returns the length of the bytes
 * (which may hold a NUL), or -EINVAL for a malformed escape. */
long text_unescape(char *s);

/* Monotonic clock in nanoseconds. */
uint64_t now_ns(void);

/* A 64-bit hash of len bytes (FNV-1a, finished with hash_mix(): its low
 * bits are as good as its high ones, for tables that take them). */
uint64_t hash_bytes(const void *p, size_t len);
/* Mix the bits of x (the finalizer of MurmurHash3), e.g. to combine hashes. */
uint64_t hash_mix(uint64_t x);

/* Shell-style glob match (fnmatch without flags). */
bool glob_match(const char *pattern, const char *s);

/* "Did you mean": the word of words[0..n) nearest to typed, within one
 * edit for every three letters of it (at least one; an edit inserts,
 * deletes or changes a letter, or swaps two neighbours), or NULL.  Ties go
 * to the first. */
const char *nearest_word(const char *typed, const char *const *words, size_t n);

/* Trim leading/trailing whitespace in place; returns s. */
char *str_trim(char *s);

#endif
