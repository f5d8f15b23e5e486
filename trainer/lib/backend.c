// SPDX-License-Identifier: MIT
/*
 * backend.c - backend instances: creation, the arenas, step boundaries,
 * and the entry points every op goes through (ht_backend.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ht_backend.h"
#include "ht_error.h"
#include "ht_graph.h"
#include "hputpc_check.h"

#define ARENA_ALIGN	    256
#define ARENA_DEFAULT_CHUNK (64ULL << 20)

int ht_arena_alloc(struct ht_backend *be, struct ht_arena *a, uint64_t size,
		   uint64_t *addr)
{
	uint64_t want = (size + ARENA_ALIGN - 1) & ~(uint64_t)(ARENA_ALIGN - 1);
	int ret;

	if (!want)
		want = ARENA_ALIGN;
	/* first fit in call order: the same calls give the same addresses */
	while (a->cur < a->nchunks) {
		if (a->chunk_size[a->cur] - a->used >= want) {
			*addr = a->chunk_addr[a->cur] + a->used;
			a->used += want;
			return 0;
		}
		a->cur++;
		a->used = 0;
	}
	if (a->nchunks == a->cap) {
		unsigned int cap = a->cap ? 2 * a->cap : 8;
		uint64_t *na = realloc(a->chunk_addr, cap * sizeof(*na));

		if (!na)
			return -ENOMEM;
		a->chunk_addr = na;
		na = realloc(a->chunk_size, cap * sizeof(*na));
		if (!na)
			return -ENOMEM;
		a->chunk_size = na;
		a->cap = cap;
	}
	size = want > a->granule ? want : a->granule;
	ret = be->ops->mem_alloc(be, size, &a->chunk_addr[a->nchunks]);
	if (ret) {
		ht_seterr(be->err, sizeof(be->err),
			  "%s: cannot allocate %llu bytes of memory",
			  be->ops->name, (unsigned long long)size);
		return ret;
	}
	a->chunk_size[a->nchunks] = size;
	a->cur = a->nchunks++;
	a->bytes += size;
	a->used = want;
	*addr = a->chunk_addr[a->cur];
	return 0;
}

static void arena_reset(struct ht_arena *a)
{
	a->cur = 0;
	a->used = 0;
}

static void arena_release(struct ht_backend *be, struct ht_arena *a)
{
	unsigned int i;

	for (i = 0; i < a->nchunks; i++)
		be->ops->mem_free(be, a->chunk_addr[i]);
	free(a->chunk_addr);
	free(a->chunk_size);
	memset(a, 0, sizeof(*a));
}

static void step_tensors_release(struct ht_backend *be)
{
	struct ht_tensor *t = be->step_tensors, *next;

	for (; t; t = next) {
		next = t->next;
		free(t);
	}
	be->step_tensors = NULL;
}

int ht_backend_create(const struct ht_backend_opts *o, struct ht_backend **bep,
		      char *err, size_t errlen)
{
	struct ht_backend *be;
	int ret;

	if (!o || !bep ||
	    (o->accel != HT_ACCEL_CPU && o->accel != HT_ACCEL_HPU) ||
	    o->mode < HT_EXEC_EAGER || o->mode > HT_EXEC_GRAPH ||
	    (o->precision != HT_PREC_32 &&
	     o->precision != HT_PREC_BF16_MIXED)) {
		ht_seterr(err, errlen, "invalid backend options");
		return -EINVAL;
	}
	be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->ops = o->accel == HT_ACCEL_HPU ? &ht_backend_hpu_ops :
					     &ht_backend_cpu_ops;
	be->accel = o->accel;
	be->mode = o->mode;
	be->precision = o->precision;
	be->grad_enabled = true;
	be->persist.granule = be->step.granule = o->arena_chunk_bytes ?
							 o->arena_chunk_bytes :
							 ARENA_DEFAULT_CHUNK;
	ret = be->ops->init(be, o);
	if (ret) {
		ht_seterr(err, errlen, "%s", be->err);
		free(be);
		return ret;
	}
	*bep = be;
	return 0;
}

void ht_backend_destroy(struct ht_backend *be)
{
	if (!be)
		return;
	ht_backend_sync(be);
	ht_tape_free(be);
	step_tensors_release(be);
	arena_release(be, &be->step);
	arena_release(be, &be->persist);
	be->ops->fini(be);
	free(be);
}

int ht_step_begin(struct ht_backend *be, bool graph)
{
	return ht_step_begin_graph(be, graph, 0);
}

int ht_step_begin_graph(struct ht_backend *be, bool graph, unsigned int gid)
{
	if (be->in_step) {
		ht_seterr(be->err, sizeof(be->err), "a step is already open");
		return -EBUSY;
	}
	if (gid >= HT_MAX_GRAPHS)
		return -EINVAL;
	ht_tape_reset(be);
	be->in_step = true;
	return be->ops->step_begin(be, graph && be->mode == HT_EXEC_GRAPH, gid);
}

