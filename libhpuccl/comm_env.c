// SPDX-License-Identifier: MIT
/*
 * comm_env.c - what a communicator takes from the environment at init:
 * HPUCCL_TIMEOUT_MS, the device (HPUCCL_DEVICE, else LOCAL_RANK among
 * the devices), HPUCCL_SLOT_BYTES, HPUCCL_ZCOPY_BYTES
 * (docs/collectives.md; HPUCCL_ALGO is algo.c's)
 */
#include <errno.h>
#include <stdlib.h>

#include "comm.h"

/* The config's timeout, else HPUCCL_TIMEOUT_MS, else the default */
uint32_t ccl_env_timeout(uint32_t cfg_ms)
{
	const char *e = getenv("HPUCCL_TIMEOUT_MS");
	unsigned long v;
	char *end;

	if (cfg_ms)
		return cfg_ms;
	if (e && *e) {
		v = strtoul(e, &end, 10);
		if (!*end && v > 0 && v <= 3600000)
			return (uint32_t)v;
	}
	return HPUCCL_DEFAULT_TIMEOUT_MS;
}

int ccl_env_open_device(struct hpu_device **dev)
{
	const char *e = getenv("HPUCCL_DEVICE");
	struct hpu_device_info *list;
	int count, idx, ret;
	long v = 0;
	char *end;

	if (e && *e) {
		v = strtol(e, &end, 10);
		if (*end || v < 0 || v > 1 << 20)
			return -EINVAL;
		return hpu_open((int)v, dev);
	}
	e = getenv("LOCAL_RANK");
	if (e && *e) {
		v = strtol(e, &end, 10);
		if (*end || v < 0)
			return -EINVAL;
	}
	ret = hpu_device_list(&list, &count);
	if (ret)
		return ret;
	if (count <= 0) {
		hpu_device_list_free(list);
		return -ENODEV;
	}
	idx = list[v % count].index;
	hpu_device_list_free(list);
	return hpu_open(idx, dev);
}

uint64_t ccl_env_slot_bytes(void)
{
	const char *e = getenv("HPUCCL_SLOT_BYTES");
	unsigned long long v;
	char *end;

	if (e && *e) {
		v = strtoull(e, &end, 0);
		if (!*end && v >= 4096 && v <= (64ULL << 20) && !(v % 4096))
			return v;
	}
	return CCL_DEFAULT_SLOT_BYTES;
}

uint64_t ccl_env_zcopy_bytes(void)
{
	const char *e = getenv("HPUCCL_ZCOPY_BYTES");
	unsigned long long v;
	char *end;

	if (e && *e) {
		v = strtoull(e, &end, 0);
		if (!*end)
			return v ? v : UINT64_MAX; /* 0: never */
	}
	return CCL_DEFAULT_ZCOPY_BYTES;
}
