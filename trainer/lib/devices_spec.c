// SPDX-License-Identifier: MIT
/*
 * devices_spec.c - --accelerator, --devices, --strategy, --num-nodes
 * (see ht_devices.h)
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "ht_devices.h"
#include "ht_error.h"

#define DEVICES_FORMS "N, -1, auto or a list of indices like 0,2"

void ht_devices_req_init(struct ht_devices_req *req)
{
	memset(req, 0, sizeof(*req));
	req->accel = HT_ACCEL_AUTO;
	req->kind = HT_DEVICES_ALL;
	req->strategy = HT_STRATEGY_AUTO;
	req->num_nodes = 1;
}

int ht_parse_accelerator(const char *s, struct ht_devices_req *req, char *err,
			 size_t errlen)
{
	if (!strcmp(s, "auto"))
		req->accel = HT_ACCEL_AUTO;
	else if (!strcmp(s, "hpu"))
		req->accel = HT_ACCEL_HPU;
	else if (!strcmp(s, "cpu"))
		req->accel = HT_ACCEL_CPU;
	else {
		ht_seterr(err, errlen,
			  "--accelerator '%.40s': expected auto, hpu or cpu",
			  s);
		return -EINVAL;
	}
	return 0;
}

/* Digits only (blanks around allowed), value <= @max; false otherwise */
static bool parse_small(const char *s, size_t len, uint32_t max, uint32_t *out,
			bool *too_big)
{
	uint64_t v = 0;
	size_t i = 0, digits = 0;

	*too_big = false;
	while (i < len && s[i] == ' ')
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		if (v <= max)
			v = v * 10 + (uint64_t)(s[i] - '0');
	while (i < len && s[i] == ' ')
		i++;
	if (!digits || i != len)
		return false;
	*too_big = v > max;
	*out = (uint32_t)v;
	return !*too_big;
}

static int parse_list(const char *s, struct ht_devices_req *req, char *err,
		      size_t errlen)
{
	bool seen[HT_MAX_DEVICES] = { false };
	const char *p = s;
	uint32_t n = 0;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool too_big;
		uint32_t idx;

		if (!parse_small(p, len, HT_MAX_DEVICES - 1, &idx, &too_big)) {
			if (too_big)
				ht_seterr(
					err, errlen,
					"--devices '%.60s': index %.*s is too large (at most %u)",
					s, (int)len, p, HT_MAX_DEVICES - 1);
			else
				ht_seterr(
					err, errlen,
					"--devices '%.60s': '%.*s' is not a device index (expected " DEVICES_FORMS
					")",
					s, (int)(len > 20 ? 20 : len), p);
			return -EINVAL;
		}
		if (seen[idx]) {
			ht_seterr(err, errlen,
				  "--devices '%.60s': index %u appears twice",
				  s, idx);
			return -EINVAL;
		}
		seen[idx] = true;
		req->index[n++] = idx;
		if (!comma)
			break;
		p = comma + 1; /* a final comma ends the list: "2," */
	}
	req->kind = HT_DEVICES_LIST;
	req->count = n;
	return 0;
}

int ht_parse_devices(const char *s, struct ht_devices_req *req, char *err,
		     size_t errlen)
{
	bool too_big;
	uint32_t n;

	if (!strcmp(s, "auto") || !strcmp(s, "-1")) {
		req->kind = HT_DEVICES_ALL;
		req->count = 0;
		return 0;
	}
	if (strchr(s, ','))
		return parse_list(s, req, err, errlen);
	if (!parse_small(s, strlen(s), HT_MAX_DEVICES, &n, &too_big)) {
		if (too_big)
			ht_seterr(
				err, errlen,
				"--devices %.40s: at most %u devices per node",
				s, HT_MAX_DEVICES);
		else if (s[0] == '-')
			ht_seterr(
				err, errlen,
				"--devices %.40s: the only negative value is -1 (all devices)",
				s);
		else
			ht_seterr(err, errlen,
				  "--devices '%.40s': expected " DEVICES_FORMS,
				  s);
		return -EINVAL;
	}
	if (!n) {
		ht_seterr(
			err, errlen,
			"--devices 0: at least one device is needed (--accelerator cpu trains on the host)");
		return -EINVAL;
	}
	req->kind = HT_DEVICES_COUNT;
	req->count = n;
	return 0;
}

