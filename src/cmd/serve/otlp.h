/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdist serve --otlp: the measurements pushed to an OpenTelemetry
 * receiver as OTLP/HTTP (protobuf, ExportMetricsServiceRequest of
 * opentelemetry-proto's metrics/v1), cumulative from the same in-kernel
 * counters as /metrics.  A latency or value histogram is an
 * ExponentialHistogram of scale PROM_SCHEMA with the buckets of the
 * protobuf exposition (prom.h: each of kdist's buckets at its midpoint);
 * counts and losses are monotonic Sums.  The resource is the host
 * (service.name "kdist", service.instance.id and host.name its name);
 * container, pod and the other --by keys are data point attributes.
 *
 * Pushing never holds the serving loop: it renders a request at each
 * interval into a bounded queue that a thread of its own sends, retrying
 * with a growing pause; when the queue is full its oldest request is
 * dropped and counted.
 */
#ifndef KDIST_OTLP_H
#define KDIST_OTLP_H

#include <stdint.h>

#include "lib/pb.h"
#include "view/prom.h"

#define OTLP_QUEUE 8		/* requests waiting, at most */
#define OTLP_TIMEOUT_S 5	/* to connect, send and be answered */
#define OTLP_RETRY_MAX_S 30	/* the longest pause between tries */

/* The request for n measurements, host's, by kdist version, counted
 * since start_ns (unix ns), at now_ns. */
void otlp_encode(struct pb *pb, const struct prom_source *src, int n, const char *host,
		 const char *version, uint64_t start_ns, uint64_t now_ns);

struct otlp;

/* A pusher to url ("http://HOST:PORT/PATH"): NULL after one line when url
 * is no such URL (-EINVAL in *err) or the thread cannot start. */
struct otlp *otlp_start(const char *url, int *err);
/* Queue a request (taken, freed by the pusher). */
void otlp_push(struct otlp *p, struct pb *req);
/* Its counts: requests sent (2xx), dropped from the full queue, tries
 * that failed. */
void otlp_counts(struct otlp *p, uint64_t *sent, uint64_t *dropped, uint64_t *failed);
void otlp_stop(struct otlp *p);

#endif
