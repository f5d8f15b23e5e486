// SPDX-License-Identifier: MIT
/*
 * info.c - HPU_IOCTL_INFO: one builder per op, answered like snprintf
 * (copy min(return_size, full size) bytes to return_pointer, report the
 * full size).
 */
#include <errno.h>
#include <string.h>

#include "hpu_fused.h"

/*
 * Every INFO op once: its number, its name (the answer is struct
 * hpu_info_NAME, built by info_NAME() below), the answer's size as
 * docs/abi.md ("INFO ops") documents it, whether it takes period_ms, and
 * what reading it does (NULL: nothing). The answer union, the op table and
 * the compile-time checks are all made from this list.
 */
#define INFO_OPS(X)                                                       \
	X(HPU_INFO_HW_IP_INFO, hw_ip_info, 192, false, NULL)              \
	X(HPU_INFO_DRAM_USAGE, dram_usage, 32, false, NULL)               \
	X(HPU_INFO_HW_IDLE, hw_idle, 40, false, NULL)                     \
	X(HPU_INFO_DEVICE_STATUS, device_status, 8, false, NULL)          \
	X(HPU_INFO_DEVICE_UTILIZATION, device_utilization, 8, true, NULL) \
	X(HPU_INFO_CLK_RATE, clk_rate, 8, false, NULL)                    \
	X(HPU_INFO_RESET_COUNT, reset_count, 8, false, NULL)              \
	X(HPU_INFO_TIME_SYNC, time_sync, 16, false, NULL)                 \
	X(HPU_INFO_CS_COUNTERS, cs_counters, 128, false, NULL)            \
	X(HPU_INFO_POWER, power, 24, false, NULL)                         \
	X(HPU_INFO_OPEN_STATS, open_stats, 32, false, NULL)               \
	X(HPU_INFO_GET_EVENTS, events, 16, false, info_events_delivered)  \
	X(HPU_INFO_PCI_INFO, pci, 40, false, NULL)                        \
	X(HPU_INFO_DRIVER_VERSION, driver_version, 64, false, NULL)       \
	X(HPU_INFO_THERMAL, thermal, 16, false, NULL)                     \
	X(HPU_INFO_NIC, nic, 128, false, NULL)                            \
	X(HPU_INFO_CTX_LIMITS, ctx_limits, 264, false, NULL)

/* Room for the largest INFO answer */
union info_answer {
#define INFO_MEMBER(nr, name, size, period, delivered) \
	struct hpu_info_##name name;
	INFO_OPS(INFO_MEMBER)
#undef INFO_MEMBER
};

/*
 * Per op: the answer has its documented size (a uapi change that moves it
 * fails here, not at a client), fits the union it is built in, and keeps
 * the ABI's rule that every size is a multiple of 8.
 */
