// SPDX-License-Identifier: GPL-2.0
/* The protocol buffers writer: see pb.h. */
#include "lib/pb.h"

#include <stdlib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

static bool room(struct pb *p, size_t n)
{
	uint8_t *b;
	size_t cap;

	if (p->oom)
		return false;
	if (p->len + n <= p->cap)
		return true;
	cap = p->cap ? p->cap : 4096;
	while (cap < p->len + n)
		cap *= 2;
	b = realloc(p->buf, cap);
	if (!b) {
		p->oom = true;
		return false;
	}
	p->buf = b;
	p->cap = cap;
	return true;
}

static int varint_len(uint64_t v)
{
	int n = 1;

	while (v >>= 7)
		n++;
	return n;
}

static void put_varint(uint8_t *b, uint64_t v)
{
	while (v >= 0x80) {
		*b++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*b = (uint8_t)v;
}

void pb_raw_varint(struct pb *p, uint64_t v)
{
	if (!room(p, 10))
		return;
	put_varint(p->buf + p->len, v);
	p->len += varint_len(v);
}

void pb_raw_sint(struct pb *p, int64_t v)
{
	pb_raw_varint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void tag(struct pb *p, int field, int type)
{
	pb_raw_varint(p, (uint64_t)field << 3 | type);
}

void pb_varint(struct pb *p, int field, uint64_t v)
{
	tag(p, field, WT_VARINT);
	pb_raw_varint(p, v);
}

void pb_sint(struct pb *p, int field, int64_t v)
{
	tag(p, field, WT_VARINT);
	pb_raw_sint(p, v);
}

void pb_fixed64(struct pb *p, int field, uint64_t v)
{
	tag(p, field, WT_I64);
	if (!room(p, 8))
		return;
	for (int i = 0; i < 8; i++)	/* little-endian on the wire */
		p->buf[p->len++] = (uint8_t)(v >> (8 * i));
}

void pb_double(struct pb *p, int field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	pb_fixed64(p, field, u);
}

void pb_bytes(struct pb *p, int field, const void *data, size_t len)
{
	tag(p, field, WT_LEN);
	pb_raw_varint(p, len);
	if (!room(p, len))
		return;
	memcpy(p->buf + p->len, data, len);
	p->len += len;
}

void pb_bytes_raw(struct pb *p, const void *data, size_t len)
{
	if (!room(p, len))
		return;
	memcpy(p->buf + p->len, data, len);
	p->len += len;
}

void pb_string(struct pb *p, int field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

void pb_begin(struct pb *p, int field)
{
	if (p->depth == (int)(sizeof(p->open) / sizeof(p->open[0]))) {
		p->oom = true;	/* a bug: no message of kdist's nests that deep */
		return;
	}
	if (field != PB_DELIMITED)
		tag(p, field, WT_LEN);
	/* one byte for the length, moved up at the end if it needs more */
	if (room(p, 1))
		p->len++;
	p->open[p->depth++] = p->len;
}

void pb_end(struct pb *p)
{
	size_t start, n;
	int extra;

	if (!p->depth)
		return;
	start = p->open[--p->depth];
	if (p->oom)
		return;
	n = p->len - start;
	extra = varint_len(n) - 1;
	if (extra && !room(p, extra))
		return;
	memmove(p->buf + start + extra, p->buf + start, n);
	put_varint(p->buf + start - 1, n);
	p->len += extra;
}

void pb_free(struct pb *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}
