// SPDX-License-Identifier: MIT
/*
 * hl_info.c - INFO of the habanalabs personality (docs/habanalabs.md,
 * "INFO"): every op of uapi/hl_uapi.h answered as the real driver does,
 * from the device model where it has the data.
 *
 * As the real driver: pad not 0, return_pointer or return_size 0, or an
 * unknown op: -EINVAL; the answer is copied cut to return_size; ops that
 * need a working device get -EBUSY while it is in reset or failed;
 * GET_EVENTS and the eventfd ops on a control node: -EOPNOTSUPP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl_personality.h"
#include "hl_sync.h"

/* hpu engines are numbered DMA, MME, TPC, NIC (docs/command-submission.md) */
#define HL_G2_DCORE_ENGINES 11 /* EDMA 0-1, MME, TPC 0-5, DEC 0-1 */
#define HL_G2_ENG_PDMA_0    45
#define HL_G2_ENG_NIC0_0    51

/**
 * union hl_info_answer - room for the largest answer
 * @hw_ip: HW_IP_INFO
 * @rows: DRAM_REPLACED_ROWS
 * @razwi: RAZWI_EVENT
 * @undef: UNDEFINED_OPCODE_EVENT
 * @events: HW_EVENTS, HW_EVENTS_AGGREGATE
 * @bytes: any other
 */
union hl_info_answer {
	struct hl_info_hw_ip_info hw_ip;
	struct hl_dram_replaced_rows rows;
	struct hl_info_razwi_event razwi;
	struct hl_info_undefined_opcode_event undef;
	uint32_t events[HL_GAUDI2_NUM_EVENTS];
	uint8_t bytes[64];
};

/**
 * struct hl_info_op - one INFO op
 * @build: fills the answer (zeroed beforehand); 0 or -errno
 * @size: full size of the answer
 * @operational: needs a working device (else -EBUSY)
 * @no_control: -EOPNOTSUPP on a control node
 * @nothing: succeeds without copying anything (nothing captured)
 */
struct hl_info_op {
	int (*build)(struct hfd_ctx *ctx, const struct hl_info_args *args,
		     union hl_info_answer *out);
	uint32_t size;
	bool operational;
	bool no_control;
	bool nothing;
};

