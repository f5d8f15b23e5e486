/* SPDX-License-Identifier: MIT */
/*
 * hpudrv.h - libhpudrv, the userspace driver library of the hpu stack
 *
 * Enumeration of simulated (and, later, kernel) HPU devices, open by
 * index / bus id / module id, typed INFO queries and device attributes.
 * Every function that can fail returns 0 (or a count) on success and a
 * negative errno on failure. Handles are opaque. See docs/libhpudrv.md.
 *
 * The declarations live in one header per area, all included here:
 *   hpudrv_device.h  the library, enumeration, open/close, driver events,
 *                    hot-plug (HPUDRV_EXPORT and struct hpu_device)
 *   hpudrv_info.h    INFO queries, per-context limits
 *   hpudrv_mem.h     device memory, host memory, the caching allocator
 *   hpudrv_cs.h      command buffers, CS submit/wait, the CB builder
 *   hpudrv_stream.h  streams and their events
 *   hpudrv_nic.h     NIC registration, connections, fault injection
 *   hpudrv_trace.h   engine traces of the context
 *   hpudrv_profile.h host spans, HPU_PROFILE's trace file
 * Programs include this file only.
 *
 * Install layout: <prefix>/include/hpu/hpudrv.h (and the hpudrv_*.h
 * above) next to hpu_accel.h; include it as <hpu/hpudrv.h>
 * (pkg-config --cflags libhpudrv).
 */
#ifndef HPU_HPUDRV_H
#define HPU_HPUDRV_H

#include "hpudrv_device.h"
#include "hpudrv_info.h"
#include "hpudrv_mem.h"
#include "hpudrv_cs.h"
#include "hpudrv_stream.h"
#include "hpudrv_nic.h"
#include "hpudrv_trace.h"
#include "hpudrv_profile.h"

#endif /* HPU_HPUDRV_H */
