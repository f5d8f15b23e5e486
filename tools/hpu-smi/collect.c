// SPDX-License-Identifier: MIT
/*
 * collect.c - sample the selected devices through their control nodes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "smi.h"

/*
 * A kernel-backed device cannot be opened here (it speaks the habanalabs
 * ABI, libhpudrv returns -EOPNOTSUPP): what its sysfs directory says is
 * all there is.
 */
static void sample_kernel_dev(struct smi_dev *d)
{
	if (hpu_device_read_attr(d->info.index, "status", d->sys_status,
				 sizeof(d->sys_status)))
		d->sys_status[0] = '\0';
	if (hpu_device_read_attr(d->info.index, "driver_version", d->sys_driver,
				 sizeof(d->sys_driver)))
		d->sys_driver[0] = '\0';
}

/*
 * The daemon's modeled busy time (hpu-fused --timing-model): when the
 * device has it, its utilization and power replace the measured ones.
 * Absent (ENODATA: not counting; an older daemon): nothing changes.
 */
static void sample_model(struct smi_dev *d)
{
	static const char *const keys[] = { "dma_ns", "mme_ns", "tpc_ns",
					    "nic_ns" };
	unsigned long long util = ~0ULL, power = ~0ULL, v;
	char buf[512], key[32];
	const char *p;
	unsigned int i;
	int n;

	if (hpu_device_read_attr(d->info.index, "model_busy", buf, sizeof(buf)))
		return;
	for (p = buf; sscanf(p, "%31s %llu%n", key, &v, &n) == 2; p += n) {
		if (!strcmp(key, "utilization"))
			util = v;
		else if (!strcmp(key, "power_mw"))
			power = v;
		else if (!strcmp(key, "jobs"))
			d->model_jobs = v;
		for (i = 0; i < 4; i++)
			if (!strcmp(key, keys[i]))
				d->model_busy_ns[i] = v;
	}
	if (util > 100 || power > UINT32_MAX)
		return; /* not what the daemon writes: keep the measured */
	d->model = true;
	d->util.utilization = (uint32_t)util;
	d->power.power_mw = power;
}

const char *smi_util_source(const struct smi_dev *d)
{
	return d->model ? "modeled" : "measured";
}

/* Runs the INFO queries of one device; keeps the first error. */
static void sample_dev(struct smi_dev *d)
{
	struct hpu_device *dev;
	int ret;

	if (d->info.kind == HPU_DEVICE_KIND_KERNEL) {
		sample_kernel_dev(d);
		return;
	}
	ret = hpu_open_control(d->info.index, &dev);
	if (ret) {
		d->err = ret;
		return;
	}
#define Q(call)                       \
	do {                          \
		ret = (call);         \
		if (ret && !d->err)   \
			d->err = ret; \
	} while (0)
	Q(hpu_info_hw_ip(dev, &d->hw));
	Q(hpu_info_dram_usage(dev, &d->dram));
	Q(hpu_info_hw_idle(dev, &d->idle));
	Q(hpu_info_device_status(dev, &d->status));
	Q(hpu_info_utilization(dev, SMI_UTIL_PERIOD_MS, &d->util));
	Q(hpu_info_clk_rate(dev, &d->clk));
	Q(hpu_info_reset_count(dev, &d->reset));
	Q(hpu_info_power(dev, &d->power));
	Q(hpu_info_thermal(dev, &d->thermal));
	Q(hpu_info_pci(dev, &d->pci));
	Q(hpu_info_driver_version(dev, &d->drv));
	Q(hpu_info_open_stats(dev, &d->open));
	Q(hpu_info_cs_counters(dev, &d->cs));
	if (d->drv.capabilities & HPU_CAP_CTX_LIMITS) {
		Q(hpu_info_ctx_limits(dev, &d->limits));
		d->have_limits = !ret;
	}
#undef Q
	hpu_close(dev);
	if (!d->err)
		sample_model(d);
	ret = hpu_device_processes(d->info.index, &d->procs, &d->nprocs);
	if (ret && !d->err)
		d->err = ret;
}

static void stamp(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char t[24];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(t, sizeof(t), "%Y/%m/%d %H:%M:%S", &tm);
	snprintf(buf, len, "%.19s.%03u", t,
		 (unsigned int)(tv.tv_usec / 1000) % 1000u);
}

int smi_sample(const struct hpu_device_info *sel, int nsel, bool query,
	       struct smi_sample *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	stamp(s->timestamp, sizeof(s->timestamp));
	if (nsel) {
		s->devs = calloc((size_t)nsel, sizeof(*s->devs));
		if (!s->devs)
			return -ENOMEM;
	}
	s->ndev = nsel;
	for (i = 0; i < nsel; i++) {
		s->devs[i].info = sel[i];
		s->devs[i].kernel = sel[i].kind == HPU_DEVICE_KIND_KERNEL;
		if (query)
			sample_dev(&s->devs[i]);
		if (!s->driver_version[0] && s->devs[i].drv.version[0])
			snprintf(s->driver_version, sizeof(s->driver_version),
				 "%s", (const char *)s->devs[i].drv.version);
	}
	/* the daemon's; with kernel devices only, the habanalabs driver's */
	if (!s->driver_version[0] &&
	    hpu_driver_read_attr("version", s->driver_version,
				 sizeof(s->driver_version)))
		s->driver_version[0] = '\0';
	for (i = 0; i < nsel && !s->driver_version[0]; i++)
		snprintf(s->driver_version, sizeof(s->driver_version), "%s",
			 s->devs[i].sys_driver);
	if (!s->driver_version[0])
		snprintf(s->driver_version, sizeof(s->driver_version), "N/A");
	return 0;
}

void smi_sample_free(struct smi_sample *s)
{
	int i;

	for (i = 0; i < s->ndev; i++)
		hpu_process_list_free(s->devs[i].procs);
	free(s->devs);
	memset(s, 0, sizeof(*s));
}

const char *smi_status(const struct smi_dev *d)
{
	if (d->kernel)
		return d->sys_status[0] ? d->sys_status : "N/A";
	return d->err ? "ERR!" : hpu_device_status_str(d->status.status);
}

/* Marketing name, else the chip (a kernel device may have no card_name) */
const char *smi_name(const struct smi_dev *d)
{
	if (d->info.card_name[0])
		return d->info.card_name;
	if (!d->kernel && !d->err && d->hw.card_name[0])
		return (const char *)d->hw.card_name;
	return d->info.device_type[0] ? d->info.device_type : "N/A";
}
