/* SPDX-License-Identifier: MIT */
/*
 * ht_devices.h - hpu-train's --accelerator, --devices, --strategy and
 * --num-nodes, parsed and resolved against the devices found
 *
 * --accelerator auto|hpu|cpu: auto is hpu when at least one HPU is found,
 *     else cpu.
 * --devices N|-1|auto|LIST: auto and -1 are every device found (one on
 *     cpu); N the first N (indices 0..N-1); LIST comma-separated indices,
 *     e.g. "0,2", or "2," for index 2 alone (a bare "2" is a count).
 *     0, a negative count other than -1, an index not found, a duplicate
 *     or anything else is an error. On cpu, N processes on the host; a
 *     LIST is an error.
 * --strategy auto|single_hpu|hpu_parallel (aliases: single_device,
 *     ddp): auto is single for one device on one node, parallel otherwise;
 *     single with more than one device (or node) is an error.
 * --num-nodes N: N >= 1.
 */
#ifndef HT_DEVICES_H
#define HT_DEVICES_H

#include <stddef.h>
#include <stdint.h>

/** HT_MAX_DEVICES - most devices per node */
#define HT_MAX_DEVICES 64U
/** HT_MAX_NODES - largest --num-nodes */
#define HT_MAX_NODES   1024U

/**
 * enum ht_accel - the accelerator
 * @HT_ACCEL_AUTO: decide from the devices found (only before resolving)
 * @HT_ACCEL_HPU: simulated or real HPUs
 * @HT_ACCEL_CPU: the host (OpenBLAS)
 */
enum ht_accel {
	HT_ACCEL_AUTO = 0,
	HT_ACCEL_HPU = 1,
	HT_ACCEL_CPU = 2,
};

/**
 * enum ht_strategy - how the devices train together
 * @HT_STRATEGY_AUTO: decide from the device count (only before resolving)
 * @HT_STRATEGY_SINGLE: one device (single_hpu)
 * @HT_STRATEGY_PARALLEL: data parallel (hpu_parallel, DDP)
 */
enum ht_strategy {
	HT_STRATEGY_AUTO = 0,
	HT_STRATEGY_SINGLE = 1,
	HT_STRATEGY_PARALLEL = 2,
};

/**
 * enum ht_devices_kind - the form of a --devices value
 * @HT_DEVICES_ALL: auto or -1
 * @HT_DEVICES_COUNT: a count N
 * @HT_DEVICES_LIST: explicit indices
 */
enum ht_devices_kind {
	HT_DEVICES_ALL = 0,
	HT_DEVICES_COUNT = 1,
	HT_DEVICES_LIST = 2,
};

/**
 * struct ht_devices_req - what the user asked for, parsed
 * @accel: enum ht_accel
 * @kind: enum ht_devices_kind
 * @count: the count (COUNT), the number of indices (LIST)
 * @index: the indices (LIST)
 * @strategy: enum ht_strategy
 * @num_nodes: nodes (>= 1)
 */
struct ht_devices_req {
	enum ht_accel accel;
	enum ht_devices_kind kind;
	uint32_t count;
	uint32_t index[HT_MAX_DEVICES];
	enum ht_strategy strategy;
	uint32_t num_nodes;
};

/**
 * struct ht_devices - what will be used
 * @accel: HT_ACCEL_HPU or HT_ACCEL_CPU
 * @count: devices (processes) per node
 * @index: the HPU index of local rank i (0..count-1 on cpu)
 * @strategy: HT_STRATEGY_SINGLE or HT_STRATEGY_PARALLEL
 * @num_nodes: nodes
 */
struct ht_devices {
	enum ht_accel accel;
	uint32_t count;
	uint32_t index[HT_MAX_DEVICES];
	enum ht_strategy strategy;
	uint32_t num_nodes;
};

/**
 * ht_devices_req_init() - the defaults: auto, auto, auto, one node
 * @req: the request, overwritten
 */
void ht_devices_req_init(struct ht_devices_req *req);

/**
 * ht_parse_accelerator() - parse --accelerator
 * @s: the value
 * @req: its accel is set
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int ht_parse_accelerator(const char *s, struct ht_devices_req *req, char *err,
			 size_t errlen);

/**
 * ht_parse_devices() - parse --devices
 * @s: the value
 * @req: its kind, count and index are set
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL (0, garbage, an index above HT_MAX_DEVICES - 1, a
 * duplicate index, a count above HT_MAX_DEVICES).
 */
int ht_parse_devices(const char *s, struct ht_devices_req *req, char *err,
		     size_t errlen);

/**
 * ht_parse_strategy() - parse --strategy
 * @s: the value
 * @req: its strategy is set
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int ht_parse_strategy(const char *s, struct ht_devices_req *req, char *err,
		      size_t errlen);

/**
 * ht_parse_num_nodes() - parse --num-nodes
 * @s: the value
 * @req: its num_nodes is set
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL (not a number, 0, above HT_MAX_NODES).
 */
int ht_parse_num_nodes(const char *s, struct ht_devices_req *req, char *err,
		       size_t errlen);

/**
 * ht_devices_resolve() - decide accelerator, devices and strategy
 * @req: the parsed request
 * @available: HPUs found on this node (indices 0..available-1)
 * @out: the decision
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL (hpu asked for but none found, more devices than
 * found, an index not found, a list on cpu, single_hpu with more than one
 * device or node).
 */
int ht_devices_resolve(const struct ht_devices_req *req, uint32_t available,
		       struct ht_devices *out, char *err, size_t errlen);

#endif /* HT_DEVICES_H */
