// SPDX-License-Identifier: GPL-2.0
/* The JSON view of a measurement (kdist.measurement/1), which the HTML
 * page holds too. */
#include "model/measure.h"
#include "lib/util.h"
#include "view/format.h"
#include "view/view.h"
#include "view/explain_view.h"
#include "view/output_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#define JSON_SCHEMA "kdist.measurement/1"

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double x)
{
	if (isfinite(x) && x == floor(x) && fabs(x) < 9e15)
		fprintf(f, "%.0f", x);
	else if (isfinite(x))
		fprintf(f, "%.3f", x);
	else
		fputs("null", f);
}

/* "values": the keys whose label names a value (a symbol, a syscall, a
 * disk) or a stack, as values: numbers, and stacks as frames. */
static void write_json_values(FILE *f, const struct measurement *m, const struct m_group *g)
{
	int n = 0;

	for (int j = 0; j < m->nby; j++) {
		const struct m_value *k = &g->key[j];

		if (!fmt_names_value(k, m->by_fmt[j]))
			continue;
		fputs(n++ ? "," : ",\"values\":{", f);
		json_str(f, m->by[j]);
		fputc(':', f);
		if (k->type != MV_STACK) {
			fprintf(f, m->by_fmt[j] == FMT_ERRNO ? "%lld" : "%llu",
				(unsigned long long)(k->type == MV_NUM ? k->num : k->named->num));
			continue;
		}
		fputc('[', f);
		for (unsigned int i = 0; i < k->stack->nframes; i++) {
			const struct m_frame *fr = &k->stack->frames[i];

			fputs(i ? ",{\"name\":" : "{\"name\":", f);
			json_str(f, fr->name);
			if (fr->module) {
				fputs(",\"module\":", f);
				json_str(f, fr->module);
			}
			fprintf(f, ",\"addr\":%llu,\"offset\":%llu}", (unsigned long long)fr->addr,
				(unsigned long long)fr->offset);
		}
		fputc(']', f);
	}
	if (n)
		fputc('}', f);
}

/* Always there for a measurement of BPF programs; null, never 0, where
 * there is no figure (no window yet; with -v, the kernel refused its
 * statistics). */
static void write_cost_json(FILE *f, const struct measurement *m)
{
	const struct m_cost *c = &m->cost;

	if (!c->programs)
		return;
	fprintf(f, ",\"cost\":{\"programs\":%d,\"map_bytes\":%llu,", c->programs,
		(unsigned long long)c->map_bytes);
	if (c->err) {
		fputs("\"runs\":null,\"run_ns\":null,\"ns_per_run\":null,\"cpu_share\":null,"
		      "\"unknown\":", f);
		json_str(f, strerror(c->err));
		fputc('}', f);
		return;
	}
	fprintf(f, "\"runs\":%llu,\"run_ns\":%llu,\"ns_per_run\":", (unsigned long long)c->runs,
		(unsigned long long)c->run_ns);
	if (c->runs)
		json_num(f, (double)c->run_ns / c->runs);
	else
		fputs("null", f);
	fputs(",\"cpu_share\":", f);
	if (m->duration_s > 0)
		json_num(f, c->run_ns / (m->duration_s * 1e9));
	else
		fputs("null", f);
	fputs(",\"sampled\":", f);
	json_num(f, c->sampled);
	fputc('}', f);
}