static void copy_str(uint8_t *dst, size_t len, const uint8_t *src,
		     size_t src_len)
{
	size_t n = strnlen((const char *)src, src_len);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static int hw_ip_info(struct hfd_ctx *ctx, const struct hl_info_args *args,
		      union hl_info_answer *out)
{
	struct hl_info_hw_ip_info *d = &out->hw_ip;
	const struct hfd_device *dev = ctx->dev;
	const struct hpu_info_hw_ip_info *ip = &dev->ip;

	d->sram_base_address = ip->sram_base_address;
	/* Gaudi2 maps its DRAM through the MMU: the VA range's start */
	d->dram_base_address = HPU_FW_VA_DEVICE_BASE;
	d->dram_size = ip->dram_size;
	d->sram_size = ip->sram_size;
	d->num_of_events = HL_GAUDI2_NUM_EVENTS;
	d->device_id = HL_PCI_IDS_GAUDI2;
	d->module_id = dev->module_id;
	d->decoder_enabled_mask = 0x3ff; /* 8 DCORE decoders and 2 PCIe */
	d->server_type = dev->server_devices == 8 ? HL_SERVER_GAUDI2_HLS2 :
						    HL_SERVER_TYPE_UNKNOWN;
	d->tpc_enabled_mask = (uint8_t)ip->tpc_enabled_mask;
	d->tpc_enabled_mask_ext = ip->tpc_enabled_mask;
	d->dram_enabled = 1;
	copy_str(d->cpucp_version, sizeof(d->cpucp_version), ip->fw_version,
		 sizeof(ip->fw_version));
	copy_str(d->card_name, sizeof(d->card_name), ip->card_name,
		 sizeof(ip->card_name));
	d->dram_page_size = ip->dram_page_size;
	d->device_mem_alloc_default_page_size = ip->dram_page_size;
	d->edma_enabled_mask = 0xff; /* 2 per DCORE */
	/* the CQs' interrupts (hl_irq.c) */
	d->first_available_interrupt_id = HL_USER_IRQ_FIRST;
	d->number_of_user_interrupts = HL_USER_IRQ_NUM;
	d->revision_id = (uint8_t)ip->revision_id;
	return 0;
}

static int hw_events(struct hfd_ctx *ctx, const struct hl_info_args *args,
		     union hl_info_answer *out)
{
	/* the model raises none of the firmware's events: all counters 0 */
	return 0;
}

static int dram_usage(struct hfd_ctx *ctx, const struct hl_info_args *args,
		      union hl_info_answer *out)
{
	struct hl_info_dram_usage *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	uint64_t used = 0, total = dev->ip.dram_size;

	if (hfd_device_has_cs(dev))
		dev->model->ops->mem_usage(dev->fw, &used, &total);
	d->dram_free_mem = total > used ? total - used : 0;
	if (!ctx->control)
		d->ctx_dram_mem =
			__atomic_load_n(&ctx->dram_bytes, __ATOMIC_RELAXED);
	return 0;
}

/* Bit of enum gaudi2_engine_id for hpu engine @e, or -1 */
static int g2_engine(const struct hpu_info_hw_ip_info *ip, unsigned int e)
{
	unsigned int t;

	if (e < ip->num_dma) /* PDMA 0-1, then EDMA 0-1 of DCORE 0..3 */
		return e < 2 ? (int)(HL_G2_ENG_PDMA_0 + e) :
			       (int)((e - 2) / 2 * HL_G2_DCORE_ENGINES +
				     (e - 2) % 2);
	e -= ip->num_dma;
	if (e < ip->num_mme) /* the MME of DCORE 0, 1, ... or of the pairs'
			      * masters, DCORE 0, 2 (hfd_hl_queue()) */
		return (int)((ip->num_mme < 4 ? 2 * e : e) *
				     HL_G2_DCORE_ENGINES +
			     2);
	e -= ip->num_mme;
	if (e < ip->num_tpc) { /* TPC 0-5 of DCORE 0..3 */
		t = e % 6;
		return (int)(e / 6 * HL_G2_DCORE_ENGINES + 3 + t);
	}
	e -= ip->num_tpc;
	if (e < ip->num_nic_ports) /* NIC<p/2>_<p%2> */
		return (int)(HL_G2_ENG_NIC0_0 + e);
	return -1;
}

static int hw_idle(struct hfd_ctx *ctx, const struct hl_info_args *args,
		   union hl_info_answer *out)
{
	struct hl_info_hw_idle *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	uint64_t busy[4] = { 0 };
	unsigned int e;
	int bit;

	d->is_idle = dev->model->ops->hw_idle(dev->fw, busy) ? 1 : 0;
	for (e = 0; e < 256; e++) {
		if (!((busy[e / 64] >> (e % 64)) & 1))
			continue;
		bit = g2_engine(&dev->ip, e);
		if (bit >= 0 && bit < HL_GAUDI2_ENGINE_ID_SIZE)
			d->busy_engines_mask_ext[bit / 64] |= 1ULL
							      << (bit % 64);
	}
	d->busy_engines_mask = (uint32_t)d->busy_engines_mask_ext[0];
	return 0;
}

static int device_status(struct hfd_ctx *ctx, const struct hl_info_args *args,
			 union hl_info_answer *out)
{
	struct hl_info_device_status *d = (void *)out;
	uint32_t s;

	pthread_mutex_lock(&ctx->dev->ctx_lock);
	s = ctx->dev->status;
	pthread_mutex_unlock(&ctx->dev->ctx_lock);
	/* the hpu statuses 0..4 are the real driver's */
	d->status = s <= HL_DEVICE_STATUS_IN_DEVICE_CREATION ?
			    s :
			    HL_DEVICE_STATUS_MALFUNCTION;
	return 0;
}

static int device_utilization(struct hfd_ctx *ctx,
			      const struct hl_info_args *args,
			      union hl_info_answer *out)
{
	struct hl_info_device_utilization *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	uint32_t period = args->period_ms;

	/* the real driver does not use period_ms: the model needs one */
	if (period < HPU_INFO_PERIOD_MS_MIN || period > HPU_INFO_PERIOD_MS_MAX)
		period = HPU_INFO_PERIOD_MS_MAX;
	return dev->model->ops->utilization(dev->fw, period, &d->utilization);
}

static int clk_rate(struct hfd_ctx *ctx, const struct hl_info_args *args,
		    union hl_info_answer *out)
{
	struct hl_info_clk_rate *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	d->cur_clk_rate_mhz = t.clk_cur_mhz;
	d->max_clk_rate_mhz = dev->ip.clk_max_mhz;
	return 0;
}

static int reset_count(struct hfd_ctx *ctx, const struct hl_info_args *args,
		       union hl_info_answer *out)
{
	struct hl_info_reset_count *d = (void *)out;

	pthread_mutex_lock(&ctx->dev->ctx_lock);
	d->hard_reset_cnt = ctx->dev->hard_reset_cnt;
	d->soft_reset_cnt = ctx->dev->soft_reset_cnt;
	pthread_mutex_unlock(&ctx->dev->ctx_lock);
	return 0;
}

static int time_sync(struct hfd_ctx *ctx, const struct hl_info_args *args,
		     union hl_info_answer *out)
{
	struct hl_info_time_sync *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	struct timespec ts;

	d->device_time = dev->model->ops->device_time_ns(dev->fw);
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	d->host_time = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	return 0;
}

static int cs_counters(struct hfd_ctx *ctx, const struct hl_info_args *args,
		       union hl_info_answer *out)
{
	struct hl_info_cs_counters *d = (void *)out;
	const struct hfd_cs_stats *dev_s = &ctx->dev->cs_stats;
	const struct hfd_cs_stats *ctx_s = &ctx->cs_stats;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
	d->total_out_of_mem_drop_cnt = LOAD(dev_s->out_of_mem);
	d->total_parsing_drop_cnt = LOAD(dev_s->parsing);
	d->total_queue_full_drop_cnt = LOAD(dev_s->queue_full);
	d->total_device_in_reset_drop_cnt = LOAD(dev_s->in_reset);
	d->total_max_cs_in_flight_drop_cnt = LOAD(dev_s->max_in_flight);
	/* a control node has no context of its own: its ctx_ counters are 0 */
	if (!ctx->control) {
		d->ctx_out_of_mem_drop_cnt = LOAD(ctx_s->out_of_mem);
		d->ctx_parsing_drop_cnt = LOAD(ctx_s->parsing);
		d->ctx_queue_full_drop_cnt = LOAD(ctx_s->queue_full);
		d->ctx_device_in_reset_drop_cnt = LOAD(ctx_s->in_reset);
		d->ctx_max_cs_in_flight_drop_cnt = LOAD(ctx_s->max_in_flight);
	}
#undef LOAD
	return 0;
}

static int pci_counters(struct hfd_ctx *ctx, const struct hl_info_args *args,
			union hl_info_answer *out)
{
	/* the model counts no PCI traffic: all 0 */
	return 0;
}

static int clk_throttle(struct hfd_ctx *ctx, const struct hl_info_args *args,
			union hl_info_answer *out)
{
	struct hl_info_clk_throttle *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	/* the model slows its clock above the slowdown temperature only */
	if (t.temp_asic_mc > dev->profile->temp_slowdown_mc)
		d->clk_throttling_reason = 1U << 1; /* THERMAL */
	return 0;
}

static int sync_manager(struct hfd_ctx *ctx, const struct hl_info_args *args,
			union hl_info_answer *out)
{
	if (args->dcore_id >= HL_MAX_DCORES)
		return -EINVAL;
	/* no sync objects, monitors or CQs are the driver's yet: all 0 */
	return 0;
}

static int total_energy(struct hfd_ctx *ctx, const struct hl_info_args *args,
			union hl_info_answer *out)
{
	struct hl_info_energy *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	d->total_energy_consumption = t.energy_mj;
	return 0;
}

/*
 * Outputs of the Gaudi2 PLLs, MHz, by enum hl_gaudi2_pll_index; the MME
 * and TPC PLLs run at the model's core clock (0 here)
 */
static const uint16_t g2_pll[HL_GAUDI2_PLL_MAX][HL_PLL_NUM_OUTPUTS] = {
	{ 1600, 800, 400, 100 },  /* CPU */
	{ 1000, 500, 250, 100 },  /* PCI */
	{ 1650, 1650, 825, 100 }, /* SRAM */
	{ 1600, 800, 400, 100 },  /* HBM */
	{ 1250, 625, 312, 100 },  /* NIC */
	{ 1650, 825, 412, 100 },  /* DMA */
	{ 1650, 825, 412, 100 },  /* MESH */
	{ 0, 0, 0, 0 },		  /* MME */
	{ 0, 0, 0, 0 },		  /* TPC */
	{ 1650, 825, 412, 100 },  /* IF */
	{ 500, 250, 125, 100 },	  /* VID */
	{ 1000, 500, 250, 100 },  /* MSS */
};

static int pll_frequency(struct hfd_ctx *ctx, const struct hl_info_args *args,
			 union hl_info_answer *out)
{
	struct hl_pll_frequency_info *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };
	unsigned int i;

	if (args->pll_index >= HL_GAUDI2_PLL_MAX)
		return -EINVAL;
	memcpy(d->output, g2_pll[args->pll_index], sizeof(d->output));
	if (!d->output[0]) {
		dev->model->ops->telemetry(dev->fw, &t);
		for (i = 0; i < HL_PLL_NUM_OUTPUTS; i++)
			d->output[i] = (uint16_t)(t.clk_cur_mhz >> i);
	}
	return 0;
}

