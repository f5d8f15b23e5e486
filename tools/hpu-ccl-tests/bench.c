// SPDX-License-Identifier: MIT
/*
 * bench.c - one rank of hpu-ccl-tests: join the communicator, then for
 * every collective and size time the out-of-place and in-place forms,
 * check them, and agree with the other ranks (through the communicator
 * itself) on the slowest time and the total of wrong elements, which rank
 * 0 prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ccltests.h"
#include "cclt_plot.h"
#include "hpu_access.h"

#define SCRATCH_BYTES 4096

struct rank_ctx {
	const struct cclt_opts *o;
	const struct cclt_rank *r;
	struct hpu_device *dev;
	struct hpu_stream *stream;
	struct hpuccl_comm *comm;
	uint64_t send_h, recv_h, scratch_h;
	uint64_t send_va, recv_va, scratch_va;
	uint64_t buf_bytes;
	void *host;
	long long total_wrong;
	struct cclt_plot *plot; /* rank 0 with --plot */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int fail(const struct rank_ctx *x, const char *what, int err)
{
	int async = x->comm ? hpuccl_comm_get_async_error(x->comm) : 0;

	if (async && async != err)
		fprintf(stderr,
			CCLT_PROG ": rank %d: %s: %s (communicator: %s)\n",
			x->r->rank, what, hpuccl_strerror(err),
			hpuccl_strerror(async));
	else
		fprintf(stderr, CCLT_PROG ": rank %d: %s: %s\n", x->r->rank,
			what, hpuccl_strerror(err));
	return err;
}

/* A device node refused us: name it, its group and the fix */
static int access_fail(const struct rank_ctx *x)
{
	struct hpu_device_info info;
	char msg[512];

	if (hpu_device_get_info(x->r->device, &info))
		return fail(x, "cannot open the device", -EACCES);
	fprintf(stderr, CCLT_PROG ": rank %d: cannot open hpu%d: %s\n",
		x->r->rank, x->r->device,
		hpu_access_hint(info.node_path, msg, sizeof(msg)));
	return -EACCES;
}

int cclt_validate(const struct cclt_opts *o, int nranks)
{
	unsigned int runnable = 0;
	int i;

	if (o->root >= nranks) {
		fprintf(stderr,
			CCLT_PROG ": -r %d: the root must be a rank 0..%d\n",
			o->root, nranks - 1);
		return CCLT_EXIT_USAGE;
	}
	for (i = 0; i < CCLT_NUM_OPS; i++)
		if ((o->ops & (1U << i)) && nranks >= cclt_op_get(i)->min_ranks)
			runnable |= 1U << i;
	if (!runnable) {
		fprintf(stderr, CCLT_PROG ": -o %s needs at least %d ranks\n",
			cclt_op_get(__builtin_ctz(o->ops))->name,
			cclt_op_get(__builtin_ctz(o->ops))->min_ranks);
		return CCLT_EXIT_USAGE;
	}
	return 0;
}

static int dev_buffer(struct rank_ctx *x, uint64_t bytes, uint64_t *h,
		      uint64_t *va)
{
	int ret = hpu_mem_alloc(x->dev, bytes, 0, 0, h);

	if (ret)
		return ret;
	ret = hpu_mem_map(x->dev, *h, 0, 0, va);
	if (ret) {
		hpu_mem_free(x->dev, *h);
		*h = 0;
	}
	return ret;
}

static void dev_buffer_free(struct rank_ctx *x, uint64_t h, uint64_t va)
{
	if (!h)
		return;
	hpu_mem_unmap(x->dev, va);
	hpu_mem_free(x->dev, h);
}

