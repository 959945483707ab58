/* SPDX-License-Identifier: GPL-2.0 */
/* tracefs: where it is (mounting it when missing), event format files. */
#ifndef KDIST_TRACEFS_H
#define KDIST_TRACEFS_H

#include <stdbool.h>

#define TP_MAX_FIELDS 64

struct tp_field {
	char name[64];
	char type[64];
	unsigned int offset;
	unsigned int size;
	bool is_signed;
	bool is_array;		/* char comm[16] and the like */
	bool is_data_loc;	/* __data_loc: variable-length, not readable as a key */
};

struct tp_format {
	char category[64];
	char name[128];
	int id;
	int nfields;
	struct tp_field fields[TP_MAX_FIELDS];
};

/* Path of the mounted tracefs; mounts it at /sys/kernel/tracing if needed.
 * NULL with an error printed when that fails. */
const char *tracefs_root(void);

/* Parse the text of a format file (fixture-testable). 0 or -EINVAL. */
int tp_format_parse(const char *text, struct tp_format *f);
/* Read events/CAT/NAME/format: -ENOENT when no such event. */
int tp_format_load(const char *category, const char *name, struct tp_format *f);
/* The one line for an event text ("CAT:NAME") tracefs does not have:
 * "unknown event ...", with the nearest event it has, if one is near. */
void tracefs_unknown_event(const char *text);
/* Common fields (common_type, common_pid...) are hidden from users. */
const struct tp_field *tp_format_field(const struct tp_format *f, const char *name);

#endif
