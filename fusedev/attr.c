// SPDX-License-Identifier: MIT
/*
 * attr.c - the sysfs-style text attributes of docs/device-directory.md:
 * class/hpuN/<attr> per device and driver/<attr> for the daemon. Every
 * value comes from the same source as the matching INFO answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_fused.h"
#include "hpu_names.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int text_printf(char **text, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int text_printf(char **text, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*text = NULL;
		return -ENOMEM;
	}
	*len = (size_t)n;
	return 0;
}

static struct hpu_fw_telemetry dev_telemetry(struct hfd_device *dev)
{
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	return t;
}

static int show_device_type(struct hfd_device *dev, char **text, size_t *len)
{
	static const char *const names[] = {
		[HPU_DEVICE_GAUDI] = "GAUDI",
		[HPU_DEVICE_GAUDI2] = "GAUDI2",
		[HPU_DEVICE_GAUDI3] = "GAUDI3",
	};
	uint32_t t = dev->ip.device_type;

	return text_printf(text, len, "%s\n",
			   t < ARRAY_SIZE(names) && names[t] ? names[t] :
							       "UNKNOWN");
}

static int show_card_name(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%s\n", (const char *)dev->ip.card_name);
}

static int show_pci_addr(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%s\n", dev->bus_id);
}

static int show_module_id(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%u\n", dev->ip.module_id);
}

static int show_serial(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%s\n", dev->serial);
}

static int show_uuid(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%s\n", dev->uuid);
}

/* One line per NIC port: "PORT XX:XX:XX:XX:XX:XX" (identity.c) */
static int show_mac_addresses(struct hfd_device *dev, char **text, size_t *len)
{
	const uint8_t *m = dev->mac_prefix;
	unsigned int p, n = dev->ip.num_nic_ports;
	char *buf;
	size_t off = 0;

	buf = malloc((size_t)n * 24 + 1);
	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	for (p = 0; p < n; p++)
		off += (size_t)sprintf(buf + off,
				       "%u %02X:%02X:%02X:%02X:%02X:%02X\n", p,
				       m[0], m[1], m[2], m[3], m[4], p & 0xff);
	*text = buf;
	*len = off;
	return 0;
}

/*
 * "CORRECTED UNCORRECTABLE": HBM ECC errors, the model's own and those
 * injected through DEBUG (ecc.c)
 */
static int show_ecc_errors(struct hfd_device *dev, char **text, size_t *len)
{
	struct hpu_fw_telemetry t = dev_telemetry(dev);
	uint64_t c, u;

	pthread_mutex_lock(&dev->fault_lock);
	c = t.ecc_corrected + dev->ecc_corrected;
	u = t.ecc_uncorrected + dev->ecc_uncorrected;
	pthread_mutex_unlock(&dev->fault_lock);
	return text_printf(text, len, "%llu %llu\n", (unsigned long long)c,
			   (unsigned long long)u);
}

static int show_status(struct hfd_device *dev, char **text, size_t *len)
{
	uint32_t s;

	pthread_mutex_lock(&dev->ctx_lock);
	s = dev->status;
	pthread_mutex_unlock(&dev->ctx_lock);
	return text_printf(text, len, "%s\n", hpu_status_name(s));
}

static int show_hard_reset_cnt(struct hfd_device *dev, char **text, size_t *len)
{
	uint32_t v;

	pthread_mutex_lock(&dev->ctx_lock);
	v = dev->hard_reset_cnt;
	pthread_mutex_unlock(&dev->ctx_lock);
	return text_printf(text, len, "%u\n", v);
}

static int show_soft_reset_cnt(struct hfd_device *dev, char **text, size_t *len)
{
	uint32_t v;

	pthread_mutex_lock(&dev->ctx_lock);
	v = dev->soft_reset_cnt;
	pthread_mutex_unlock(&dev->ctx_lock);
	return text_printf(text, len, "%u\n", v);
}

static int show_max_power(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%u\n", dev->ip.max_power_mw);
}

static int show_power_mw(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%llu\n",
			   (unsigned long long)dev_telemetry(dev).power_mw);
}

static int show_temperature(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%d\n", dev_telemetry(dev).temp_asic_mc);
}