void json_write(FILE *f, const struct measurement *m, const struct m_group **v, int n,
		const char *cmdline)
{
	struct utsname u;
	static const char *const kinds[] = { "latency", "value", "func" };

	uname(&u);
	fprintf(f, "{\"schema\":\"%s\",\"command\":", JSON_SCHEMA);
	json_str(f, m->command);
	if (cmdline) {
		fputs(",\"cmdline\":", f);
		json_str(f, cmdline);
	}
	fprintf(f, ",\"kind\":\"%s\",\"unit\":", kinds[m->kind]);
	json_str(f, m->kind == M_VALUE ? m->value_unit : "ns");
	fputs(",\"title\":", f);
	json_str(f, m->title);
	fputs(",\"kernel\":", f);
	json_str(f, m->kernel ? m->kernel : u.release);
	fprintf(f, ",\"start_unix\":%.3f,\"duration_s\":%.6f,\"interval\":%d,\"events\":[",
		m->start_unix, m->duration_s, m->interval);
	for (int i = 0; i < m->nevents; i++) {
		fprintf(f, "%s{\"role\":", i ? "," : "");
		json_str(f, m->events[i].role);
		fputs(",\"spec\":", f);
		json_str(f, m->events[i].spec);
		fputs(",\"attach\":", f);
		json_str(f, m->events[i].attach);
		fputc('}', f);
	}
	fputs("],\"key\":", f);
	json_str(f, m->key);
	fputs(",\"by\":[", f);
	for (int i = 0; i < m->nby; i++) {
		fputs(i ? "," : "", f);
		json_str(f, m->by[i]);
	}
	/* what the JSON alone would not tell a reader (model/reader.h) */
	fputs("],\"formats\":[", f);
	for (int i = 0; i < m->nby; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", fmt_name(m->by_fmt[i]));
	fputc(']', f);
	if (m->stacks)
		fprintf(f, ",\"stacks\":\"%s\"", m->stacks == M_STACKS_ONCPU ? "oncpu" : "offcpu");
	if (m->counts)
		fputs(",\"counts\":true", f);
	fputs(",\"groups\":[", f);
	for (int i = 0; i < n; i++) {
		struct hist hb;
		const struct hist *h = output_group_hist(v[i], &hb);
		bool first = true;

		fprintf(f, "%s{\"by\":{", i ? "," : "");
		for (int j = 0; j < m->nby; j++) {
			char buf[128];

			fputs(j ? "," : "", f);
			json_str(f, m->by[j]);
			fputc(':', f);
			json_str(f, output_label(m, v[i], j, buf));
		}
		fputc('}', f);
		write_json_values(f, m, v[i]);
		fprintf(f, ",\"count\":%llu,\"sum\":%llu", (unsigned long long)h->count,
			(unsigned long long)h->sum);
		if (m->kind == M_FUNC)
			fprintf(f, ",\"self\":%llu,\"total\":%llu", (unsigned long long)v[i]->self_ns,
				(unsigned long long)v[i]->total_ns);
		fputs(",\"mean\":", f);
		json_num(f, hist_mean(h));
		fputs(",\"stddev\":", f);
		json_num(f, hist_stddev(h));
		fprintf(f, ",\"min\":%llu,\"max\":%llu", (unsigned long long)h->min,
			(unsigned long long)h->max);
		for (int j = 0; j < HIST_NQUANTILES; j++) {
			fprintf(f, ",\"%s\":", hist_shown[j].key);
			json_num(f, hist_quantile(h, hist_shown[j].q));
		}
		fputs(",\"buckets\":[", f);
		for (int b = 0; b < HIST_BUCKETS; b++) {
			if (!h->slots[b])
				continue;
			fprintf(f, "%s[%llu,%llu,%llu]", first ? "" : ",",
				(unsigned long long)hist_bucket_low(b),
				(unsigned long long)hist_bucket_high(b),
				(unsigned long long)h->slots[b]);
			first = false;
		}
		fputc(']', f);
		explain_write_json(f, m, v[i]);
		fputc('}', f);
	}
	if (m->kind == M_FUNC) {
		fprintf(f, "],\"functions\":{\"attached\":%d,\"skipped\":%d,\"attach_ms\":",
			m->funcs_attached, m->funcs_skipped);
		json_num(f, m->attach_ms);
		fputc('}', f);
	} else {
		fputc(']', f);
	}
	fprintf(f, ",\"groups_total\":%d,\"lost\":%llu,\"drops\":{", m->ngroups,
		(unsigned long long)measurement_lost(m));
	for (int i = 0; i < m->ndrops; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", m->drops[i].name,
			(unsigned long long)m->drops[i].value);
	fputs("},\"unmatched\":{", f);
	for (int i = 0, n = 0; i < m->ndrops; i++)
		if (m_drop_unmatched(m->drops[i].name))
			fprintf(f, "%s\"%s\":%llu", n++ ? "," : "", m->drops[i].name,
				(unsigned long long)m->drops[i].value);
	fputc('}', f);
	write_cost_json(f, m);
	if (m->cgroup_names.on)
		fprintf(f, ",\"cgroup_names\":{\"lookups\":%llu,\"misses\":%llu,\"unknown\":%llu,"
			"\"cached\":%llu,\"evicted\":%llu}",
			(unsigned long long)m->cgroup_names.lookups,
			(unsigned long long)m->cgroup_names.misses,
			(unsigned long long)m->cgroup_names.unknown,
			(unsigned long long)m->cgroup_names.cached,
			(unsigned long long)m->cgroup_names.evicted);
	fputs("}\n", f);
}
