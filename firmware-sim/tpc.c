// SPDX-License-Identifier: MIT
/*
 * tpc.c - the TPC engines: TPC_KERNEL packets dispatched to the TPC kernel
 * library (libhputpc/: registry, kernels and their operand rules;
 * docs/tpc-kernels.md).
 *
 * Every operand's whole extent is translated before a kernel runs, so a
 * fault is reported before any byte is written. An operand must lie in
 * memory the model reaches by pointer (HBM, SRAM, pinned host memory); an
 * operand in pageable host memory is an engine error. An operand whose
 * extent spans several device extents is staged: gathered into a
 * temporary buffer, and written back after the kernel if it changed;
 * operands over exactly the same bytes share one buffer. Operands that
 * partially overlap give undefined results; an output that is exactly one
 * of the inputs (in-place) is fine for the elementwise, optimizer and
 * accumulate kernels.
 *
 * Reductions run on the queue's thread, in a fixed order; elementwise
 * kernels of >= HPUTPC_PAR_MIN elements are cut into independent slices that
 * idle pool workers help with (engine_pool below). Results are
 * bit-identical whatever the machine's thread count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpusim.h"
#include "hputpc.h"

/* The slices of one kernel, run by the worker pool (struct hputpc_pool.run) */
static void pool_run(void (*fn)(void *arg, unsigned int slice), void *arg,
		     unsigned int nslices)
{
	struct hpusim_par par = { .fn = fn, .arg = arg, .nslices = nslices };

	/* map_lock stays held for reading: the slices take no model lock */
	hpusim_par_run(&par);
}

static const struct hputpc_pool engine_pool = {
	.width = hpusim_par_width,
	.run = pool_run,
};

/* A staged operand: @buf holds a copy of [@va, @va + @len) */
struct tpc_stage {
	uint8_t *buf;
	uint64_t va;
	uint64_t len;
};

/* Copy between @buf and the device range (to the device if @out) */
static int stage_copy(struct hpu_fw_as *as, struct tpc_stage *s, bool out)
{
	struct hpusim_seg seg;
	uint64_t done = 0;

	while (done < s->len) {
		if (hpusim_mmu_seg(as, s->va + done, s->len - done, false,
				   &seg) ||
		    !seg.ptr)
			return -EIO;
		if (!out)
			memcpy(s->buf + done, seg.ptr, seg.len);
		else if (memcmp(seg.ptr, s->buf + done, seg.len))
			memcpy(seg.ptr, s->buf + done, seg.len);
		done += seg.len;
	}
	return 0;
}

/*
 * The staging buffer of an operand before @s in @st that covers exactly
 * [@va, @va + @len): operands that are the same memory share one buffer,
 * so an in-place kernel sees its writes as it does unstaged, and only one
 * copy is written back (a second, stale copy would undo the output)
 */
static uint8_t *staged_twin(const struct tpc_stage *st,
			    const struct tpc_stage *s, uint64_t va,
			    uint64_t len)
{
	for (; st < s; st++)
		if (st->buf && st->va == va && st->len == len)
			return st->buf;
	return NULL;
}

/*
 * Translate an operand; stage it into @st[@i] when it is not one
 * contiguous piece (@st[0..@i) are the operands bound before it)
 */
static int bind(struct hpu_fw_as *as, const struct hpu_tpc_tensor *d,
		struct hputpc_operand *t, struct tpc_stage *st, unsigned int i)
{
	struct tpc_stage *s = &st[i];
	uint64_t len = hputpc_extent(d);
	struct hpusim_seg seg;

	hputpc_bind_shape(d, t);
	if (!len)
		return 0;
	if (hpusim_mmu_seg(as, d->addr, len, false, &seg) || !seg.ptr)
		return -EIO; /* pageable host memory */
	if (seg.len == len) {
		t->p = seg.ptr;
		return 0;
	}
	t->p = staged_twin(st, s, d->addr, len);
	if (t->p)
		return 0;
	s->buf = malloc(len);
	if (!s->buf)
		return -EIO;
	s->va = d->addr;
	s->len = len;
	t->p = s->buf;
	return stage_copy(as, s, false);
}

static int run(struct hpu_fw_as *as, const struct hpu_pkt_tpc_kernel *k,
	       struct hpu_fw_fault *fault)
{
	struct tpc_stage st[HPU_TPC_MAX_TENSORS] = { 0 };
	struct hputpc_ctx c = { .params = k->params,
				.id = k->kernel_id,
				.nt = k->num_tensors,
				.pool = &engine_pool };
	uint64_t fva;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < k->num_tensors; i++) {
		const struct hpu_tpc_tensor *d = &k->tensors[i];
		uint64_t len = hputpc_extent(d);

		if (len && hpusim_mmu_check(as, d->addr, len, &fva)) {
			fault->addr = fva;
			fault->is_write = false;
			return -EFAULT;
		}
	}
	for (i = 0; i < k->num_tensors && !ret; i++)
		ret = bind(as, &k->tensors[i], &c.t[i], st, i);
	if (!ret)
		ret = hputpc_dispatch(&c);
	for (i = 0; i < k->num_tensors; i++) {
		if (!st[i].buf)
			continue;
		if (!ret)
			ret = stage_copy(as, &st[i], true);
		free(st[i].buf);
	}
	return ret;
}

/**
 * hpusim_tpc_exec() - run a TPC_KERNEL packet
 * @as: address space of the submission
 * @engine: engine id of the queue running it
 * @pkt: the packet (validated by the driver; checked again here, so the
 *	model never indexes out of an operand)
 * @fault: filled on -EFAULT
 *
 * Return: 0, -EFAULT (an operand is not mapped: nothing was written),
 * -EIO (not a TPC queue, malformed packet, pageable host operand, data
 * the kernel refuses such as an embedding id out of range), or -ENOSYS (a
 * kernel the rules know but libhputpc has no body for). Every error but
 * -EFAULT is an engine error of the job.
 */
int hpusim_tpc_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault)
{
	const struct hpu_fw_device *dev = as->dev;
	struct hpu_pkt_tpc_kernel k;
	uint32_t base = dev->engine_base[HPUSIM_ENGINE_TPC];
	int ret;

	if (engine < base || engine - base >= dev->profile->num_tpc)
		return -EIO;
	memcpy(&k, pkt, sizeof(k));
	if (k.hdr.size != sizeof(k) || hputpc_check(&k))
		return -EIO;
	pthread_rwlock_rdlock(&as->map_lock);
	ret = run(as, &k, fault);
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}