static int power(struct hfd_ctx *ctx, const struct hl_info_args *args,
		 union hl_info_answer *out)
{
	struct hl_power_info *d = (void *)out;
	struct hfd_device *dev = ctx->dev;
	struct hpu_fw_telemetry t = { 0 };

	dev->model->ops->telemetry(dev->fw, &t);
	d->power = t.power_mw;
	return 0;
}

static int open_stats(struct hfd_ctx *ctx, const struct hl_info_args *args,
		      union hl_info_answer *out)
{
	struct hl_open_stats_info *d = (void *)out;
	struct hpu_info_open_stats s;

	hfd_device_open_stats(ctx->dev, &s);
	d->open_counter = s.open_counter;
	d->last_open_period_ms = s.last_open_period_ms;
	d->is_compute_ctx_active = s.is_compute_ctx_active;
	d->compute_ctx_in_release = s.compute_ctx_in_release;
	return 0;
}

/* Nothing to report (no replaced or pending rows, no error captured yet) */
static int zeros(struct hfd_ctx *ctx, const struct hl_info_args *args,
		 union hl_info_answer *out)
{
	return 0;
}

static int get_events(struct hfd_ctx *ctx, const struct hl_info_args *args,
		      union hl_info_answer *out)
{
	/* notifier events are not raised by the personality yet */
	return 0;
}

