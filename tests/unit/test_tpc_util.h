/* SPDX-License-Identifier: MIT */
/*
 * test_tpc_util.h - fixture of the TPC kernel tests: the libhpusim fixture
 * (tests/lib/hpu_test_fw.h) plus an arena of pinned host memory mapped into the
 * address space (the TPC reaches it like HBM), tensor descriptors, a
 * kernel runner on TPC queue 0 and tolerance helpers.
 */
#ifndef TEST_TPC_UTIL_H
#define TEST_TPC_UTIL_H

#include <math.h>

#include "../lib/hpu_test_fw.h"
#include "hpu_tpc_kernels.h"
#include "hputpc_check.h"

#define ARENA_SIZE (16 * MiB)

struct tfix {
	struct hpu_test_fw *f;
	uint8_t *arena;
	uint64_t va;
	uint64_t used;
	uint32_t tpc0;
};

static inline int tsetup(void **state)
{
	struct tfix *t = calloc(1, sizeof(*t));
	void *fs;

	if (!t || hpu_test_fw_setup(&fs))
		return -1;
	t->f = fs;
	t->arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t->arena == MAP_FAILED ||
	    hpusim_model.ops->map_shared(t->f->as, t->arena, ARENA_SIZE, 0,
					 false, &t->va))
		return -1;
	t->tpc0 = t->f->mme0 +
		  hpu_fw_find_profile(&hpusim_model, "gaudi2")->num_mme;
	*state = t;
	return 0;
}

static inline int tteardown(void **state)
{
	struct tfix *t = *state;
	struct hpu_test_fw *f = t->f;

	if (f->as) {
		hpusim_model.ops->as_destroy(f->as);
		f->as = NULL;
	}
	munmap(t->arena, ARENA_SIZE);
	free(t);
	return hpu_test_fw_teardown((void **)&f);
}

/* @bytes of the arena (64-byte aligned), its VA in *va */
static inline void *talloc(struct tfix *t, uint64_t bytes, uint64_t *va)
{
	uint64_t off = t->used;

	t->used = (t->used + bytes + 63) & ~63ULL;
	assert_true(t->used <= ARENA_SIZE);
	*va = t->va + off;
	return t->arena + off;
}

static inline void treset(struct tfix *t)
{
	t->used = 0;
}

/* A contiguous tensor; sizes[0] innermost */
static inline struct hpu_tpc_tensor tens(uint64_t va, uint32_t dtype,
					 uint32_t ndims, const uint32_t *sizes)
{
	struct hpu_tpc_tensor d = { .addr = va,
				    .dtype = dtype,
				    .ndims = ndims };
	uint64_t s = 1;
	uint32_t i;

	for (i = 0; i < ndims; i++) {
		d.sizes[i] = sizes[i];
		d.strides[i] = s;
		s *= sizes[i];
	}
	return d;
}

/* A new contiguous tensor in the arena; its data in *data */
static inline struct hpu_tpc_tensor tnew(struct tfix *t, uint32_t dtype,
					 uint32_t ndims, const uint32_t *sizes,
					 void **data)
{
	struct hpu_tpc_tensor d = tens(0, dtype, ndims, sizes);
	uint64_t va;

	*data = talloc(t, hputpc_nelems(&d) * hputpc_dtype_size(dtype) + 4,
		       &va);
	d.addr = va;
	return d;
}

static inline void tpc_pkt(struct hpu_pkt_tpc_kernel *k, uint32_t id,
			   const struct hpu_tpc_tensor *tv, unsigned int nt,
			   const uint32_t *pv, unsigned int np)
{
	memset(k, 0, sizeof(*k));
	k->hdr.opcode = HPU_PACKET_TPC_KERNEL;
	k->hdr.size = sizeof(*k);
	k->kernel_id = id;
	k->num_tensors = nt;
	memcpy(k->tensors, tv, nt * sizeof(*tv));
	if (np)
		memcpy(k->params, pv, np * sizeof(*pv));
}

/* Run one kernel on @queue; the descriptor must pass the rules */
static inline enum hpu_fw_cs_result
krun_q(struct tfix *t, uint32_t queue, uint32_t id,
       const struct hpu_tpc_tensor *tv, unsigned int nt, const uint32_t *pv,
       unsigned int np, struct hpu_fw_fault *fault)
{
	struct hpu_test_cb cb = { .len = 0 };
	struct hpu_pkt_tpc_kernel *k =
		hpu_test_cb_put(&cb, HPU_PACKET_TPC_KERNEL, sizeof(*k), 0);

	tpc_pkt(k, id, tv, nt, pv, np);
	assert_int_equal(hputpc_check(k), 0);
	return hpu_test_fw_run1(t->f, queue, &cb, fault);
}

static inline void krun(struct tfix *t, uint32_t id,
			const struct hpu_tpc_tensor *tv, unsigned int nt,
			const uint32_t *pv, unsigned int np)
{
	assert_int_equal(krun_q(t, t->tpc0, id, tv, nt, pv, np, NULL),
			 HPU_FW_CS_OK);
}

static inline uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline uint32_t rng_next(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* Uniform in [lo, hi) */
static inline float frand(uint32_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)rng_next(s) / 16777216.0f;
}

static inline void frand_fill(float *p, uint64_t n, uint32_t seed, float lo,
			      float hi)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = frand(&seed, lo, hi);
}

/* |got - want| <= abs + rel * |want|, NaN only against NaN, inf exact */
static inline int close_to(float got, double want, double abs, double rel)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabs((double)got - want) <= abs + rel * fabs(want);
}

#define assert_close(got, want, abs, rel)                                  \
	do {                                                               \
		if (!close_to((got), (want), (abs), (rel)))                \
			fail_msg("%s:%d: got %.9g want %.9g", __FILE__,    \
				 __LINE__, (double)(got), (double)(want)); \
	} while (0)

#endif /* TEST_TPC_UTIL_H */
