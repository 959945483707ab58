// SPDX-License-Identifier: GPL-2.0
/* --if conditions: the text into terms (cond_parse), a term with its
 * field's type into BPF rodata (cond_compile).  See cond.h. */
#include "kernel/cond.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {
	[COND_NONE] = "", [COND_EQ] = "==", [COND_NE] = "!=", [COND_LT] = "<",
	[COND_LE] = "<=", [COND_GT] = ">", [COND_GE] = ">=", [COND_MASK_ZERO] = "& == 0",
	[COND_MASK_SET] = "&",
};

const char *cond_op_name(enum cond_op op)
{
	return op < ARRAY_SIZE(op_names) ? op_names[op] : "?";
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* A number at s (decimal, 0x hex, 0 octal, a leading minus): 0 and *end
 * past it, or -EINVAL. */
static int parse_number(const char *s, struct cond_term *t, const char **end)
{
	char *e;

	t->neg = *s == '-';
	errno = 0;
	if (t->neg)
		t->num = strtoll(s, &e, 0);
	else
		t->num = (long long)strtoull(s, &e, 0);
	if (errno || e == s || !isdigit((unsigned char)s[t->neg]))
		return -EINVAL;
	*end = e;
	return 0;
}

/* A quoted text at s, 'x' or "x", without escapes. */
static int parse_text(const char *s, struct cond_term *t, const char **end)
{
	const char *close = strchr(s + 1, *s);

	if (!close)
		return -EINVAL;
	if (close - s - 1 >= COND_STR_LEN) {
		kd_err("bad --if '%s': texts compare at most %d characters", t->text,
		       COND_STR_LEN - 1);
		return -E2BIG;
	}
	snprintf(t->str, sizeof(t->str), "%.*s", (int)(close - s - 1), s + 1);
	t->is_str = true;
	*end = close + 1;
	return 0;
}

static int parse_term(struct cond_term *t)
{
	static const struct { const char *s; enum cond_op op; } ops[] = {
		{ "==", COND_EQ }, { "!=", COND_NE }, { "<=", COND_LE }, { ">=", COND_GE },
		{ "<", COND_LT }, { ">", COND_GT }, { "&", COND_MASK_SET },
	};
	const char *s = skip_space(t->text), *f = s;
	size_t i;
	int err;

	/* a name, or a path through the kernel's types (a->b.c[2]) */
	while (isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '[' || *s == ']' ||
	       (*s == '-' && s[1] == '>'))
		s += *s == '-' ? 2 : 1;
	if (s == f || isdigit((unsigned char)*f) || (size_t)(s - f) >= sizeof(t->field))
		goto bad;
	snprintf(t->field, sizeof(t->field), "%.*s", (int)(s - f), f);
	s = skip_space(s);
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strncmp(s, ops[i].s, strlen(ops[i].s)))
			break;
	if (i == ARRAY_SIZE(ops))
		goto bad;
	t->op = ops[i].op;
	s = skip_space(s + strlen(ops[i].s));
	if (*s == '\'' || *s == '"') {
		err = parse_text(s, t, &s);
		if (err == -E2BIG)
			return -EINVAL;
	} else {
		err = parse_number(s, t, &s);
	}
	if (err || (t->is_str && t->op == COND_MASK_SET))
		goto bad;
	s = skip_space(s);
	if (t->op == COND_MASK_SET && *s) {
		/* "& MASK == 0" or "& MASK != 0" */
		if (!strncmp(s, "==", 2))
			t->op = COND_MASK_ZERO;
		else if (strncmp(s, "!=", 2))
			goto bad;
		s = skip_space(s + 2);
		if (*s != '0')
			goto bad;
		s = skip_space(s + 1);
	}
	if (*s)
		goto bad;
	return 0;
bad:
	kd_err("bad --if '%s': expected FIELD OP VALUE, OP one of == != < <= > >= "
	       "or & MASK [== 0], VALUE a number or a quoted text", t->text);
	return -EINVAL;
}

int cond_parse(const char *s, struct cond_list *c)
{
	const char *p = s;

	for (;;) {
		const char *amp = strstr(p, "&&");
		size_t len = amp ? (size_t)(amp - p) : strlen(p);
		struct cond_term *t;
		int err;

		if (c->n >= COND_MAX) {
			kd_err("bad --if '%s': at most %d conditions joined by &&", s, COND_MAX);
			return -EINVAL;
		}
		t = &c->t[c->n];
		memset(t, 0, sizeof(*t));
		if (len >= sizeof(t->text)) {
			kd_err("bad --if '%.*s': too long", (int)len, p);
			return -EINVAL;
		}
		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		snprintf(t->text, sizeof(t->text), "%.*s", (int)len, p);
		str_trim(t->text);
		err = parse_term(t);
		if (err)
			return err;
		c->n++;
		if (!amp)
			return 0;
		p = amp + 2;
	}
}

int cond_compile(const struct cond_term *t, bool is_str, bool is_signed, struct cond_cfg *cfg,
		 int i)
{
	if (is_str != t->is_str) {
		kd_err("bad --if '%s': %s is a %s, compared with a %s", t->text, t->field,
		       is_str ? "text" : "number", t->is_str ? "text" : "number");
		return -EINVAL;
	}
	if (is_str && t->op != COND_EQ && t->op != COND_NE) {
		kd_err("bad --if '%s': texts compare with == and != only", t->text);
		return -EINVAL;
	}
	if (!is_str && !is_signed && t->neg) {
		kd_err("bad --if '%s': %s is unsigned, never negative", t->text, t->field);
		return -EINVAL;
	}
	cfg->op[i] = t->op;
	cfg->is_signed[i] = is_signed;
	cfg->is_str[i] = is_str;
	cfg->val[i] = t->num;
	memcpy(cfg->str[i], t->str, COND_STR_LEN);
	return 0;
}