static int unregister_eventfd(struct hfd_ctx *ctx,
			      const struct hl_info_args *args,
			      union hl_info_answer *out)
{
	/* as the real driver with no eventfd registered */
	return -EINVAL;
}

static int not_served(struct hfd_ctx *ctx, const struct hl_info_args *args,
		      union hl_info_answer *out)
{
	return -EOPNOTSUPP;
}

#define OP(nr, fn, sz, oper) \
	[nr] = { .build = fn, .size = sz, .operational = oper }

static const struct hl_info_op hl_info_ops[] = {
	OP(HL_INFO_HW_IP_INFO, hw_ip_info, sizeof(struct hl_info_hw_ip_info),
	   false),
	OP(HL_INFO_HW_EVENTS, hw_events, HL_GAUDI2_NUM_EVENTS * 4, false),
	OP(HL_INFO_DRAM_USAGE, dram_usage, sizeof(struct hl_info_dram_usage),
	   false),
	OP(HL_INFO_HW_IDLE, hw_idle, sizeof(struct hl_info_hw_idle), true),
	OP(HL_INFO_DEVICE_STATUS, device_status,
	   sizeof(struct hl_info_device_status), false),
	OP(HL_INFO_DEVICE_UTILIZATION, device_utilization,
	   sizeof(struct hl_info_device_utilization), true),
	OP(HL_INFO_HW_EVENTS_AGGREGATE, hw_events, HL_GAUDI2_NUM_EVENTS * 4,
	   false),
	OP(HL_INFO_CLK_RATE, clk_rate, sizeof(struct hl_info_clk_rate), true),
	OP(HL_INFO_RESET_COUNT, reset_count, sizeof(struct hl_info_reset_count),
	   false),
	OP(HL_INFO_TIME_SYNC, time_sync, sizeof(struct hl_info_time_sync),
	   true),
	OP(HL_INFO_CS_COUNTERS, cs_counters, sizeof(struct hl_info_cs_counters),
	   false),
	OP(HL_INFO_PCI_COUNTERS, pci_counters,
	   sizeof(struct hl_info_pci_counters), true),
	OP(HL_INFO_CLK_THROTTLE_REASON, clk_throttle,
	   sizeof(struct hl_info_clk_throttle), false),
	OP(HL_INFO_SYNC_MANAGER, sync_manager,
	   sizeof(struct hl_info_sync_manager), false),
	OP(HL_INFO_TOTAL_ENERGY, total_energy, sizeof(struct hl_info_energy),
	   true),
	OP(HL_INFO_PLL_FREQUENCY, pll_frequency,
	   sizeof(struct hl_pll_frequency_info), true),
	OP(HL_INFO_POWER, power, sizeof(struct hl_power_info), true),
	OP(HL_INFO_OPEN_STATS, open_stats, sizeof(struct hl_open_stats_info),
	   false),
	OP(HL_INFO_DRAM_REPLACED_ROWS, zeros,
	   sizeof(struct hl_dram_replaced_rows), true),
	OP(HL_INFO_DRAM_PENDING_ROWS, zeros, sizeof(uint32_t), true),
	OP(HL_INFO_LAST_ERR_OPEN_DEV_TIME, zeros,
	   sizeof(struct hl_info_last_err_open_dev_time), false),
	OP(HL_INFO_CS_TIMEOUT_EVENT, zeros,
	   sizeof(struct hl_info_cs_timeout_event), false),
	OP(HL_INFO_RAZWI_EVENT, zeros, sizeof(struct hl_info_razwi_event),
	   false),
	OP(HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES, zeros,
	   sizeof(struct hl_info_dev_memalloc_page_sizes), false),
	OP(HL_INFO_SECURED_ATTESTATION, not_served, 0, true),
	[HL_INFO_REGISTER_EVENTFD] = { .build = not_served,
				       .operational = true,
				       .no_control = true },
	[HL_INFO_UNREGISTER_EVENTFD] = { .build = unregister_eventfd,
					 .no_control = true },
	[HL_INFO_GET_EVENTS] = { .build = get_events,
				 .size = sizeof(uint64_t),
				 .no_control = true },
	OP(HL_INFO_UNDEFINED_OPCODE_EVENT, zeros,
	   sizeof(struct hl_info_undefined_opcode_event), false),
	OP(HL_INFO_ENGINE_STATUS, not_served, 0, true),
	OP(HL_INFO_PAGE_FAULT_EVENT, zeros, sizeof(struct hl_page_fault_info),
	   false),
	OP(HL_INFO_USER_MAPPINGS, not_served, 0, false),
	OP(HL_INFO_FW_GENERIC_REQ, not_served, 0, true),
	/* 16-byte answers copied only once an error was captured */
	[HL_INFO_HW_ERR_EVENT] = { .build = zeros, .size = 16, .nothing = true },
	[HL_INFO_FW_ERR_EVENT] = { .build = zeros, .size = 16, .nothing = true },
};
#undef OP

