// SPDX-License-Identifier: MIT
/*
 * step_ops.c - hpu-bench step's training step as a list of ops: the
 * arena's layout (x, labels, the loss, and per layer the weights, bias,
 * activations and their gradients, each 256-byte aligned) and the ops
 * in order: the input DMA, per layer a GEMM, BIAS_ADD and RELU (none
 * after the last), cross-entropy forward and backward, per layer
 * backwards the weight GEMM, BIAS_GRAD and (but for the first) the input
 * gradient GEMM and RELU_BWD, an AXPY (SGD) per weight and bias, and the
 * loss DMA back. Device VAs are arena offsets plus r->va; the same list
 * runs on the device (mode_step.c) and on the host (step_host.c).
 */
#include <string.h>

#include "hpu_gemm_pkt.h"
#include "step.h"

static uint64_t carve(uint64_t *off, uint64_t bytes)
{
	uint64_t at = *off;

	*off += (bytes + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
	return at;
}

void bench_step_lay_out(struct step_run *r)
{
	struct layout *l = &r->l;
	uint64_t off = 0;
	unsigned int i;

	l->x = carve(&off, BATCH * r->dims[0] * 4);
	l->labels = carve(&off, BATCH * 4);
	l->loss = carve(&off, 4);
	for (i = 0; i < r->nlayer; i++) {
		uint64_t wsz = (uint64_t)r->dims[i] * r->dims[i + 1] * 4;
		uint64_t asz = (uint64_t)BATCH * r->dims[i + 1] * 4;

		l->w[i] = carve(&off, wsz);
		l->dw[i] = carve(&off, wsz);
		l->b[i] = carve(&off, r->dims[i + 1] * 4);
		l->db[i] = carve(&off, r->dims[i + 1] * 4);
		l->z[i] = carve(&off, asz);
		l->a[i] = carve(&off, asz);
		l->dz[i] = carve(&off, asz);
		l->da[i] = carve(&off, asz);
	}
	l->size = off;
}

static struct hpu_tpc_tensor mat(uint64_t va, uint32_t rows, uint32_t cols)
{
	struct hpu_tpc_tensor d;

	memset(&d, 0, sizeof(d));
	d.addr = va;
	d.dtype = HPU_DTYPE_FP32;
	d.ndims = rows ? 2 : 1;
	d.sizes[0] = cols;
	d.strides[0] = 1;
	if (rows) {
		d.sizes[1] = rows;
		d.strides[1] = cols;
	}
	return d;
}

static struct op *op_new(struct step_run *r, int q, enum op_kind kind)
{
	struct op *o = &r->ops[r->nops++];

	memset(o, 0, sizeof(*o));
	o->q = q;
	o->kind = kind;
	return o;
}

/* C[m][n] = op(A) op(B), fp32, row-major, as stored */
static void op_gemm(struct step_run *r, uint64_t c, uint64_t a, uint64_t b,
		    uint32_t m, uint32_t n, uint32_t k, bool ta, bool tb)
{
	struct op *o = op_new(r, Q_MME, OP_GEMM);

	o->g = hpu_gemm_pkt(r->va + a, r->va + b, r->va + c, m, n, k,
			    HPU_DTYPE_FP32, HPU_DTYPE_FP32);
	o->g.hdr.flags = (ta ? HPU_MME_F_TRANS_A : 0) |
			 (tb ? HPU_MME_F_TRANS_B : 0);
	o->g.lda = ta ? m : k;
	o->g.ldb = tb ? k : n;
}

static struct op *op_tpc(struct step_run *r, uint32_t kid, unsigned int nt)
{
	struct op *o = op_new(r, Q_TPC, OP_TPC);

	o->kid = kid;
	o->nt = nt;
	return o;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* The ops of one step, in order (device VAs: arena offsets + r->va) */
void bench_step_build_ops(struct step_run *r)
{
	const struct layout *l = &r->l;
	uint64_t va = r->va, in;
	struct op *o;
	int i;

	r->nops = 0;
	o = op_new(r, Q_DMA, OP_DMA);
	o->dst[0] = va + l->x;
	o->src[0] = r->pin_va;
	o->size[0] = BATCH * r->dims[0] * 4;
	o->dst[1] = va + l->labels;
	o->src[1] = r->pin_va + o->size[0];
	o->size[1] = BATCH * 4;
	for (i = 0; i < (int)r->nlayer; i++) {
		in = i ? l->a[i - 1] : l->x;
		op_gemm(r, l->z[i], in, l->w[i], BATCH, r->dims[i + 1],
			r->dims[i], false, false);
		o = op_tpc(r, HPU_TPC_KERNEL_BIAS_ADD, 3);
		o->t[0] = mat(va + l->z[i], BATCH, r->dims[i + 1]);
		o->t[1] = mat(va + l->b[i], 0, r->dims[i + 1]);
		o->t[2] = o->t[0];
		if (i == (int)r->nlayer - 1)
			break;
		o = op_tpc(r, HPU_TPC_KERNEL_RELU, 2);
		o->t[0] = mat(va + l->z[i], BATCH, r->dims[i + 1]);
		o->t[1] = mat(va + l->a[i], BATCH, r->dims[i + 1]);
	}
	o = op_tpc(r, HPU_TPC_KERNEL_XENT_FWD, 3);
	o->t[0] = mat(va + l->z[r->nlayer - 1], BATCH, r->dims[r->nlayer]);
	o->t[1] = mat(va + l->labels, 0, BATCH);
	o->t[1].dtype = HPU_DTYPE_INT32;
	o->t[2] = mat(va + l->loss, 0, 1);
	o->t[2].ndims = 0;
	o->t[2].sizes[0] = 0;
	o->t[2].strides[0] = 0;
	o = op_tpc(r, HPU_TPC_KERNEL_XENT_BWD, 3);
	o->t[0] = r->ops[r->nops - 2].t[0];
	o->t[1] = r->ops[r->nops - 2].t[1];
	o->t[2] = mat(va + l->dz[r->nlayer - 1], BATCH, r->dims[r->nlayer]);
	for (i = (int)r->nlayer - 1; i >= 0; i--) {
		in = i ? l->a[i - 1] : l->x;
		/* dW[in][out] = in^T dz */
		op_gemm(r, l->dw[i], in, l->dz[i], r->dims[i], r->dims[i + 1],
			BATCH, true, false);
		o = op_tpc(r, HPU_TPC_KERNEL_BIAS_GRAD, 2);
		o->t[0] = mat(va + l->dz[i], BATCH, r->dims[i + 1]);
		o->t[1] = mat(va + l->db[i], 0, r->dims[i + 1]);
		if (!i)
			break;
		/* da[batch][in] = dz W^T */
		op_gemm(r, l->da[i - 1], l->dz[i], l->w[i], BATCH, r->dims[i],
			r->dims[i + 1], false, true);
		o = op_tpc(r, HPU_TPC_KERNEL_RELU_BWD, 3);
		o->t[0] = mat(va + l->z[i - 1], BATCH, r->dims[i]);
		o->t[1] = mat(va + l->da[i - 1], BATCH, r->dims[i]);
		o->t[2] = mat(va + l->dz[i - 1], BATCH, r->dims[i]);
	}
	for (i = 0; i < (int)r->nlayer; i++) {
		o = op_tpc(r, HPU_TPC_KERNEL_AXPY, 3);
		o->t[0] = mat(va + l->dw[i], r->dims[i], r->dims[i + 1]);
		o->t[1] = mat(va + l->w[i], r->dims[i], r->dims[i + 1]);
		o->t[2] = o->t[1];
		o->p[0] = f32_bits(-LR);
		o->np = 1;
		o = op_tpc(r, HPU_TPC_KERNEL_AXPY, 3);
		o->t[0] = mat(va + l->db[i], 0, r->dims[i + 1]);
		o->t[1] = mat(va + l->b[i], 0, r->dims[i + 1]);
		o->t[2] = o->t[1];
		o->p[0] = f32_bits(-LR);
		o->np = 1;
	}
	o = op_new(r, Q_DMA, OP_DMA);
	o->dst[0] = r->pin_va + r->in_bytes;
	o->src[0] = va + l->loss;
	o->size[0] = 4;
}
