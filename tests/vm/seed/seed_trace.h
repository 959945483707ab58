/* SPDX-License-Identifier: GPL-2.0 */
/* The two tracepoints an SMMU patch adds around an IO page fault, in its
 * shape: the device's name and the PASID the fault belongs to. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smmu

#if !defined(SEED_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SEED_TRACE_H

#include <linux/tracepoint.h>
#include <linux/version.h>

/* __assign_str lost its second argument in 6.10 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define seed_assign_dev(dev) __assign_str(dev)
#else
#define seed_assign_dev(dev) __assign_str(dev, dev)
#endif

DECLARE_EVENT_CLASS(io_fault,
	TP_PROTO(const char *dev, int pasid),
	TP_ARGS(dev, pasid),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(int, pasid)
	),
	TP_fast_assign(
		seed_assign_dev(dev);
		__entry->pasid = pasid;
	),
	TP_printk("dev=%s pasid=%d", __get_str(dev), __entry->pasid)
);

DEFINE_EVENT(io_fault, io_fault_entry,
	TP_PROTO(const char *dev, int pasid),
	TP_ARGS(dev, pasid));

DEFINE_EVENT(io_fault, io_fault_exit,
	TP_PROTO(const char *dev, int pasid),
	TP_ARGS(dev, pasid));

#endif /* SEED_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE seed_trace
#include <trace/define_trace.h>