static int setup(struct rank_ctx *x)
{
	struct hpuccl_config cfg = { .sz = sizeof(cfg),
				     .timeout_ms = x->o->timeout_ms };
	uint64_t min = (uint64_t)hpuccl_dtype_size(x->o->dtype) * x->r->nranks;
	char what[320];
	int ret;

	ret = hpu_open(x->r->device, &x->dev);
	if (ret == -EACCES)
		return access_fail(x);
	if (ret) {
		/* the detail names a busy device's holder (exclusive mode) */
		if (hpu_last_error())
			snprintf(what, sizeof(what), "cannot open hpu%d (%s)",
				 x->r->device, hpu_last_error());
		else
			snprintf(what, sizeof(what), "cannot open hpu%d",
				 x->r->device);
		return fail(x, what, ret);
	}
	ret = hpu_stream_create(x->dev, HPU_STREAM_QUEUE_AUTO, &x->stream);
	if (ret)
		return fail(x, "cannot create a stream", ret);
	cfg.dev = x->dev;
	ret = hpuccl_comm_init_rank_config(&x->comm, x->r->nranks, &x->r->id,
					   x->r->rank, &cfg);
	if (ret) {
		x->comm = NULL;
		return fail(x, "cannot join the communicator", ret);
	}
	/* every size of every collective fits: see cclt_count() */
	x->buf_bytes = x->o->maxbytes > min ? x->o->maxbytes : min;
	x->buf_bytes = (x->buf_bytes + 4095) & ~4095ULL;
	ret = dev_buffer(x, x->buf_bytes, &x->send_h, &x->send_va);
	if (!ret)
		ret = dev_buffer(x, x->buf_bytes, &x->recv_h, &x->recv_va);
	if (!ret)
		ret = dev_buffer(x, SCRATCH_BYTES, &x->scratch_h,
				 &x->scratch_va);
	if (ret)
		return fail(x, "cannot allocate device memory", ret);
	x->host = malloc(x->buf_bytes);
	if (!x->host)
		return fail(x, "cannot allocate host memory", -ENOMEM);
	return 0;
}

static void teardown(struct rank_ctx *x, bool failed)
{
	if (x->comm) {
		if (failed)
			hpuccl_comm_abort(x->comm);
		else
			hpuccl_comm_destroy(x->comm);
	}
	free(x->host);
	if (x->dev) {
		hpu_stream_destroy(x->stream);
		dev_buffer_free(x, x->scratch_h, x->scratch_va);
		dev_buffer_free(x, x->recv_h, x->recv_va);
		dev_buffer_free(x, x->send_h, x->send_va);
		hpu_close(x->dev);
	}
}

/* the library's count for @bytes: per-rank chunks for chunked collectives */
static size_t cclt_count(const struct rank_ctx *x, const struct cclt_op *op,
			 uint64_t bytes)
{
	size_t unit = hpuccl_dtype_size(x->o->dtype);
	size_t count;

	if (op->chunked)
		unit *= x->r->nranks;
	count = bytes / unit;
	return count ? count : 1;
}

static void init_call(const struct rank_ctx *x, enum cclt_op_id op,
		      size_t count, struct cclt_call *c)
{
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->dtype = x->o->dtype;
	c->redop = x->o->redop;
	c->root = x->o->root;
	c->count = count;
	c->rank = x->r->rank;
	c->nranks = x->r->nranks;
	c->comm = x->comm;
	c->stream = x->stream;
}

/* aim the call at the out-of-place buffers or the in-place one */
static void place(const struct rank_ctx *x, struct cclt_call *c, int in_place)
{
	size_t esz = hpuccl_dtype_size(c->dtype), soff, roff;

	if (!in_place) {
		c->send = x->send_va;
		c->recv = x->recv_va;
		return;
	}
	cclt_in_place_offsets(c, &soff, &roff);
	c->send = x->recv_va + soff * esz;
	c->recv = x->recv_va + roff * esz;
}

static int run_n(const struct rank_ctx *x, const struct cclt_op *op,
		 const struct cclt_call *c, long n)
{
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = op->run(c);
		if (ret)
			return ret;
	}
	return hpu_stream_synchronize(x->stream);
}

/* every rank reaches this before any leaves it */
static int barrier(const struct rank_ctx *x)
{
	int ret = hpuccl_allreduce(x->scratch_va, x->scratch_va, 1,
				   HPUCCL_INT32, HPUCCL_SUM, x->comm,
				   x->stream);

	return ret ? ret : hpu_stream_synchronize(x->stream);
}