int ht_step_end(struct ht_backend *be)
{
	int ret;

	if (!be->in_step)
		return -EINVAL;
	ret = be->ops->step_end(be);
	be->in_step = false;
	ht_tape_reset(be);
	step_tensors_release(be);
	arena_reset(&be->step);
	be->stats.persistent_bytes = be->persist.bytes;
	be->stats.step_bytes = be->step.bytes;
	return ret;
}

int ht_graph_replayable(struct ht_backend *be, unsigned int gid,
			unsigned int *ndyn)
{
	if (!ndyn)
		return -EINVAL;
	if (!be->ops->graph_info) {
		ht_seterr(be->err, sizeof(be->err),
			  "graph replay: the %s backend has no graphs",
			  be->ops->name);
		return -EOPNOTSUPP;
	}
	return be->ops->graph_info(be, gid, ndyn);
}

int ht_graph_replay(struct ht_backend *be, unsigned int gid,
		    const uint32_t *dyn, unsigned int ndyn)
{
	if (be->in_step) {
		ht_seterr(be->err, sizeof(be->err),
			  "graph replay: a step is open");
		return -EBUSY;
	}
	if (!be->ops->replay) {
		ht_seterr(be->err, sizeof(be->err),
			  "graph replay: the %s backend has no graphs",
			  be->ops->name);
		return -EOPNOTSUPP;
	}
	return be->ops->replay(be, gid, dyn, ndyn);
}

int ht_backend_sync(struct ht_backend *be)
{
	return be->ops->sync(be);
}

int ht_backend_prefetch(struct ht_backend *be, const struct ht_xfer *x,
			unsigned int n)
{
	unsigned int i;
	int ret;

	if (!n || !x)
		return -EINVAL;
	if (be->ops->prefetch) {
		ret = be->ops->prefetch(be, x, n);
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	for (i = 0; i < n; i++) {
		ret = be->ops->upload(be, x[i].dst, x[i].src, x[i].n);
		if (ret)
			return ret;
	}
	return 0;
}

int ht_backend_prefetch_wait(struct ht_backend *be)
{
	return be->ops->prefetch_wait ? be->ops->prefetch_wait(be) : 0;
}

int ht_backend_prefetch_cancel(struct ht_backend *be)
{
	return be->ops->prefetch_cancel ? be->ops->prefetch_cancel(be) : 0;
}

int ht_backend_flush(struct ht_backend *be)
{
	return be->ops->flush ? be->ops->flush(be) : 0;
}

int ht_backend_set_stream(struct ht_backend *be, struct hpu_stream *s)
{
	return be->ops->set_stream ? be->ops->set_stream(be, s) : -EOPNOTSUPP;
}

int ht_backend_mem_stats(struct ht_backend *be, uint64_t *in_use,
			 uint64_t *peak)
{
	uint64_t n;

	if (be->ops->mem_stats)
		return be->ops->mem_stats(be, in_use, peak);
	n = be->persist.bytes + be->step.bytes;
	*in_use = n;
	*peak = n;
	return 0;
}

struct hpu_device *ht_backend_device(struct ht_backend *be)
{
	return be->ops->device ? be->ops->device(be) : NULL;
}

int ht_backend_kernel_dyn(struct ht_backend *be, uint32_t id,
			  const struct hpu_tpc_tensor *t, unsigned int nt,
			  const uint32_t *params, unsigned int np, uint32_t dyn)
{
	int ret;

	be->stats.ops++;
	ret = be->ops->kernel(be, id, t, nt, params, np, dyn);
	if (ret == -EINVAL && !be->err[0]) {
		const char *name = hputpc_kernel_name(id);

		ht_seterr(be->err, sizeof(be->err),
			  "TPC kernel %s: operands rejected",
			  name ? name : "?");
	}
	return ret;
}

int ht_backend_kernel(struct ht_backend *be, uint32_t id,
		      const struct hpu_tpc_tensor *t, unsigned int nt,
		      const uint32_t *params, unsigned int np)
{
	return ht_backend_kernel_dyn(be, id, t, nt, params, np, 0);
}

int ht_backend_gemm(struct ht_backend *be, const struct hpu_pkt_mme_gemm *g)
{
	int ret;

	be->stats.ops++;
	ret = be->ops->gemm(be, g);
	if (ret == -EINVAL && !be->err[0])
		ht_seterr(be->err, sizeof(be->err),
			  "MME GEMM %ux%ux%u: descriptor rejected", g->m, g->n,
			  g->k);
	return ret;
}