static int show_clk_max(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%u\n", dev->ip.clk_max_mhz);
}

static int show_clk_cur(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%u\n", dev_telemetry(dev).clk_cur_mhz);
}

static int show_memory_total(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%llu\n",
			   (unsigned long long)dev->ip.dram_size);
}

static int show_memory_used(struct hfd_device *dev, char **text, size_t *len)
{
	uint64_t used = 0, total;
	struct hfd_ctx *ctx;

	if (hfd_device_has_cs(dev)) {
		dev->model->ops->mem_usage(dev->fw, &used, &total);
		return text_printf(text, len, "%llu\n",
				   (unsigned long long)used);
	}
	pthread_mutex_lock(&dev->ctx_lock);
	for (ctx = dev->ctx_list; ctx; ctx = ctx->next)
		used += ctx->dram_bytes;
	pthread_mutex_unlock(&dev->ctx_lock);
	return text_printf(text, len, "%llu\n", (unsigned long long)used);
}

static int show_export_dir(struct hfd_device *dev, char **text, size_t *len)
{
	char dir[512] = "";

	/* models older than 1.1 export nothing: the line stays empty */
	if (dev->model->if_minor >= 1 && dev->model->ops->export_dir &&
	    dev->model->ops->export_dir(dev->fw, dir, sizeof(dir)))
		dir[0] = '\0';
	return text_printf(text, len, "%s\n", dir);
}

static int show_utilization(struct hfd_device *dev, char **text, size_t *len)
{
	uint32_t pct = 0;
	int ret;

	ret = dev->model->ops->utilization(dev->fw, 1000, &pct);
	if (ret)
		return ret;
	return text_printf(text, len, "%u\n", pct);
}

/*
 * The modeled busy time (--timing-model, firmware interface 1.6): the
 * last second's modeled utilization and power, the counts since it was
 * turned on; -ENODATA when the device does not count
 */
static int show_model_busy(struct hfd_device *dev, char **text, size_t *len)
{
	const struct hpu_fw_ops *o = dev->model->ops;
	struct hpu_fw_model_busy mb;
	int ret;

	if (hfd_fw_if_minor_in_use(dev->model) < 6 || !o->model_busy)
		return -ENODATA;
	ret = o->model_busy(dev->fw, 1000, &mb);
	if (ret)
		return ret;
	return text_printf(text, len,
			   "utilization %u\npower_mw %u\nwindow_ms %llu\n"
			   "window_busy_ns %llu\ndma_ns %llu\nmme_ns %llu\n"
			   "tpc_ns %llu\nnic_ns %llu\njobs %llu\n",
			   mb.utilization, mb.power_mw,
			   (unsigned long long)(mb.window_ns / 1000000),
			   (unsigned long long)mb.window_busy_ns,
			   (unsigned long long)mb.ns[0],
			   (unsigned long long)mb.ns[1],
			   (unsigned long long)mb.ns[2],
			   (unsigned long long)mb.ns[3],
			   (unsigned long long)mb.jobs);
}

static int show_fw_version(struct hfd_device *dev, char **text, size_t *len)
{
	return text_printf(text, len, "%s %s\n", dev->model->name,
			   dev->model->version);
}

const struct hfd_attr_dev hfd_dev_attrs[] = {
	{ .name = "device_type", .show = show_device_type },
	{ .name = "card_name", .show = show_card_name },
	{ .name = "pci_addr", .show = show_pci_addr },
	{ .name = "module_id", .show = show_module_id },
	{ .name = "serial_number", .show = show_serial },
	{ .name = "uuid", .show = show_uuid },
	{ .name = "mac_addresses", .show = show_mac_addresses },
	{ .name = "ecc_errors", .show = show_ecc_errors },
	{ .name = "status", .show = show_status },
	{ .name = "hard_reset_cnt", .show = show_hard_reset_cnt },
	{ .name = "soft_reset_cnt", .show = show_soft_reset_cnt },
	{ .name = "max_power", .show = show_max_power },
	{ .name = "power_mw", .show = show_power_mw },
	{ .name = "temperature_mc", .show = show_temperature },
	{ .name = "clk_max_freq_mhz", .show = show_clk_max },
	{ .name = "clk_cur_freq_mhz", .show = show_clk_cur },
	{ .name = "memory_total", .show = show_memory_total },
	{ .name = "memory_used", .show = show_memory_used },
	{ .name = "utilization", .show = show_utilization },
	{ .name = "model_busy", .show = show_model_busy },
	{ .name = "fw_version", .show = show_fw_version },
	{ .name = "clients", .show = hfd_device_clients_text },
	{ .name = "export_dir", .show = show_export_dir },
};

