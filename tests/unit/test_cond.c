// SPDX-License-Identifier: GPL-2.0
/* --if conditions: the parser and the compile step's type checks. */
#include "check.h"
#include "kernel/cond.h"

#include <stdio.h>
#include <string.h>

static int parse(const char *s, struct cond_list *c)
{
	memset(c, 0, sizeof(*c));
	return cond_parse(s, c);
}

static void test_terms(void)
{
	static const struct {
		const char *s;
		enum cond_op op;
		long long num;
		const char *str;	/* NULL: a number */
	} ok[] = {
		{ "ret < 0", COND_LT, 0 }, { "ret<0", COND_LT, 0 }, { "ret <= -2", COND_LE, -2 },
		{ "ret > 10", COND_GT, 10 }, { "ret >= 0x10", COND_GE, 16 },
		{ "pid == 42", COND_EQ, 42 }, { "pid != 42", COND_NE, 42 },
		{ "flags & 4", COND_MASK_SET, 4 }, { "flags & 0x100 == 0", COND_MASK_ZERO, 256 },
		{ "flags&255==0", COND_MASK_ZERO, 255 }, { "flags & 2 != 0", COND_MASK_SET, 2 },
		{ "comm == \"sleeper\"", COND_EQ, 0, "sleeper" }, { "comm != 'a b'", COND_NE, 0, "a b" },
		{ "x == 18446744073709551615", COND_EQ, -1 },
	};
	struct cond_list c;
	char name[160];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int err = parse(ok[i].s, &c);

		snprintf(name, sizeof(name), "parse '%s'", ok[i].s);
		check(name, !err && c.n == 1 && c.t[0].op == ok[i].op &&
		      (ok[i].str ? c.t[0].is_str && !strcmp(c.t[0].str, ok[i].str) :
				   !c.t[0].is_str && c.t[0].num == ok[i].num),
		      "err %d, n %d, op %d, num %lld", err, c.n, c.t[0].op, c.t[0].num);
	}
	check("field names", !parse("prev_state & 255 == 0 && prev_pid != 0", &c) && c.n == 2 &&
	      !strcmp(c.t[0].field, "prev_state") && !strcmp(c.t[1].field, "prev_pid") &&
	      c.t[1].op == COND_NE, NULL);
	check("four terms", !parse("a == 1 && b == 2 && c < 3 && d > 4", &c) && c.n == 4 &&
	      c.t[3].op == COND_GT && c.t[3].num == 4, NULL);
	/* appending: a recipe's terms and --if share the four slots */
	memset(&c, 0, sizeof(c));
	check("append", !cond_parse("a == 1", &c) && !cond_parse("b == 2 && c == 3", &c) &&
	      c.n == 3 && !strcmp(c.t[2].field, "c"), NULL);
}

static void test_bad(void)
{
	static const char *const bad[] = {
		"", "ret", "ret <", "< 0", "1 == 1", "ret =< 0", "ret == x", "ret == 1x",
		"ret == 1 &&", "&& ret == 1", "ret & 4 == 1", "ret & 'a'", "comm == \"open",
		"comm == \"0123456789abcdef\"", "a == 1 && b == 2 && c == 3 && d == 4 && e == 5",
		"ret == 99999999999999999999", "ret == --1", "a b == 1",
	};
	struct cond_list c;
	char name[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "refuse '%s'", bad[i]);
		check(name, parse(bad[i], &c) < 0, NULL);
	}
}

static void test_compile(void)
{
	struct cond_list c;
	struct cond_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	parse("comm == \"x\" && ret < -1 && pid == 3", &c);
	check("text with text", !cond_compile(&c.t[0], true, false, &cfg, 0) &&
	      cfg.is_str[0] && !strcmp(cfg.str[0], "x") && cfg.op[0] == COND_EQ, NULL);
	check("signed with negative", !cond_compile(&c.t[1], false, true, &cfg, 1) &&
	      cfg.is_signed[1] && cfg.val[1] == -1 && cfg.op[1] == COND_LT, NULL);
	check("text with number refused", cond_compile(&c.t[2], true, false, &cfg, 2) < 0, NULL);
	check("number with text refused", cond_compile(&c.t[0], false, false, &cfg, 2) < 0, NULL);
	check("unsigned with negative refused", cond_compile(&c.t[1], false, false, &cfg, 2) < 0,
	      NULL);
	parse("comm > \"x\"", &c);
	check("order on text refused", cond_compile(&c.t[0], true, false, &cfg, 2) < 0, NULL);
}

int main(void)
{
	test_terms();
	test_bad();
	test_compile();
	return check_done();
}
