// SPDX-License-Identifier: MIT
/*
 * limits.c - per-context resource limits: what one context may make the
 * daemon hold (CBs, allocations, mappings, pinned host bytes, CSs in
 * flight, queued events, NIC registrations and connections, blocked
 * waits), their defaults, hpu-fused --limit NAME=N, the charge and
 * uncharge of each resource and the HPU_INFO_CTX_LIMITS answer
 * (docs/abi.md, "Limits").
 *
 * A call that would pass a limit fails with the limit's errno and changes
 * nothing; one context can never starve the others or the daemon.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_cs.h"
#include "hpu_fused.h"

#define GIB (1ULL << 30)

/* Largest value --limit accepts for the count limits */
#define COUNT_MAX (1ULL << 24)

const struct hfd_limit_desc hfd_limit_descs[HPU_CTX_LIMIT_NUM] = {
	[HPU_CTX_LIMIT_CBS] = { "cbs", 4096, 1, COUNT_MAX, -EMFILE,
				"command buffers" },
	[HPU_CTX_LIMIT_ALLOCS] = { "allocs", 65536, 1, COUNT_MAX, -EMFILE,
				   "device memory allocations" },
	[HPU_CTX_LIMIT_DEVICE_MAPS] = { "device_maps", 65536, 1, COUNT_MAX,
					-EMFILE, "mappings of device memory" },
	[HPU_CTX_LIMIT_HOST_MAPS] = { "host_maps", 65536, 1, COUNT_MAX, -EMFILE,
				      "host memory mappings (USERPTR)" },
	[HPU_CTX_LIMIT_SHM_MAPS] = { "shm_maps", 1024, 1, COUNT_MAX, -EMFILE,
				     "shared-memory mappings (MAP_SHM)" },
	[HPU_CTX_LIMIT_PINNED_BYTES] = { "pinned_bytes", 64 * GIB, 4096,
					 1ULL << 50, -ENOMEM,
					 "host bytes of CBs and mappings" },
	[HPU_CTX_LIMIT_CS_IN_FLIGHT] = { "cs_in_flight", 1024, 1, 65536,
					 -EAGAIN, "CSs in flight" },
	[HPU_CTX_LIMIT_EVENTS] = { "events", 64, 1, 65536, 0,
				   "queued events (oldest dropped)" },
	[HPU_CTX_LIMIT_NIC_MRS] = { "nic_mrs", HPU_NIC_MAX_MRS, 1,
				    HPU_NIC_MAX_MRS, -ENOSPC,
				    "NIC memory registrations" },
	[HPU_CTX_LIMIT_NIC_CONNS] = { "nic_conns",
				      HPU_NIC_MAX_CONNS + HPU_NIC_MAX_ACCEPTS,
				      1,
				      HPU_NIC_MAX_CONNS + HPU_NIC_MAX_ACCEPTS,
				      -ENOSPC,
				      "NIC connections and acceptances" },
	[HPU_CTX_LIMIT_WAITERS] = { "waiters", 1024, 1, 65536, -EAGAIN,
				    "blocked WAIT_CS calls" },
	[HPU_CTX_LIMIT_TRACE_BYTES] = { "trace_bytes", 64ULL << 20, 4096,
					1ULL << 40, -ENOSPC,
					"bytes of engine trace rings" },
};

/* The values in force: set before the daemon serves (hfd_limit_parse) */
static uint64_t limits[HPU_CTX_LIMIT_NUM];
static bool limits_set[HPU_CTX_LIMIT_NUM];

/*
 * Daemon-wide bound of MAP_SHM mappings, all contexts together: each is a
 * mapping of the daemon, and a daemon out of mappings fails in places
 * that cannot say so (the sanitizer runtime aborts). A quarter of
 * vm.max_map_count, at least 1024; -ENOMEM beyond.
 */
static pthread_once_t daemon_shm_once = PTHREAD_ONCE_INIT;
static uint64_t daemon_shm_cap;
static uint64_t daemon_shm_used;