/* run the call once on fresh input and count the wrong elements */
static int check_once(struct rank_ctx *x, const struct cclt_op *op,
		      const struct cclt_call *c, int in_place, uint64_t seed,
		      size_t *wrong)
{
	size_t esz = hpuccl_dtype_size(c->dtype), soff = 0, roff = 0;
	size_t send_n = cclt_send_elems(c), recv_n = cclt_recv_elems(c);
	size_t total = send_n > recv_n ? send_n : recv_n;
	char *h = x->host;
	int ret;

	if (in_place) {
		cclt_in_place_offsets(c, &soff, &roff);
		cclt_fill_poison(c->dtype, h, total);
		cclt_fill_send(c, seed, h + soff * esz);
		ret = hpu_stream_memcpy_h2d(x->stream, x->recv_va, h,
					    total * esz);
	} else {
		cclt_fill_send(c, seed, h);
		ret = hpu_stream_memcpy_h2d(x->stream, c->send, h,
					    send_n * esz);
		if (!ret)
			ret = hpu_stream_synchronize(x->stream);
		cclt_fill_poison(c->dtype, h, recv_n);
		if (!ret)
			ret = hpu_stream_memcpy_h2d(x->stream, c->recv, h,
						    recv_n * esz);
	}
	if (!ret)
		ret = run_n(x, op, c, 1);
	if (!ret)
		ret = hpu_stream_memcpy_d2h(x->stream, h, c->recv,
					    recv_n * esz);
	if (!ret)
		ret = hpu_stream_synchronize(x->stream);
	if (ret)
		return ret;
	*wrong = cclt_count_wrong(c, seed, h);
	return 0;
}

/* slowest time and total wrong elements over the ranks, into @row */
static int agree(struct rank_ctx *x, struct cclt_row *row)
{
	float t[2] = { (float)row->time_us[0], (float)row->time_us[1] };
	int32_t w[2] = { (int32_t)row->wrong[0], (int32_t)row->wrong[1] };
	int ret, i;

	ret = hpu_stream_memcpy_h2d(x->stream, x->scratch_va, t, sizeof(t));
	if (!ret)
		ret = hpuccl_allreduce(x->scratch_va, x->scratch_va, 2,
				       HPUCCL_FLOAT32, HPUCCL_MAX, x->comm,
				       x->stream);
	if (!ret)
		ret = hpu_stream_memcpy_d2h(x->stream, t, x->scratch_va,
					    sizeof(t));
	if (!ret)
		ret = hpu_stream_memcpy_h2d(x->stream, x->scratch_va + 64, w,
					    sizeof(w));
	if (!ret)
		ret = hpuccl_allreduce(x->scratch_va + 64, x->scratch_va + 64,
				       2, HPUCCL_INT32, HPUCCL_SUM, x->comm,
				       x->stream);
	if (!ret)
		ret = hpu_stream_memcpy_d2h(x->stream, w, x->scratch_va + 64,
					    sizeof(w));
	if (!ret)
		ret = hpu_stream_synchronize(x->stream);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		row->time_us[i] = row->time_us[i] < 0 ? -1.0 : t[i];
		if (row->wrong[i] >= 0)
			row->wrong[i] = w[i];
	}
	return 0;
}

static int run_size(struct rank_ctx *x, const struct cclt_op *op,
		    enum cclt_op_id id, uint64_t bytes, struct cclt_row *row)
{
	size_t count = cclt_count(x, op, bytes), wrong;
	uint64_t seed = bytes * 0x100000001b3ULL, t0;
	struct cclt_call c;
	int p, ret;

	init_call(x, id, count, &c);
	row->count = cclt_recv_elems(&c) > cclt_send_elems(&c) ?
			     cclt_recv_elems(&c) :
			     cclt_send_elems(&c);
	row->bytes = row->count * hpuccl_dtype_size(c.dtype);
	for (p = 0; p < 2; p++) {
		row->time_us[p] = -1.0;
		row->wrong[p] = -1;
		if (p && !op->in_place)
			continue;
		place(x, &c, p);
		ret = barrier(x);
		if (ret)
			return ret;
		t0 = now_ns();
		ret = run_n(x, op, &c, x->o->iters);
		if (ret)
			return ret;
		row->time_us[p] = (now_ns() - t0) / 1e3 / x->o->iters;
		if (!x->o->check)
			continue;
		ret = check_once(x, op, &c, p, seed + p, &wrong);
		if (ret)
			return ret;
		row->wrong[p] = (long long)wrong;
		if (wrong)
			fprintf(stderr,
				CCLT_PROG ": rank %d: %s %s of %llu bytes: %zu "
					  "wrong elements\n",
				x->r->rank, op->name,
				p ? "in-place" : "out-of-place",
				(unsigned long long)row->bytes, wrong);
	}
	return agree(x, row);
}

