// SPDX-License-Identifier: GPL-2.0
/* kdist probe: what this kernel supports, and how each event kind will be
 * attached. */
#include "kernel/feature.h"
#include "cmd/func/func.h"
#include "kernel/umulti.h"
#include "lib/util.h"
#include "cmd/session.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static const char *lockdown(void)
{
	static char buf[128];
	char *text, *l, *r;

	if (read_file("/sys/kernel/security/lockdown", &text, NULL))
		return "unknown (no /sys/kernel/security/lockdown)";
	/* "none [integrity] confidentiality": the bracketed one is active */
	l = strchr(text, '[');
	r = l ? strchr(l, ']') : NULL;
	snprintf(buf, sizeof(buf), "%.*s", r ? (int)(r - l - 1) : 7, r ? l + 1 : "unknown");
	free(text);
	return buf;
}

static bool yes(enum feature f)
{
	return feature_has(f, NULL);
}

/* As func's choose_method() decides. */
static const char *func_method(void)
{
	static char buf[160];
	const char *why;

	const char *kp = yes(FEAT_KPROBE_MULTI) ? "kprobe.multi" :
			 !yes(FEAT_KPROBE) ? "none: no kprobes" :
			 yes(FEAT_ATTACH_COOKIE) ? "one kprobe each" :
			 "one kprobe each, with program copies (no attach cookies)";

	if (feature_has(FEAT_FENTRY, &why)) {
		snprintf(buf, sizeof(buf), "fentry/fexit for up to %d functions, above %s",
			 FUNC_FENTRY_MAX, kp);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s (not fentry: %s)", kp, why);
	return buf;
}

static int probe_run(struct options *o)
{
	struct utsname u;

	if (o->nargs) {
		kd_err("bad arguments: probe takes none");
		return -EINVAL;
	}
	/* without root every load fails: that is not what the kernel lacks */
	if (kdist_need_root())
		return -EPERM;
	uname(&u);
	printf("kernel %s %s\n", u.release, u.machine);
	printf("lockdown: %s\n\n", lockdown());
	for (int f = 0; f < NR_FEATURES; f++) {
		const char *why;
		bool ok = feature_has(f, &why);

		printf("  %-38s %s%s%s\n", feature_name(f), ok ? "yes" : "no", ok ? "" : ": ",
		       ok ? "" : why);
	}
	printf("\nattach methods:\n");
	printf("  %-22s %s\n", "CATEGORY:NAME",
	       yes(FEAT_RAW_TP) ? "raw tracepoint when no record field is read, else tracepoint" :
	       yes(FEAT_TRACEPOINT) ? "tracepoint" : "unavailable");
	printf("  %-22s %s\n", "k:FUNC, kr:FUNC",
	       yes(FEAT_FENTRY) ? "fentry, fexit (kprobe, kretprobe for a function they refuse)" :
	       yes(FEAT_KPROBE) ? "kprobe, kretprobe" : "unavailable: no kprobes");
	printf("  %-22s %s\n", "func GLOB (kernel)", func_method());
	printf("  %-22s %s\n", "func u:PATH:GLOB", !yes(FEAT_UPROBE) ? "unavailable: no uprobes" :
	       uprobe_multi_supported(NULL) ? "uprobe.multi (one link per binary)" :
	       yes(FEAT_ATTACH_COOKIE) ? "one uprobe and uretprobe per function" :
	       "one uprobe and uretprobe per function, with program copies (no attach cookies)");
	printf("  %-22s %s\n", "u:PATH:SYM, ur:...", yes(FEAT_UPROBE) ? "uprobe, uretprobe" :
	       "unavailable: no uprobes");
	printf("  %-22s %s\n", "thread-matched pairs",
	       yes(FEAT_TASK_STORAGE_TP) ? "task storage" : "tid-keyed hash");
	return 0;
}

const struct command cmd_probe = {
	.name = "probe",
	.args = "",
	.summary = "what this kernel supports and how kdist will attach",
	.opts = OPT(BTF),
	.run = probe_run,
};
