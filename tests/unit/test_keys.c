// SPDX-License-Identifier: GPL-2.0
/* Key values as read from the kernel, normalized so that values that
 * print alike are one group (kernel/keys.c), then printed (view/format.c). */
#include "check.h"
#include "kernel/keys.h"
#include "model/measure.h"
#include "view/format.h"

#include <stdint.h>
#include <string.h>

static const char *text(const char *s)
{
	return m_intern(s, strlen(s));
}

static void test_normalize(void)
{
	char buf[128];
	struct m_value v;

	v = key_normalize(mv_num((uint64_t)-9), FMT_ERRNO);
	check("errno -9 is EBADF", !strcmp(fmt_value(&v, FMT_ERRNO, buf, sizeof(buf)), "EBADF"), NULL);
	v = key_normalize(mv_num(3), FMT_ERRNO);
	check("errno >= 0 is ok, one value", v.num == 0 &&
	      !strcmp(fmt_value(&v, FMT_ERRNO, buf, sizeof(buf)), "ok"), NULL);
	v = key_normalize(mv_text(text("WS")), FMT_RW);
	check("rwbs WS is write", !strcmp(fmt_value(&v, FMT_RW, buf, sizeof(buf)), "write"), NULL);
	check("rwbs FWS and W one value",
	      key_normalize(mv_text(text("FWS")), FMT_RW).text == v.text &&
	      key_normalize(mv_text(text("W")), FMT_RW).text == v.text, NULL);
	v = key_normalize(mv_num(2), FMT_RW);
	check("write flag is write", v.num == 1 && !strcmp(fmt_value(&v, FMT_RW, buf, sizeof(buf)),
	      "write"), NULL);
	v = key_normalize(mv_num(0x3412), FMT_BE16);
	check("be16 0x3412 is 0x1234", v.num == 0x1234, "%#llx", (unsigned long long)v.num);
	v = key_normalize(mv_num(0x78563412), FMT_BE32);
	check("be32 0x78563412 is 0x12345678", v.num == 0x12345678, "%#llx",
	      (unsigned long long)v.num);
}

int main(void)
{
	test_normalize();
	return check_done();
}
