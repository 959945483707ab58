// SPDX-License-Identifier: GPL-2.0
#include "util.h"

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
bool kd_bad_input;

/* A quoted value longer than this is echoed as its start and "...". */
#define ECHO_MAX 96
const char *kd_err_context;

static void vmsg(const char *fmt, va_list ap)
{
	char *text, *s, *q;

	if (vasprintf(&text, fmt, ap) < 0) {
		fputs("kdist: out of memory\n", stderr);
		return;
	}
	fputs("kdist: ", stderr);
	if (kd_err_context)
		fprintf(stderr, "%s: ", kd_err_context);
	for (s = text; (q = strchr(s, '\'')) && strchr(q + 1, '\''); s = strchr(q + 1, '\'') + 1) {
		size_t len = strchr(q + 1, '\'') - q - 1;

		if (len <= ECHO_MAX)
			fwrite(s, 1, q + 1 + len + 1 - s, stderr);
		else
			fprintf(stderr, "%.*s%.*s...' (%zu characters)", (int)(q + 1 - s), s,
				ECHO_MAX, q + 1, len);
	}
	fprintf(stderr, "%s\n", s);
	free(text);
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

int read_file(const char *path, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
out:
	if (fd >= 0)
		close(fd);
	if (err)
		free(buf);
	return err;
}

int read_input(const char *path, size_t max, char **out, size_t *len)
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
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
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
