// SPDX-License-Identifier: GPL-2.0
#include "lib/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <sys/stat.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int kd_verbose_level;
const char *kd_btf_file;
bool kd_bad_input;

/* A quoted value longer than this is echoed as its start and "...", and
 * a whole message longer than ECHO_LINE_MAX likewise. */
#define ECHO_MAX 96
#define ECHO_LINE_MAX 1024
const char *kd_err_context;

/* The next quote from s, skipping the apostrophes of words ("kernel's"),
 * which neither open nor close a quoted value; NULL where there is none. */
static char *next_quote(char *text, char *s)
{
	for (char *q = strchr(s, '\''); q; q = strchr(q + 1, '\''))
		if (q == text || !isalnum((unsigned char)q[-1]) || !isalpha((unsigned char)q[1]))
			return q;
	return NULL;
}

/* Write n bytes of s to f with control characters as \xHH: a message
 * echoes what users and files gave (a config line with ESC or BEL in it),
 * and a terminal must not act on it. */
static void put_plain(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* text into f, each quoted value longer than ECHO_MAX cut to its start */
static void put_echo(FILE *f, char *text)
{
	char *s, *q, *end;

	for (s = text; (q = next_quote(text, s)) && (end = next_quote(text, q + 1)); s = end + 1) {
		size_t n = end - q - 1;

		if (n <= ECHO_MAX) {
			put_plain(f, s, end + 1 - s);
		} else {
			put_plain(f, s, q + 1 + ECHO_MAX - s);
			fprintf(f, "...' (%zu characters)", n);
		}
	}
	put_plain(f, s, strlen(s));
}

static void vmsg(const char *fmt, va_list ap)
{
	char *text, *context = NULL, *line = NULL;
	size_t len = 0;
	FILE *f = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	if (text && kd_err_context)
		context = strdup(kd_err_context);
	if (text && (!kd_err_context || context))
		f = open_memstream(&line, &len);
	if (f) {
		fputs("kdist: ", f);
		if (context) {
			put_echo(f, context);
			fputs(": ", f);
		}
		put_echo(f, text);
	}
	free(text);
	free(context);
	if (!f || fclose(f)) {
		fputs("kdist: out of memory\n", stderr);
		return;
	}
	/* one line of a size a terminal shows, whatever was echoed in it */
	if (len > ECHO_LINE_MAX)
		fprintf(stderr, "%.*s... (%zu characters)\n", ECHO_LINE_MAX, line, len);
	else
		fprintf(stderr, "%s\n", line);
	free(line);
}

void kd_err(const char *fmt, ...)
{
	va_list ap;

	/* the message idiom tells a mistake in the command line apart */
	if (!strncmp(fmt, "bad ", 4) || !strncmp(fmt, "unknown ", 8))
		kd_bad_input = true;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void kd_info(const char *fmt, ...)
{
	va_list ap;

	if (!kd_verbose_level)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* read_file and read_input: a whole file, at most max bytes, pipes only
 * when asked for. */
static int read_bounded(const char *path, size_t max, bool pipes, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	struct stat st;
	char *buf = NULL;
	int fd, err = 0;

	/* O_NONBLOCK: opening a FIFO that has no writer does not wait */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !(pipes && S_ISFIFO(st.st_mode))) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size > max) {
		err = -EFBIG;
		goto out;
	}
	if (!(buf = malloc(cap))) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (n + 1 >= cap) {
			size_t ncap = cap * 2 > max + 2 ? max + 2 : cap * 2;
			char *nb = realloc(buf, ncap);

			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EAGAIN) {
			int p = poll(&pfd, 1, INPUT_IDLE_MS);

			if (p == 0) {
				err = -ETIMEDOUT;
				goto out;
			}
			if (p < 0 && errno != EINTR) {
				err = -errno;
				goto out;
			}
			continue;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += r;
		if (n > max) {
			err = -EFBIG;
			goto out;
		}
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
out:
	close(fd);
	if (err)
		free(buf);
	return err;
}

int read_input(const char *path, size_t max, char **out, size_t *len)
{
	return read_bounded(path, max, true, out, len);
}

int read_file(const char *path, char **out, size_t *len)
{
	return read_bounded(path, READ_FILE_MAX, false, out, len);
}

int read_file_max(const char *path, size_t max, char **out, size_t *len)
{
	return read_bounded(path, max, false, out, len);
}

const char *read_input_strerror(int err, size_t max)
{
	static __thread char msg[96];

	switch (err) {
	case -EFBIG:
		if (max >= 1 << 20)
			snprintf(msg, sizeof(msg), "larger than %zu MiB", max >> 20);
		else
			snprintf(msg, sizeof(msg), "larger than %zu KiB", max >> 10);
		return msg;
	case -EINVAL:
		return "not a regular file or a pipe";
	case -ETIMEDOUT:
		snprintf(msg, sizeof(msg), "nothing to read for %d s", INPUT_IDLE_MS / 1000);
		return msg;
	default:
		return strerror(-err);
	}
}

/* The length of the valid, printable UTF-8 sequence at s (at most len
 * bytes), or 0 when the byte at s must be escaped. */
static size_t utf8_printable(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f && s[0] != '\\';
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF, C1 controls */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || (cp >= 0x80 && cp < 0xa0))
		return 0;
	return n;
}

bool text_is_safe(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_printable((const unsigned char *)s + i, len - i)))
			return false;
	return true;
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

