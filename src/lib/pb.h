/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A protocol buffers writer, encoding only, for the messages kdist sends:
 * Prometheus' MetricFamily (client_model's metrics.proto, the protobuf
 * exposition), OpenTelemetry's ExportMetricsServiceRequest
 * (opentelemetry-proto's metrics_service.proto, an OTLP/HTTP push) and
 * pprof's Profile (profile.proto, -o pprof).
 *
 * Why not libprotobuf-c: kdist writes and never reads, a few dozen fields
 * of two fixed schemas; protobuf-c would add a code generator to the build,
 * generated sources per .proto and a library to link, for what the wire
 * format needs here: varints, zigzag, fixed 64-bit, and length-prefixed
 * nested messages.  The field numbers are named where they are written
 * (prom.c, otlp.c, pprof.c), each with the .proto's message and field
 * name.
 */
#ifndef KDIST_PB_H
#define KDIST_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *buf;		/* malloc'd */
	size_t len, cap;
	bool oom;		/* an allocation failed: the message is void */
	size_t open[16];	/* where the nested messages begun start */
	int depth;
};

void pb_varint(struct pb *p, int field, uint64_t v);	/* uint32/64, int64, enum, bool */
void pb_sint(struct pb *p, int field, int64_t v);	/* sint32/64: zigzag */
void pb_double(struct pb *p, int field, double v);
void pb_fixed64(struct pb *p, int field, uint64_t v);	/* fixed64, sfixed64 */
void pb_string(struct pb *p, int field, const char *s);
void pb_bytes(struct pb *p, int field, const void *data, size_t len);
/* A nested message, its fields written between begin and end (at most 16
 * deep).  The length goes in front at the end, as a minimal varint. */
void pb_begin(struct pb *p, int field);
void pb_end(struct pb *p);
/* packed repeated fields: begin, pb_raw_varint()s or pb_raw_sint()s, end */
void pb_raw_varint(struct pb *p, uint64_t v);
void pb_raw_sint(struct pb *p, int64_t v);
/* len bytes of whole fields encoded elsewhere, appended as they are */
void pb_bytes_raw(struct pb *p, const void *data, size_t len);
/* A whole message, length-delimited (the exposition's encoding=delimited):
 * begin with field 0, end as above. */
#define PB_DELIMITED 0

void pb_free(struct pb *p);

#endif