_Static_assert(sizeof(struct hl_info_hw_ip_info) == 304, "hw_ip_info");
_Static_assert(sizeof(struct hl_info_hw_idle) == 40, "hw_idle");
_Static_assert(sizeof(struct hl_info_cs_counters) == 96, "cs_counters");
_Static_assert(sizeof(struct hl_info_clk_throttle) == 40, "clk_throttle");
_Static_assert(sizeof(struct hl_open_stats_info) == 24, "open_stats");
_Static_assert(sizeof(struct hl_info_razwi_event) == 280, "razwi_event");
_Static_assert(sizeof(struct hl_info_undefined_opcode_event) == 288,
	       "undefined_opcode_event");
_Static_assert(sizeof(struct hl_dram_replaced_rows) == 264, "replaced rows");
_Static_assert(sizeof(union hl_info_answer) == HL_GAUDI2_NUM_EVENTS * 4,
	       "the events array is the largest answer");

/**
 * hfd_hl_info_size() - full size of an INFO op's answer
 * @op: HL_INFO_*
 *
 * Return: bytes; 0 for an unknown op or one without an answer here.
 */
uint32_t hfd_hl_info_size(uint32_t op)
{
	if (op >= sizeof(hl_info_ops) / sizeof(hl_info_ops[0]))
		return 0;
	return hl_info_ops[op].size;
}

