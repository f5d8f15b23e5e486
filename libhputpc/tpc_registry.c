// SPDX-License-Identifier: MIT
/*
 * tpc_registry.c - the TPC kernel library's registry: every kernel family
 * (tpc_<family>.c, each a table of struct hputpc_kernel: id, name,
 * counts, operand rule and body side by side), indexed by kernel id once,
 * on first use; the dispatch through it (docs/tpc-kernels.md); and the
 * helpers that bind operands and slice work.
 *
 * Reductions run on the calling thread, in a fixed order; elementwise
 * kernels of >= HPUTPC_PAR_MIN elements are cut into independent slices that
 * the caller's pool (struct hputpc_pool) may help with. Results are
 * bit-identical whatever the thread count.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "tpc_lib.h"

/* Every family of the library: a new family adds its line here */
const struct hputpc_family *const hputpc_families[] = {
	&hputpc_family_elementwise, &hputpc_family_reduce,
	&hputpc_family_norm,	    &hputpc_family_optim,
	&hputpc_family_accumulate,  &hputpc_family_attention,
	&hputpc_family_gradnorm,
};

const unsigned int hputpc_nfamilies = HPUTPC_ARRAY_SIZE(hputpc_families);

/* Fault @fmt in @err (when wanted); -EINVAL */
__attribute__((format(printf, 3, 4))) static int
registry_fault(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* One descriptor on its own */
static int kernel_ok(const struct hputpc_family *f,
		     const struct hputpc_kernel *r, char *err, size_t errlen)
{
	if (!r->id || r->id >= HPU_TPC_KERNEL_COUNT)
		return registry_fault(err, errlen,
				      "%s: kernel id %u out of 1..%u", f->name,
				      r->id,
				      (unsigned int)HPU_TPC_KERNEL_COUNT - 1);
	if (!r->name)
		return registry_fault(err, errlen, "%s: kernel id %u: no name",
				      f->name, r->id);
	if (!r->ntensors || r->ntensors > HPU_TPC_MAX_TENSORS ||
	    r->min_tensors > r->ntensors || r->nparams > HPU_TPC_MAX_PARAMS)
		return registry_fault(
			err, errlen,
			"%s: %s: operands %u (fewest %u), params %u out of range",
			f->name, r->name, r->ntensors, r->min_tensors,
			r->nparams);
	if (!r->check || !r->exec)
		return registry_fault(err, errlen, "%s: %s: no %s", f->name,
				      r->name, r->check ? "body" : "rule");
	return 0;
}

int hputpc_registry_index(const struct hputpc_family *const *fams,
			  unsigned int nfams,
			  const struct hputpc_kernel **by_id, char *err,
			  size_t errlen)
{
	unsigned int fi, i;
	uint32_t id;
	int ret = 0;

	memset(by_id, 0, HPU_TPC_KERNEL_COUNT * sizeof(*by_id));
	for (fi = 0; fi < nfams; fi++) {
		const struct hputpc_family *f = fams[fi];

		for (i = 0; i < f->count; i++) {
			const struct hputpc_kernel *r = &f->kernels[i];
			int bad = kernel_ok(f, r, ret ? NULL : err, errlen);

			ret = ret ? ret : bad;
			if (!r->id || r->id >= HPU_TPC_KERNEL_COUNT)
				continue;
			if (by_id[r->id]) {
				if (!ret)
					ret = registry_fault(
						err, errlen,
						"%s: kernel id %u (%s) already described (%s)",
						f->name, r->id,
						r->name ? r->name : "?",
						by_id[r->id]->name ?
							by_id[r->id]->name :
							"?");
				continue;
			}
			by_id[r->id] = r;
		}
	}
	/* names unique over the ids indexed */
	for (id = 1; id < HPU_TPC_KERNEL_COUNT && !ret; id++) {
		uint32_t j;

		if (!by_id[id] || !by_id[id]->name)
			continue;
		for (j = id + 1; j < HPU_TPC_KERNEL_COUNT; j++)
			if (by_id[j] && by_id[j]->name &&
			    !strcmp(by_id[id]->name, by_id[j]->name)) {
				ret = registry_fault(
					err, errlen,
					"kernel ids %u and %u both named %s",
					id, j, by_id[id]->name);
				break;
			}
	}
	return ret;
}

/* The library's own index, built once (tests check the tables are sound) */
static const struct hputpc_kernel *by_id[HPU_TPC_KERNEL_COUNT];
static pthread_once_t by_id_once = PTHREAD_ONCE_INIT;

static void by_id_build(void)
{
	hputpc_registry_index(hputpc_families, hputpc_nfamilies, by_id, NULL,
			      0);
}

const struct hputpc_kernel *hputpc_kernel_find(uint32_t id)
{
	if (id >= HPU_TPC_KERNEL_COUNT)
		return NULL;
	pthread_once(&by_id_once, by_id_build);
	return by_id[id];
}

bool hputpc_has_kernel(uint32_t id)
{
	const struct hputpc_kernel *r = hputpc_kernel_find(id);

	return r && r->exec;
}

int hputpc_dispatch(struct hputpc_ctx *c)
{
	const struct hputpc_kernel *r = hputpc_kernel_find(c->id);

	if (!r || !r->exec)
		return -ENOSYS;
	return r->exec(c);
}

void hputpc_bind_shape(const struct hpu_tpc_tensor *d, struct hputpc_operand *t)
{
	uint32_t k;

	t->dtype = d->dtype;
	t->ndims = d->ndims;
	for (k = 0; k < HPU_TPC_MAX_DIMS; k++) {
		t->sizes[k] = k < d->ndims ? d->sizes[k] : 1;
		t->strides[k] = k < d->ndims ? d->strides[k] : 0;
	}
	t->n = hputpc_nelems(d);
	t->p = NULL;
}

uint64_t hputpc_row_off(const struct hputpc_operand *t, uint64_t r)
{
	uint64_t off = 0;
	uint32_t d;

	for (d = 1; d < t->ndims && r; d++) {
		off += (r % t->sizes[d]) * t->strides[d];
		r /= t->sizes[d];
	}
	return off;
}

void hputpc_par_run(const struct hputpc_ctx *c,
		    void (*fn)(void *arg, unsigned int slice), void *arg,
		    unsigned int *nslices, uint64_t nelems)
{
	unsigned int w = c->pool ? c->pool->width() : 1;

	*nslices = 1;
	if (nelems >= HPUTPC_PAR_MIN && w > 1) {
		if (w > 8)
			w = 8;
		if (w > nelems / (HPUTPC_PAR_MIN / 2))
			w = (unsigned int)(nelems / (HPUTPC_PAR_MIN / 2));
		*nslices = w;
	}
	if (*nslices > 1)
		c->pool->run(fn, arg, *nslices);
	else
		fn(arg, 0);
}