bool text_is_escaped(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n) {
		if (s[i] == '\\') {
			if (i + 1 < len && s[i + 1] == '\\')
				n = 2;
			else if (i + 3 < len && s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 &&
				 hexval(s[i + 3]) >= 0)
				n = 4;
			else
				return false;
		} else if (!(n = utf8_printable((const unsigned char *)s + i, len - i))) {
			return false;
		}
	}
	return true;
}

size_t text_escape(char *dst, size_t size, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0, n;
	bool room = size > 0;

	for (size_t i = 0; i < len; i += n) {
		char esc[5];
		const char *piece = (const char *)s + i;
		size_t plen;

		n = utf8_printable(s + i, len - i);
		if (n) {
			plen = n;
		} else {
			n = 1;
			if (s[i] == '\\')
				piece = "\\\\", plen = 2;
			else
				snprintf(esc, sizeof(esc), "\\x%02x", s[i]), piece = esc, plen = 4;
		}
		if (room && out + plen < size)
			memcpy(dst + out, piece, plen);
		else if (room) {
			dst[out] = '\0';
			room = false;
		}
		out += plen;
	}
	if (room)
		dst[out] = '\0';
	return out;
}

long text_unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		if (r[1] == '\\') {
			*w++ = '\\';
			r++;
		} else if (r[1] == 'x' && hexval(r[2]) >= 0 && hexval(r[3]) >= 0) {
			*w++ = (char)(hexval(r[2]) << 4 | hexval(r[3]));
			r += 3;
		} else {
			return -EINVAL;
		}
	}
	*w = '\0';
	return w - s;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return hash_mix(h);
}

bool glob_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

char *str_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Edits from a to b (optimal string alignment: a swap of neighbours is one
 * edit), or limit + 1 once it is beyond limit.  Words of up to 63 bytes. */
static size_t edits(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), d[3][64];

	if (la >= 64 || lb >= 64 || (la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *r = d[i % 3], *p = d[(i - 1) % 3], *pp = d[(i + 1) % 3], low;

		r[0] = low = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t v = p[j - 1] + (a[i - 1] != b[j - 1]);

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (r[j - 1] + 1 < v)
				v = r[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			r[j] = v;
			if (v < low)
				low = v;
		}
		if (low > limit)
			return limit + 1;
	}
	return d[la % 3][lb];
}

const char *nearest_word(const char *typed, const char *const *words, size_t n)
{
	size_t limit = strlen(typed) / 3, best_d;
	const char *best = NULL;

	if (!limit)
		limit = 1;
	best_d = limit + 1;
	for (size_t i = 0; i < n; i++) {
		size_t e = words[i] ? edits(typed, words[i], limit) : limit + 1;

		if (e < best_d && e) {
			best_d = e;
			best = words[i];
		}
	}
	return best;
}