/* Whether @dev works (OPERATIONAL); the real driver's other INFO ops
 * answer -EBUSY otherwise */
static bool operational(struct hfd_device *dev)
{
	bool ok;

	pthread_mutex_lock(&dev->ctx_lock);
	ok = dev->status == HPU_DEVICE_STATUS_OPERATIONAL;
	pthread_mutex_unlock(&dev->ctx_lock);
	return ok;
}

/**
 * hfd_hl_info() - INFO of the habanalabs personality
 * @call: context and requesting thread
 * @data: struct hl_info_args
 *
 * Return: 0; -EINVAL for pad not 0, an unknown op, a zero return_pointer
 * or return_size, a dcore_id or pll_index out of range; -EOPNOTSUPP for
 * GET_EVENTS and the eventfd ops on a control node and for the ops
 * docs/habanalabs.md lists as not served; -EBUSY for an op that needs a
 * working device while it is not; -EFAULT when the answer cannot be
 * written.
 */
int hfd_hl_info(const struct hfd_ioctl_call *call, void *data)
{
	struct hl_info_args *args = data;
	struct hfd_ctx *ctx = call->ctx;
	const struct hl_info_op *op;
	union hl_info_answer *ans;
	uint32_t copied;
	int ret;

	op = args->op < sizeof(hl_info_ops) / sizeof(hl_info_ops[0]) &&
			     hl_info_ops[args->op].build ?
		     &hl_info_ops[args->op] :
		     NULL;
	/* the real driver's order: the control node's refusals, pad, the
	 * ops served in any state, the device's state, then unknown ops */
	if (op && ctx->control && op->no_control)
		return -EOPNOTSUPP;
	if (args->pad)
		return -EINVAL;
	if ((!op || op->operational) && !operational(ctx->dev))
		return -EBUSY;
	if (!op)
		return -EINVAL;
	if (op->size && (!args->return_pointer || !args->return_size))
		return -EINVAL;

	ans = calloc(1, sizeof(*ans));
	if (!ans)
		return -ENOMEM;
	ret = op->build(ctx, args, ans);
	if (!ret && op->size && !op->nothing) {
		copied = args->return_size < op->size ? args->return_size :
							op->size;
		ret = hfd_copy_to_user(call->pid, args->return_pointer, ans,
				       copied);
	}
	free(ans);
	return ret;
}