#define INFO_CHECK(nr, name, size, period, delivered)                         \
	_Static_assert(sizeof(struct hpu_info_##name) == (size),              \
		       "struct hpu_info_" #name ": not its documented size"); \
	_Static_assert(sizeof(struct hpu_info_##name) <=                      \
			       sizeof(union info_answer),                     \
		       "struct hpu_info_" #name ": larger than the union");   \
	_Static_assert(sizeof(struct hpu_info_##name) % 8 == 0,               \
		       "struct hpu_info_" #name ": size not a multiple of 8");
INFO_OPS(INFO_CHECK)
#undef INFO_CHECK

/**
 * hfd_driver_capabilities() - HPU_CAP_* bits of what is implemented
 * @dev: device (MEMORY, CB, CS, events and rings need a firmware interface 1.1
 *	model, NIC, NIC_PD and DEBUG a 1.3 one, TRACE a 1.5 one, DMA_SWAP
 *	a 1.7 one)
 */
uint64_t hfd_driver_capabilities(const struct hfd_device *dev)
{
	uint64_t caps = HPU_CAP_INFO;

	if (hfd_device_has_cs(dev))
		caps |= HPU_CAP_MEMORY | HPU_CAP_CB | HPU_CAP_CS |
			HPU_CAP_EVENTS | HPU_CAP_RING | HPU_CAP_RESET;
	if (hfd_device_has_nic(dev))
		caps |= HPU_CAP_NIC | HPU_CAP_NIC_PD | HPU_CAP_DEBUG;
	if (hfd_device_has_trace(dev))
		caps |= HPU_CAP_TRACE;
	/* the model swaps from interface 1.7 on */
	if (hfd_device_has_cs(dev) && hfd_fw_if_minor_in_use(dev->model) >= 7)
		caps |= HPU_CAP_DMA_SWAP;
	/* long SOBs and SOB-setting payloads from interface 1.8 on */
	if (hfd_device_has_cs(dev) && hfd_fw_if_minor_in_use(dev->model) >= 8)
		caps |= HPU_CAP_LONG_SOB;
	/* control nodes' device-wide events need nothing of the model */
	return caps | HPU_CAP_CTX_LIMITS | HPU_CAP_CTRL_EVENTS;
}

static int info_hw_ip_info(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	memcpy(out, &ctx->dev->ip, sizeof(ctx->dev->ip));
	return 0;
}

static int info_dram_usage(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_dram_usage *d = out;

	struct hfd_device *dev = ctx->dev;
	uint64_t used = 0, total = dev->ip.dram_size;

	if (hfd_device_has_cs(dev))
		dev->model->ops->mem_usage(dev->fw, &used, &total);
	d->dram_total_mem = total;
	d->dram_used_mem = used;
	d->dram_free_mem = total > used ? total - used : 0;
	d->ctx_dram_mem = __atomic_load_n(&ctx->dram_bytes, __ATOMIC_RELAXED);
	return 0;
}

static int info_hw_idle(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_hw_idle *d = out;
	struct hfd_device *dev = ctx->dev;
	uint64_t busy[4] = { 0 };
	unsigned int i;

	d->is_idle = dev->model->ops->hw_idle(dev->fw, busy) ? 1 : 0;
	for (i = 0; i < 4; i++)
		d->busy_engines_mask[i] = busy[i];
	return 0;
}

static int info_device_status(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_device_status *d = out;

	pthread_mutex_lock(&ctx->dev->ctx_lock);
	d->status = ctx->dev->status;
	pthread_mutex_unlock(&ctx->dev->ctx_lock);
	return 0;
}

static int info_device_utilization(struct hfd_ctx *ctx, uint32_t period,
				   void *out)
{
	struct hpu_info_device_utilization *d = out;
	struct hfd_device *dev = ctx->dev;

	return dev->model->ops->utilization(dev->fw, period, &d->utilization);
}

static int info_clk_rate(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_clk_rate *d = out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	d->cur_clk_rate_mhz = t.clk_cur_mhz;
	d->max_clk_rate_mhz = dev->ip.clk_max_mhz;
	return 0;
}

static int info_reset_count(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_reset_count *d = out;

	pthread_mutex_lock(&ctx->dev->ctx_lock);
	d->hard_reset_cnt = ctx->dev->hard_reset_cnt;
	d->soft_reset_cnt = ctx->dev->soft_reset_cnt;
	pthread_mutex_unlock(&ctx->dev->ctx_lock);
	return 0;
}

static int info_time_sync(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_time_sync *d = out;
	struct hfd_device *dev = ctx->dev;

	d->device_time = dev->model->ops->device_time_ns(dev->fw);
	d->host_time = hfd_now_ns();
	return 0;
}

static int info_cs_counters(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_cs_counters *d = out;

	d->total_submitted =
		__atomic_load_n(&ctx->dev->cs_submitted, __ATOMIC_RELAXED);
	d->total_completed =
		__atomic_load_n(&ctx->dev->cs_completed, __ATOMIC_RELAXED);
	d->ctx_submitted =
		__atomic_load_n(&ctx->cs_submitted, __ATOMIC_RELAXED);
	d->ctx_completed =
		__atomic_load_n(&ctx->cs_completed, __ATOMIC_RELAXED);
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
	d->total_out_of_mem_drop_cnt = LOAD(ctx->dev->cs_stats.out_of_mem);
	d->ctx_out_of_mem_drop_cnt = LOAD(ctx->cs_stats.out_of_mem);
	d->total_parsing_drop_cnt = LOAD(ctx->dev->cs_stats.parsing);
	d->ctx_parsing_drop_cnt = LOAD(ctx->cs_stats.parsing);
	d->total_queue_full_drop_cnt = LOAD(ctx->dev->cs_stats.queue_full);
	d->ctx_queue_full_drop_cnt = LOAD(ctx->cs_stats.queue_full);
	d->total_device_in_reset_drop_cnt = LOAD(ctx->dev->cs_stats.in_reset);
	d->ctx_device_in_reset_drop_cnt = LOAD(ctx->cs_stats.in_reset);
	d->total_max_cs_in_flight_drop_cnt =
		LOAD(ctx->dev->cs_stats.max_in_flight);
	d->ctx_max_cs_in_flight_drop_cnt = LOAD(ctx->cs_stats.max_in_flight);
	d->total_timedout_cnt = LOAD(ctx->dev->cs_stats.timedout);
	d->ctx_timedout_cnt = LOAD(ctx->cs_stats.timedout);
#undef LOAD
	return 0;
}

static int info_power(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_power *d = out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	d->power_mw = t.power_mw;
	d->power_cap_mw = dev->ip.max_power_mw;
	d->energy_mj = t.energy_mj;
	return 0;
}

static int info_thermal(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_thermal *d = out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	d->temp_asic_mc = t.temp_asic_mc;
	d->temp_hbm_mc = t.temp_hbm_mc;
	d->temp_slowdown_mc = dev->profile->temp_slowdown_mc;
	d->temp_shutdown_mc = dev->profile->temp_shutdown_mc;
	return 0;
}

static int info_open_stats(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	hfd_device_open_stats(ctx->dev, out);
	return 0;
}

static int info_events(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_events *d = out;
	uint64_t mask, pending;

	hfd_ctx_peek_events(ctx, &mask, &pending);
	d->events_mask = mask;
	d->pending = pending;
	return 0;
}

/* Reading clears only the bits the caller really received */
static void info_events_delivered(struct hfd_ctx *ctx, const void *ans,
				  uint32_t copied)
{
	const struct hpu_info_events *d = ans;

	if (copied >= sizeof(d->events_mask))
		hfd_ctx_clear_events(ctx, d->events_mask);
}

static int info_pci(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_pci *d = out;
	struct hfd_device *dev = ctx->dev;

	d->domain = dev->pci_domain;
	d->bus = dev->pci_bus;
	d->device = 0;
	d->function = 0;
	d->vendor_id = HPU_PCI_VENDOR_ID;
	d->device_id = dev->profile->pci_device_id;
	d->subsystem_vendor_id = HPU_PCI_VENDOR_ID;
	d->subsystem_device_id = dev->profile->pci_device_id;
	d->link_speed_mts = dev->profile->pcie_speed_mts;
	d->link_width = dev->profile->pcie_width;
	memcpy(d->bus_id, dev->bus_id, sizeof(d->bus_id));
	d->bus_id[sizeof(d->bus_id) - 1] = 0;
	return 0;
}

static int info_driver_version(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	struct hpu_info_driver_version *d = out;
	const struct hpu_fw_model *model = ctx->dev->model;

	d->capabilities = hfd_driver_capabilities(ctx->dev);
	d->major = HPU_VERSION_MAJOR;
	d->minor = HPU_VERSION_MINOR;
	d->patch = HPU_VERSION_PATCH;
	d->fw_if_major = model->if_major;
	d->fw_if_minor = hfd_fw_if_minor_in_use(model);
	strncpy((char *)d->version, HPU_VERSION, sizeof(d->version) - 1);
	return 0;
}

static int info_nic(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	return hfd_nic_info(ctx->dev, out);
}

static int info_ctx_limits(struct hfd_ctx *ctx, uint32_t period, void *out)
{
	hfd_ctx_limits_info(ctx, out);
	return 0;
}

/**
 * struct info_op - one INFO op
 * @build: fills the answer (zeroed beforehand); 0 or -errno; no effects
 * @delivered: the effect of reading, once @copied bytes of the answer
 *	reached the caller (NULL: none)
 * @size: full size of the answer
 * @uses_period: the op takes period_ms (else it must be 0)
 */
struct info_op {
	int (*build)(struct hfd_ctx *ctx, uint32_t period, void *out);
	void (*delivered)(struct hfd_ctx *ctx, const void *ans,
			  uint32_t copied);
	uint32_t size;
	bool uses_period;
};

#define INFO_OP(nr, name, sz, period, deliver)                   \
	[nr] = { .build = info_##name,                           \
		 .delivered = deliver,                           \
		 .size = sizeof(((union info_answer *)0)->name), \
		 .uses_period = period },

static const struct info_op info_ops[] = { INFO_OPS(INFO_OP) };
#undef INFO_OP

/**
 * hfd_ioctl_info() - HPU_IOCTL_INFO handler
 * @call: context and requesting thread
 * @data: struct hpu_info_args, updated in place (full_size)
 *
 * Return: 0; -EINVAL for non-zero flags or pad, an unknown op, a
 * period_ms out of range (or given to an op without one), a zero
 * return_pointer or return_size; -EFAULT when the answer cannot be
 * written to return_pointer; -EOPNOTSUPP for NIC when the model has no
 * NICs.
 */
int hfd_ioctl_info(const struct hfd_ioctl_call *call, void *data)
{
	struct hpu_info_args *args = data;
	const struct info_op *op;
	union info_answer ans;
	uint32_t copied;
	int ret;

	if (hfd_check_flags(args->flags, 0) ||
	    hfd_check_zero(&args->pad, sizeof(args->pad)))
		return -EINVAL;
	if (args->op >= sizeof(info_ops) / sizeof(info_ops[0]) ||
	    !info_ops[args->op].build)
		return -EINVAL;
	op = &info_ops[args->op];
	if (op->uses_period ? args->period_ms < HPU_INFO_PERIOD_MS_MIN ||
				      args->period_ms > HPU_INFO_PERIOD_MS_MAX :
			      args->period_ms != 0)
		return -EINVAL;
	if (!args->return_pointer || !args->return_size)
		return -EINVAL;

	memset(&ans, 0, sizeof(ans));
	ret = op->build(call->ctx, args->period_ms, &ans);
	if (ret)
		return ret;
	copied = args->return_size < op->size ? args->return_size : op->size;
	ret = hfd_copy_to_user(call->pid, args->return_pointer, &ans, copied);
	if (ret)
		return ret;
	if (op->delivered)
		op->delivered(call->ctx, &ans, copied);
	args->full_size = op->size;
	return 0;
}