const unsigned int hfd_num_dev_attrs = ARRAY_SIZE(hfd_dev_attrs);

static int show_drv_version(struct hfd_driver *drv, char **text, size_t *len)
{
	return text_printf(text, len, "%s\n", HPU_VERSION);
}

static int show_drv_fw_if(struct hfd_driver *drv, char **text, size_t *len)
{
	return text_printf(text, len, "%u.%u\n", drv->model->if_major,
			   hfd_fw_if_minor_in_use(drv->model));
}

static int show_drv_model(struct hfd_driver *drv, char **text, size_t *len)
{
	return text_printf(text, len, "%s\n", drv->model->name);
}

static int show_drv_pid(struct hfd_driver *drv, char **text, size_t *len)
{
	return text_printf(text, len, "%d\n", (int)getpid());
}

static int show_drv_num_devices(struct hfd_driver *drv, char **text,
				size_t *len)
{
	return text_printf(text, len, "%u\n", drv->ndev);
}

/* "IP:PORT" of the scale-out endpoint, an empty line without one */
static int show_drv_scaleout_addr(struct hfd_driver *drv, char **text,
				  size_t *len)
{
	return text_printf(text, len, "%s\n", drv->scaleout_addr);
}

/* The OpenBLAS core of the MME's GEMMs, an empty line when not known */
static int show_drv_blas_core(struct hfd_driver *drv, char **text, size_t *len)
{
	return text_printf(text, len, "%s\n", drv->blas_core);
}

/* "NOW EVER": client memory accesses abandoned, still stuck and ever */
static int show_drv_uaccess_stuck(struct hfd_driver *drv, char **text,
				  size_t *len)
{
	uint64_t now, ever, refused;

	hfd_uaccess_guard_stats(&now, &ever, &refused);
	return text_printf(text, len, "%llu %llu\n", (unsigned long long)now,
			   (unsigned long long)ever);
}

/*
 * The device model's scheduler counters (firmware interface 1.7), one
 * "name value" line each: thread handoffs and worker wake-ups
 * (docs/firmware-sim.md, "Run to completion of dependent work")
 */
static int show_drv_sched_stats(struct hfd_driver *drv, char **text,
				size_t *len)
{
	struct hpu_fw_sched_stats st;

	if (hfd_fw_if_minor_in_use(drv->model) < 7 ||
	    !drv->model->ops->sched_stats)
		return -ENODATA;
	drv->model->ops->sched_stats(&st);
	return text_printf(text, len,
			   "handoff_thread %llu\nhandoff_pool %llu\n"
			   "chain_cuts %llu\nsubmit_pool %llu\nwakeups %llu\n",
			   (unsigned long long)st.handoff_thread,
			   (unsigned long long)st.handoff_pool,
			   (unsigned long long)st.chain_cuts,
			   (unsigned long long)st.submit_pool,
			   (unsigned long long)st.wakeups);
}

const struct hfd_attr_drv hfd_drv_attrs[] = {
	{ .name = "version", .show = show_drv_version },
	{ .name = "fw_if", .show = show_drv_fw_if },
	{ .name = "model", .show = show_drv_model },
	{ .name = "pid", .show = show_drv_pid },
	{ .name = "num_devices", .show = show_drv_num_devices },
	{ .name = "scaleout_addr", .show = show_drv_scaleout_addr },
	{ .name = "uaccess_stuck", .show = show_drv_uaccess_stuck },
	{ .name = "sched_stats", .show = show_drv_sched_stats },
	{ .name = "blas_core", .show = show_drv_blas_core },
};

const unsigned int hfd_num_drv_attrs = ARRAY_SIZE(hfd_drv_attrs);