int ht_parse_strategy(const char *s, struct ht_devices_req *req, char *err,
		      size_t errlen)
{
	if (!strcmp(s, "auto"))
		req->strategy = HT_STRATEGY_AUTO;
	else if (!strcmp(s, "single_hpu") || !strcmp(s, "single_device"))
		req->strategy = HT_STRATEGY_SINGLE;
	else if (!strcmp(s, "hpu_parallel") || !strcmp(s, "ddp"))
		req->strategy = HT_STRATEGY_PARALLEL;
	else {
		ht_seterr(
			err, errlen,
			"--strategy '%.40s': expected auto, single_hpu or hpu_parallel (ddp)",
			s);
		return -EINVAL;
	}
	return 0;
}

int ht_parse_num_nodes(const char *s, struct ht_devices_req *req, char *err,
		       size_t errlen)
{
	bool too_big;
	uint32_t n;

	if (!parse_small(s, strlen(s), HT_MAX_NODES, &n, &too_big) || !n) {
		ht_seterr(err, errlen,
			  "--num-nodes '%.40s': expected a number 1..%u", s,
			  HT_MAX_NODES);
		return -EINVAL;
	}
	req->num_nodes = n;
	return 0;
}

static int resolve_hpu(const struct ht_devices_req *req, uint32_t available,
		       struct ht_devices *out, char *err, size_t errlen)
{
	uint32_t i;

	if (!available) {
		ht_seterr(
			err, errlen,
			"--accelerator hpu: no HPU devices found (is hpu-fused running? see HPU_DEV_DIR)");
		return -EINVAL;
	}
	switch (req->kind) {
	case HT_DEVICES_ALL:
		out->count = available < HT_MAX_DEVICES ? available :
							  HT_MAX_DEVICES;
		for (i = 0; i < out->count; i++)
			out->index[i] = i;
		return 0;
	case HT_DEVICES_COUNT:
		if (req->count > available) {
			ht_seterr(
				err, errlen,
				"--devices %u: only %u HPU%s found (indices 0..%u)",
				req->count, available,
				available == 1 ? "" : "s", available - 1);
			return -EINVAL;
		}
		out->count = req->count;
		for (i = 0; i < out->count; i++)
			out->index[i] = i;
		return 0;
	default:
		for (i = 0; i < req->count; i++) {
			if (req->index[i] >= available) {
				ht_seterr(
					err, errlen,
					"--devices: HPU %u not found (%u found, indices 0..%u)",
					req->index[i], available,
					available - 1);
				return -EINVAL;
			}
			out->index[i] = req->index[i];
		}
		out->count = req->count;
		return 0;
	}
}

static int resolve_cpu(const struct ht_devices_req *req, struct ht_devices *out,
		       char *err, size_t errlen)
{
	uint32_t i;

	if (req->kind == HT_DEVICES_LIST) {
		ht_seterr(
			err, errlen,
			"--devices: a list of device indices needs --accelerator hpu (cpu takes a count)");
		return -EINVAL;
	}
	out->count = req->kind == HT_DEVICES_COUNT ? req->count : 1;
	for (i = 0; i < out->count; i++)
		out->index[i] = i;
	return 0;
}

int ht_devices_resolve(const struct ht_devices_req *req, uint32_t available,
		       struct ht_devices *out, char *err, size_t errlen)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (!req->num_nodes || req->num_nodes > HT_MAX_NODES) {
		ht_seterr(err, errlen, "--num-nodes %u: expected 1..%u",
			  req->num_nodes, HT_MAX_NODES);
		return -EINVAL;
	}
	out->accel = req->accel;
	if (out->accel == HT_ACCEL_AUTO)
		out->accel = available ? HT_ACCEL_HPU : HT_ACCEL_CPU;
	if (out->accel == HT_ACCEL_HPU)
		ret = resolve_hpu(req, available, out, err, errlen);
	else
		ret = resolve_cpu(req, out, err, errlen);
	if (ret)
		return ret;

	out->num_nodes = req->num_nodes;
	out->strategy = req->strategy;
	if (out->strategy == HT_STRATEGY_AUTO)
		out->strategy = out->count > 1 || out->num_nodes > 1 ?
					HT_STRATEGY_PARALLEL :
					HT_STRATEGY_SINGLE;
	if (out->strategy == HT_STRATEGY_SINGLE &&
	    (out->count > 1 || out->num_nodes > 1)) {
		ht_seterr(
			err, errlen,
			"--strategy single_hpu runs on one device, not %u device%s on %u node%s: use hpu_parallel",
			out->count, out->count == 1 ? "" : "s", out->num_nodes,
			out->num_nodes == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}
