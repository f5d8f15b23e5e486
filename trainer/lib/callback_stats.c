// SPDX-License-Identifier: MIT
/*
 * callback_stats.c - device statistics per step (the DeviceStatsMonitor):
 * memory in use and its peak from HPU_INFO_DRAM_USAGE (the context's
 * HBM) or, on cpu, the backend's arenas; utilization from
 * HPU_INFO_DEVICE_UTILIZATION over the last 100 ms.
 */
#include "hpudrv.h"
#include "trainer_internal.h"

#define UTIL_PERIOD_MS 100

void ht_callback_device_stats(struct ht_trainer *t, struct ht_step_info *info)
{
	struct hpu_info_device_utilization u;
	struct hpu_info_dram_usage d;
	uint64_t in_use = 0, peak = 0;

	info->utilization = -1;
	if (!t->o.device_stats)
		return;
	if (t->dev && !hpu_info_dram_usage(t->dev, &d)) {
		in_use = d.ctx_dram_mem;
	} else if (!ht_backend_mem_stats(t->be, &in_use, &peak)) {
		if (peak > t->cb.mem_peak)
			t->cb.mem_peak = peak;
	}
	if (in_use > t->cb.mem_peak)
		t->cb.mem_peak = in_use;
	info->mem_in_use = in_use;
	info->mem_peak = t->cb.mem_peak;
	if (t->dev && !hpu_info_utilization(t->dev, UTIL_PERIOD_MS, &u))
		info->utilization = (int)u.utilization;
}