/* rank 0 with --plot: the busbw of both forms of @row */
static int plot_row(struct rank_ctx *x, const struct cclt_op *op,
		    const struct cclt_row *row)
{
	double busbw;
	int p, ret;

	if (!x->plot)
		return 0;
	for (p = 0; p < 2; p++) {
		busbw = cclt_busbw(op, x->r->nranks, row, p);
		if (busbw < 0)
			continue;
		ret = cclt_plot_add(x->plot, NULL, op->name, p,
				    (double)row->bytes, busbw);
		if (ret)
			return ret;
	}
	return 0;
}

static int plot_write(struct rank_ctx *x)
{
	int ret = cclt_plot_write(x->plot, x->o->plot_path);

	if (ret)
		fprintf(stderr, CCLT_PROG ": --plot %s: cannot write it: %s\n",
			x->o->plot_path, strerror(-ret));
	else
		printf("# busbw vs size drawn in %s\n", x->o->plot_path);
	return ret;
}

static int run_op(struct rank_ctx *x, enum cclt_op_id id)
{
	const struct cclt_op *op = cclt_op_get(id);
	double busbw_sum = 0;
	long long wrong = 0;
	struct cclt_call c;
	struct cclt_row row;
	uint64_t bytes;
	char what[128];
	int nrows = 0, ret;

	if (x->r->nranks < op->min_ranks) {
		if (!x->r->rank)
			printf("# %s skipped: needs at least %d ranks\n",
			       op->name, op->min_ranks);
		return 0;
	}
	if (!x->r->rank)
		cclt_print_header(x->o, op, x->r->nranks);
	init_call(x, id, cclt_count(x, op, x->o->maxbytes), &c);
	place(x, &c, 0);
	ret = run_n(x, op, &c, x->o->warmup);
	if (ret) {
		snprintf(what, sizeof(what), "%s warm-up", op->name);
		return fail(x, what, ret);
	}
	for (bytes = x->o->minbytes; bytes <= x->o->maxbytes;
	     bytes *= x->o->factor) {
		ret = run_size(x, op, id, bytes, &row);
		if (ret) {
			snprintf(what, sizeof(what), "%s of %llu bytes",
				 op->name, (unsigned long long)bytes);
			return fail(x, what, ret);
		}
		wrong += (row.wrong[0] > 0 ? row.wrong[0] : 0) +
			 (row.wrong[1] > 0 ? row.wrong[1] : 0);
		if (!x->r->rank)
			cclt_print_row(x->o, op, x->r->nranks, &row, &busbw_sum,
				       &nrows);
		ret = plot_row(x, op, &row);
		if (ret)
			return fail(x, "cannot keep the row for --plot", ret);
	}
	if (!x->r->rank)
		cclt_print_footer(busbw_sum, nrows, x->o->check ? wrong : -1);
	x->total_wrong += wrong;
	return 0;
}

int cclt_rank_main(const struct cclt_opts *o, const struct cclt_rank *r)
{
	struct rank_ctx x = { .o = o, .r = r };
	struct cclt_plot plot;
	char title[256];
	int ret, i;

	ret = cclt_validate(o, r->nranks);
	if (ret)
		return ret;
	if (o->plot_path && !r->rank) {
		snprintf(title, sizeof(title),
			 CCLT_PROG ": %d ranks, %s, bus bandwidth", r->nranks,
			 cclt_dtype_name(o->dtype));
		cclt_plot_init(&plot, title);
		x.plot = &plot;
	}
	ret = setup(&x);
	if (!ret && !r->rank)
		printf("# %s: libhpuccl %s, %d ranks, rank 0 on hpu%d (pid %d)\n",
		       CCLT_PROG, hpuccl_version(), r->nranks, r->device,
		       (int)getpid());
	for (i = 0; !ret && i < CCLT_NUM_OPS; i++)
		if (o->ops & (1U << i))
			ret = run_op(&x, i);
	teardown(&x, ret != 0);
	if (x.plot) {
		if (!ret)
			ret = plot_write(&x);
		cclt_plot_free(x.plot);
	}
	fflush(stdout);
	if (ret)
		return CCLT_EXIT_FAIL;
	return x.total_wrong ? CCLT_EXIT_FAIL : CCLT_EXIT_OK;
}
