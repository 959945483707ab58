// SPDX-License-Identifier: GPL-2.0
/* Formatters (format.h): group key values, by the names "FIELD:NAME"
 * gives in --by and recipes (a key stays a value in the measurement; views
 * call fmt_value() when they print it), and times, sizes and units. */
#include "view/format.h"
#include "model/measure.h"
#include "syms/syms.h"
#include "lib/util.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fmt_parse(const char *name, enum m_fmt *f, const char *what)
{
	char list[200] = "";

	for (int i = 0; i < NR_FMTS; i++) {
		if (!strcmp(name, fmt_name(i))) {
			*f = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s:%s", i ? ", " : "",
			 fmt_name(i));
	}
	kd_err("bad %s: unknown formatter ':%s' (expected %s)", what, name, list);
	return -EINVAL;
}

static const char *syscall_name(uint64_t nr, char *buf, size_t len)
{
	static const char *const names[] = {
#include "syscall_names.h"
	};

	if (nr < ARRAY_SIZE(names) && names[nr])
		return names[nr];
	snprintf(buf, len, "syscall_%llu", (unsigned long long)nr);
	return buf;
}

static const char *errno_name(int64_t v, char *buf, size_t len)
{
	const char *name;

	if (v >= 0)
		return "ok";
	name = -v < 4096 ? strerrorname_np(-v) : NULL;
	if (name)
		return name;
	snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

/* Kernel dev_t (12-bit major, 20-bit minor) to the disk's name. */
static const char *disk_name(uint64_t dev, char *buf, size_t len)
{
	char path[64], *text = NULL, *name;

	snprintf(path, sizeof(path), "/sys/dev/block/%llu:%llu/uevent",
		 (unsigned long long)dev >> 20, (unsigned long long)dev & 0xfffff);
	snprintf(buf, len, "%llu:%llu", (unsigned long long)dev >> 20,
		 (unsigned long long)dev & 0xfffff);
	if (read_file(path, &text, NULL))
		return buf;
	name = strstr(text, "DEVNAME=");
	if (name) {
		name += 8;
		name[strcspn(name, "\n")] = '\0';
		snprintf(buf, len, "%s", name);
	}
	free(text);
	return buf;
}

/* "N:action" from /proc/interrupts (the last column names the handler). */
static const char *irq_name(int64_t irq, char *buf, size_t len)
{
	char *text = NULL, *line, *save = NULL;

	snprintf(buf, len, "%lld", (long long)irq);
	if (read_file("/proc/interrupts", &text, NULL))
		return buf;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *last;

		if (strtol(line, &end, 10) != irq || *end != ':')
			continue;
		str_trim(end + 1);
		last = strrchr(end + 1, ' ');
		snprintf(buf, len, "%lld:%s", (long long)irq, last ? last + 1 : end + 1);
		break;
	}
	free(text);
	return buf;
}

static const char *softirq_name(uint64_t v, char *buf, size_t len)
{
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
		"HRTIMER", "RCU",
	};

	if (v < ARRAY_SIZE(names))
		return names[v];
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static const char *number(uint64_t x, enum m_fmt f, char *buf, size_t len)
{
	const char *name;

	switch (f) {
	case FMT_SIGNED:
		snprintf(buf, len, "%lld", (long long)x);
		return buf;
	case FMT_HEX:
		snprintf(buf, len, "0x%llx", (unsigned long long)x);
		return buf;
	case FMT_KSYM:
		name = ksyms_kernel() ? ksyms_name_of(ksyms_kernel(), x) : NULL;
		return name ? name : "[unknown]";
	case FMT_SYSCALL:
		return syscall_name(x, buf, len);
	case FMT_ERRNO:
		return errno_name((int64_t)x, buf, len);
	case FMT_DISK:
		return disk_name(x, buf, len);
	case FMT_RW:
		return x ? "write" : "read";
	case FMT_IRQ:
		return irq_name((int64_t)x, buf, len);
	case FMT_SOFTIRQ:
		return softirq_name(x, buf, len);
	default:
		/* kernel addresses read best in hex */
		snprintf(buf, len, x > 0xffff000000000000ULL ? "0x%llx" : "%llu",
			 (unsigned long long)x);
		return buf;
	}
}

const char *fmt_value(const struct m_value *v, enum m_fmt f, char *buf, size_t len)
{
	switch (v->type) {
	case MV_NUM:
		return number(v->num, f, buf, len);
	case MV_TEXT:
		return v->text;	/* key_normalize named it already */
	case MV_STACK:
		return v->stack->label;
	case MV_NAMED:
		return v->named->name;
	default:
		return "?";
	}
}

bool fmt_names_value(const struct m_value *v, enum m_fmt f)
{
	if (v->type == MV_STACK || v->type == MV_NAMED)
		return true;
	return v->type == MV_NUM && f != FMT_AUTO && f != FMT_SIGNED;
}

static const struct {
	const char *name;
	double div;
} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

int unit_parse(const char *s, double *div)
{
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(s, units[i].name)) {
			*div = units[i].div;
			return 0;
		}
	}
	kd_err("bad unit '%s': expected ns, us, ms or s", s);
	return -EINVAL;
}

/* The largest unit in which ns is at least 1. */
const char *unit_auto(double ns)
{
	size_t i = ARRAY_SIZE(units) - 1;

	while (i > 0 && ns < units[i].div)
		i--;
	return units[i].name;
}

void fmt_time(char *buf, size_t len, double ns)
{
	const char *u = unit_auto(ns);
	double div = 1;

	unit_parse(u, &div);
	snprintf(buf, len, "%.4g%s", ns / div, u);
}

/* 2.1 MiB, 68 KiB, 512 B */
void fmt_bytes(char *buf, size_t len, double v)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t i = 0;

	while (i + 1 < ARRAY_SIZE(u) && v >= 1024) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i && v < 9.95 ? "%.1f %s" : "%.0f %s", v, u[i]);
}

void fmt_measured(char *buf, size_t len, const struct measurement *m, double v)
{
	if (m->kind == M_VALUE && m->value_unit && !strcmp(m->value_unit, "bytes"))
		fmt_bytes(buf, len, v);
	else if (m->kind == M_VALUE)
		snprintf(buf, len, "%.6g", v);
	else
		fmt_time(buf, len, v);
}
