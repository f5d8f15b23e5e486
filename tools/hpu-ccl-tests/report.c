// SPDX-License-Identifier: MIT
/*
 * report.c - rank 0's table, in nccl-tests' columns: size and count of
 * the buffer, type, reduction, root, then per form (out of place, in
 * place) the slowest rank's time per call, the algorithm bandwidth
 * (size / time), the bus bandwidth (algbw times the collective's factor)
 * and the wrong elements over all ranks, and last the time and bus
 * bandwidth the timing model gives the same call on real cards (--model,
 * docs/timing-model.md; N/A for collectives it has no figure for). Every
 * line is flushed as it is printed.
 */
#include <errno.h>
#include <stdio.h>

#include "ccltests.h"

double cclt_busbw(const struct cclt_op *op, int nranks,
		  const struct cclt_row *row, int in_place)
{
	double t = row->time_us[in_place];

	if (t < 0)
		return -1.0;
	/* bytes per microsecond / 1000 = GB/s */
	return (t > 0 ? row->bytes / t / 1e3 : 0.0) * op->busbw_factor(nranks);
}

/* hpu-ccl-tests' collectives that the timing model estimates */
static int model_op(enum cclt_op_id op, enum hpusim_tm_coll_op *out)
{
	switch (op) {
	case CCLT_ALLREDUCE:
		*out = HPUSIM_TM_ALLREDUCE;
		return 0;
	case CCLT_ALLGATHER:
		*out = HPUSIM_TM_ALLGATHER;
		return 0;
	case CCLT_REDUCE_SCATTER:
		*out = HPUSIM_TM_REDUCE_SCATTER;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

int cclt_model_ns(const struct cclt_opts *o, enum cclt_op_id op, int nranks,
		  uint64_t bytes, uint64_t *ns)
{
	struct hpusim_tm_coll c = { .bytes = bytes };

	if (!o->model || nranks < 1 || model_op(op, &c.op))
		return -EOPNOTSUPP;
	c.ranks = (uint32_t)nranks;
	return hpusim_tm_coll_ns(o->model, &c, ns) ? -EOPNOTSUPP : 0;
}

/* the time and busbw columns of the model for @row, or N/A */
static void print_model(const struct cclt_opts *o, const struct cclt_op *op,
			int nranks, const struct cclt_row *row)
{
	struct hpusim_tm_coll c = { .bytes = row->bytes };
	uint64_t ns;

	if (!o->model)
		return;
	if (cclt_model_ns(o, cclt_op_lookup(op->name), nranks, row->bytes,
			  &ns)) {
		printf("  %10s %8s", "N/A", "N/A");
		return;
	}
	model_op(cclt_op_lookup(op->name), &c.op);
	c.ranks = (uint32_t)nranks;
	printf("  %10.1f %8.3f", ns / 1e3, hpusim_tm_busbw_gbps(&c, ns));
}

void cclt_print_header(const struct cclt_opts *o, const struct cclt_op *op,
		       int nranks)
{
	const char *m = o->model ? o->model->name : NULL;

	printf("#\n# %s: %d ranks, %s, redop %s, root %d, %llu..%llu bytes "
	       "x%llu, %ld iterations, %ld warm-up, check %d\n#\n",
	       op->name, nranks, cclt_dtype_name(o->dtype),
	       op->reduces ? cclt_redop_name(o->redop) : "none",
	       op->rooted ? o->root : -1, (unsigned long long)o->minbytes,
	       (unsigned long long)o->maxbytes, (unsigned long long)o->factor,
	       o->iters, o->warmup, o->check);
	if (m)
		printf("# modeled: one call on %d %s cards (%s) by the timing "
		       "model, docs/timing-model.md\n#\n",
		       nranks, m, o->model->card);
	printf("# %12s %13s %9s %6s %5s  %36s  %36s", "", "", "", "", "",
	       "out-of-place", "in-place");
	if (m)
		printf("  %12s %6s", m, "model");
	printf("\n# %12s %13s %9s %6s %5s  %10s %8s %8s %7s  %10s %8s %8s %7s",
	       "size", "count", "type", "redop", "root", "time", "algbw",
	       "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
	if (m)
		printf("  %10s %8s", "time", "busbw");
	printf("\n# %12s %13s %9s %6s %5s  %10s %8s %8s %7s  %10s %8s %8s %7s",
	       "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
	       "(us)", "(GB/s)", "(GB/s)", "");
	if (m)
		printf("  %10s %8s", "(us)", "(GB/s)");
	printf("\n");
	fflush(stdout);
}

void cclt_print_row(const struct cclt_opts *o, const struct cclt_op *op,
		    int nranks, const struct cclt_row *row, double *sum, int *n)
{
	double algbw, busbw;
	char wrong[24];
	int p;

	printf("  %12llu %13llu %9s %6s %5d", (unsigned long long)row->bytes,
	       (unsigned long long)row->count, cclt_dtype_name(o->dtype),
	       op->reduces ? cclt_redop_name(o->redop) : "none",
	       op->rooted ? o->root : -1);
	for (p = 0; p < 2; p++) {
		if (row->time_us[p] < 0) {
			printf("  %10s %8s %8s %7s", "N/A", "N/A", "N/A",
			       "N/A");
			continue;
		}
		/* bytes per microsecond / 1000 = GB/s */
		algbw = row->time_us[p] > 0 ?
				row->bytes / row->time_us[p] / 1e3 :
				0.0;
		busbw = cclt_busbw(op, nranks, row, p);
		*sum += busbw;
		(*n)++;
		if (row->wrong[p] < 0)
			snprintf(wrong, sizeof(wrong), "N/A");
		else
			snprintf(wrong, sizeof(wrong), "%lld", row->wrong[p]);
		printf("  %10.1f %8.3f %8.3f %7s", row->time_us[p], algbw,
		       busbw, wrong);
	}
	print_model(o, op, nranks, row);
	printf("\n");
	fflush(stdout);
}

void cclt_print_footer(double busbw_sum, int n, long long wrong)
{
	if (wrong < 0)
		printf("# Wrong elements : not checked\n");
	else
		printf("# Wrong elements : %lld %s\n", wrong,
		       wrong ? "FAILED" : "OK");
	printf("# Avg bus bandwidth : %.3f\n#\n", n ? busbw_sum / n : 0.0);
	fflush(stdout);
}
