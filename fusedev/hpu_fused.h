/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused.h - internal interfaces of the hpu-fused driver core
 * (libhpufusedev): the daemon's limits and defaults, and its parts, one
 * header per concern:
 *	hpu_fused_log.h      logging
 *	hpu_fused_dev.h      the driver, devices, contexts, per-context limits
 *	hpu_fused_uaccess.h  client memory access and its bound
 *	hpu_fused_submit.h   packets, the timer, memory, CBs, CSs, waits
 *	hpu_fused_ioctl.h    ioctl dispatch and argument rules
 *	hpu_fused_ring.h     user-mode rings: the consumer core, RING
 *	hpu_fused_fs.h       attributes, hot-plug, the FUSE front end, mounts
 *
 * docs/fusedev.md describes the design decisions.
 */
#ifndef HPU_FUSED_H
#define HPU_FUSED_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 314
#endif

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

#include "hpu_accel.h"
#include "hpu_fw_if.h"
#include "hpu_warn.h"

/* Limits of the daemon */
#define HFD_MAX_DEVICES 64
#define HFD_DEF_DEVICES 8

/*
 * Worker threads of the FUSE loop. No request blocks a worker: a WAIT_CS
 * that has to wait keeps its fuse_req_t and is answered later from the
 * completion or from the timer thread (wait.c), so any number of waiters
 * costs no thread.
 */
#define HFD_MAX_THREADS 80

/*
 * Client memory accesses (uaccess_guard.c, docs/fusedev.md "Client
 * memory"): one that takes longer than --uaccess-timeout-ms is abandoned
 * (its request answered EFAULT, its worker left stuck). Stuck workers are
 * capped per client thread and process; accesses in flight (stuck or
 * not) per user and in total. An access over the user or total cap waits
 * for a free one, at most the timeout and only while not all of those
 * are stuck; waiting accesses are capped per user and in total.
 * The FUSE loop may start HFD_MAX_THREADS_ALL workers, so that stuck and
 * waiting ones never take the pool from other clients.
 */
#define HFD_UACCESS_DEF_TIMEOUT_MS   2000
#define HFD_UACCESS_MIN_TIMEOUT_MS   50
#define HFD_UACCESS_MAX_TIMEOUT_MS   60000
#define HFD_UACCESS_MAX_STUCK_THREAD 1
#define HFD_UACCESS_MAX_STUCK_PROC   8
#define HFD_UACCESS_MAX_STUCK_UID    128
#define HFD_UACCESS_MAX_STUCK	     512
#define HFD_UACCESS_MAX_WAIT_UID     448
#define HFD_UACCESS_MAX_WAIT	     512
#define HFD_MAX_THREADS_ALL \
	(HFD_MAX_THREADS + HFD_UACCESS_MAX_STUCK + HFD_UACCESS_MAX_WAIT)

/* SIGINT/SIGTERM: the daemon is gone within this, stuck workers or not */
#define HFD_STOP_BOUND_MS 4000

/*
 * Default modes of the device nodes (hpu-fused --mode, --control-mode).
 * A compute node gives everything to whoever opens it, so it is never
 * open to others; a control node answers INFO only (like the attribute
 * tree, which is world-readable), so monitoring works for every user.
 */
#define HFD_DEF_NODE_MODE    0660
#define HFD_DEF_CONTROL_MODE 0664

/* Default per-CS timeout (hpu-fused --cs-timeout-ms): habanalabs' default
 * lockup timeout (its timeout_locked module parameter) is 30 s too */
#define HFD_DEF_CS_TIMEOUT_MS 30000

/* Default of the cs_in_flight limit: CSs of one context in flight at
 * once (-EAGAIN beyond; limits.c, hpu-fused --limit) */
#define HFD_CTX_MAX_CS_IN_FLIGHT 1024

/* Default of the events limit: events kept per context before the oldest
 * are dropped; also the most one read() returns */
#define HFD_CTX_MAX_EVENTS 64

#include "hpu_fused_log.h"
#include "hpu_fused_dev.h"
#include "hpu_fused_uaccess.h"
#include "hpu_fused_submit.h"
#include "hpu_fused_ioctl.h"
#include "hpu_fused_ring.h"
#include "hpu_fused_fs.h"

#endif /* HPU_FUSED_H */