static void daemon_shm_cap_init(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");

	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	if (!daemon_shm_cap)
		daemon_shm_cap = n / 4 > 1024 ? n / 4 : 1024;
}

/**
 * hfd_limit_daemon_shm_maps() - the daemon-wide bound of MAP_SHM mappings
 * @cap: a new bound (tests), or 0 to keep it
 *
 * Return: the bound in force.
 */
uint64_t hfd_limit_daemon_shm_maps(uint64_t cap)
{
	pthread_once(&daemon_shm_once, daemon_shm_cap_init);
	if (cap)
		__atomic_store_n(&daemon_shm_cap, cap, __ATOMIC_RELAXED);
	return __atomic_load_n(&daemon_shm_cap, __ATOMIC_RELAXED);
}

/* Take @n daemon-wide MAP_SHM mappings: 0 or -ENOMEM */
static int daemon_shm_charge(uint64_t n)
{
	uint64_t cap = hfd_limit_daemon_shm_maps(0), cur;

	cur = __atomic_load_n(&daemon_shm_used, __ATOMIC_RELAXED);
	do {
		if (cur > cap || n > cap - cur) {
			hfd_log_ratelimited(HFD_LOG_WARN,
					    "the daemon holds %" PRIu64
					    " shared-memory mappings: no more",
					    cur);
			return -ENOMEM;
		}
	} while (!__atomic_compare_exchange_n(&daemon_shm_used, &cur, cur + n,
					      false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 0;
}

/**
 * hfd_limit() - the value in force of a per-context limit
 * @id: HPU_CTX_LIMIT_*
 */
uint64_t hfd_limit(unsigned int id)
{
	if (id >= HPU_CTX_LIMIT_NUM)
		return 0;
	return limits_set[id] ? limits[id] : hfd_limit_descs[id].def;
}

/**
 * hfd_limit_find() - the id of a limit name
 * @name: name as in hfd_limit_descs
 * @len: bytes of @name
 *
 * Return: HPU_CTX_LIMIT_*, or -ENOENT.
 */
int hfd_limit_find(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < HPU_CTX_LIMIT_NUM; i++)
		if (strlen(hfd_limit_descs[i].name) == len &&
		    !strncmp(hfd_limit_descs[i].name, name, len))
			return (int)i;
	return -ENOENT;
}

/**
 * hfd_limit_parse() - apply one --limit NAME=N
 * @arg: "NAME=N", N decimal within the limit's range
 *
 * Call before the daemon serves requests.
 *
 * Return: 0; -ENOENT unknown name; -EINVAL no '=' or a bad number;
 * -ERANGE a number outside the limit's range.
 */
int hfd_limit_parse(const char *arg)
{
	const struct hfd_limit_desc *d;
	const char *eq = strchr(arg, '=');
	unsigned long long v;
	char *end;
	int id;

	if (!eq || eq == arg)
		return -EINVAL;
	id = hfd_limit_find(arg, (size_t)(eq - arg));
	if (id < 0)
		return id;
	d = &hfd_limit_descs[id];
	if (eq[1] < '0' || eq[1] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	if (v < d->min || v > d->max)
		return -ERANGE;
	limits[id] = v;
	limits_set[id] = true;
	return 0;
}

/**
 * hfd_limits_reset() - every limit back to its default (tests)
 */
void hfd_limits_reset(void)
{
	memset(limits_set, 0, sizeof(limits_set));
}

/**
 * hfd_ctx_charge() - take @n of resource @id for @ctx within its limit
 * @ctx: context
 * @id: HPU_CTX_LIMIT_* counted in @ctx->lim_used
 * @n: amount
 *
 * Return: 0, or the limit's -errno (nothing charged).
 */
int hfd_ctx_charge(struct hfd_ctx *ctx, unsigned int id, uint64_t n)
{
	uint64_t lim = hfd_limit(id), cur;
	int ret;

	if (id == HPU_CTX_LIMIT_SHM_MAPS) {
		ret = daemon_shm_charge(n);
		if (ret)
			return ret;
	}
	cur = __atomic_load_n(&ctx->lim_used[id], __ATOMIC_RELAXED);
	do {
		if (cur > lim || n > lim - cur) {
			hfd_log_ratelimited(HFD_LOG_INFO,
					    "hpu%u: pid %d: limit %s (%" PRIu64
					    ") reached",
					    ctx->dev->index, (int)ctx->pid,
					    hfd_limit_descs[id].name, lim);
			if (id == HPU_CTX_LIMIT_SHM_MAPS)
				__atomic_sub_fetch(&daemon_shm_used, n,
						   __ATOMIC_RELAXED);
			return hfd_limit_descs[id].err;
		}
	} while (!__atomic_compare_exchange_n(&ctx->lim_used[id], &cur, cur + n,
					      false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 0;
}

/**
 * hfd_ctx_charge2() - hfd_ctx_charge() of two resources, both or none
 * @ctx: context
 * @id1: first resource
 * @n1: its amount
 * @id2: second resource
 * @n2: its amount
 *
 * Return: 0, or the -errno of the first limit that would be passed.
 */
int hfd_ctx_charge2(struct hfd_ctx *ctx, unsigned int id1, uint64_t n1,
		    unsigned int id2, uint64_t n2)
{
	int ret = hfd_ctx_charge(ctx, id1, n1);

	if (ret)
		return ret;
	ret = hfd_ctx_charge(ctx, id2, n2);
	if (ret)
		hfd_ctx_uncharge(ctx, id1, n1);
	return ret;
}

/**
 * hfd_ctx_uncharge() - give back what hfd_ctx_charge() took
 * @ctx: context
 * @id: resource
 * @n: amount
 */
void hfd_ctx_uncharge(struct hfd_ctx *ctx, unsigned int id, uint64_t n)
{
	__atomic_sub_fetch(&ctx->lim_used[id], n, __ATOMIC_RELAXED);
	if (id == HPU_CTX_LIMIT_SHM_MAPS)
		__atomic_sub_fetch(&daemon_shm_used, n, __ATOMIC_RELAXED);
}

/**
 * hfd_ctx_limits_release() - a context's teardown freed what it held
 * without uncharging object by object: give its daemon-wide share back
 * @ctx: context, after hfd_ctx_mem_fini()
 */
void hfd_ctx_limits_release(struct hfd_ctx *ctx)
{
	uint64_t n = __atomic_exchange_n(&ctx->lim_used[HPU_CTX_LIMIT_SHM_MAPS],
					 0, __ATOMIC_RELAXED);

	__atomic_sub_fetch(&daemon_shm_used, n, __ATOMIC_RELAXED);
}

/**
 * hfd_limit_daemon_shm_used() - MAP_SHM mappings of every context now
 */
uint64_t hfd_limit_daemon_shm_used(void)
{
	return __atomic_load_n(&daemon_shm_used, __ATOMIC_RELAXED);
}

/**
 * hfd_ctx_limits_info() - the HPU_INFO_CTX_LIMITS answer of a context
 * @ctx: calling context (a control context holds nothing)
 * @out: answer (zeroed by the caller)
 */
void hfd_ctx_limits_info(struct hfd_ctx *ctx, struct hpu_info_ctx_limits *out)
{
	struct hfd_cs_state *st = ctx->cs;
	unsigned int i;

	out->num_limits = HPU_CTX_LIMIT_NUM;
	for (i = 0; i < HPU_CTX_LIMIT_NUM; i++) {
		out->limits[i].limit = hfd_limit(i);
		out->limits[i].used =
			__atomic_load_n(&ctx->lim_used[i], __ATOMIC_RELAXED);
	}
	if (st) {
		pthread_mutex_lock(&st->lock);
		out->limits[HPU_CTX_LIMIT_CS_IN_FLIGHT].used = st->in_flight;
		pthread_mutex_unlock(&st->lock);
	}
	pthread_mutex_lock(&ctx->lock);
	out->limits[HPU_CTX_LIMIT_EVENTS].limit = ctx->ev_cap;
	out->limits[HPU_CTX_LIMIT_EVENTS].used = ctx->ev_count;
	pthread_mutex_unlock(&ctx->lock);
}
