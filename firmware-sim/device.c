// SPDX-License-Identifier: MIT
/*
 * device.c - life cycle and identity of a simulated device: create,
 * destroy, HW_IP_INFO, device time, reset, idle state; the operations
 * table of the model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpusim.h"
#include "trace.h"

/* OAM module ids in a server (struct hpu_info_hw_ip_info.module_id) */
#define HPUSIM_MAX_MODULES 8

static uint64_t hpusim_monotonic_ns(void *arg)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * hpusim_now_ns() - the device's clock now
 * @dev: device
 *
 * Return: the clock in ns (absolute, not relative to creation).
 */
uint64_t hpusim_now_ns(const struct hpu_fw_device *dev)
{
	return dev->clock(dev->clock_arg);
}

/* Bits 0..n-1 set; n may be 64 */
static uint64_t hpusim_mask(uint32_t n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

static int hpusim_check_config(const struct hpu_fw_config *cfg)
{
	const struct hpu_fw_profile *p;

	if (!cfg || !cfg->profile || !hpusim_profile_is_known(cfg->profile))
		return -EINVAL;
	p = cfg->profile;
	if (cfg->module_id >= HPUSIM_MAX_MODULES)
		return -EINVAL;
	if (cfg->serial && strlen(cfg->serial) >= HPUSIM_SERIAL_MAX)
		return -EINVAL;
	if (cfg->dram_size && (cfg->dram_size > p->dram_size ||
			       cfg->dram_size % p->dram_page_size))
		return -EINVAL;
	/* the ABI's masks: DMA and MME are 32 bits, TPC and NIC 64 */
	if (p->num_dma > 32 || p->num_mme > 32 || p->num_tpc > 64 ||
	    p->num_nic_ports > 64 ||
	    hpusim_profile_engines(p) > HPUSIM_MAX_ENGINES)
		return -EINVAL;
	return 0;
}

/**
 * hpusim_device_create() - create a device with a chosen time source
 * @cfg: configuration
 * @clock: time source, or NULL for CLOCK_MONOTONIC
 * @clock_arg: argument of @clock
 * @out: the new device
 *
 * Return: 0, -EINVAL for a bad configuration, -ENOMEM.
 */
int hpusim_device_create(const struct hpu_fw_config *cfg, hpusim_clock_fn clock,
			 void *clock_arg, struct hpu_fw_device **out)
{
	const struct hpu_fw_profile *p;
	struct hpu_fw_device *dev;
	int ret;

	if (!out)
		return -EINVAL;
	ret = hpusim_check_config(cfg);
	if (ret)
		return ret;
	p = cfg->profile;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->profile = p;
	dev->dram_size = cfg->dram_size ? cfg->dram_size : p->dram_size;
	dev->index = cfg->index;
	dev->module_id = cfg->module_id;
	dev->pci_domain = cfg->pci_domain;
	dev->pci_bus = cfg->pci_bus;
	if (cfg->serial)
		snprintf(dev->serial, sizeof(dev->serial), "%s", cfg->serial);
	else
		snprintf(dev->serial, sizeof(dev->serial), "HPUS%u-%04u-%02u",
			 p->device_type, cfg->index, cfg->module_id);
	dev->clock = clock ? clock : hpusim_monotonic_ns;
	dev->clock_arg = clock ? clock_arg : NULL;
	dev->t0_ns = hpusim_now_ns(dev);

	dev->engine_base[HPUSIM_ENGINE_DMA] = 0;
	dev->engine_base[HPUSIM_ENGINE_MME] = p->num_dma;
	dev->engine_base[HPUSIM_ENGINE_TPC] = p->num_dma + p->num_mme;
	dev->engine_base[HPUSIM_ENGINE_NIC] =
		p->num_dma + p->num_mme + p->num_tpc;
	dev->num_engines = hpusim_profile_engines(p);
	dev->cb = cfg->cb;
	hpusim_list_init(&dev->as_list);

	ret = pthread_mutex_init(&dev->as_lock, NULL);
	if (ret) {
		ret = -ret;
		goto err_free_dev;
	}
	ret = hpusim_telemetry_init(dev);
	if (ret)
		goto err_destroy_as_lock;
	ret = hpusim_mem_init(dev);
	if (ret)
		goto err_fini_telemetry;
	ret = hpusim_queues_init(dev);
	if (ret)
		goto err_fini_mem;
	ret = hpusim_nic_dev_init(dev, cfg->fabric);
	if (ret)
		goto err_fini_queues;

	*out = dev;
	return 0;

err_fini_queues:
	hpusim_queues_fini(dev);
err_fini_mem:
	hpusim_mem_fini(dev);
err_fini_telemetry:
	hpusim_telemetry_fini(dev);
err_destroy_as_lock:
	pthread_mutex_destroy(&dev->as_lock);
err_free_dev:
	free(dev);
	return ret;
}

static int hpusim_create(const struct hpu_fw_config *cfg,
			 struct hpu_fw_device **out)
{
	return hpusim_device_create(cfg, NULL, NULL, out);
}

/* Address spaces the driver left: their submissions are aborted */
static void hpusim_destroy_address_spaces(struct hpu_fw_device *dev)
{
	struct hpu_fw_as *as;

	for (;;) {
		pthread_mutex_lock(&dev->as_lock);
		if (hpusim_list_empty(&dev->as_list)) {
			pthread_mutex_unlock(&dev->as_lock);
			return;
		}
		as = hpusim_container_of(dev->as_list.next, struct hpu_fw_as,
					 node);
		pthread_mutex_unlock(&dev->as_lock);
		hpusim_as_destroy(as);
	}
}

static void hpusim_destroy(struct hpu_fw_device *dev)
{
	if (!dev)
		return;
	/* peers see the far end down from now on */
	hpusim_nic_dev_leave(dev);
	hpusim_destroy_address_spaces(dev);
	hpusim_nic_dev_fini(dev);
	hpusim_queues_fini(dev);
	hpusim_mem_fini(dev);
	hpusim_telemetry_fini(dev);
	pthread_mutex_destroy(&dev->as_lock);
	free(dev);
}

/**
 * hpusim_engine_id() - engine id of the @idx-th engine of a class
 * @dev: device
 * @cls: engine class
 * @idx: engine index within its class
 *
 * Return: the engine id, or -EINVAL when the device has no such engine.
 */
int hpusim_engine_id(const struct hpu_fw_device *dev,
		     enum hpusim_engine_class cls, uint32_t idx)
{
	uint32_t end;

	if (cls >= HPUSIM_ENGINE_CLASSES)
		return -EINVAL;
	end = cls + 1 < HPUSIM_ENGINE_CLASSES ? dev->engine_base[cls + 1] :
						dev->num_engines;
	if (idx >= end - dev->engine_base[cls])
		return -EINVAL;
	return (int)(dev->engine_base[cls] + idx);
}

static void hpusim_copy_str(__u8 *dst, size_t size, const char *src)
{
	size_t len = strnlen(src, size - 1);

	memset(dst, 0, size);
	memcpy(dst, src, len);
}

static void hpusim_hw_ip_info(struct hpu_fw_device *dev,
			      struct hpu_info_hw_ip_info *out)
{
	const struct hpu_fw_profile *p = dev->profile;

	memset(out, 0, sizeof(*out));
	out->dram_base_address = p->dram_base;
	out->dram_size = dev->dram_size;
	out->sram_base_address = p->sram_base;
	out->dram_page_size = p->dram_page_size;
	out->page_size_mask = p->page_size_mask;
	out->tpc_enabled_mask = hpusim_mask(p->num_tpc);
	out->nic_ports_mask = hpusim_mask(p->num_nic_ports);
	out->sram_size = p->sram_size;
	out->device_id = p->pci_device_id;
	out->device_type = p->device_type;
	out->revision_id = p->revision_id;
	out->module_id = dev->module_id;
	out->server_type = p->server_type;
	out->mme_enabled_mask = (__u32)hpusim_mask(p->num_mme);
	out->dma_enabled_mask = (__u32)hpusim_mask(p->num_dma);
	out->num_tpc = p->num_tpc;
	out->num_mme = p->num_mme;
	out->num_dma = p->num_dma;
	out->num_nic_ports = p->num_nic_ports;
	out->num_queues = p->num_queues;
	out->max_cs_chunks = HPU_MAX_JOBS_PER_CS;
	out->max_power_mw = p->max_power_mw;
	out->clk_max_mhz = p->clk_max_mhz;
	hpusim_copy_str(out->card_name, sizeof(out->card_name), p->card_name);
	hpusim_copy_str(out->fw_version, sizeof(out->fw_version),
			hpusim_model.version);
}

static int hpusim_utilization(struct hpu_fw_device *dev, uint32_t period_ms,
			      uint32_t *percent)
{
	return hpusim_telemetry_utilization(dev, period_ms, percent);
}

static int hpusim_hw_idle(struct hpu_fw_device *dev, uint64_t busy_mask[4])
{
	return hpusim_telemetry_hw_idle(dev, busy_mask);
}

static void hpusim_telemetry(struct hpu_fw_device *dev,
			     struct hpu_fw_telemetry *out)
{
	hpusim_telemetry_sample(dev, out);
}

static uint64_t hpusim_device_time_ns(struct hpu_fw_device *dev)
{
	uint64_t now = hpusim_now_ns(dev);

	return now > dev->t0_ns ? now - dev->t0_ns : 0;
}

static int hpusim_thermal_fault(struct hpu_fw_device *dev, bool on)
{
	if (!dev)
		return -EINVAL;
	hpusim_telemetry_thermal_fault(dev, on);
	return 0;
}

static int hpusim_reset(struct hpu_fw_device *dev, bool hard)
{
	struct hpusim_list *pos;

	if (!dev)
		return -EINVAL;
	/* as_lock keeps every address space alive while it is aborted */
	pthread_mutex_lock(&dev->as_lock);
	for (pos = dev->as_list.next; pos != &dev->as_list; pos = pos->next) {
		struct hpu_fw_as *as =
			hpusim_container_of(pos, struct hpu_fw_as, node);

		hpusim_as_abort_all(as);
		/* the device's sync manager is reset with it */
		hpusim_sync_clear(as);
	}
	pthread_mutex_unlock(&dev->as_lock);
	hpusim_telemetry_reset(dev);
	return 0;
}

const struct hpu_fw_ops hpusim_ops = {
	.create = hpusim_create,
	.destroy = hpusim_destroy,
	.hw_ip_info = hpusim_hw_ip_info,
	.utilization = hpusim_utilization,
	.hw_idle = hpusim_hw_idle,
	.telemetry = hpusim_telemetry,
	.device_time_ns = hpusim_device_time_ns,
	.reset = hpusim_reset,
	.mem_alloc = hpusim_mem_alloc,
	.mem_free = hpusim_mem_free,
	.mem_size = hpusim_mem_size,
	.mem_usage = hpusim_mem_usage,
	.mem_export = hpusim_mem_export,
	.as_create = hpusim_as_create,
	.as_destroy = hpusim_as_destroy,
	.map_mem = hpusim_map_mem,
	.map_host = hpusim_map_host,
	.unmap = hpusim_unmap,
	.cs_submit = hpusim_cs_submit,
	.cs_abort = hpusim_cs_abort,
	.sob_read = hpusim_sob_read,
	.sob_write = hpusim_sob_write,
	.export_dir = hpusim_export_dir,
	.map_shared = hpusim_map_shared,
	.fabric_create = hpusim_fabric_create,
	.fabric_destroy = hpusim_fabric_destroy,
	.fabric_addr = hpusim_fabric_addr,
	.nic_info = hpusim_nic_info,
	.as_set_cookie = hpusim_as_set_cookie,
	.nic_reg_mr = hpusim_nic_reg_mr,
	.nic_dereg_mr = hpusim_nic_dereg_mr,
	.nic_connect = hpusim_nic_connect,
	.nic_disconnect = hpusim_nic_disconnect,
	.nic_set_link = hpusim_nic_set_link,
	.nic_accept = hpusim_nic_accept,
	.thermal_fault = hpusim_thermal_fault,
	.cs_submit_seq = hpusim_cs_submit_seq,
	.model_busy_enable = hpusim_model_busy_enable,
	.model_busy = hpusim_model_busy,
	.sched_stats = hpusim_sched_stats,
	.as_read_dev = hpusim_as_read_dev,
	.trace_start = hpusim_trace_start,
	.trace_stop = hpusim_trace_stop,
	.trace_peek = hpusim_trace_peek,
	.trace_consume = hpusim_trace_consume,
	.trace_status = hpusim_trace_status,
	.trace_free = hpusim_trace_free,
};
