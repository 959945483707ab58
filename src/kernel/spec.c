// SPDX-License-Identifier: GPL-2.0
#include "kernel/spec.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *prefix;
	enum ev_kind kind;
	enum ev_method method;
} prefixes[] = {
	{ "k", EV_KPROBE },	{ "kprobe", EV_KPROBE, METHOD_KPROBE },
	{ "fentry", EV_KPROBE, METHOD_FENTRY },
	{ "kr", EV_KRETPROBE }, { "kretprobe", EV_KRETPROBE, METHOD_KPROBE },
	{ "fexit", EV_KRETPROBE, METHOD_FENTRY },
	{ "u", EV_UPROBE },	{ "uprobe", EV_UPROBE },
	{ "ur", EV_URETPROBE }, { "uretprobe", EV_URETPROBE },
	{ "t", EV_TRACEPOINT }, { "tracepoint", EV_TRACEPOINT },
};

const char *ev_kind_name(enum ev_kind k)
{
	static const char *const names[] = {
		[EV_TRACEPOINT] = "tracepoint", [EV_KPROBE] = "kprobe",
		[EV_KRETPROBE] = "kretprobe",	[EV_UPROBE] = "uprobe",
		[EV_URETPROBE] = "uretprobe",
	};
	return names[k];
}

bool ev_is_return(enum ev_kind k)
{
	return k == EV_KRETPROBE || k == EV_URETPROBE;
}

static bool is_ident(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_' && !strchr(extra, *s))
			return false;
	}
	return true;
}

static int bad(const char *s, const char *why)
{
	kd_err("bad event '%s': %s", s, why);
	return -EINVAL;
}

/* A name too long for e->name is bad input: truncated, it would name (and
 * be checked as) something else. */
static int set_name(struct event_spec *e, const char *s, const char *name)
{
	if (strlen(name) >= sizeof(e->name)) {
		kd_err("bad event '%s': name longer than %zu characters", s, sizeof(e->name) - 1);
		return -EINVAL;
	}
	snprintf(e->name, sizeof(e->name), "%s", name);
	return 0;
}

int event_spec_parse(const char *s, struct event_spec *e)
{
	const char *colon = strchr(s, ':'), *rest;
	size_t plen;

	memset(e, 0, sizeof(*e));
	if (strlen(s) >= sizeof(e->text))
		return bad(s, "too long");
	snprintf(e->text, sizeof(e->text), "%s", s);
	if (!colon)
		return bad(s, "expected CATEGORY:NAME, k:FUNC, kr:FUNC, u:PATH:SYMBOL or ur:PATH:SYMBOL");
	plen = colon - s;
	rest = colon + 1;
	e->kind = EV_TRACEPOINT;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (strlen(prefixes[i].prefix) == plen && !strncmp(s, prefixes[i].prefix, plen)) {
			e->kind = prefixes[i].kind;
			e->method = prefixes[i].method;
			if (e->kind == EV_TRACEPOINT) /* t:CAT:NAME */
				s = rest;
			break;
		}
	}
	switch (e->kind) {
	case EV_KPROBE:
	case EV_KRETPROBE:
		if (!is_ident(rest, "."))
			return bad(s, "expected a kernel function name after the ':'");
		return set_name(e, s, rest);
	case EV_UPROBE:
	case EV_URETPROBE: {
		const char *sym = strrchr(rest, ':');

		if (!sym || sym == rest || (size_t)(sym - rest) >= sizeof(e->path))
			return bad(s, "expected u:PATH:SYMBOL");
		if (!is_ident(sym + 1, ".@$"))
			return bad(s, "expected a symbol name after PATH:");
		snprintf(e->path, sizeof(e->path), "%.*s", (int)(sym - rest), rest);
		return set_name(e, s, sym + 1);
	}
	case EV_TRACEPOINT:
		colon = strchr(s, ':');
		if (!colon || colon == s || (size_t)(colon - s) >= sizeof(e->category))
			return bad(e->text, "expected CATEGORY:NAME");
		snprintf(e->category, sizeof(e->category), "%.*s", (int)(colon - s), s);
		if (set_name(e, e->text, colon + 1))
			return -EINVAL;
		if (!is_ident(e->category, "-.") || !is_ident(e->name, "-."))
			return bad(e->text, "tracepoint names are CATEGORY:NAME of letters, digits and _");
		return 0;
	}
	return bad(s, "unknown kind");
}

int name_list_parse(const char *s, char (*out)[64], int max, const char *what)
{
	int n = 0;

	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (!len || len >= 64) {
			kd_err("bad %s '%s': empty or overlong name", what, s);
			return -EINVAL;
		}
		if (n == max) {
			kd_err("bad %s: at most %d names", what, max);
			return -EINVAL;
		}
		snprintf(out[n++], 64, "%.*s", (int)len, s);
		s += len + (comma ? 1 : 0);
		if (comma && !*s) {
			kd_err("bad %s: trailing ','", what);
			return -EINVAL;
		}
	}
	return n;
}

int key_spec_parse(const char *s, struct key_spec *k)
{
	char names[SPEC_MAX_KEYS][64];
	int n = name_list_parse(s, names, SPEC_MAX_KEYS, "--key");

	if (n < 0)
		return n;
	if (!n) {
		kd_err("bad --key: empty");
		return -EINVAL;
	}
	k->n = n;
	for (int i = 0; i < n; i++) {
		char *eq = strchr(names[i], '=');

		if (eq) {
			*eq = '\0';
			snprintf(k->end[i], 64, "%s", eq + 1);
		} else {
			snprintf(k->end[i], 64, "%s", names[i]);
		}
		snprintf(k->start[i], 64, "%s", names[i]);
		/* a path through the kernel's types: NAME->member.member[i] */
		if (!is_ident(k->start[i], "->.[]") || !is_ident(k->end[i], "->.[]")) {
			kd_err("bad --key '%s': expected FIELD or START_FIELD=END_FIELD", s);
			return -EINVAL;
		}
	}
	return 0;
}
